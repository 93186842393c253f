#!/bin/bash
# make bench-uplinks, inside the kernel lane's VM (Tests/KernelLane/run.sh with
# REACH_LANE_MODE=bench; init runs this instead of the lane's scenarios):
#
#   bench.sh REACH OUT
#
# 1. every row of scenarios.sh BENCH_REPEAT (5) times: median and p99
#    (nearest rank; with 5 runs that is the slowest) of the detection time;
# 2. row soak: row 5's fault (netem 300 ± 150 ms, 5 % loss) for
#    BENCH_SOAK_MINUTES (30), a standard and a fast tracker side by side,
#    counting false failovers;
# 3. row bytes: the ISP side's nft counters over BENCH_BYTES_SECONDS (600) per
#    profile (standard, fast; two hosts, --check-host, --dns-name), per day;
# then OUT/bench-results.md (run.sh copies it to Tests/Uplinks/bench-results.md)
# and OUT/summary.
set -uo pipefail
REACH=$1 OUT=$2
[ -f "$OUT/env" ] && . "$OUT/env"
here=$(cd "$(dirname "$0")" && pwd)
repeat=${BENCH_REPEAT:-5} soak=${BENCH_SOAK_MINUTES:-30} bytes=${BENCH_BYTES_SECONDS:-600}
rows=${BENCH_ROWS:-}
modprobe sch_netem
# NetworkManager beside reach when it is installed (on the host: the VM runs its root).
nm=0; command -v NetworkManager >/dev/null && command -v nmcli >/dev/null && nm=${BENCH_NM:-1}
nmver=$( [ "$nm" = 1 ] && NetworkManager --version 2>/dev/null)
res=$OUT/bench-rows.txt; : >"$res"
echo "reach-bench: $(uname -r), reach $REACH, repeat $repeat, soak $soak min, bytes $bytes s"
t0=$SECONDS
for r in $(seq "$repeat"); do
    echo "reach-bench: run $r of $repeat"
    UPLINK_NM=$nm UPLINK_ONLY="$rows" UPLINK_RESULTS=$res UPLINK_CLEAN_SECONDS=${UPLINK_CLEAN_SECONDS:-10} \
        UPLINK_DEGRADED_SECONDS=${UPLINK_DEGRADED_SECONDS:-10} bash "$here/scenarios.sh" "$REACH"
done
t_rows=$((SECONDS - t0))
extra=$OUT/bench-extra.txt; : >"$extra"
[ "$soak" != 0 ] && UPLINK_ONLY=soak UPLINK_SOAK_MINUTES=$soak UPLINK_RESULTS=$extra bash "$here/scenarios.sh" "$REACH"
[ "$bytes" != 0 ] && UPLINK_ONLY=bytes UPLINK_BYTES_SECONDS=$bytes UPLINK_RESULTS=$extra bash "$here/scenarios.sh" "$REACH"

md=$OUT/bench-results.md
{
    echo "# Dirty-uplink bench"
    echo
    echo "Made by \`make bench-uplinks\` in the kernel lane's VM (Debian's kernel $(uname -r) under qemu TCG, 2 vCPUs, no KVM),"
    echo "$(date -u +%F), reach $REACH ($(file -b "$REACH" 2>/dev/null | grep -Eq 'statically linked|static-pie linked' && echo static || echo 'dynamically linked')), \`reach track --profile fast\` on wan0 unless stated. Detection: time_ns of the"
    echo "first JSON line with the expected verdict minus CLOCK_MONOTONIC at the injection. $repeat runs per row"
    echo "(${t_rows} s for all runs); p99 is the nearest rank, so with $repeat runs it is the slowest run."
    if [ "$nm" = 1 ]; then
        echo "NetworkManager $nmver ran beside reach in each row (ul-gw, devices unmanaged, its global check"
        echo "uri=http://check.test/generate_204, response= i.e. a 204), forced by \`nmcli networking connectivity check\`"
        echo "when the row ended (after reach's verdict, the fault still in place except in 6b); its detection time is"
        echo "its check interval, 300 s by default, which the forced check does not show."
    else
        echo "NetworkManager: not run (not installed); its column is what its documented defaults imply."
    fi
    echo
    echo "| row | scenario | expected | got (last run) | pass | median ms | p99 ms | NetworkManager (check every 300 s by default) |"
    echo "|---|---|---|---|---|---|---|---|"
    for id in $(awk -F'|' '{ print $2 }' "$res" | awk '!seen[$0]++'); do
        awk -F'|' -v id="$id" '$2 == id' "$res" >"$OUT/row.tmp"
        name=$(tail -n 1 "$OUT/row.tmp" | cut -d'|' -f3); exp=$(tail -n 1 "$OUT/row.tmp" | cut -d'|' -f4)
        got=$(tail -n 1 "$OUT/row.tmp" | cut -d'|' -f5)
        n=$(wc -l <"$OUT/row.tmp"); pass=$(awk -F'|' '$7 == "PASS"' "$OUT/row.tmp" | wc -l)
        skip=$(awk -F'|' '$7 == "SKIP"' "$OUT/row.tmp" | wc -l)
        stats=$(awk -F'|' '$6 ~ /^[0-9.]+$/ { print $6 }' "$OUT/row.tmp" | sort -n | awk '{ v[NR] = $1 }
            END { if (!NR) { print "- | -"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                  r = int(0.99 * NR); if (r < 0.99 * NR) r++; printf "%.0f | %.0f\n", m, v[r] }')
        case $id in
        1) nm="full" ;; 2) nm="none at once (device loses carrier)" ;;
        3|4|6a|6c) nm="limited, at the next check: up to 300 s" ;; 6b) nm="full at the next check: up to 300 s" ;;
        5) nm="full (no quality reading)" ;; 7) nm="limited (its URI's name does not resolve), up to 300 s" ;;
        8) nm="limited or portal (the URI resolves to the hijacker), up to 300 s" ;;
        9a|9b) nm="portal, up to 300 s" ;; 10|11|12) nm="full (checks one HTTP URI only)" ;;
        13) nm="none/full with each carrier change (no damping)" ;; 14) nm="limited at the next check (no neighbour watch)" ;;
        *) nm="-" ;;
        esac
        nmgot=$(awk -F'|' '$9 != "" { print $9 }' "$OUT/row.tmp" | sort | uniq -c | awk '{ printf "%s%s×%s", sep, $2, $1; sep=", " }')
        [ -n "$nmgot" ] && nm="$nmgot (measured)" || nm="$nm (documented, not measured)"
        echo "| $id | $name | $exp | $got | $pass/$n$([ "$skip" != 0 ] && echo " ($skip skipped)") | $stats | $nm |"
    done
    echo
    echo "| run | measured | result |"
    echo "|---|---|---|"
    while IFS='|' read -r _ id name exp got ms st why; do
        echo "| $name | $exp | $got ($st${why:+: $why}) |"
    done <"$extra"
    echo
    cat <<'TXT'
mwan3track's defaults (openwrt/packages net/mwan3/files/usr/sbin/mwan3track): interval 10 s,
timeout 4 s, count 1, down 5, up 5; check_quality: failure_latency 1000 ms, failure_loss 40 %,
recovery_latency 500 ms, recovery_loss 10 %. It sleeps `interval` after each round and a failed
round lasts `timeout`, so a dead upstream takes about 5 × (4 + 10) = 70 s at worst to go offline
(carrier loss is seen by hotplug at once); a recovered one about 5 × 10 s plus the probes.

| tracker | dead upstream (row 3) detection | probe traffic |
|---|---|---|
| reach --profile fast | measured above (row 3) | measured above (bytes) |
| reach --profile standard | rounds of 50 s, 5 s while failing, timeout 4 s, down 3: 50 + 2 × 5 + 4 = 64 s at worst | measured above (bytes) |
| mwan3track defaults | about 70 s worst case (5 × (4 s + 10 s)) | one echo per host per 10 s |
| NetworkManager defaults | its connectivity check: every 300 s (connectivity.interval), one HTTP GET | one HTTP exchange per 300 s |

NetworkManager (NetworkManager.conf(5), [connectivity]): interval 300 s by default; states
none, portal, limited, full. It ran with every device unmanaged (managed, it would reconfigure the
test's links), so its check is the global one, not bound to wan0: it follows ul-gw's main table,
whose default route is wan0's (metric 10; wan1's is 20). It has no quality reading (row 5), checks
one HTTP URI (rows 10-12 look full to it) and has no flap damping.
TXT
} >"$md"
cat "$md"
fails=$(awk -F'|' '$7 == "FAIL"' "$res" "$extra" | wc -l)
echo "$(awk -F'|' '$7 == "PASS"' "$res" "$extra" | wc -l) passed, $fails failed" >"$OUT/summary"
