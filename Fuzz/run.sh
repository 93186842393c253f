#!/usr/bin/env bash
# Fuzz/run.sh - build and run the libFuzzer harnesses of the C parsers.
#
#   Fuzz/run.sh [SECONDS] [HARNESS...]   fuzz each harness SECONDS (default 60)
#   Fuzz/run.sh --smoke [HARNESS...]     CI smoke: 10 s each
#   Fuzz/run.sh --regress [HARNESS...]   run the committed corpus once, no fuzzing
#   Fuzz/run.sh --build [HARNESS...]     build only
#   Fuzz/run.sh --sources [HARNESS...]   print "HARNESS SOURCE..." lines (Tools/ccore-cross.sh)
#
# Harnesses: netlink uevent http dns icmp idrange (default: all).
# Binaries go to .build-fuzz/bin. Each harness fuzzes a COPY of its committed
# corpus (.build-fuzz/corpus/<harness>, kept between runs; Fuzz/corpus is never
# written), with Fuzz/dict/<harness>.dict when present. A crash, leak, timeout
# or OOM is kept in .build-fuzz/crashes/<harness>/ and makes the script exit 1.
# Environment: CLANG (compiler), FUZZ_OUT (instead of .build-fuzz),
# FUZZ_SMOKE_SECONDS (default 10), FUZZ_JOBS (harnesses built in parallel).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${FUZZ_OUT:-$ROOT/.build-fuzz}
ALL=(netlink uevent http dns icmp idrange)

# The CSupport sources each harness links (caps.c, which needs libcap, never).
# netlink.c #includes link.c and route.c itself, to reach their static reply
# handlers; those need the socket layer's symbols to link, never to run.
sources() {
    case $1 in
    netlink) echo CSupport/netlink_parse.c CSupport/netlink_socket.c CSupport/netns.c CSupport/netns_enter.c ;;
    uevent) echo CSupport/sysfs.c CSupport/carriers.c CSupport/netns.c CSupport/netns_enter.c ;;
    http | dns | icmp | idrange) echo CSupport/probe_parse.c ;;
    *) echo "run.sh: unknown harness '$1' (one of: ${ALL[*]})" >&2; return 1 ;;
    esac
}

usage() { sed -n '2,17s/^# \{0,1\}//p' "$0"; }

mode=fuzz
seconds=60
case ${1:-} in
--smoke) mode=fuzz; seconds=${FUZZ_SMOKE_SECONDS:-10}; shift ;;
--regress) mode=regress; shift ;;
--build) mode=build; shift ;;
--sources)
    shift
    [ $# -gt 0 ] || set -- "${ALL[@]}"
    for h in "$@"; do srcs=$(sources "$h") || exit 2; echo "$h $srcs"; done
    exit 0
    ;;
-h | --help) usage; exit 0 ;;
'' | *[!0-9]*) ;;
*) seconds=$1; shift ;;
esac
if [ $# -gt 0 ]; then harnesses=("$@"); else harnesses=("${ALL[@]}"); fi
for h in "${harnesses[@]}"; do sources "$h" >/dev/null; done

# The compiler: $CLANG, else the Swift toolchain's clang, else clang on PATH.
if [ -n "${CLANG:-}" ]; then
    cc=$CLANG
elif [ -x /opt/swift/usr/bin/clang ]; then
    cc=/opt/swift/usr/bin/clang
elif command -v clang >/dev/null; then
    cc=$(command -v clang)
else
    echo "run.sh: no clang (set CLANG)" >&2
    exit 2
fi

mkdir -p "$OUT/bin" "$OUT/obj" "$OUT/logs"
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -D_GNU_SOURCE -I CSupport/include -I CSupport -Wall -Wextra -Wno-unused-parameter)
# lld when the toolchain has it: quieter than gold with the sanitizer runtimes.
probe=$OUT/obj/probe
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
if "$cc" -fuse-ld=lld -fsanitize=fuzzer "$probe.c" -o "$probe" >/dev/null 2>&1; then
    flags+=(-fuse-ld=lld)
elif ! "$cc" -fsanitize=fuzzer "$probe.c" -o "$probe" >"$probe.log" 2>&1; then
    echo "run.sh: $cc cannot link -fsanitize=fuzzer (no libFuzzer runtime?):" >&2
    cat "$probe.log" >&2
    exit 2
fi

build() {
    local h=$1 log=$OUT/logs/$1.build.log
    # shellcheck disable=SC2046
    if ! "$cc" "${flags[@]}" "Fuzz/$h.c" $(sources "$h") -pthread -o "$OUT/bin/$h" >"$log" 2>&1; then
        echo "run.sh: building $h failed:" >&2
        cat "$log" >&2
        return 1
    fi
    if grep -q 'warning:' "$log"; then grep 'warning:' "$log" >&2; fi
}

echo "building ${harnesses[*]} with $cc"
pids=()
for h in "${harnesses[@]}"; do
    build "$h" &
    pids+=($!)
    if [ ${#pids[@]} -ge "${FUZZ_JOBS:-2}" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
[ "$mode" = build ] && exit 0

failed=0
summary=()
start_all=$(date +%s)
for h in "${harnesses[@]}"; do
    corpus=$OUT/corpus/$h
    crashes=$OUT/crashes/$h
    log=$OUT/logs/$h.log
    mkdir -p "$corpus" "$crashes"
    seeds=$(find "Fuzz/corpus/$h" -type f | wc -l)
    cp -n "Fuzz/corpus/$h"/* "$corpus"/ 2>/dev/null || true
    # Value profiling turns size comparisons (a name or kind at its limit) into
    # coverage; keep_seed keeps the committed edge cases in the corpus.
    args=(-timeout=5 -rss_limit_mb=2048 -use_value_profile=1 -keep_seed=1 -print_final_stats=1
          "-artifact_prefix=$crashes/")
    [ -f "Fuzz/dict/$h.dict" ] && args+=("-dict=Fuzz/dict/$h.dict")
    t0=$(date +%s)
    if [ "$mode" = regress ]; then
        # Every committed input once; libFuzzer runs files given as arguments.
        set +e
        "$OUT/bin/$h" "${args[@]}" Fuzz/corpus/"$h"/* >"$log" 2>&1
        rc=$?
        set -e
    else
        set +e
        "$OUT/bin/$h" "${args[@]}" -max_total_time="$seconds" "$corpus" >"$log" 2>&1
        rc=$?
        set -e
    fi
    t1=$(date +%s)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    files=$(find "$corpus" -type f | wc -l)
    [ "$mode" = regress ] && files=$seeds
    status=ok
    if [ "$rc" -ne 0 ]; then
        status="FAILED (exit $rc)"
        failed=1
    fi
    line=$(printf '%-8s runs=%-9s cov=%-5s ft=%-5s corpus=%s (seeds %s) %ss %s' \
        "$h" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$files" "$seeds" "$((t1 - t0))" "$status")
    echo "$line"
    summary+=("$line")
    if [ "$rc" -ne 0 ]; then
        grep -E 'ERROR: |invariant violated|SUMMARY: ' "$log" | head -5 | sed 's/^/    /' || true
        grep -o 'Test unit written to .*' "$log" | sed 's/^Test unit written to /    reproducer: /' || true
        echo "    log: $log"
    fi
done

echo
echo "== fuzz summary ($(($(date +%s) - start_all))s) =="
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
    echo "run.sh: a harness failed; reproduce with: $OUT/bin/<harness> <reproducer>" >&2
    exit 1
fi
