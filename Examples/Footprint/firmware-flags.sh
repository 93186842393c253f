#!/bin/sh
# Prints the firmware build's flags (firmware.flags, without its comments),
# for `swift build`:
#
#   swift build -c release --product my-gateway $(Examples/Footprint/firmware-flags.sh)
#
# --foundation leaves out the flags that a program cannot have when it links
# Foundation or Dispatch (swift-argument-parser brings FoundationEssentials):
# witness and vtable elimination, with which its link fails (undefined
# dispatch thunks of the prebuilt modules). `make static` builds `reach` with it.
#
# --minimal adds firmware-minimal.flags: no reflection metadata, and runtime
# records only for what the program uses (smaller; read that file for the price).
#
# When firmware.order is beside it (a symbol ordering file: the functions the
# library runs to its first answer, and the runtime's and standard library's
# that it calls), it adds lld's flags that place those functions together
# (the file's path must not hold a space). lld does not tell when a build's
# functions are missing from the file, and `swift build` does not link again
# when only the file changed: delete the program to link it with a new one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
    "") grep -v '^#' "$here/firmware.flags" ;;
    --foundation) grep -v '^#' "$here/firmware.flags" | grep -v -e '-enable-llvm-wme' -e '-enable-llvm-vfe' ;;
    --minimal) cat "$here/firmware.flags" "$here/firmware-minimal.flags" | grep -v "^#" ;;
    *) echo "usage: $0 [--foundation | --minimal]" >&2; exit 2 ;;
esac
if [ -f "$here/firmware.order" ]; then
    echo "-Xlinker --symbol-ordering-file=$here/firmware.order -Xlinker --no-warn-symbol-ordering"
fi
