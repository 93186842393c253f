#!/usr/bin/env bash
# Static checks of the fleet files: Prometheus rules, their unit tests, the
# example Prometheus config, the systemd unit and the exporter's shipped
# configuration. Run from the exporter's package (Exporter/):
#
#   Tests/Fleet/check-static.sh [PATH-TO-reach-exporter]
#
# PATH-TO-reach-exporter (default .build/debug/reach-exporter) must exist:
# systemd-analyze verify rejects a unit whose ExecStart binary is missing, so
# a temporary copy of the unit is verified with ExecStart pointing there.
set -euo pipefail

binary=${1:-.build/debug/reach-exporter}
rules=docs/prometheus/reach.rules.yml
tests=docs/prometheus/reach.rules.test.yml
config=docs/prometheus/prometheus.yml
unit=dist/systemd/reach-exporter.service
example=dist/systemd/reach-exporter.yml

for file in "$rules" "$tests" "$config" "$unit" "$example"; do
    if [[ ! -f $file ]]; then
        echo "check-static: $file not found; run from Exporter/" >&2
        exit 1
    fi
done

if [[ ! -f $binary || ! -x $binary ]]; then
    echo "check-static: no executable reach-exporter at '$binary'" >&2
    echo "check-static: build it first, or pass the path of a built binary as the first argument" >&2
    exit 1
fi
binary=$(realpath "$binary")   # ExecStart= needs an absolute path

if ! command -v promtool >/dev/null; then
    echo "== promtool missing: installing prometheus"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus
fi
if ! command -v systemd-analyze >/dev/null; then
    echo "check-static: systemd-analyze not found" >&2
    exit 1
fi

failed=0
run() {
    echo "== $*"
    if "$@"; then
        echo "-- ok"
    else
        echo "-- FAILED (exit $?): $*"
        failed=1
    fi
}

run promtool check rules "$rules"
run promtool test rules "$tests"
run promtool check config "$config"
# The configuration the Debian package installs as its conffile parses.
run "$binary" --check-config --config "$example"

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
sed "s|^ExecStart=/usr/sbin/reach-exporter |ExecStart=$binary |" "$unit" > "$workdir/reach-exporter.service"
if ! grep -qxF "ExecStart=$binary --config /etc/reach-exporter/config.yml" "$workdir/reach-exporter.service"; then
    echo "check-static: could not point ExecStart of $unit at $binary" >&2
    exit 1
fi
# verify exits 0 on warnings (unknown keys, bad values are "ignoring"), so a
# warning about our unit counts as a failure too; warnings about other units
# of this machine are printed but do not count.
echo "== systemd-analyze verify $unit (ExecStart=$binary)"
status=0
# --man=no: Documentation= names man:reach-exporter(8), which the Debian
# package installs (make test-install reads it there), not this machine.
output=$(systemd-analyze verify --man=no "$workdir/reach-exporter.service" 2>&1) || status=$?
[[ -n $output ]] && printf '%s\n' "$output"
if (( status == 0 )) && ! grep -q 'reach-exporter\.service' <<<"$output"; then
    echo "-- ok"
else
    echo "-- FAILED (exit $status): systemd-analyze verify $unit"
    failed=1
fi

if (( failed )); then
    echo "check-static: FAILED"
    exit 1
fi
echo "check-static: all checks passed"
