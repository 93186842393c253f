#!/usr/bin/env bash
# ModemManager's steady state: PropertiesChanged signals that change nothing
# (each property the modem repeats, sent again with the value it has), N of
# them, to `reach watch --radio modemmanager` and to sdbus-floor (sd-bus with
# the same matches, walking every value), both under mcount.so. Prints the
# mallocs per signal of each, and reach's own: those not made by libsystemd
# (sd-bus: its message, its read buffer) or by the C library for it (sd-bus
# copies each container's signature with strdup), that is by the Swift
# runtime for the library's code.
#
#   Benchmarks/SteadyState/modem-steady-state.sh [--check] [REACH] [N]     (root: it makes a namespace)
#
# A private dbus-daemon of the system type and the ModemManager stand-in
# (Tests/ReachabilityTestSupport/modemmanager_standin.py, python3-dbusmock) play the
# gateway's bus and daemon. --check (CI) fails when reach's own mallocs over
# the N signals are more than 10 (what a process does once, whatever N), or a
# change is printed.
set -euo pipefail
check=false
if [ "${1:-}" = "--check" ]; then check=true; shift; fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reach=${1:-$root/.build/release/reach}
n=${2:-300}
work=$(mktemp -d)
ns=reach-modem-steady-$$
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
gcc -O2 -shared -fPIC -o "$work/mcount.so" "$here/mcount.c" -ldl
gcc -O2 -o "$work/floor" "$here/sdbus-floor.c" $(pkg-config --cflags --libs libsystemd)

cat > "$work/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
  "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/> <allow own="*"/>
    <allow send_type="method_call"/> <allow send_type="signal"/> <allow send_type="method_return"/> <allow send_type="error"/>
    <allow receive_type="method_call"/> <allow receive_type="signal"/> <allow receive_type="method_return"/> <allow receive_type="error"/>
  </policy>
</busconfig>
EOF
dbus-daemon --config-file="$work/bus.conf" --nofork --print-address=1 > "$work/address" 2>/dev/null &
pids+=($!)
for _ in $(seq 500); do [ -s "$work/address" ] && break; sleep 0.01; done
export DBUS_SYSTEM_BUS_ADDRESS
DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$work/address")
/usr/bin/python3 -m dbusmock --system --template "$root/Tests/ReachabilityTestSupport/modemmanager_standin.py" >/dev/null 2>&1 &
pids+=($!)
bus() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
for _ in $(seq 500); do
    bus call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s org.freedesktop.ModemManager1 \
        2>/dev/null | grep -q true && break
    sleep 0.02
done
mock() { bus call org.freedesktop.ModemManager1 /org/freedesktop/ModemManager1 org.freedesktop.DBus.Mock "$@"; }
modem=org.freedesktop.ModemManager1.Modem
mock AddModem 'ua{sv}a{sv}' 0 \
    4 AccessTechnologies u 16384 Ports 'a(su)' 2 wwan0 2 cdc-wdm0 6 SignalQuality '(ub)' 72 true State i 11 \
    3 RegistrationState u 1 OperatorName s Acme OperatorCode s 26201 >/dev/null

ip netns add "$ns"
ip -n "$ns" link set lo up

# One client under mcount: its mallocs over N unchanged signals, and its own ("ALL OWN").
measure() {   # NAME COMMAND...
    local name=$1; shift
    LD_PRELOAD="$work/mcount.so" "$@" > "$work/$name.out" 2> "$work/$name.err" &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 500); do [ -s "$work/$name.out" ] && break; sleep 0.01; done
    sleep 0.3
    kill -USR2 "$pid"; sleep 0.1
    for i in $(seq "$n"); do
        case $((i % 5)) in
            0) mock SetModem 'usa{sv}' 0 $modem 1 AccessTechnologies u 16384 ;;
            1) mock SetModem 'usa{sv}' 0 $modem 1 SignalQuality '(ub)' 72 true ;;
            2) mock SetModem 'usa{sv}' 0 $modem.Modem3gpp 1 RegistrationState u 1 ;;
            3) mock SetModem 'usa{sv}' 0 $modem.Modem3gpp 2 OperatorName s Acme OperatorCode s 26201 ;;
            4) mock SetModem 'usa{sv}' 0 $modem 2 Ports 'a(su)' 2 wwan0 2 cdc-wdm0 6 State i 11 ;;
        esac
    done
    sleep 0.3
    kill -USR2 "$pid"; sleep 0.1
    kill "$pid"; wait "$pid" 2>/dev/null || true
    local before after
    before=$(grep mallocs "$work/$name.err" | sed -n 1p)
    after=$(grep mallocs "$work/$name.err" | sed -n 2p)
    echo "$(($(echo "$after" | awk '{print $2}') - $(echo "$before" | awk '{print $2}')))" \
         "$(($(echo "$after" | awk '{print $4}') - $(echo "$before" | awk '{print $4}')))"
}
per() { echo "$(($1 / n)).$(( ($1 * 10 / n) % 10 ))"; }
read -r ours own < <(measure reach "$reach" watch 127.0.0.1 --radio modemmanager --netns "$ns")
read -r floor _ < <(measure floor "$work/floor")
lines=$(($(wc -l < "$work/reach.out") - 1))
echo "modem steady state: $n unchanged PropertiesChanged; reach $ours mallocs ($(per "$ours") per signal)," \
     "its own (not sd-bus's) $own ($(per "$own") per signal); sd-bus walking every value $floor ($(per "$floor") per signal);" \
     "changes printed $lines"
if $check; then
    if [ "$own" -gt 10 ] || [ "$lines" -ne 0 ]; then
        echo "modem steady state: reach allocates for unchanged PropertiesChanged (or printed a change)" >&2
        exit 1
    fi
fi
