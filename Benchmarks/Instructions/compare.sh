#!/usr/bin/env bash
# Instructions per call of the decision tables and per evaluation, counted by
# callgrind, for this tree and for git revision REV (default HEAD~1): equal
# code gives equal counts whatever else the machine is doing.
#
#   Benchmarks/Instructions/compare.sh [REV]      (make bench-instructions REV=...)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
rev=${1:-HEAD~1}
command -v valgrind >/dev/null || { echo "compare.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d /tmp/reach-instructions.XXXXXX)
trap 'git -C "$repo" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$repo" worktree add --detach "$work/base" "$rev" >/dev/null 2>&1

count() {   # count BINARY 'MODE [EVALUATIONS]' -> instructions
    # shellcheck disable=SC2086 # MODE and its count are two words
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" $2 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
build() {   # build ROOT NAME -> a stripped decide-loop (callgrind cannot read Swift's debug info)
    local scratch="$work/build-$2"
    REACH_ROOT="$1" swift build -c release --package-path "$here" --scratch-path "$scratch" >/dev/null
    strip -o "$work/decide-loop-$2" "$scratch/release/decide-loop"
    echo "$work/decide-loop-$2"
}
base=$(build "$work/base" base)
this=$(build "$repo" this)
printf '%-14s %16s %16s %8s\n' "" "$rev" "this tree" "change"
for tree in base this; do eval "none_$tree=\$(count \"\$$tree\" none)"; done
for mode in status networkStatus mask accessibility; do
    b=$(( $(count "$base" $mode) - none_base )); t=$(( $(count "$this" $mode) - none_this ))
    awk -v m=$mode -v b=$b -v t=$t -v n=$(( 512 * 20000 )) 'BEGIN { printf "%-14s %16.2f %16.2f %+7.2f%%\n", m, b / n, t / n, (t - b) * 100 / b }'
done
# One evaluation: 4,000 evaluations less 2,000, so that what happens once
# (the evaluator's socket, the process's defaults, the runtime's metadata)
# is not counted per call; then that once-only part on its own.
for tree in base this; do
    eval "two_$tree=\$(count \"\$$tree\" 'evaluate 2000')"; eval "four_$tree=\$(count \"\$$tree\" 'evaluate 4000')"
done
b=$(( four_base - two_base )); t=$(( four_this - two_this ))
awk -v b=$b -v t=$t 'BEGIN { printf "%-14s %16.2f %16.2f %+7.2f%%\n", "evaluate", b / 2000, t / 2000, (t - b) * 100 / b }'
b=$(( two_base - none_base - b )); t=$(( two_this - none_this - t ))
awk -v b=$b -v t=$t 'BEGIN { printf "%-14s %16.0f %16.0f %+7.2f%%\n", "evaluator, once", b, t, (t - b) * 100 / b }'
echo "(instructions per call; per evaluation for evaluate; in all for what an evaluator does once)"
