#!/usr/bin/env bash
# Tools/ccore-cross.sh - the C core's own tests and the fuzz corpora, run on
# other architectures under qemu-user (Fuzz/README.md, "Other architectures").
#
#   Tools/ccore-cross.sh [ARCH...]   build and run (default: all of them)
#   Tools/ccore-cross.sh --check [ARCH...]   only say what is missing (exit 2)
#
# Architectures: x86_64 (the reference), s390x (64-bit big-endian), armhf
# (32-bit: size_t, long and time_t of 4 bytes), armhf-time64 (armhf with
# -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64, as Debian trixie builds it), arm64.
# Each is built with gcc (the host's for the host's architecture, else
# Debian's cross compiler) into .build-ccore/ARCH/, one compile at a time:
#   ccore-tests       Tests/CCore/ccore_tests.c with every CSupport source but
#                     caps.c (libcap), so the whole core compiles with -Werror
#   replay-HARNESS    Fuzz/HARNESS.c and Fuzz/replay_main.c with the sources
#                     Fuzz/run.sh links (Fuzz/run.sh --sources)
# with -std=gnu11 -O1 -Wall -Wextra -Werror -D_GNU_SOURCE (the product's one
# define; no -fno-strict-aliasing, which its build does not use). They run
# under qemu-ARCH-static -L /usr/TRIPLE (natively on the host's own
# architecture): the tests' summary line and "replayed K inputs of HARNESS"
# (every file of Fuzz/corpus/HARNESS) are printed per architecture, the rest
# goes to .build-ccore/ARCH/logs/.
#
# Exit status: 0 when every architecture passed; 1 when one failed (the
# failing part's log is printed); 2 when a compiler, its C library or kernel
# headers, or qemu is missing: the message names the apt package (`make
# setup-ccore-cross` installs them all). It installs nothing itself.
# Environment: CCORE_OUT (instead of .build-ccore).
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${CCORE_OUT:-$ROOT/.build-ccore}
ALL=(x86_64 s390x armhf armhf-time64 arm64)

usage() { sed -n '2,28s/^# \{0,1\}//p' "$0"; }

# ARCH -> Debian's triple, Debian's architecture name (package suffixes),
# qemu's name, extra flags.
describe() {
    extra=
    case $1 in
    x86_64) triple=x86_64-linux-gnu deb=amd64 qemu=x86_64 ;;
    s390x) triple=s390x-linux-gnu deb=s390x qemu=s390x ;;
    armhf) triple=arm-linux-gnueabihf deb=armhf qemu=arm ;;
    armhf-time64) triple=arm-linux-gnueabihf deb=armhf qemu=arm extra="-D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64" ;;
    arm64) triple=aarch64-linux-gnu deb=arm64 qemu=aarch64 ;;
    *) echo "ccore-cross.sh: unknown architecture '$1' (one of: ${ALL[*]})" >&2; return 1 ;;
    esac
    # The host's own architecture runs natively with the host's gcc.
    native=0
    if [ "$deb" = "$(dpkg --print-architecture 2>/dev/null || echo none)" ]; then
        native=1
    fi
}

# Sets cc and run (the command prefix that runs a binary), or lists what is
# missing in $missing as "what (package)" lines.
resolve() {
    describe "$1" || exit 2
    if [ "$native" = 1 ]; then
        cc=gcc
        run=()
        incdir=/usr/include
        command -v gcc >/dev/null || missing+="  $1: gcc (apt package gcc)"$'\n'
        [ -f $incdir/stdio.h ] || missing+="  $1: the C library's headers (apt package libc6-dev)"$'\n'
        [ -f $incdir/linux/rtnetlink.h ] || missing+="  $1: the kernel's headers (apt package linux-libc-dev)"$'\n'
        return
    fi
    cc=$triple-gcc
    run=("qemu-$qemu-static" -L "/usr/$triple")
    incdir=/usr/$triple/include
    command -v "$cc" >/dev/null ||
        missing+="  $1: $cc (apt package gcc-${triple//_/-})"$'\n'
    [ -f "$incdir/stdio.h" ] ||
        missing+="  $1: the C library for $triple (apt package libc6-dev-$deb-cross)"$'\n'
    [ -f "$incdir/linux/rtnetlink.h" ] ||
        missing+="  $1: the kernel's headers for $triple (apt package linux-libc-dev-$deb-cross)"$'\n'
    command -v "qemu-$qemu-static" >/dev/null ||
        missing+="  $1: qemu-$qemu-static (apt package qemu-user-static)"$'\n'
}

check_only=0
case ${1:-} in
-h | --help) usage; exit 0 ;;
--check) check_only=1; shift ;;
esac
if [ $# -gt 0 ]; then arches=("$@"); else arches=("${ALL[@]}"); fi

missing=
for a in "${arches[@]}"; do resolve "$a"; done
if [ -n "$missing" ]; then
    printf 'ccore-cross.sh: missing:\n%s' "$missing" >&2
    echo "ccore-cross.sh: install them with 'make setup-ccore-cross' (or apt-get install the packages named)" >&2
    exit 2
fi
[ "$check_only" = 1 ] && exit 0

# Harness -> its CSupport sources, from Fuzz/run.sh (one list for both).
declare -A harness_sources
harnesses=()
while read -r h srcs; do
    harnesses+=("$h")
    harness_sources[$h]=$srcs
done < <(Fuzz/run.sh --sources) || exit 1
[ ${#harnesses[@]} -gt 0 ] || { echo "ccore-cross.sh: Fuzz/run.sh --sources listed no harness" >&2; exit 1; }
core=()
for f in CSupport/*.c; do
    [ "$f" = CSupport/caps.c ] || core+=("$f")
done

# A guest that dies of a signal leaves no qemu_*.core files behind.
ulimit -c 0

# Build and run one architecture. Returns 0 or 1.
one_arch() {
    local arch=$1 dir=$OUT/$1 log obj o f h bin
    local -a flags objs hobjs
    resolve "$arch"
    rm -rf "$dir"
    mkdir -p "$dir/obj" "$dir/logs"
    # shellcheck disable=SC2206
    flags=(-std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I CSupport/include -I CSupport $extra)
    log=$dir/logs/build.log
    : >"$log"

    # Each source compiled once (serially), then linked per program.
    compile() {   # SOURCE OBJECT [FLAGS...]
        local src=$1 object=$2
        shift 2
        echo "$cc ${flags[*]} $* -c $src -o $object" >>"$log"
        "$cc" "${flags[@]}" "$@" -c "$src" -o "$object" >>"$log" 2>&1
    }
    for f in "${core[@]}" Fuzz/replay_main.c; do
        o=$dir/obj/$(basename "${f%.c}").o
        compile "$f" "$o" || { echo "$arch: building $f failed:"; cat "$log"; return 1; }
    done
    compile Tests/CCore/ccore_tests.c "$dir/obj/ccore_tests.o" "-DCCORE_ARCH=\"$arch\"" ||
        { echo "$arch: building Tests/CCore/ccore_tests.c failed:"; cat "$log"; return 1; }
    objs=("$dir/obj/ccore_tests.o")
    for f in "${core[@]}"; do objs+=("$dir/obj/$(basename "${f%.c}").o"); done
    "$cc" "${objs[@]}" -pthread -o "$dir/ccore-tests" >>"$log" 2>&1 ||
        { echo "$arch: linking ccore-tests failed:"; cat "$log"; return 1; }
    for h in "${harnesses[@]}"; do
        compile "Fuzz/$h.c" "$dir/obj/harness-$h.o" ||
            { echo "$arch: building Fuzz/$h.c failed:"; cat "$log"; return 1; }
        hobjs=("$dir/obj/harness-$h.o" "$dir/obj/replay_main.o")
        for f in ${harness_sources[$h]}; do hobjs+=("$dir/obj/$(basename "${f%.c}").o"); done
        "$cc" "${hobjs[@]}" -pthread -o "$dir/replay-$h" >>"$log" 2>&1 ||
            { echo "$arch: linking replay-$h failed:"; cat "$log"; return 1; }
    done

    local status=0 rc
    bin=$dir/ccore-tests
    "${run[@]}" "$bin" >"$dir/logs/ccore-tests.log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        tail -n 1 "$dir/logs/ccore-tests.log"
    else
        echo "$arch: ccore-tests FAILED (exit $rc):"
        sed 's/^/    /' "$dir/logs/ccore-tests.log"
        status=1
    fi
    for h in "${harnesses[@]}"; do
        "${run[@]}" "$dir/replay-$h" "Fuzz/corpus/$h" >"$dir/logs/replay-$h.log" 2>&1
        rc=$?
        if [ "$rc" -eq 0 ]; then
            tail -n 1 "$dir/logs/replay-$h.log"
        else
            echo "$arch: replay of Fuzz/corpus/$h FAILED (exit $rc):"
            tail -n 20 "$dir/logs/replay-$h.log" | sed 's/^/    /'
            status=1
        fi
    done
    return $status
}

start=$(date +%s)
failed=()
results=()
for a in "${arches[@]}"; do
    resolve "$a"
    t0=$(date +%s)
    if [ "$native" = 1 ]; then how="gcc, native"; else how="$cc, qemu-$qemu-static"; fi
    echo "== $a ($how${extra:+, $extra})"
    if one_arch "$a"; then
        results+=("$a ok ($(($(date +%s) - t0))s)")
    else
        results+=("$a FAILED")
        failed+=("$a")
    fi
done
echo
echo "== ccore-cross: $(IFS=,; echo "${results[*]}" | sed 's/,/, /g') in $(($(date +%s) - start))s"
if [ ${#failed[@]} -gt 0 ]; then
    echo "ccore-cross.sh: failed on ${failed[*]}; logs in $OUT/<arch>/logs" >&2
    exit 1
fi
