#!/usr/bin/env bash
# Tools/debian-swift.sh - Swift as Debian ships it: builds and tests with
# Debian 13's (trixie's) `swiftlang`, for amd64 and, cross-compiled, for arm64.
#
#   Tools/debian-swift.sh root              make (or reuse) both roots; print their paths
#   Tools/debian-swift.sh run CMD...        run CMD in the amd64 root, in /src (this tree)
#   Tools/debian-swift.sh run-arm64 CMD...  the same, with pkg-config and qemu-user set for arm64
#   Tools/debian-swift.sh sdk               write the arm64 Swift SDK bundle (in the amd64
#                                           root's /opt/swift-sdks, as `--swift-sdk trixie-arm64`)
#
# Two roots, both from Debian's archive with debootstrap, cached between runs
# in $REACH_DEBIAN_CACHE (default /var/cache/swift-reachability/debian-swift),
# each under a key that names everything that shapes it:
#   - trixie-amd64: a minbase root with `swiftlang` (the compiler, 6.0.3),
#     the C libraries we link, and the programs `make test` runs (make setup's
#     list). It is the host toolchain for both builds.
#   - trixie-arm64: the arm64 packages unpacked, never configured or run
#     (debootstrap's first stage, --foreign): `swiftlang` for arm64 (its
#     standard library, Foundation, XCTest and Testing as modules and shared
#     and static libraries), `libc6-dev`, `libcap-dev`, `libsystemd-dev` and
#     what they depend on, without their programs. It is the sysroot of the
#     cross build, and the prefix (QEMU_LD_PREFIX) under which the arm64
#     programs run: qemu-user, registered with binfmt_misc (make
#     setup-debian-swift), runs them, and the programs they start, natively
#     or not, as the kernel would.
# The arm64 SDK is what swift-sdk-generator assembles from a distribution's
# packages: that sysroot, the arm64 Swift resource directories in it, and a
# toolset that links with lld (swiftlang ships it; clang runs it for the target).
#
# CMD runs as root in a private mount namespace (nothing mounted outlives it):
# /proc (the toolchain finds its libraries through /proc/self/exe), /sys,
# /dev, a fresh /run and /tmp, this tree at /src (without Exporter/.build:
# the exporter needs Swift 6.2, README says why), the arm64 root at
# /opt/arm64, and /opt/swift-packages read-only with the host's git
# `insteadOf` lines, so SwiftPM resolves as every build here does (the root
# reaches no GitHub).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
suite=trixie
mirror=${REACH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${REACH_DEBIAN_CACHE:-/var/cache/swift-reachability/debian-swift}
# The amd64 root: the compiler and the C toolchain files it links with (and
# arm64's binutils, to strip), what the package links, what make test runs
# (the Makefile's SETUP_PACKAGES), and make, git and python3.
setup_packages=$(sed -n '/^SETUP_PACKAGES :=/,/[^\\]$/{s/^SETUP_PACKAGES :=//;s/\\$//;p}' "$here/Makefile" | tr -s ' \t\n' ' ')
amd64_packages="swiftlang libc6-dev libgcc-14-dev libstdc++-14-dev binutils binutils-aarch64-linux-gnu make git python3 ca-certificates $setup_packages"
# The arm64 sysroot: Swift's arm64 runtime and modules, and the C libraries.
arm64_include=swiftlang,libswiftlang,libc6-dev,libcap-dev,libsystemd-dev,libgcc-14-dev,libstdc++-14-dev,linux-libc-dev

usage() { sed -n '2,9s/^# \{0,1\}//p' "$0"; }
die() { echo "debian-swift: $*" >&2; exit 2; }

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || PATH=$PATH:/usr/sbin:/sbin
command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"

key() { printf '%s ' "$@" | sha256sum | cut -c1-12; }
amd64_root=$cache/$suite-amd64-$(key "$suite" "$mirror" "$amd64_packages")
arm64_root=$cache/$suite-arm64-$(key "$suite" "$mirror" "$arm64_include" "pruned: programs, docs, etc")

# Roots are made in a temporary folder and renamed when complete: a root that
# is there is whole.
make_amd64() {
    [[ -d $amd64_root ]] && return
    local tmp=$amd64_root.tmp start=$SECONDS
    rm -rf "$tmp"; mkdir -p "$cache"
    echo "debian-swift: a $suite amd64 root with swiftlang (once; cached in $cache)"
    debootstrap --variant=minbase "$suite" "$tmp" "$mirror" > "$cache/debootstrap-amd64.log" 2>&1 ||
        { tail -20 "$cache/debootstrap-amd64.log"; die "debootstrap (amd64) failed"; }
    in_root "$tmp" / sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $amd64_packages >/dev/null && apt-get clean"
    mv "$tmp" "$amd64_root"
    echo "debian-swift: amd64 root in $((SECONDS - start)) s"
}

make_arm64() {
    [[ -d $arm64_root ]] && return
    local tmp=$arm64_root.tmp start=$SECONDS
    rm -rf "$tmp"; mkdir -p "$cache"
    echo "debian-swift: the $suite arm64 packages, unpacked (once; cached in $cache)"
    debootstrap --foreign --arch=arm64 --variant=minbase --include="$arm64_include" "$suite" "$tmp" "$mirror" \
        > "$cache/debootstrap-arm64.log" 2>&1 ||
        { tail -20 "$cache/debootstrap-arm64.log"; die "debootstrap (arm64, first stage) failed"; }
    # The first stage unpacks only the essential packages; the rest of the
    # set it resolved waits as .debs. Unpack them all (no maintainer script
    # runs: this is a sysroot), then drop the .debs and debootstrap's state.
    for deb in "$tmp"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$deb" "$tmp"; done
    rm -rf "$tmp/debootstrap" "$tmp"/var/cache/apt/archives/*.deb
    # No arm64 programs: a program the tests start by path (/bin/sh, ip,
    # timeout) is then the root's own, native, not this sysroot's under
    # emulation. Nor documentation, nor the arm64 compiler (760 MB), nor /etc.
    prune_arm64 "$tmp"
    # Absolute symbolic links of the sysroot (libc.so's scripts, lib64 links)
    # must resolve inside it, for the cross linker, which does not chroot.
    find "$tmp" -type l -lname '/*' | while read -r link; do
        target=$(readlink "$link")
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$tmp$target")" "$link"
    done
    mv "$tmp" "$arm64_root"
    echo "debian-swift: arm64 sysroot in $((SECONDS - start)) s"
}

prune_arm64() {
    rm -rf "$1"/usr/bin "$1"/usr/sbin "$1"/usr/libexec/swift/bin "$1"/usr/share/doc "$1"/usr/share/man "$1"/usr/share/locale
    # No /etc either: qemu-user would read the sysroot's resolv.conf, hosts
    # and nsswitch.conf instead of the machine's (or a namespace's, which
    # `ip netns exec` mounts over /etc/resolv.conf).
    rm -rf "$1"/etc
}

# in_root ROOT DIR CMD...: CMD in ROOT, in DIR, in a private mount namespace.
in_root() {
    local root=$1 dir=$2; shift 2
    unshare --mount --propagation private -- "$BASH" -c '
        set -e
        root=$1 here=$2 arm64=$3 dir=$4; shift 4
        # The root is a mount of its own, as `ip netns add` needs of "/".
        mount --bind "$root" "$root"
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs tmpfs "$root/run"
        mount -t tmpfs tmpfs "$root/tmp"
        mkdir -p "$root/src" "$root/opt/swift-packages" "$root/opt/arm64"
        mount --bind "$here" "$root/src"
        # The exporter this machine built (a newer Swift, its runtime not in
        # the root) is not there: its tests skip, saying why.
        [ -d "$root/src/Exporter/.build" ] && mount -t tmpfs tmpfs "$root/src/Exporter/.build"
        [ -d /opt/swift-packages ] && mount --bind -o ro /opt/swift-packages "$root/opt/swift-packages"
        [ -d "$arm64" ] && mount --bind "$arm64" "$root/opt/arm64"
        cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
        : > "$root/etc/gitconfig"
        git config --system --get-regexp "^url\." 2>/dev/null | while read -r k v; do
            git config --file "$root/etc/gitconfig" --add "$k" "$v"
        done
        exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
            TERM=dumb LANG=C.UTF-8 ${REACH_REQUIRE_NETNS:+REACH_REQUIRE_NETNS=$REACH_REQUIRE_NETNS} \
            ${CI:+CI=$CI} sh -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
    ' in_root "$root" "$here" "$arm64_root" "$dir" "$@"
}

# The arm64 Swift SDK (an artifact bundle, as `swift sdk` reads them): the
# sysroot, its Swift resource directories, and lld from the amd64 root.
write_sdk() {
    local bundle=$amd64_root/opt/swift-sdks/$suite-arm64.artifactbundle
    local sdk=$bundle/$suite-arm64
    mkdir -p "$sdk"
    cat > "$bundle/info.json" <<EOF
{ "schemaVersion": "1.0", "artifacts": { "$suite-arm64": { "type": "swiftSDK", "version": "6.0.3",
  "variants": [ { "path": "$suite-arm64", "supportedTriples": ["x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu"] } ] } } }
EOF
    cat > "$sdk/swift-sdk.json" <<EOF
{ "schemaVersion": "4.0", "targetTriples": { "aarch64-unknown-linux-gnu": {
  "sdkRootPath": "/opt/arm64",
  "swiftResourcesPath": "/opt/arm64/usr/libexec/swift/lib/swift",
  "swiftStaticResourcesPath": "/opt/arm64/usr/libexec/swift/lib/swift_static",
  "toolsetPaths": ["toolset.json"] } } }
EOF
    cat > "$sdk/toolset.json" <<EOF
{ "schemaVersion": "1.0", "rootPath": "/usr/libexec/swift/bin",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] } }
EOF
    echo "$bundle"
}

case ${1:-} in
root)
    make_amd64; make_arm64
    echo "amd64 root: $amd64_root"; echo "arm64 sysroot: $arm64_root" ;;
run)
    shift; [[ $# -gt 0 ]] || die "run: no command"
    make_amd64; make_arm64; write_sdk > /dev/null
    in_root "$amd64_root" /src "$@" ;;
run-arm64)
    # pkg-config answers for the sysroot's arm64 libraries (libcap,
    # libsystemd), and qemu-user (binfmt_misc, or qemu-aarch64-static named
    # by hand) finds the arm64 loader and libraries under /opt/arm64.
    shift; [[ $# -gt 0 ]] || die "run-arm64: no command"
    make_amd64; make_arm64; write_sdk > /dev/null
    in_root "$amd64_root" /src env PKG_CONFIG_SYSROOT_DIR=/opt/arm64 \
        PKG_CONFIG_LIBDIR=/opt/arm64/usr/lib/aarch64-linux-gnu/pkgconfig:/opt/arm64/usr/share/pkgconfig \
        QEMU_LD_PREFIX=/opt/arm64 "$@" ;;
sdk) make_amd64; make_arm64; write_sdk ;;
-h | --help | '') usage ;;
*) usage >&2; exit 2 ;;
esac
