#!/usr/bin/env bash
# What ReachabilityCore adds to a static, stripped program (issue 14): the
# embedding program (watch `internet`, print changes) against a hello world
# built the same way. Prints binary sizes, RSS and threads while waiting,
# and where the added bytes go (symbols of the unstripped build, by module).
#
#   Tools/Footprint/measure.sh [--check MAX_KB MINIMAL_MAX_BYTES]   (root not needed)
#
# --check fails (exit 1) when the stripped size difference exceeds MAX_KB,
# or that of the minimal build (firmware-flags.sh --minimal) MINIMAL_MAX_BYTES,
# or when the library's descriptions differ in the minimal build, or when
# firmware.order no longer names what the build links (order-check.py).
set -euo pipefail
cd "$(dirname "$0")"
SWIFT=${SWIFT:-swift}
# firmware-flags.sh's flags (OPTION...), one word a line, for mapfile.
flags_of() { ./firmware-flags.sh "$@" | tr ' ' '\n' | grep -v '^$'; }
# The firmware build (firmware.flags), release, for both programs.
mapfile -t FLAGS < <(flags_of)
FLAGS=(-c release "${FLAGS[@]}")
programs=(embed-watch hello hello-collections)
build() { local log; log=$("$SWIFT" build "$@" 2>&1) || { echo "$log" >&2; exit 1; }; }
for program in "${programs[@]}"; do build "${FLAGS[@]}" --product "$program"; done
bin=$("$SWIFT" build "${FLAGS[@]}" --show-bin-path)
out=.build/measure
mkdir -p "$out"
for program in "${programs[@]}"; do strip -o "$out/$program" "$bin/$program"; done
# The minimal firmware build (firmware-flags.sh --minimal: firmware-minimal.flags), size only.
mapfile -t MINIMAL_FLAGS < <(flags_of --minimal)
MINIMAL_FLAGS=(-c release "${MINIMAL_FLAGS[@]}" --scratch-path .build-minimal)
minimal_programs=(embed-watch hello)
[ "${1:-}" = "--check" ] && minimal_programs+=(describe)
for program in "${minimal_programs[@]}"; do
    build "${MINIMAL_FLAGS[@]}" --product "$program"
    strip -o "$out/$program.minimal" "$("$SWIFT" build "${MINIMAL_FLAGS[@]}" --show-bin-path)/$program"
done
if [ -n "${WITH_MODEMS:-}" ]; then   # the firmware article: a program with ReachabilityModemManager
    mapfile -t MODEM_FLAGS < <(flags_of --modem-facts)
    MODEM_FLAGS=(-c release "${MODEM_FLAGS[@]}" --scratch-path .build-modems)
    for program in embed-watch embed-watch-modems hello; do
        build "${MODEM_FLAGS[@]}" --product "$program"
        strip -o "$out/$program.modems" "$("$SWIFT" build "${MODEM_FLAGS[@]}" --show-bin-path)/$program"
    done
fi
if [ -n "${WITH_PARSER:-}" ]; then   # make bench-startup: the hello world that parses as reach does
    mapfile -t PARSER_FLAGS < <(flags_of --foundation)
    PARSER_FLAGS=(-c release "${PARSER_FLAGS[@]}" --scratch-path .build-parser)
    build "${PARSER_FLAGS[@]}" --product parse-hello
    strip -o "$out/parse-hello" "$("$SWIFT" build "${PARSER_FLAGS[@]}" --show-bin-path)/parse-hello"
fi

size_of() { stat -c %s "$1"; }
# RSS, its anonymous part (kB) and thread count of a program that waits
# (given an argument), read once it has printed its first line (the
# embedding program: its initial state, so the monitor is running) and its
# threads sleep.
running() {
    local log="$out/$(basename "$1").log" pid
    : > "$log"
    "$1" wait > "$log" &
    pid=$!
    for _ in $(seq 500); do [ -s "$log" ] && break; sleep 0.01; done
    ./wait-idle.sh "$pid" || true   # what follows the first answer is done too
    awk '/^VmRSS/ {r=$2} /^RssAnon/ {a=$2} /^Threads/ {t=$2} END {print r, a, t}' /proc/$pid/status
    kill "$pid"; wait "$pid" 2>/dev/null || true
}
# The file-backed part of RSS varies from run to run (the kernel maps pages
# around each fault when they are cached): medians of 7 runs, alternating.
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# hello-collections is the hello world that keeps values of its own types in
# an Array, a Dictionary and a Set: the Swift runtime makes their metadata
# at first use, which any such program pays and the hello world does not.
rss_programs=(hello hello-collections embed-watch)
rm -f "$out"/*.rss   # not the samples of a run that was cut short
for program in "${rss_programs[@]}"; do ./evict.sh "$out/$program"; done   # as installed programs start: read from disk
for _ in 1 2 3 4 5 6 7; do
    for program in "${rss_programs[@]}"; do running "$out/$program" >> "$out/$program.rss"; done
done
rss_of() { cut -d' ' -f1 "$out/$1.rss" | median; }
anon_of() { cut -d' ' -f2 "$out/$1.rss" | median; }
threads_of() { cut -d' ' -f3 "$out/$1.rss" | sort -n | tail -1; }
hello_rss=$(rss_of hello); hello_anon=$(anon_of hello); hello_threads=$(threads_of hello)
embed_rss=$(rss_of embed-watch); embed_anon=$(anon_of embed-watch); embed_threads=$(threads_of embed-watch)
collections_rss=$(rss_of hello-collections)
rm -f "$out"/*.rss
hello_size=$(size_of "$out/hello")
embed_size=$(size_of "$out/embed-watch")
added_kb=$(( (embed_size - hello_size + 1023) / 1024 ))
minimal_hello=$(size_of "$out/hello.minimal")
minimal_embed=$(size_of "$out/embed-watch.minimal")
minimal_added=$(( minimal_embed - minimal_hello ))

printf '%-34s %12s %12s %12s\n' "" "hello" "embed-watch" "added"
printf '%-34s %12d %12d %9d KiB\n' "binary, static, stripped (bytes)" "$hello_size" "$embed_size" "$added_kb"
printf '%-34s %12d %12d %9d KiB (%d bytes)\n' "  the minimal build (bytes)" "$minimal_hello" "$minimal_embed" \
    "$(( (minimal_added + 1023) / 1024 ))" "$minimal_added"
printf '%-34s %12d %12d %9d KiB\n' "RSS while waiting (kB, median)" "$hello_rss" "$embed_rss" "$(( embed_rss - hello_rss ))"
printf '%-34s %12d %12d %9d KiB\n' "  of which anonymous (kB, median)" "$hello_anon" "$embed_anon" "$(( embed_anon - hello_anon ))"
printf '%-34s %12d %12d %9d KiB\n' "  hello-collections instead (kB)" "$collections_rss" "$embed_rss" "$(( embed_rss - collections_rss ))"
printf '%-34s %12d %12d %12d\n' "threads while waiting" "$hello_threads" "$embed_threads" "$(( embed_threads - hello_threads ))"
if [ -n "${WITH_MODEMS:-}" ]; then
    modem_hello=$(size_of "$out/hello.modems"); modem_plain=$(size_of "$out/embed-watch.modems")
    modem_embed=$(size_of "$out/embed-watch-modems.modems")
    printf '%-34s %12d %12d %9d KiB\n' "with the modem layer (--modem-facts)" "$modem_hello" "$modem_plain" \
        "$(( (modem_plain - modem_hello + 1023) / 1024 ))"
    printf '%-34s %12d %12d %9d KiB (%d KiB over embed-watch; libsystemd.so.0 shared)\n' "  embed-watch-modems (bytes)" \
        "$modem_hello" "$modem_embed" "$(( (modem_embed - modem_hello + 1023) / 1024 ))" \
        "$(( (modem_embed - embed_size + 1023) / 1024 ))"
fi
echo
echo "symbols only in embed-watch, by module (unstripped build):"
python3 bymodule.py "$bin/embed-watch" "$bin/hello"

# ReachabilityCore must not pull in Swift concurrency or Dispatch.
runtimes=$(nm "$bin/embed-watch" | grep -cE " T (swift_task_create|swift_job_run|dispatch_async)$" || true)
echo
echo "Swift concurrency / Dispatch entry points linked into embed-watch: $runtimes"
# Nor Glibc's Swift overlay: one object, so a single use (its `errno`, its
# variadic `ioctl`) links all of it, with wrappers of 90 libm functions.
overlay=$(nm "$bin/embed-watch" | grep -c ' [tTdDbBrR] \$s5Glibc' || true)
echo "symbols of Glibc's Swift overlay linked into embed-watch: $overlay"

if [ "${1:-}" = "--check" ]; then
    max=${2:?--check needs MAX_KB}
    minimal_max=${3:?--check needs MINIMAL_MAX_BYTES}
    # The minimal build has no reflection metadata and drops unused runtime
    # records: the library's descriptions must not need either (describe
    # prints them all; a normal build of it is the reference).
    build --product describe
    if ! diff -u <("$("$SWIFT" build --show-bin-path)/describe") <("$out/describe.minimal") > "$out/describe.diff"; then
        cat "$out/describe.diff" >&2
        echo "footprint: a description differs in the minimal build (above: -normal, +minimal)" >&2
        exit 1
    fi
    echo "footprint: describe prints the same $("$out/describe.minimal" | wc -l) lines in a normal and in the minimal build"
    if [ "$minimal_added" -gt "$minimal_max" ]; then
        echo "footprint: the minimal build of embed-watch adds $minimal_added bytes, more than $minimal_max" >&2
        exit 1
    fi
    echo "footprint: the minimal build of embed-watch adds $minimal_added bytes (at most $minimal_max)"
    # The ordering file must name what the build links (order-check.py): one
    # just written misses about 10 % of its library functions here (those
    # only the static `reach`, its fourth program, has), the one that rotted 28 %.
    python3 order-check.py firmware.order 15 "$bin/embed-watch" "$bin/hello" "$bin/hello-collections" || exit 1
    if [ "$runtimes" -ne 0 ]; then
        echo "footprint: ReachabilityCore links Swift concurrency or Dispatch" >&2
        exit 1
    fi
    if [ "$overlay" -ne 0 ]; then
        echo "footprint: ReachabilityCore links Glibc's Swift overlay (read errno with SystemErrno.current, call variadic C functions through CReachability)" >&2
        exit 1
    fi
    if [ "$added_kb" -gt "$max" ]; then
        echo "footprint: embed-watch adds $added_kb KiB to a static hello world, more than $max KiB" >&2
        exit 1
    fi
    echo "footprint: embed-watch adds $added_kb KiB (at most $max KiB)"
fi
