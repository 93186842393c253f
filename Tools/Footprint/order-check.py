#!/usr/bin/env python3
# Whether firmware.order still names the functions the firmware build has
# (issue 41: it rotted silently once, as symbols moved to ReachabilityModel
# and lld does not tell when an ordering file names nothing it links).
#
#   Tools/Footprint/order-check.py ORDER MAX_MISSING_PERCENT PROGRAM...
#
# Counts the library's symbols (ReachabilityCore, ReachabilityModel,
# CReachability) that ORDER lists and none of the unstripped PROGRAMs has,
# and fails (exit 1) when they are more than MAX_MISSING_PERCENT of them: then
# `make firmware-order` writes it again. A few may differ from one build to
# the next (the numbered copies LTO makes of a private helper), so the bound
# is a share, not zero.
import subprocess
import sys


def library(symbol):
    return symbol.startswith(("$s16ReachabilityCore", "$s17ReachabilityModel", "creach_"))


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: order-check.py ORDER MAX_MISSING_PERCENT PROGRAM...")
    order_path, bound, programs = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    with open(order_path, encoding="utf-8") as f:
        ordered = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    linked = set()
    for program in programs:
        listing = subprocess.run(["nm", program], capture_output=True, text=True, check=True).stdout
        linked.update(fields[-1] for fields in (line.split() for line in listing.splitlines()) if fields)
    ours = [symbol for symbol in ordered if library(symbol)]
    missing = [symbol for symbol in ours if symbol not in linked]
    share = 100.0 * len(missing) / len(ours) if ours else 100.0
    print(f"firmware.order: {len(ordered)} functions, {len(ours)} of the library's, "
          f"{len(missing)} of them not in the firmware build ({share:.1f} %, at most {bound:g} %)")
    if share > bound:
        for symbol in missing[:20]:
            print(f"  not linked: {symbol}", file=sys.stderr)
        print("footprint: firmware.order is stale; write it again with `make firmware-order` (root)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
