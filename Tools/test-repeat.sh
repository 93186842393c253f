#!/usr/bin/env bash
# The whole suite (`make test`'s two runs: XCTest, then Swift Testing), N
# times in a row on one build, optionally while the machine is loaded, and
# every test that failed at least once, with how often (issue 39: a flaky
# test is a defect report, so this is how they are found).
#
#   Tools/test-repeat.sh [-n RUNS] [--load] [--keep DIR] [--bundle XCTEST] [-- XCTEST-FILTER...]
#
# --load runs `stress-ng --cpu 2 --io 1` beside the suite (as CI's sanitizer
# build loads the machine), stopped on any exit. The test bundle is copied to
# a directory of its own first, so the checkout can be rebuilt while it runs.
# Each run's output is kept in the log directory (--keep, else a temporary
# one that is removed when no run failed). --bundle repeats a test bundle
# built before (another revision's) instead of building this one. Exit status: 0 when every run of
# every test passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=20 load=0 keep= bundle=
while [ $# -gt 0 ]; do
    case $1 in
        -n) runs=$2; shift 2 ;;
        --load) load=1; shift ;;
        --keep) keep=$2; shift 2 ;;
        --bundle) bundle=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "test-repeat: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
    esac
done
case $runs in ''|*[!0-9]*) echo "test-repeat: -n takes a whole number" >&2; exit 2 ;; esac

if [ -z "$bundle" ]; then
    swift build --build-tests || exit 2
    bundle=$(swift build --show-bin-path)/swift-reachabilityPackageTests.xctest
fi
work=$(mktemp -d /tmp/reach-repeat.XXXXXX) || exit 2
logs=${keep:-$work/logs}
mkdir -p "$logs" || exit 2
# The tests run the programs built beside the bundle (reach, the compat examples).
find "$(dirname "$bundle")" -maxdepth 1 -type f -perm -u+x -exec cp {} "$work/" \; || exit 2
mv "$work/$(basename "$bundle")" "$work/tests.xctest" || exit 2

stress=
cleanup() {
    [ -n "$stress" ] && kill -- "-$stress" 2>/dev/null
    [ -n "$stress" ] && wait "$stress" 2>/dev/null
    find "$work" -maxdepth 1 -type f -delete
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$load" = 1 ]; then
    if ! command -v stress-ng >/dev/null; then
        echo "test-repeat: installing stress-ng"
        $( [ "$(id -u)" = 0 ] || echo sudo ) apt-get install -y -qq stress-ng >/dev/null || exit 2
    fi
    # Its own process group, so that the whole of it stops with the script.
    setsid stress-ng --cpu 2 --io 1 --quiet &
    stress=$!
    echo "test-repeat: stress-ng --cpu 2 --io 1 (pid $stress) beside the suite"
fi

# The names of the tests that failed in one run's output: XCTest's
# "Test Case 'Suite.test' failed" and Swift Testing's "✘ Test name() failed",
# plus a crash (no summary line at all).
failures() {
    sed -n -e "s/^Test Case '\([^']*\)' failed.*/\1/p" -e 's/^.*✘ Test \(.*\) failed.*/\1/p' "$1"
}

failed_runs=0
start=$(date +%s)
for run in $(seq 1 "$runs"); do
    log=$logs/run-$run.log
    t0=$(date +%s)
    { "$work/tests.xctest" "$@"; echo "xctest exit $?"
      "$work/tests.xctest" --testing-library swift-testing; echo "swift-testing exit $?"; } > "$log" 2>&1
    names=$(failures "$log" | sort -u)
    status=ok
    if [ -n "$names" ] || ! grep -q "^xctest exit 0" "$log" || ! grep -q "^swift-testing exit 0" "$log"; then
        status=FAILED
        failed_runs=$((failed_runs + 1))
        [ -z "$names" ] && names="(a crash or an error outside any test: see $log)"
        printf '%s\n' "$names" >> "$work/failed"
    fi
    echo "test-repeat: run $run/$runs $status in $(( $(date +%s) - t0 )) s${names:+: $(echo "$names" | paste -sd, -)}"
done

echo "test-repeat: $runs runs in $(( $(date +%s) - start )) s$([ "$load" = 1 ] && echo ", loaded"), $failed_runs with a failure"
if [ "$failed_runs" -gt 0 ]; then
    echo "test-repeat: tests that failed at least once (runs failed):"
    sort "$work/failed" | uniq -c | sort -rn | sed 's/^/  /'
    echo "test-repeat: logs in $logs"
    exit 1
fi
[ -z "$keep" ] && rm -rf "$work"
exit 0
