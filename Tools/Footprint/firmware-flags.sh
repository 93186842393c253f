#!/bin/sh
# Prints the firmware build's flags (firmware.flags, without its comments),
# for `swift build`:
#
#   swift build -c release --product my-gateway $(Tools/Footprint/firmware-flags.sh)
#
# --foundation leaves out the flags that a program cannot have when it links
# Foundation or Dispatch (swift-argument-parser brings FoundationEssentials):
# witness and vtable elimination, with which its link fails (undefined
# dispatch thunks of the prebuilt modules); and REACH_NO_MODEM_FACTS, since
# those programs follow ModemManager (`reach modems`, `--radio modemmanager`).
# `make static` builds `reach` with it.
#
# --minimal adds firmware-minimal.flags: no reflection metadata, and runtime
# records only for what the program uses (smaller; read that file for the price).
#
# --modem-facts leaves out REACH_NO_MODEM_FACTS, for a firmware program that
# uses the ReachabilityModemManager product (whose facts need the layer).
#
# When firmware.order is beside it (a symbol ordering file: the functions the
# library runs to its first answer and on link, address and route changes, and
# the runtime's and standard library's that it calls; order.sh writes it), it
# adds lld's flags that place those functions together
# (the file's path must not hold a space). lld does not tell when a build's
# functions are missing from the file, and `swift build` does not link again
# when only the file changed: delete the program to link it with a new one.
#
# The link drops the unwind tables (no-unwind-tables.ld, beside it, says why
# and what that costs: nothing a Swift program uses).
#
# libstdc++ (which the Swift runtime needs) is linked statically, as
# firmware.flags does libgcc: the toolchain's link line asks for `-lstdc++`,
# which the linker takes from the first directory of its search path that has
# it, so the script points `-L` at .build-libstdc++/ beside it, where it links
# the archive that clang (or gcc) names: `libstdc++.a` of libstdc++-N-dev,
# which the Swift toolchain needs anyway. A shared libstdc++ costs 0.9 MB of
# RSS in every program (its symbol and relocation tables, read at start);
# the archive adds about 70 KB of what the program uses. Without an archive
# the link keeps the shared library and the script says so.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
    "") grep -v '^#' "$here/firmware.flags" ;;
    --foundation) grep -v '^#' "$here/firmware.flags" | grep -v -e '-enable-llvm-wme' -e '-enable-llvm-vfe' -e 'REACH_NO_MODEM_FACTS' ;;
    --minimal) cat "$here/firmware.flags" "$here/firmware-minimal.flags" | grep -v "^#" ;;
    # A firmware program with the ReachabilityModemManager product: the modem layer kept.
    --modem-facts) grep -v '^#' "$here/firmware.flags" | grep -v -e 'REACH_NO_MODEM_FACTS' ;;
    *) echo "usage: $0 [--foundation | --minimal | --modem-facts]" >&2; exit 2 ;;
esac
echo "-Xlinker -T -Xlinker $here/no-unwind-tables.ld"
if [ -f "$here/firmware.order" ]; then
    echo "-Xlinker --symbol-ordering-file=$here/firmware.order -Xlinker --no-warn-symbol-ordering"
fi
archive=
for cc in clang gcc cc; do
    command -v "$cc" > /dev/null || continue
    archive=$("$cc" -print-file-name=libstdc++.a)
    [ -f "$archive" ] && break
    archive=
done
if [ -n "$archive" ]; then
    # Linked once: .ci/run builds several programs at once, and each make
    # runs this script; re-linking would take the archive away for a moment
    # from a linker that reads it.
    if [ "$(readlink "$here/.build-libstdc++/libstdc++.a" 2>/dev/null)" != "$archive" ]; then
        mkdir -p "$here/.build-libstdc++"
        ln -sf "$archive" "$here/.build-libstdc++/libstdc++.a"
    fi
    echo "-Xlinker -L$here/.build-libstdc++"
else
    echo "firmware-flags.sh: no libstdc++.a (install libstdc++-12-dev): libstdc++ stays shared" >&2
fi
