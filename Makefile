# Quick start: `make run` (set-up, build, run `reach`) and `make test`.
SWIFT ?= swift
SWIFTC ?= swiftc
SHELL := /bin/bash
# Root installs directly; anyone else through sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ARGS ?=

.PHONY: all help bench-instructions setup build run test snappy-judge test-repeat compat-surface consumers check-layers check-architecture test-sanitize test-sandbox-unprivileged test-sample soak fuzz fuzz-smoke setup-ccore-cross test-ccore-cross setup-debian-swift test-debian-swift build-arm64 test-arm64 test-arm64-ci footprint-debian docs bench bench-latency bench-check bench-startup bench-exporter steady-state footprint firmware-order static static-exporter manuals setup-deb deb-architecture deb test-install setup-kernel test-kernel test-uplinks bench-uplinks setup-fleet test-fleet fleet-demo fleet-sim clean

all: build

# One line per target (`make help`).
help:
	@printf '%s\n' \
	  "make run            set up, build, run reach (ARGS='check 1.1.1.1 --json')" \
	  "make test           the whole suite (namespace tests need root), check-layers and check-architecture" \
	  "make check-layers   ReachabilityModel imports nothing and type-checks alone" \
	  "make check-architecture  Architecture.md's layout block names only paths that exist, and every Sources/ folder" \
	  "make compat-surface the compat API tables against the modules; their compile tests (5 and 6)" \
	  "make consumers      packages beside Alamofire, Reachability.swift, AFNetworking (stand-ins), built and run" \
	  "make docs           DocC for every public module, warnings are errors" \
	  "make setup          install the system packages the build and tests need" \
	  "make build          swift build" \
	  "make static         a static, stripped reach as firmware builds it (.build-static/reach)" \
	  "make deb            the Debian package .build-deb/reach_VERSION_ARCH.deb, checked by lintian" \
	  "make test-install   install, run and purge the package in a booted Debian root (root, nspawn)" \
	  "make snappy-judge   the exporter's snappy against Google's libsnappy (part of make test)" \
	  "make test-fleet     the exporter (Exporter/) against a real Prometheus (root)" \
	  "make fleet-demo     two gateways, Prometheus, an alert that fires (root, ~80 s)" \
	  "make fleet-sim      N (120) gateways push to one Prometheus for DURATION (300) s (root; long, not in CI)" \
	  "make test-kernel    the real-kernel lane under qemu: PPP, Wi-Fi, VRF, bond, WireGuard, GRE (root)" \
	  "make test-uplinks   the 14 dirty-uplink scenarios of reach track in namespaces here (root; netem rows run in test-kernel)" \
	  "make bench-uplinks  the dirty-uplink scenarios in the kernel lane's VM: detection times, soak, bytes per day (root; long)" \
	  "make setup-kernel   install what the kernel lane needs" \
	  "make setup-fleet    install Prometheus, promtool, systemd-analyze, Chromium" \
	  "make test-sanitize  the suite under ASan, UBSan and LSan" \
	  "make test-sandbox-unprivileged  NetworkSandbox's tests as nobody, in unshare -Urnm" \
	  "make test-sample    Examples/GatewayFailover as nobody: tier 1 in memory, tier 2 in unshare -Urnm" \
	  "make soak           10,000-cycle soak and fault tests (root)" \
	  "make test-repeat    the suite REPEAT (20) times under stress-ng; every test that failed once" \
	  "make steady-state   mallocs per monitor round, and per unchanged ModemManager signal, must be 0 (root)" \
	  "make fuzz           libFuzzer on every C parser (FUZZ_SECONDS each)" \
	  "make fuzz-smoke     a short fuzz run from the committed corpus" \
	  "make test-ccore-cross  the C core's tests and fuzz corpora on s390x, armhf (twice) and arm64 under qemu-user, and natively" \
	  "make setup-ccore-cross  install the cross compilers and qemu-user-static that test-ccore-cross needs" \
	  "make test-debian-swift  build and test with Debian 13's Swift 6.0.3, in a trixie root (root)" \
	  "make build-arm64    cross-build the package and its tests for arm64 with Debian's Swift 6.0.3 (root)" \
	  "make test-arm64     the suite on arm64 under qemu-user against this kernel (root; ARM64_TESTS=filter)" \
	  "make test-arm64-ci  the part of test-arm64 that CI runs" \
	  "make footprint-debian  the footprint's sizes with Debian's Swift 6.0.3, amd64 beside arm64 (root)" \
	  "make bench          all benchmarks and docs/benchmarks (root)" \
	  "make bench-latency  change latency by target kind against issue 41's budget (root)" \
	  "make bench-check    the allocation thresholds CI gates" \
	  "make bench-instructions  hot-path instructions per call against REV (callgrind)" \
	  "make bench-startup  start-up and RSS beside GLib's GNetworkMonitor (root)" \
	  "make bench-exporter the exporter under wrk load (root)" \
	  "make footprint      what the library adds to a static program, gated" \
	  "make firmware-order regenerate Tools/Footprint/firmware.order (root, valgrind)" \
	  "make clean          remove every build directory"

# The system packages the build and the tests need: libcap (the C core reads
# capabilities with it), pkg-config (SwiftPM finds libcap through it),
# iproute2 (the integration tests build their namespaces with `ip`), and the
# real servers the probe and validation tests run in their namespaces: nginx
# (HTTP 204, redirects, portal pages) and dnsmasq (DNS); nftables, the faults
# of the dirty-uplink tests (a path-MTU black hole, ARP dropped); curl, with which the
# exporter tests scrape reach-exporter. For ReachabilityModemManager: libsystemd
# (sd-bus), and what its tests run: dbus-daemon (a private system bus per
# test), python3-dbusmock (the ModemManager stand-in), modemmanager (the real
# daemon, with no modem) and modemmanager-dev (its introspection data, from
# which the stand-in takes every property's type),
# dbus-system-bus-common (Debian's system.conf: the spoofing test's bus runs
# with its policy), and python3-snappy (Google's libsnappy, the judge of the
# exporter's snappy compressor: snappy-judge).
SETUP_PACKAGES := libcap-dev pkg-config iproute2 nginx-light dnsmasq-base nftables curl \
	libsystemd-dev dbus-daemon dbus-system-bus-common python3-dbusmock modemmanager modemmanager-dev libyaml-dev python3-snappy
setup:
	@if ! pkg-config --exists libcap 2>/dev/null || ! command -v ip >/dev/null || ! command -v curl >/dev/null || \
			! PATH="$$PATH:/usr/sbin:/sbin" command -v nginx >/dev/null || \
			! PATH="$$PATH:/usr/sbin:/sbin" command -v dnsmasq >/dev/null || \
			! PATH="$$PATH:/usr/sbin:/sbin" command -v nft >/dev/null || \
			! pkg-config --exists libsystemd 2>/dev/null || ! pkg-config --exists yaml-0.1 2>/dev/null || ! [ -x /usr/bin/dbus-daemon ] || \
			! /usr/bin/python3 -c 'import dbusmock' 2>/dev/null || ! [ -x /usr/sbin/ModemManager ] || \
			! [ -f /usr/share/dbus-1/interfaces/org.freedesktop.ModemManager1.Modem.xml ] || \
			! [ -f /usr/share/dbus-1/system.conf ] || \
			! /usr/bin/python3 -c 'import snappy' 2>/dev/null; then \
		echo "make: installing $(SETUP_PACKAGES)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(SETUP_PACKAGES) >/dev/null; \
	fi

build: setup
	$(SWIFT) build

# `reach` exits 1 when the internet is not reachable: that is an answer, not a
# failed run, so only exit status 2 (bad input) fails `make run`.
run: build
	@$(SWIFT) run --skip-build reach $(ARGS) || [ $$? -eq 1 ]

# Integration tests need root (they make network namespaces); without root
# they skip, unless REACH_REQUIRE_NETNS=1 makes them fail. A target that
# imports a module it does not declare (an arrow running back up the layers)
# does not compile. XCTest first, then the Swift Testing tests (the simulated
# network under Swift Testing, whose tests run in parallel).
IMPORT_CHECK := --explicit-target-dependency-import-check=error
test: setup check-layers check-architecture
	$(SWIFT) test --disable-swift-testing $(IMPORT_CHECK)
	$(SWIFT) test --skip-build --disable-xctest
	@$(MAKE) --no-print-directory compat-surface
	@$(MAKE) --no-print-directory consumers
	@$(MAKE) --no-print-directory snappy-judge

# Google's libsnappy (Debian's python3-snappy) judges the exporter's snappy
# compressor (remote write's bodies): a corpus of shapes (empty, short,
# literals past 60 bytes, runs, offsets past 2,048 and 65,536, several 64 KiB
# blocks, random bytes, exposition text) compressed by ours, decompressed by
# libsnappy, byte for byte. Snappy.swift imports nothing, so it is compiled
# here with a small filter, without building the exporter's package.
snappy-judge: setup
	@mkdir -p .build
	$(SWIFTC) -O Exporter/Sources/ReachExporterKit/Push/Snappy.swift Tools/snappy-judge/main.swift -o .build/snappy-judge
	/usr/bin/python3 Tools/snappy-judge/judge.py .build/snappy-judge

# Packages that depend on this one beside the libraries it re-creates
# (Tests/Consumers/run.sh): apps shared with iOS that keep Alamofire,
# Reachability.swift or AFNetworking for Apple's platforms, a Linux server
# with Alamofire and our NetworkReachabilityManager in one file, and a
# program of the front door alone, whose build must hold no compat module,
# no test support and no program of ours. Stand-ins carry the originals'
# package, product and target names. Each is built and run.
consumers: setup
	Tests/Consumers/run.sh

# The compat modules against the originals' API (docs/compat-surface): every
# table's rows and totals, every public declaration of ours in its table
# (Tools/compat-surface/check.py), and the compile tests: each file of
# Tests/CompatSurface alone, as a client ported from iOS compiles it, in
# Swift 5 and Swift 6 modes (the original's spellings of every provided
# declaration, and what importing the module alone makes visible).
compat-surface:
	python3 Tools/compat-surface/check.py
	Tools/compat-surface/typecheck.sh Tests/CompatSurface/*.swift Tests/CompatSurface/Visibility/*.swift

# The layers (Architecture.md): ReachabilityModel imports nothing, not even
# Glibc, so its sources alone type-check with the standard library only; no
# target imports what it does not declare (SwiftPM's check, in `make test`),
# so the core cannot import the compat modules and nothing in this package
# can import the exporter (its own package, Exporter/).
check-layers:
	@if grep -rn --include="*.swift" "^[^/]*\bimport " Sources/ReachabilityModel; then \
		echo "check-layers: ReachabilityModel imports a module (above); it must import none" >&2; exit 1; fi
	$(SWIFTC) -typecheck -parse-as-library -package-name swift_reachability -module-name ReachabilityModel \
		$$(find Sources/ReachabilityModel -name '*.swift' | sort)
	@echo "check-layers: ReachabilityModel type-checks with the standard library alone"

# Architecture.md's map of the tree against the tree. The map is the fenced
# code block under its heading "Where the code is"; each line of it that
# starts before column 16 is an entry whose first word is a path (a folder
# when it ends in /), nested in the nearest entry above it that starts at a
# smaller column (indentation or tree-drawing characters), and a line that
# starts at column 16 or later continues a description. It fails when a path
# does not exist, or when a folder directly under Sources/ has no entry
# `Sources/NAME/` (Tools/check-architecture.py's header has the details).
check-architecture:
	python3 Tools/check-architecture.py

# A static `reach`, built as firmware builds it (Tools/Footprint/firmware.flags:
# the Swift standard library linked in, glibc and libcap shared; -Osize;
# unused functions, public ones too, dropped by the linker), stripped:
# .build-static/reach. NO_PIE=1 links it at a fixed address: no start-up
# relocation of its pointers (docs/benchmarks/peers.md), at the price of ASLR
# for the program's own image (libraries, stack and heap stay randomised).
# --foundation: reach links Dispatch and FoundationEssentials
# (swift-argument-parser), built elsewhere (firmware-flags.sh).
FIRMWARE_FLAGS := $(shell Tools/Footprint/firmware-flags.sh --foundation)
# --disable-local-rpath: no RUNPATH $ORIGIN (a static program loads no Swift
# library from beside itself, and an installed one should not look there).
STATIC_FLAGS := $(FIRMWARE_FLAGS) --disable-local-rpath $(if $(NO_PIE),-Xswiftc -Xclang-linker -Xswiftc -no-pie)
static: setup
	$(SWIFT) build -c release --product reach --scratch-path .build-static $(STATIC_FLAGS)
	strip --remove-section=.comment --remove-section=.note -o .build-static/reach .build-static/release/reach

# reach-exporter built the same way (Exporter/.build-static/reach-exporter).
static-exporter: setup
	cd Exporter && $(SWIFT) build -c release --product reach-exporter --scratch-path .build-static $(STATIC_FLAGS)
	strip --remove-section=.comment --remove-section=.note \
		-o Exporter/.build-static/reach-exporter Exporter/.build-static/release/reach-exporter
	@# The exporter links neither FoundationEssentials nor the regex engine
	@# (_StringProcessing: String.firstRange(of:), trimmingPrefix, ...): 1 to 5 MB each.
	@if nm Exporter/.build-static/release/reach-exporter | grep -q -e '20FoundationEssentials' -e '17_StringProcessing'; then \
		echo "static-exporter: FoundationEssentials or _StringProcessing is linked in (nm lists which symbols)" >&2; exit 1; fi

# The Debian package (Packaging/README.md): .build-deb/reach_VERSION_ARCH.deb
# from the two static programs, their manual pages (reach's from swift-argument-parser's
# generate-manual plugin, dated with the CHANGELOG entry of the version) and
# completions, the unit, the conffile and the Prometheus rules; then lintian,
# which fails it on any error. The version is Packaging/version.sh's (from
# Sources/ReachabilityCore/Version.swift). test-install boots a minimal Debian
# root under systemd-nspawn and installs, runs and purges it there (root).
DEB_PACKAGES := dpkg-dev lintian debootstrap systemd-container
DEB_COMMANDS := dpkg-shlibdeps lintian debootstrap systemd-nspawn
DEB_VERSION = $(shell Packaging/version.sh)
DEB_FILE = .build-deb/reach_$(DEB_VERSION)_$(shell dpkg --print-architecture).deb
MANUALS := .build/plugins/GenerateManual/outputs
setup-deb: setup
	@missing=; for c in $(DEB_COMMANDS); do PATH="$$PATH:/usr/sbin:/sbin" command -v $$c >/dev/null || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then \
		echo "make: missing$$missing; installing $(DEB_PACKAGES)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
			--no-install-recommends $(DEB_PACKAGES) >/dev/null; \
	fi

manuals: setup
	$(SWIFT) package plugin generate-manual --configuration debug --date $$(Packaging/version.sh --date)

# make deb ARCH=arm64 cannot be made yet: reach builds for arm64 (make
# build-arm64), but the package carries reach-exporter too, which needs
# Swift 6.2 (its dependencies), and Debian 13's Swift for arm64 is 6.0.3.
# (ARCH from the command line only: an ARCH in the environment is not ours.)
DEB_ARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH),$(shell dpkg --print-architecture))
deb-architecture:
	@if [ "$(DEB_ARCH)" != "$$(dpkg --print-architecture)" ]; then \
		echo "make deb ARCH=$(DEB_ARCH): not possible yet: the package carries reach-exporter, which needs Swift 6.2" >&2; \
		echo "  (swift-log 1.16, swift-service-lifecycle 2.13), and Debian 13's Swift for $(DEB_ARCH) is 6.0.3;" >&2; \
		echo "  make build-arm64 builds reach and the library for arm64 (README, \"Toolchains and platforms\")" >&2; \
		exit 2; \
	fi

deb: deb-architecture setup-deb static static-exporter manuals
	@rm -f .build-deb/reach_*.deb
	Packaging/build-deb.sh .build-static/reach Exporter/.build-static/reach-exporter \
		$(MANUALS)/reach/reach.1 Exporter/dist/man/reach-exporter.8 .build-deb
	dpkg-deb --info $(DEB_FILE) | sed -n '/Package:/,$$p'
	lintian --fail-on error $(DEB_FILE)
	@echo "make deb: $(DEB_FILE)"

# (It installs the .deb that make deb last built, and builds one if there is none.)
test-install: setup-deb
	@if [ -f $(DEB_FILE) ]; then echo "make test-install: $(DEB_FILE) of $$(date -r $(DEB_FILE) '+%F %T') (make deb rebuilds it)"; \
	else $(MAKE) deb; fi
	Packaging/test-install.sh $(DEB_FILE)

# The real-kernel lane (Tests/KernelLane/README.md): Debian's own kernel under
# qemu runs PPP, PPPoE, Wi-Fi, VRF, bond, WireGuard and GRE scenarios that this
# machine's kernel cannot. setup-kernel installs what it needs from Debian's
# packages; test-kernel needs root. LANE_ONLY="wifi vrf" runs some of them.
# Its `uplinks` scenario (Tests/Uplinks) needs nginx, dnsmasq, nft and tc;
# bench-uplinks runs NetworkManager beside reach when network-manager is
# installed (not part of setup-kernel).
KERNEL_LANE_PACKAGES := qemu-system-x86 linux-image-amd64 busybox-static cpio kmod \
	ppp pppoe hostapd wpasupplicant wireguard-tools iw jq python3 iproute2 file \
	nginx-light dnsmasq-base nftables
KERNEL_LANE_COMMANDS := qemu-system-x86_64 pppd pppoe-server hostapd wpa_supplicant wg iw jq cpio python3 file \
	nginx dnsmasq nft tc
setup-kernel:
	@missing=; for c in $(KERNEL_LANE_COMMANDS); do command -v $$c >/dev/null || missing="$$missing $$c"; done; \
	ls /boot/vmlinuz-*-amd64 >/dev/null 2>&1 || missing="$$missing linux-image-amd64"; \
	file -L /bin/busybox 2>/dev/null | grep -q "statically linked" || missing="$$missing busybox-static"; \
	if [ -n "$$missing" ]; then \
		echo "make: missing$$missing; installing $(KERNEL_LANE_PACKAGES)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
			--no-install-recommends $(KERNEL_LANE_PACKAGES) >/dev/null; \
	fi

test-kernel: static
	REACH_LANE_ONLY="$(LANE_ONLY)" Tests/KernelLane/run.sh .build-static/reach

# The dirty-uplink scenarios (Tests/Uplinks/scenarios.sh): `reach track` on
# one uplink of a two-uplink gateway made of namespaces, with dnsmasq, nginx
# and nftables faults. test-uplinks runs them here (root; this kernel has no
# sch_netem, so rows 5 and 6c skip and run in test-kernel, whose `uplinks`
# scenario runs all of them); UPLINK_ONLY="3 7" runs some; REACH_REQUIRE_NETNS=1
# fails instead of skipping when not root. bench-uplinks boots the kernel
# lane's VM and runs Tests/Uplinks/bench.sh: every row BENCH_REPEAT times
# (median, p99), a BENCH_SOAK_MINUTES soak of row 5's fault (standard and fast
# profiles), probe bytes per day over BENCH_BYTES_SECONDS per profile; the
# table goes to stdout and BENCH_UPLINKS_OUT. UPLINKS_REACH picks the binary.
UPLINK_ONLY ?=
UPLINKS_REACH ?= .build/debug/reach
BENCH_REPEAT ?= 5
BENCH_SOAK_MINUTES ?= 30
BENCH_BYTES_SECONDS ?= 600
BENCH_UPLINKS_OUT ?= Tests/Uplinks/bench-results.md
test-uplinks:
	$(if $(filter .build/debug/reach,$(UPLINKS_REACH)),nice -n 10 $(SWIFT) build --product reach)
	UPLINK_ONLY="$(UPLINK_ONLY)" Tests/Uplinks/scenarios.sh $(UPLINKS_REACH)

bench-uplinks: static
	BENCH_REPEAT=$(BENCH_REPEAT) BENCH_SOAK_MINUTES=$(BENCH_SOAK_MINUTES) BENCH_BYTES_SECONDS=$(BENCH_BYTES_SECONDS) \
	BENCH_ROWS="$(UPLINK_ONLY)" REACH_LANE_MODE=bench REACH_LANE_BENCH_OUT=$(BENCH_UPLINKS_OUT) \
	REACH_LANE_TIMEOUT=$$(( $(BENCH_REPEAT) * 720 + $(BENCH_SOAK_MINUTES) * 60 + $(BENCH_BYTES_SECONDS) * 2 + 600 )) \
	Tests/KernelLane/run.sh $${BENCH_UPLINKS_REACH:-.build-static/reach}

# The fleet (Running a fleet; the exporter is its own package, Exporter/):
# reach-exporter against a real Prometheus.
# setup-fleet installs Debian's prometheus (with promtool), curl and
# systemd-analyze, what the remote write tests build their NAT and receiver
# with: nftables (the router's masquerade and the cut), apache2-utils
# (htpasswd: the bcrypt hash of Prometheus' basic auth) and openssl (a test
# CA), and chromium (headless, for the status page; with a font for its
# screenshot); test-fleet checks the rules (promtool check/test rules),
# the example Prometheus config and the systemd unit, then runs the exporter
# tests with Prometheus and Chromium required: two exporters watching two
# namespaces, scraped every second, one uplink flapped, the status page read
# in Chromium; then RemoteWriteTests: a gateway
# behind a NAT router pushing to Prometheus over TLS with basic auth, a
# two-minute cut (about 2.5 of the run's minutes), receivers that answer 500,
# 400, 401 or an unverifiable certificate, every query of the Grafana
# dashboard (Exporter/dist/grafana) against what was pushed, and a second real
# receiver, Debian's victoria-metrics, beside Prometheus through a cut (root).
FLEET_PACKAGES := prometheus curl systemd nftables apache2-utils openssl chromium fonts-dejavu-core victoria-metrics
setup-fleet: setup
	@if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null || ! command -v curl >/dev/null || \
			! command -v systemd-analyze >/dev/null || ! PATH="$$PATH:/usr/sbin:/sbin" command -v nft >/dev/null || \
			! command -v htpasswd >/dev/null || ! command -v openssl >/dev/null || ! command -v chromium >/dev/null || \
			! [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || ! [ -x /usr/bin/victoria-metrics ]; then \
		echo "make: installing $(FLEET_PACKAGES)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
			--no-install-recommends $(FLEET_PACKAGES) >/dev/null; \
	fi

EXPORTER_BIN = $$(cd Exporter && $(SWIFT) build --show-bin-path)
test-fleet: setup-fleet
	cd Exporter && $(SWIFT) build --build-tests
	cd Exporter && Tests/Fleet/check-static.sh $$($(SWIFT) build --show-bin-path)/reach-exporter
	cd Exporter && $(SWIFT) test --skip-build --disable-swift-testing
	$(SWIFT) build --build-tests
	REACH_EXPORTER_BINARY=$(EXPORTER_BIN)/reach-exporter REACH_REQUIRE_EXPORTER=1 REACH_REQUIRE_PROMETHEUS=1 \
		$(SWIFT) test --skip-build --disable-swift-testing --filter 'ExporterTests|RemoteWriteTests'

# The README's walk-through, for real: two gateways in namespaces, their
# exporters, Prometheus with the alert rules; a cable is pulled and the
# ReachTargetDown alert fires (about 80 s; root).
fleet-demo: setup-fleet
	cd Exporter && $(SWIFT) build --product reach-exporter
	Exporter/dist/demo/fleet-demo.sh $(EXPORTER_BIN)/reach-exporter

# A fleet past one machine, simulated (docs/benchmarks/fleet-simulation.md,
# and Running a fleet's "A fleet of 100,000 gateways"): N gateways, each a
# namespace with two uplinks and its own reach-exporter (release build, or
# EXPORTER=PATH), push to one Prometheus in a centre namespace; measured over
# DURATION seconds once all push: bytes per second on the uplink, samples per
# second, active series per gateway, the receiver's CPU and RSS per gateway.
# Root; takes DURATION plus a few minutes, and is not run by CI.
# `make fleet-sim N=150 DURATION=600`.
N ?= 120
DURATION ?= 300
EXPORTER ?=
fleet-sim: setup-fleet
	@command -v nft >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends nftables >/dev/null; }
	$(if $(EXPORTER),,cd Exporter && $(SWIFT) build -c release --product reach-exporter)
	@mkdir -p docs/benchmarks
	FLEET_SIM_COMMAND="make fleet-sim N=$(N) DURATION=$(DURATION)" Benchmarks/Fleet/simulate.sh \
		$(or $(EXPORTER),$$(cd Exporter && $(SWIFT) build -c release --show-bin-path)/reach-exporter) $(N) $(DURATION) \
		> docs/benchmarks/fleet-simulation.md.tmp || { rm -f docs/benchmarks/fleet-simulation.md.tmp; false; }
	mv docs/benchmarks/fleet-simulation.md.tmp docs/benchmarks/fleet-simulation.md
	cat docs/benchmarks/fleet-simulation.md

# The exporter under load: 1,000 targets, 100 scrapes/s for 30 s from wrk on
# loopback; latency percentiles and RSS before and after
# (docs/benchmarks/exporter.md; root).
bench-exporter: setup-fleet
	@command -v wrk >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk >/dev/null; }
	cd Exporter && $(SWIFT) build -c release --product reach-exporter
	Benchmarks/Exporter/load.sh $$(cd Exporter && $(SWIFT) build -c release --show-bin-path)/reach-exporter | tee docs/benchmarks/exporter.md

# The whole suite again with AddressSanitizer (Swift and C) and
# UndefinedBehaviorSanitizer (the C core: Swift checks its own arithmetic), in
# a build directory of its own. LeakSanitizer reports what C code allocated and
# never freed; .ci/lsan.supp explains what it does not report. Not
# ExporterTests and RemoteWriteTests: they test the reach-exporter program (a
# process of its own, built without the sanitizers, its tests run by
# test-fleet), not code in this build.
SANITIZE_FLAGS := --scratch-path .build-sanitize --sanitize=address \
	-Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
	-Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined
test-sanitize: setup
	$(SWIFT) build --build-tests $(SANITIZE_FLAGS) 2>&1 | grep -v "ld.gold: warning: Cannot export local symbol" ; \
		exit $${PIPESTATUS[0]}
	ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 SWIFT_BACKTRACE=enable=no \
		$(SWIFT) test --skip-build --disable-swift-testing --skip 'ExporterTests|RemoteWriteTests' $(SANITIZE_FLAGS)

# NetworkSandbox's tests (ReachabilityTesting, tier 2) as an unprivileged
# user, through the wrapper its documentation gives: the whole test process in
# a user, network and mount namespace (`unshare -Urnm`). Built as root first,
# then run as nobody (SANDBOX_UID); the test binary is copied to a temporary
# directory when nobody cannot read the checkout. REACH_EXPECT_USERNS=1 makes
# the tests check that they run inside a user namespace, REACH_REQUIRE_NETNS=1
# that they do not skip.
SANDBOX_UID ?= 65534
test-sandbox-unprivileged: setup
	$(SWIFT) build --build-tests
	@bin=$$($(SWIFT) build --show-bin-path)/swift-reachabilityPackageTests.xctest; \
	as_user="setpriv --reuid $(SANDBOX_UID) --regid $(SANDBOX_UID) --clear-groups"; \
	run=$$(mktemp -d /tmp/reach-sandbox-unprivileged.XXXXXX) && chmod 755 $$run && \
	mkdir $$run/home && chown $(SANDBOX_UID):$(SANDBOX_UID) $$run/home || exit 1; \
	if ! $$as_user test -r $$bin -a -x $$bin; then cp $$bin $$run/ && chmod 755 $$run/$${bin##*/} && bin=$$run/$${bin##*/}; fi; \
	echo "make: $$as_user unshare -Urnm $$bin IntegrationTests.SandboxTests"; \
	cd $$run && HOME=$$run/home REACH_REQUIRE_NETNS=1 REACH_EXPECT_USERNS=1 \
		$$as_user unshare -Urnm $$bin IntegrationTests.SandboxTests; \
	status=$$?; rm -rf $$run; exit $$status

# Examples/GatewayFailover, a downstream package of our public products, as a
# user would run it: as nobody (SAMPLE_UID), in a copy of the checkout nobody
# owns, built by nobody. Tier 1 (SimulatedTests) runs as that plain user; tier
# 2 (SandboxTests) inside `unshare -Urnm`, required not to skip. Its tests may
# not sleep (the grep below). nobody's git is told (in its own global config)
# that the machine's package copies, which belong to root, are safe to read.
SAMPLE_UID ?= 65534
test-sample: setup
	@if grep -rnE '\b(u?sleep|nanosleep)\(|Thread\.sleep|Task\.sleep|asyncAfter' Examples/GatewayFailover/Tests; then \
		echo "make: the sample's tests must not sleep"; exit 1; fi
	@run=$$(mktemp -d /tmp/reach-sample.XXXXXX) && chmod 755 $$run && mkdir $$run/src $$run/home || exit 1; \
	tar --exclude='.build*' --exclude=.git -cf - . | tar -C $$run/src -xf - || exit 1; \
	printf '[safe]\n\tdirectory = *\n' > $$run/home/.gitconfig && chown -R $(SAMPLE_UID):$(SAMPLE_UID) $$run || exit 1; \
	as_user="setpriv --reuid $(SAMPLE_UID) --regid $(SAMPLE_UID) --clear-groups"; \
	sample=$$run/src/Examples/GatewayFailover; \
	env="HOME=$$run/home"; \
	echo "make: as $$($$as_user id -un): swift build --build-tests in $$sample"; \
	cd $$sample && { env $$env $$as_user $(SWIFT) build --build-tests > $$run/build.log 2>&1 || { cat $$run/build.log; false; }; } && \
	bin=$$(env $$env $$as_user $(SWIFT) build --show-bin-path)/GatewayFailoverPackageTests.xctest && \
	echo "make: tier 1, as $$($$as_user id -un), no namespace" && \
	env $$env $$as_user $$bin GatewayFailoverTests.SimulatedTests && \
	echo "make: tier 1 under Swift Testing, as $$($$as_user id -un)" && \
	env $$env $$as_user $$bin --testing-library swift-testing && \
	echo "make: tier 2, as $$($$as_user id -un), inside unshare -Urnm" && \
	env $$env REACH_REQUIRE_NETNS=1 $$as_user unshare -Urnm $$bin GatewayFailoverTests.SandboxTests; \
	status=$$?; cd / && rm -rf $$run; exit $$status

# Soak: 10,000 link flaps under one monitor, 10,000 monitor start/stop
# cycles, and 100,000 flaps with stalled consumers (10 per cycle); file
# descriptors, library threads and RSS must come back to where they started.
# Then the fault cases (injected netlink errno, descriptor and thread limits,
# the namespace deleted). `make test` runs the same tests with 300 cycles.
SOAK_CYCLES ?= 10000
soak: setup
	REACH_SOAK_CYCLES=$(SOAK_CYCLES) $(SWIFT) test --disable-swift-testing --filter "SoakTests|FaultTests" 2>&1 | \
		grep -E "^soak:|^at the|^threads refused|error|Executed"; exit $${PIPESTATUS[0]}

# No flake, measured: the whole suite (make test's XCTest and Swift Testing
# runs) REPEAT times in a row on one build while stress-ng --cpu 2 --io 1
# loads the machine (as CI's sanitizer build does); it lists every test that
# failed at least once, and keeps the logs (Tools/test-repeat.sh; root for the
# namespace tests; about 2.5 minutes a run here).
REPEAT ?= 20
test-repeat: setup
	REACH_REQUIRE_NETNS=1 Tools/test-repeat.sh -n $(REPEAT) --load

# libFuzzer on every C parser (Fuzz/README.md): FUZZ_SECONDS per harness.
FUZZ_SECONDS ?= 60
fuzz: setup
	Fuzz/run.sh $(FUZZ_SECONDS)

# What CI runs: a short run of each harness from its committed corpus.
fuzz-smoke: setup
	Fuzz/run.sh --smoke

# The C core on other architectures (Fuzz/README.md, "Other architectures"):
# Tests/CCore/ccore_tests.c (byte order, alignment, 32-bit size_t and
# time_t) and every harness's committed corpus replayed, built with Debian's
# cross compilers and run under qemu-user on s390x (big-endian), armhf (with
# 32-bit and with 64-bit time_t) and arm64, and natively here as the
# reference (Tools/ccore-cross.sh, about 30 s; CCORE_ARCHES="s390x armhf"
# for some). setup-ccore-cross installs what Tools/ccore-cross.sh --check
# finds missing: the three cross gcc with their C libraries and kernel
# headers, and qemu-user-static. No libcap: caps.c is not built.
CCORE_CROSS_PACKAGES := gcc libc6-dev linux-libc-dev qemu-user-static \
	gcc-s390x-linux-gnu libc6-dev-s390x-cross linux-libc-dev-s390x-cross \
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross linux-libc-dev-armhf-cross \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross linux-libc-dev-arm64-cross
CCORE_ARCHES ?=
setup-ccore-cross:
	@if ! Tools/ccore-cross.sh --check $(CCORE_ARCHES) 2>/dev/null; then \
		echo "make: installing $(CCORE_CROSS_PACKAGES)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
			--no-install-recommends $(CCORE_CROSS_PACKAGES) >/dev/null; \
	fi

test-ccore-cross: setup-ccore-cross
	Tools/ccore-cross.sh $(CCORE_ARCHES)

# Swift as Debian ships it (README, "Toolchains and platforms";
# Tools/debian-swift.sh): Debian 13's swiftlang 6.0.3, the oldest Swift the
# package supports, in a trixie root made with debootstrap from Debian's
# archive; and trixie's arm64 packages unpacked as the sysroot of a cross
# build with that compiler, whose programs run here under qemu-user
# (binfmt_misc) against this machine's kernel. Both roots are cached in
# /var/cache/swift-reachability/debian-swift (about 3.5 GB and 1.7 GB; two
# minutes to make). Root: debootstrap, chroot, mounts, namespaces.
#   test-debian-swift: the whole package and its tests built with 6.0.3 for
#     amd64, then the suite (XCTest, then Swift Testing) run in the root.
#   build-arm64: the package and its tests cross-built for arm64 (6.0.3).
#   test-arm64: the suite on arm64 under emulation (ARM64_TESTS: swift
#     test's --filter, for part of it, as CI runs); every test that emulation
#     cannot run skips saying why (REACH_EMULATED).
DEBIAN_SWIFT := Tools/debian-swift.sh
DEBIAN_SWIFT_PACKAGES := debootstrap qemu-user-static binfmt-support
ARM64_SDK := --swift-sdks-path /opt/swift-sdks --swift-sdk trixie-arm64
ARM64_BUILD := .build-debian-arm64
ARM64_TESTS ?=
setup-debian-swift: setup
	@if ! PATH="$$PATH:/usr/sbin:/sbin" command -v debootstrap >/dev/null || ! [ -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] || \
			! PATH="$$PATH:/usr/sbin:/sbin" command -v update-binfmts >/dev/null; then \
		echo "make: installing $(DEBIAN_SWIFT_PACKAGES)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
			--no-install-recommends $(DEBIAN_SWIFT_PACKAGES) >/dev/null; \
	fi
	@[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || $(SUDO) update-binfmts --enable qemu-aarch64
	$(SUDO) $(DEBIAN_SWIFT) root

test-debian-swift: setup-debian-swift
	$(SUDO) $(DEBIAN_SWIFT) run swift build --build-tests --scratch-path .build-debian-amd64 $(IMPORT_CHECK)
	$(SUDO) $(DEBIAN_SWIFT) run swift test --skip-build --scratch-path .build-debian-amd64 --disable-swift-testing
	$(SUDO) $(DEBIAN_SWIFT) run swift test --skip-build --scratch-path .build-debian-amd64 --disable-xctest

build-arm64: setup-debian-swift
	$(SUDO) $(DEBIAN_SWIFT) run-arm64 swift build --build-tests --scratch-path $(ARM64_BUILD) $(ARM64_SDK)

ARM64_SWIFT_TEST = $(SUDO) $(DEBIAN_SWIFT) run-arm64 env REACH_EMULATED=qemu-user \
	swift test --skip-build --scratch-path $(ARM64_BUILD) $(ARM64_SDK)
test-arm64: build-arm64
	$(ARM64_SWIFT_TEST) --disable-swift-testing $(if $(ARM64_TESTS),--filter '$(ARM64_TESTS)')
	$(ARM64_SWIFT_TEST) --disable-xctest

# The part of test-arm64 that CI runs: the unit tests (the parsers on
# committed captures, the decision tables), the ModemManager reader (D-Bus
# messages through sd-bus), the simulated network, and the integration
# tests that ask this kernel routes, links and rules in namespaces.
ARM64_CI_TESTS := ^(ReachabilityTests|ModemManagerTests|ReachabilityTestingTests)\.|\.(RouteScenarioTests|SimulatedKernelAgreesWithLinuxTests|BadInputKernelTests|MonitorTests)/
test-arm64-ci: build-arm64
	@$(MAKE) --no-print-directory test-arm64 ARM64_TESTS='$(ARM64_CI_TESTS)'

# The firmware footprint with Debian's Swift 6.0.3, amd64 beside arm64:
# sizes of static, stripped programs (Tools/Footprint/measure-debian.sh;
# make footprint gives this machine's Swift's, with RSS). Release builds
# with LTO, four of them: about ten minutes.
footprint-debian: setup-debian-swift
	$(SUDO) $(DEBIAN_SWIFT) run Tools/Footprint/measure-debian.sh

# The DocC catalogs (Sources/**/<Module>.docc), one per public module, built
# with swift-docc-plugin, which Package.swift declares only when REACH_DOCS is
# set. A module is documented once it has a catalog; docc's warnings (a
# broken symbol link, a missing article) are errors (--warnings-as-errors).
# The compiler's own warnings, printed while the modules build, are not docc's.
# Output: .build/plugins/Swift-DocC/outputs.
DOCS_MODULES = $(sort $(basename $(notdir $(shell find Sources -type d -name '*.docc'))))
# Every public declaration of those modules has a documentation comment
# (Tools/undocumented.py lists any that has none, and fails).
docs: setup
	python3 Tools/undocumented.py $(sort $(dir $(shell find Sources -type d -name '*.docc')))
	REACH_DOCS=1 $(SWIFT) package generate-documentation $(addprefix --target ,$(DOCS_MODULES)) --warnings-as-errors
	@echo "make: documentation of $(words $(DOCS_MODULES)) modules, no warnings"

# Benchmarks (their own package): classification and evaluation with
# package-benchmark, start-up and RSS beside GLib (bench-startup), the monitor
# against a real kernel with GLib's monitor beside it (root: it makes network
# namespaces), then docs/benchmarks/ (tables and gnuplot plots).
BENCH_RESULTS := Benchmarks/.results
bench: setup bench-startup
	@command -v gnuplot >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gnuplot-nox; }
	rm -rf $(BENCH_RESULTS) && mkdir -p $(BENCH_RESULTS)
	gcc -O2 -o $(BENCH_RESULTS)/glib-monitor Benchmarks/Peers/glib-monitor.c $$(pkg-config --cflags --libs gio-2.0)
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark \
		--target Classification --target Evaluation --no-progress \
		--format histogramPercentiles --path .results
	cd Benchmarks && $(SWIFT) run -c release Monitor --glib .results/glib-monitor --output .results/monitor.json
	python3 Benchmarks/report.py $(BENCH_RESULTS) docs/benchmarks

# Issue 41's budget at the observer for every kind of target (an address, a
# host name, `internet`) and every delivery (the monitor's thread, a queue, the
# stream, `reach watch`): LATENCY_FLAPS link flaps and as many default-route
# moves each, alone (the Monitor benchmark's `targets` mode; root: it makes
# network namespaces). The `reach` is the one `bench` uses: the static build
# when no source is newer, else a release build made then.
LATENCY_FLAPS ?= 100
bench-latency: setup
	mkdir -p $(BENCH_RESULTS) docs/benchmarks
	cd Benchmarks && $(SWIFT) run -c release Monitor targets --flaps $(LATENCY_FLAPS) \
		--route-changes $(LATENCY_FLAPS) --output .results/monitor-targets.json
	{ echo "# Latency at the observer, by target kind"; echo; \
	  echo "Made by \`make bench-latency\` on $$(uname -srm), $$(nproc) CPUs, $$(date -u +%F); medians over $(LATENCY_FLAPS) flaps (and default-route moves each way), ms above the kernel's first message."; \
	  echo; python3 Benchmarks/report.py --targets $(BENCH_RESULTS)/monitor-targets.json; \
	} > docs/benchmarks/latency-targets.md.tmp || { rm -f docs/benchmarks/latency-targets.md.tmp; false; }
	mv docs/benchmarks/latency-targets.md.tmp docs/benchmarks/latency-targets.md
	cat docs/benchmarks/latency-targets.md

# Instructions per call of the decision tables and per evaluation, this tree
# against git revision REV (default HEAD~1), counted by callgrind: a change
# that should not touch the hot paths shows +0.00 % whatever the machine's
# load (Benchmarks/Instructions/compare.sh).
REV ?= HEAD~1
bench-instructions: setup
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	Benchmarks/Instructions/compare.sh $(REV)

# What CI runs: against their static thresholds (Benchmarks/Thresholds), the
# classification benchmark (no allocation on the hot path) and the monitor's
# steady state (no allocation in 10,000 notifications that change nothing,
# with a callback observer; root: it makes a namespace).
bench-check: setup
	cd Benchmarks && $(SWIFT) package benchmark thresholds check --target Classification --target SteadyState --no-progress

# Start-up and RSS beside GLib's GNetworkMonitor (Benchmarks/Peers), with 0
# and 100,000 routes, in one run. Root; installs libglib2.0-dev when missing.
bench-startup: static
	WITH_PARSER=1 Tools/Footprint/measure.sh > /dev/null
	{ echo "# Beside GLib's GNetworkMonitor"; echo; \
	  echo "Made by \`make bench-startup\` on $$(uname -srm), $$(nproc) CPUs, $$(date -u +%F). Medians of 200 runs;"; \
	  echo "each ratio compares two measurements of the same run (Benchmarks/Peers/startup.sh)."; echo; \
	  echo '```'; m=Tools/Footprint/.build/measure; EMBED=$$m/embed-watch HELLO=$$m/hello PARSE_HELLO=$$m/parse-hello \
	    Benchmarks/Peers/startup.sh .build-static/reach; \
	  echo '```'; } | tee docs/benchmarks/peers.md

# The monitor's steady state (notifications that change no answer) with the
# static `reach`, for a reachable target and for one with no route (whose
# refusal is checked for a throw route each round): mallocs per round (an
# LD_PRELOAD counter, all threads) must be 0, and nothing may be reported.
# Root: it makes a namespace.
steady-state: static
	Benchmarks/SteadyState/steady-state.sh --check .build-static/reach 300
	TARGET=198.51.100.1 Benchmarks/SteadyState/steady-state.sh --check .build-static/reach 300
	Benchmarks/SteadyState/modem-steady-state.sh --check .build-static/reach 300

# The firmware build's symbol ordering file (firmware-flags.sh passes it to
# lld): the functions the hello world, hello-collections, the embedding
# program and `reach watch internet` run to their first answer and through
# link, address and route changes, from callgrind (Tools/Footprint/order.sh;
# root: a namespace),
# placed together so that they fill a few pages instead of touching the text
# all over. Write it again after the library's start or event path changed;
# the programs are deleted so that the next build links them with it.
firmware-order: static
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	cd Tools/Footprint && for program in embed-watch hello hello-collections; do \
		$(SWIFT) build -c release $$(./firmware-flags.sh) --product $$program || exit 1; done
	cd Tools/Footprint && bin=$$($(SWIFT) build -c release $$(./firmware-flags.sh) --show-bin-path) && \
		./order.sh "$$bin" "$(CURDIR)/.build-static/release/reach" && \
		rm -f "$$bin/embed-watch" "$$bin/hello" "$$bin/hello-collections" "$(CURDIR)/.build-static/release/reach"

# What ReachabilityCore adds to a static, stripped program that watches
# `internet` (Tools/Footprint), against a hello world built the same way:
# size, RSS, threads, and where the bytes go. CI gates the size (deterministic).
# The minimal build (firmware-minimal.flags) is held to issue 14's 300 KB.
# Tools/Footprint/pages.py tells where the RSS the library adds goes.
# 390 since issue 28: the process-wide policy and radio source every evaluator
# follows (their observers, REACH_ALLOW_WWAN and REACH_RADIO read once) added
# 11.5 KB of code, 12 KiB of file (369 -> 381 KiB). 400 since issue 30: the
# pure model in a module of its own (381 -> 393 KiB, +9.6 KiB of symbols):
# its own glob matcher (2.8 KiB, where fnmatch was glibc's, shared), and the
# conformances and static sets of public types that one module boundary keeps
# (InterfaceFacts' Hashable, the link-kind sets' accessors). 350 since issue
# 41, its goal: the link drops the unwind tables (no-unwind-tables.ld; 88 KB
# of the 397 KiB it had reached), 313 KiB. A change that needs more takes it
# from elsewhere. 360 since issue 55: the dirty-uplink verdict's public types
# (UplinkChecks, UplinkQuality, QualitySummary, UplinkVerdict, QualityLevel,
# and Configuration's and TrackerEvent's new fields) keep their Hashable,
# RawRepresentable and CaseIterable conformance records in this build, which
# keeps every public conformance of what it links: 19.6 KiB of symbols that
# embed-watch never runs (337 -> 356 KiB, measured symbol by symbol). The
# minimal build, which drops unused records (-conditional-runtime-records),
# stays within its 300,000 bytes (266,656).
FOOTPRINT_MAX_KB ?= 360
FOOTPRINT_MINIMAL_MAX_BYTES ?= 300000
footprint: setup
	Tools/Footprint/measure.sh --check $(FOOTPRINT_MAX_KB) $(FOOTPRINT_MINIMAL_MAX_BYTES)

clean:
	rm -rf Tests/Consumers/*/.build .build .build-sanitize .build-fuzz .build-ccore .build-static .build-deb Exporter/.build Exporter/.build-static Benchmarks/.build Benchmarks/.results Tools/Footprint/.build \
		Tools/Footprint/.build-minimal Tools/Footprint/.build-parser Tools/Footprint/.build-libstdc++
