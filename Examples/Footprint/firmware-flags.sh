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
set -eu
flags=$(dirname "$0")/firmware.flags
if [ "${1:-}" = "--foundation" ]; then
    grep -v '^#' "$flags" | grep -v -e '-enable-llvm-wme' -e '-enable-llvm-vfe'
else
    grep -v '^#' "$flags"
fi
