#!/usr/bin/env bash
# Tools/Footprint/measure-debian.sh - the firmware footprint with Debian 13's
# Swift 6.0.3, on amd64 and on arm64 (cross-built), side by side: what the
# library adds to a static, stripped program (embed-watch against hello), in
# the firmware recipe (firmware.flags) and its minimal variant. Sizes only:
# measure.sh gives RSS and threads, here, with this machine's Swift.
#
# Runs inside Tools/debian-swift.sh's amd64 root (make footprint-debian);
# the arm64 builds use its `trixie-arm64` Swift SDK and sysroot.
set -euo pipefail
cd "$(dirname "$0")"

arm64=(--swift-sdks-path /opt/swift-sdks --swift-sdk trixie-arm64)
# Less what Swift 6.0's lld (17) cannot take: -mllvm -save-temp-labels,
# which it does not know, and the linker script that drops the unwind tables
# (no-unwind-tables.ld), on which it fails an assertion sorting sections.
flags_of() {
    ./firmware-flags.sh "$@" | sed -e 's/-Xlinker -mllvm -Xlinker -save-temp-labels//' \
        -e 's/-Xlinker -T -Xlinker [^ ]*no-unwind-tables.ld//' | tr ' ' '\n' | grep -v '^$'
}
mapfile -t normal < <(flags_of)
mapfile -t minimal < <(flags_of --minimal)
# lld places the functions firmware.order names; the file is of this
# machine's Swift, and names that a build lacks are ignored.

# size ARCH VARIANT PROGRAM: build it and print the stripped size in bytes.
size() {
    local arch=$1 variant=$2 program=$3 scratch=.build-debian-$1-$2 flags bin log strip
    if [[ $variant == minimal ]]; then flags=("${minimal[@]}"); else flags=("${normal[@]}"); fi
    local env=()
    if [[ $arch == arm64 ]]; then
        # The static libstdc++ of the arm64 sysroot, in a folder of its own
        # as firmware-flags.sh arranges this machine's.
        mkdir -p .build-libstdc++-arm64
        ln -sf /opt/arm64/usr/lib/gcc/aarch64-linux-gnu/14/libstdc++.a .build-libstdc++-arm64/libstdc++.a
        flags=("${flags[@]/%\/.build-libstdc++//.build-libstdc++-arm64}")
        flags+=("${arm64[@]}")
        # libcap's pkg-config answer for the sysroot's arm64 library.
        env=(PKG_CONFIG_SYSROOT_DIR=/opt/arm64
             PKG_CONFIG_LIBDIR=/opt/arm64/usr/lib/aarch64-linux-gnu/pkgconfig:/opt/arm64/usr/share/pkgconfig)
    fi
    log=$(env "${env[@]}" swift build -c release "${flags[@]}" --scratch-path "$scratch" --product "$program" 2>&1) ||
        { echo "$log" >&2; exit 1; }
    bin=$(env "${env[@]}" swift build -c release "${flags[@]}" --scratch-path "$scratch" --show-bin-path)
    if [[ $arch == arm64 ]]; then strip=aarch64-linux-gnu-strip; else strip=strip; fi
    "$strip" -o "$scratch/$program.stripped" "$bin/$program"
    stat -c %s "$scratch/$program.stripped"
}

printf '%-28s %12s %12s %12s\n' "Swift 6.0.3 (Debian 13)" "hello" "embed-watch" "added"
for arch in amd64 arm64; do
    for variant in firmware minimal; do
        hello=$(size "$arch" "$variant" hello)
        embed=$(size "$arch" "$variant" embed-watch)
        printf '%-28s %12d %12d %8d KiB (%d bytes)\n' "$arch, $variant" "$hello" "$embed" \
            "$(( (embed - hello + 1023) / 1024 ))" "$(( embed - hello ))"
    done
done
