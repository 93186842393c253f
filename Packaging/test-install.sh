#!/usr/bin/env bash
# The package as an operator meets it (`make test-install`, root):
#
#   Packaging/test-install.sh reach_VERSION_ARCH.deb
#
# A minimal Debian root (debootstrap --variant=minbase, plus what the test
# itself uses: systemd as init, man-db, curl), cached as a tarball between runs
# in $REACH_INSTALL_CACHE (default /var/cache/swift-reachability), is booted
# with `systemd-nspawn --boot` in a network namespace of its own (only
# loopback; the test adds a veth pair inside it, both ends in the container,
# with a default route, so `reach check internet` has a way out to name and
# nothing can leave). Then, inside:
#   apt install ./reach_*.deb      only `reach` is new (its dependencies are
#                                  in every Debian root, but libyaml-0-2, the
#                                  exporter's YAML library, which the root has
#                                  beforehand: the container has no network)
#   reach --version, reach-exporter --version   the package's version (and --help)
#   systemctl enable --now reach-exporter       active, through Type=notify
#   curl /metrics                  reach_build_info{version}, internet reachable
#   man reach, man reach-exporter  render; completions load in bash
#   reach check internet           reachable over wan0
#   systemctl stop reach-exporter  Result=success, exit status 0
#   apt purge reach                no file is left: the root's file list after
#                                  purge is the list before install
# The container and its root are removed on any exit, failures included.
set -euo pipefail

deb=${1:?usage: $0 reach_VERSION_ARCH.deb}
[[ -f $deb ]] || { echo "test-install: $deb not found" >&2; exit 1; }
deb=$(realpath "$deb")
if (( EUID != 0 )); then
    echo "test-install: needs root (debootstrap, systemd-nspawn)" >&2
    exit 1
fi
for tool in debootstrap systemd-nspawn nsenter ip dpkg-deb; do
    command -v "$tool" >/dev/null || { echo "test-install: $tool not found (make setup-deb)" >&2; exit 1; }
done
version=$(dpkg-deb --field "$deb" Version)

# The root: the host's Debian release from Debian's archive (the release the
# package is built for: its glibc). The cache key names everything that
# shapes the root.
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
mirror=${REACH_INSTALL_MIRROR:-http://deb.debian.org/debian}
include=systemd,systemd-sysv,dbus,man-db,curl,libyaml-0-2
cache=${REACH_INSTALL_CACHE:-/var/cache/swift-reachability}
key=$(printf '%s %s %s %s' "$suite" "$mirror" "$include" "$(dpkg --print-architecture)" | sha256sum | cut -c1-12)
tarball=$cache/debian-$suite-minbase-$key.tar
work=$(mktemp -d /var/tmp/reach-install.XXXXXX)
root=$work/root
machine=reach-install-$$
nspawn=
leader=

step() { printf '\n== %s\n' "$*"; }
cleanup() {
    local status=$?
    if (( status != 0 )) && [[ -n $leader ]] && kill -0 "$leader" 2>/dev/null; then
        echo "-- the exporter's journal (last 20 lines):"
        inside journalctl --no-pager -o short-monotonic -u reach-exporter 2>&1 | tail -20 || true
    fi
    if [[ -n $nspawn ]] && kill -0 "$nspawn" 2>/dev/null; then
        kill -TERM "$nspawn" 2>/dev/null || true      # nspawn powers the container off
        for _ in $(seq 100); do kill -0 "$nspawn" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$nspawn" 2>/dev/null || true
        wait "$nspawn" 2>/dev/null || true
    fi
    if (( status != 0 )) && [[ -f $work/boot.log ]]; then
        echo "-- the container's console (last 40 lines):"; tail -40 "$work/boot.log"
    fi
    rm -rf "$work"
    (( status == 0 )) || echo "test-install: FAILED" >&2
}
trap cleanup EXIT

step "a $suite minbase root (cache: $tarball)"
if [[ ! -f $tarball ]]; then
    mkdir -p "$cache"
    start=$SECONDS
    debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
        { tail -20 "$work/debootstrap.log"; exit 1; }
    # No package lists and no downloaded .debs: apt installs the package from
    # its file alone, or the test fails.
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    echo "debootstrap: $((SECONDS - start)) s; cached"
else
    mkdir -p "$root"
    tar -C "$root" -xf "$tarball"
    echo "from the cache"
fi
cp "$deb" "$root/root/"
echo "$machine" > "$root/etc/hostname"

step "boot it: systemd-nspawn --boot"
systemd-nspawn --quiet --boot --register=no --keep-unit --private-network --machine="$machine" \
    --directory="$root" --console=pipe > "$work/boot.log" 2>&1 < /dev/null &
nspawn=$!
for _ in $(seq 300); do
    leader=$(pgrep -P "$nspawn" 2>/dev/null | head -1) || true
    [[ -n $leader ]] && break
    sleep 0.1
done
[[ -n $leader ]] || { echo "test-install: the container did not start" >&2; exit 1; }
# Commands inside the container: every namespace of its init, a clean environment.
inside() { nsenter --target "$leader" --all -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root TERM=dumb LANG=C.UTF-8 "$@"; }
# systemd's private socket appears early in the boot; then systemctl waits
# for the boot to finish.
for _ in $(seq 300); do
    inside test -S /run/systemd/private 2>/dev/null && break
    sleep 0.1
done
state=$(inside timeout 60 systemctl is-system-running --wait 2>&1) || true
echo "systemctl is-system-running: $state"
[[ $state == running ]] || { inside systemctl --failed --no-pager || true; exit 1; }

# The container's way out: wan0, a veth whose peer is in the container too, so
# a route lookup finds a default route and no packet can leave.
nsenter --target "$leader" --net -- sh -ec '
    ip link add wan0 type veth peer name wan0peer
    ip link set wan0peer up
    ip addr add 10.77.0.2/24 dev wan0
    ip link set wan0 up
    ip route add default via 10.77.0.1 dev wan0'

# Every path of the root, from the host (the container's /run, /tmp, /proc and
# /sys are its own mounts and not in this tree). Apart: what dpkg and apt keep
# about every package (dpkg's database, apt's caches and logs) and the
# journal, which grow with any install; they are counted, not compared.
snapshot() {
    (cd "$root" && find . -xdev -mindepth 1 \
        -not -path './var/lib/dpkg/*' -not -path './var/lib/apt/*' -not -path './var/cache/*' \
        -not -path './var/log/*' -not -path './root/reach_*.deb' | LC_ALL=C sort)
}
snapshot > "$work/before"
inside dpkg-query -W -f '${Package}\n' | LC_ALL=C sort > "$work/packages-before"

step "apt install ./$(basename "$deb")"
inside sh -c "cd /root && DEBIAN_FRONTEND=noninteractive apt-get install -y -o Dpkg::Use-Pty=0 --no-install-recommends ./$(basename "$deb")" 2>&1 |
    grep -v '^debconf: ' || { echo "test-install: apt install failed" >&2; exit 1; }
inside dpkg-query -W -f '${Package}\n' | LC_ALL=C sort > "$work/packages-after"
added=$(comm -13 "$work/packages-before" "$work/packages-after" | tr '\n' ' ')
echo "packages added: $added"
[[ $added == "reach " ]] || { echo "test-install: apt installed more than reach: $added" >&2; exit 1; }
inside dpkg -L reach

step "versions"
for program in reach reach-exporter; do
    said=$(inside "$program" --version)
    echo "$program --version: $said"
    [[ $said == "$version" ]] || { echo "test-install: $program says $said, the package is $version" >&2; exit 1; }
    inside "$program" --help | grep "^USAGE: " || { echo "test-install: $program --help failed" >&2; exit 1; }
done

step "systemctl enable --now reach-exporter"
inside systemctl enable --now reach-exporter 2>&1
inside systemctl status --no-pager --lines=5 reach-exporter | sed -n '1,4p' || true
active=$(inside systemctl is-active reach-exporter) || true
type=$(inside systemctl show -P Type reach-exporter)
status_text=$(inside systemctl show -P StatusText reach-exporter)
echo "is-active: $active; Type=$type; StatusText=$status_text"
[[ $active == active && $type == notify ]] || {
    inside journalctl --no-pager -u reach-exporter | tail -20; exit 1; }

step "curl http://127.0.0.1:9789/metrics"
inside curl -fsS --max-time 10 http://127.0.0.1:9789/metrics > "$work/metrics"
grep -E '^reach_(build_info|target_reachable|target_status\{.*\} 1)' "$work/metrics"
grep -qxF "reach_build_info{version=\"$version\"} 1.0" "$work/metrics" ||
    { echo "test-install: no reach_build_info{version=\"$version\"} 1.0" >&2; exit 1; }
grep -qxF 'reach_target_reachable{target="internet"} 1.0' "$work/metrics" ||
    { echo "test-install: the exporter does not find the internet reachable" >&2; exit 1; }

step "man reach, man reach-exporter"
for page in reach reach-exporter; do
    inside sh -c "MANWIDTH=80 man -P cat $page 2>&1" > "$work/man-$page"
    head -8 "$work/man-$page"
    grep -q "^NAME" "$work/man-$page" && grep -q "^SYNOPSIS" "$work/man-$page" ||
        { echo "test-install: man $page did not render" >&2; cat "$work/man-$page"; exit 1; }
done
inside bash -c 'source /usr/share/bash-completion/completions/reach &&
    source /usr/share/bash-completion/completions/reach-exporter && complete -p reach reach-exporter'

step "reach check internet"
inside reach check internet

step "systemctl stop reach-exporter"
inside systemctl stop reach-exporter
result=$(inside systemctl show -P Result reach-exporter)
exit_status=$(inside systemctl show -P ExecMainStatus reach-exporter)
echo "Result=$result ExecMainStatus=$exit_status"
inside journalctl --no-pager -o cat -u reach-exporter | tail -6
[[ $result == success && $exit_status == 0 ]] || { echo "test-install: the stop was not clean" >&2; exit 1; }

step "apt purge reach"
inside sh -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -o Dpkg::Use-Pty=0 reach' 2>&1 | grep -v '^debconf: '
inside systemctl daemon-reload
snapshot > "$work/after"
if ! diff -u "$work/before" "$work/after"; then
    echo "test-install: apt purge left the files above (+) or removed others (-)" >&2
    exit 1
fi
leftover=$(cd "$root" && ls var/lib/dpkg/info/reach.* 2>/dev/null || true)
[[ -z $leftover ]] || { echo "test-install: dpkg still has $leftover" >&2; exit 1; }
echo "purge: the root's $(wc -l < "$work/after") paths are the ones it had before the install"
unit=$(inside systemctl show -P LoadState reach-exporter)
echo "reach-exporter.service after purge: $unit"
[[ $unit == not-found ]] || { echo "test-install: systemd still knows reach-exporter.service ($unit)" >&2; exit 1; }

step "test-install: all checks passed"
