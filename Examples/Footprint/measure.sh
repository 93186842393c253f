#!/usr/bin/env bash
# What ReachabilityCore adds to a static, stripped program (issue 14): the
# embedding program (watch `internet`, print changes) against a hello world
# built the same way. Prints binary sizes, RSS and threads while waiting,
# and where the added bytes go (symbols of the unstripped build, by module).
#
#   Examples/Footprint/measure.sh [--check MAX_KB]   (root not needed)
#
# --check fails (exit 1) when the stripped size difference exceeds MAX_KB.
set -euo pipefail
cd "$(dirname "$0")"
SWIFT=${SWIFT:-swift}
# --no-export-dynamic: a static Swift link exports every symbol of the
# program's own objects to the dynamic symbol table (for backtraces); a
# firmware build has no use for it (it was 132 KiB of the library's share).
FLAGS=(-c release --static-swift-stdlib -Xswiftc -Osize -Xlinker --gc-sections -Xlinker --no-export-dynamic)
programs=(embed-watch hello)
[ -n "${WITH_PARSER:-}" ] && programs+=(parse-hello)   # make bench-startup
for program in "${programs[@]}"; do "$SWIFT" build "${FLAGS[@]}" --product "$program" >/dev/null; done
bin=$("$SWIFT" build "${FLAGS[@]}" --show-bin-path)
out=.build/measure
mkdir -p "$out"
for program in "${programs[@]}"; do strip -o "$out/$program" "$bin/$program"; done

size_of() { stat -c %s "$1"; }
# RSS (kB) and thread count of a program that waits (given an argument),
# read once it has printed its first line (the embedding program: its
# initial state, so the monitor is running).
running() {
    local log="$out/$(basename "$1").log" pid rss threads
    : > "$log"
    "$1" wait > "$log" &
    pid=$!
    for _ in $(seq 500); do [ -s "$log" ] && break; sleep 0.01; done
    rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
    threads=$(awk '/^Threads/ {print $2}' /proc/$pid/status)
    kill "$pid"; wait "$pid" 2>/dev/null || true
    echo "$rss $threads"
}
read -r hello_rss hello_threads < <(running "$out/hello")
read -r embed_rss embed_threads < <(running "$out/embed-watch")
hello_size=$(size_of "$out/hello")
embed_size=$(size_of "$out/embed-watch")
added_kb=$(( (embed_size - hello_size + 1023) / 1024 ))

printf '%-34s %12s %12s %12s\n' "" "hello" "embed-watch" "added"
printf '%-34s %12d %12d %9d KiB\n' "binary, static, stripped (bytes)" "$hello_size" "$embed_size" "$added_kb"
printf '%-34s %12d %12d %9d KiB\n' "RSS while waiting (kB)" "$hello_rss" "$embed_rss" "$(( embed_rss - hello_rss ))"
printf '%-34s %12d %12d %12d\n' "threads while waiting" "$hello_threads" "$embed_threads" "$(( embed_threads - hello_threads ))"
echo
echo "symbols only in embed-watch, by module (unstripped build):"
python3 bymodule.py "$bin/embed-watch" "$bin/hello"

# ReachabilityCore must not pull in Swift concurrency or Dispatch.
runtimes=$(nm "$bin/embed-watch" | grep -cE " T (swift_task_create|swift_job_run|dispatch_async)$" || true)
echo
echo "Swift concurrency / Dispatch entry points linked into embed-watch: $runtimes"

if [ "${1:-}" = "--check" ]; then
    max=${2:?--check needs MAX_KB}
    if [ "$runtimes" -ne 0 ]; then
        echo "footprint: ReachabilityCore links Swift concurrency or Dispatch" >&2
        exit 1
    fi
    if [ "$added_kb" -gt "$max" ]; then
        echo "footprint: embed-watch adds $added_kb KiB to a static hello world, more than $max KiB" >&2
        exit 1
    fi
    echo "footprint: embed-watch adds $added_kb KiB (at most $max KiB)"
fi
