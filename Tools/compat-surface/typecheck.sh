#!/usr/bin/env bash
# Type-checks Swift files as a client of the built compat modules would
# compile them: each file alone, against `swift build`'s modules, in the
# Swift language mode given (5 or 6; both by default).
#
#   Tools/compat-surface/typecheck.sh [--mode 5|6] FILE...
#
# Exit status 0 when every file type-checks in every mode asked for.
set -uo pipefail
cd "$(dirname "$0")/../.."
modes="5 6"
if [ "${1:-}" = --mode ]; then modes=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: $0 [--mode 5|6] FILE..." >&2; exit 2; }
bin=$(swift build --show-bin-path) || exit 2
[ -d "$bin/Modules" ] || { echo "typecheck: no modules in $bin: run swift build first" >&2; exit 2; }
maps=()
for map in $(find "$bin" -maxdepth 2 -name module.modulemap); do maps+=(-Xcc "-fmodule-map-file=$map"); done
status=0
for file in "$@"; do
    for mode in $modes; do
        if ! out=$(swiftc -typecheck -swift-version "$mode" -I "$bin/Modules" "${maps[@]}" \
                -Xcc -ICSupport/include -Xcc -ISources/CLibcap "$file" 2>&1); then
            echo "typecheck: $file (Swift $mode) fails:"; echo "$out" | grep -E "error" | head -20
            status=1
        fi
    done
done
exit $status
