#!/usr/bin/env bash
# make test-kernel: the real-kernel lane. Boots Debian's own kernel under
# qemu (software emulation; no network device) with this machine's root
# read-only over virtio-9p, so the host's own binaries run inside, and a
# writable scratch directory for results. Inside, scenarios.sh makes links
# this machine's kernel lacks (PPP, PPPoE, Wi-Fi, VRF, bond, WireGuard,
# GRE) in namespaces of its own and checks what a static `reach` says of
# them. Boot, run and power-off are bounded; a hung VM fails the run.
#
#   Tests/KernelLane/run.sh REACH_BINARY
#
# Environment: REACH_LANE_BOOT_TIMEOUT (s, default 90), REACH_LANE_TIMEOUT
# (s, whole VM, default 1200: 540 for the first seven scenarios, 660 for
# uplinks), REACH_LANE_ONLY (scenario names, spaces), REACH_LANE_KEEP=1 keeps
# the scratch directory.
#
# REACH_LANE_MODE=bench runs Tests/Uplinks/bench.sh in the VM instead (make
# bench-uplinks); the BENCH_* and UPLINK_* variables are handed in, and its
# markdown table is copied to REACH_LANE_BENCH_OUT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
reach=$(realpath "${1:?usage: run.sh REACH_BINARY}")
boot_timeout=${REACH_LANE_BOOT_TIMEOUT:-90}
total_timeout=${REACH_LANE_TIMEOUT:-1200}
mode=${REACH_LANE_MODE:-test}

fail() { echo "test-kernel: $*" >&2; echo "test-kernel: 0 passed, 1 failed"; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (qemu's 9p export of / and the namespaces inside); run make setup-kernel, then sudo make test-kernel"
command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 missing: run make setup-kernel"
# Debian's kernel: the newest /boot/vmlinuz-*-amd64 whose modules are installed.
kver=$(cd /boot && ls vmlinuz-*-amd64 2>/dev/null | sed 's/^vmlinuz-//' | sort -V |
       while read -r v; do [ -d "/lib/modules/$v" ] && echo "$v"; done | tail -n 1)
[ -n "$kver" ] || fail "no Debian kernel (/boot/vmlinuz-*-amd64 with /lib/modules): run make setup-kernel"
[ -x "$reach" ] || fail "no reach binary at $reach"

work=$(mktemp -d /tmp/reach-lane.XXXXXX)
cleanup() {
    [ -n "${qemu_pid:-}" ] && kill "$qemu_pid" 2>/dev/null || true
    if [ "${REACH_LANE_KEEP:-0}" = 1 ]; then echo "test-kernel: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work"/initramfs/{bin,proc,sys,dev,host,scratch,rw,newroot,lib/modules} "$work/scratch"

# The initramfs: static busybox, the init, and the modules (in dependency
# order, as modprobe resolves them) that reach the host's root.
cp /bin/busybox "$work/initramfs/bin/busybox"
cp "$here/init" "$work/initramfs/init"
for module in virtio_pci 9pnet_virtio 9p overlay; do
    modprobe -S "$kver" --show-depends "$module"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r ko; do
    cp "$ko" "$work/initramfs/lib/modules/"
    basename "$ko" >>"$work/initramfs/lib/modules/order"
done
(cd "$work/initramfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"
echo "${REACH_LANE_ONLY:-}" >"$work/scratch/only"
# The VM's environment is empty (init: env -i); the bench's settings go in a file.
env | grep -E '^(BENCH|UPLINK)_[A-Z_]*=' | sed "s/=\(.*\)/='\1'/; s/^/export /" >"$work/scratch/env" || true

start=$SECONDS
echo "test-kernel: booting Debian's kernel $kver under qemu (TCG, no network device)"
# TCG, not KVM: nested KVM is not dependable on the machines this runs on.
timeout -k 5 "$total_timeout" qemu-system-x86_64 \
    -accel tcg -cpu max -smp 2 -m 1536 -nographic -no-reboot -nic none \
    -kernel "/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
    -append "console=ttyS0 quiet panic=-1 reach.repo=$repo reach.bin=$reach reach.mode=$mode" \
    -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
    -virtfs local,path="$work/scratch",mount_tag=scratch,security_model=none \
    </dev/null >"$work/console.log" 2>&1 &
qemu_pid=$!

# The console goes to the log as it comes; boot must finish in time.
tail -n +1 -f "$work/console.log" --pid="$qemu_pid" 2>/dev/null | grep --line-buffered -v $'^\e' &
booted=0
while kill -0 "$qemu_pid" 2>/dev/null; do
    if grep -q "reach-lane: booted" "$work/console.log"; then booted=1; break; fi
    if (( SECONDS - start > boot_timeout )); then
        kill "$qemu_pid" 2>/dev/null || true
        break
    fi
    sleep 0.2
done
rc=0
wait "$qemu_pid" || rc=$?
qemu_pid=
sleep 0.3  # let tail print the last lines
elapsed=$((SECONDS - start))

[ "$booted" = 1 ] || fail "the VM did not boot within ${boot_timeout} s (qemu exit $rc)"
[ "$rc" != 124 ] && [ "$rc" != 137 ] || fail "the VM did not finish within ${total_timeout} s"
[ -s "$work/scratch/summary" ] || fail "the scenarios wrote no summary (qemu exit $rc)"
summary=$(cat "$work/scratch/summary")
if [ "$mode" = bench ] && [ -s "$work/scratch/bench-results.md" ]; then
    cp "$work/scratch/bench-results.md" "${REACH_LANE_BENCH_OUT:-$repo/Tests/Uplinks/bench-results.md}"
    echo "test-kernel: bench table written to ${REACH_LANE_BENCH_OUT:-$repo/Tests/Uplinks/bench-results.md}"
fi
echo "test-kernel: VM boot $(sed -n 's/.*booted in \([0-9.]*\) s.*/\1/p' "$work/console.log") s (guest clock), total ${elapsed} s"
echo "test-kernel: $summary"
case "$summary" in
    *" 0 failed"*) exit 0 ;;
    *) exit 1 ;;
esac
