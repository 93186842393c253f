# Quick start: `make run` (set-up, build, run `reach`) and `make test`.
SWIFT ?= swift
# Root installs directly; anyone else through sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ARGS ?=

.PHONY: all setup build run test bench bench-check clean

all: build

# The system packages the build and the tests need: libcap (the C core reads
# capabilities with it), pkg-config (SwiftPM finds libcap through it) and
# iproute2 (the integration tests build their namespaces with `ip`).
setup:
	@if ! pkg-config --exists libcap 2>/dev/null || ! command -v ip >/dev/null; then \
		echo "make: installing libcap-dev pkg-config iproute2"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libcap-dev pkg-config iproute2; \
	fi

build: setup
	$(SWIFT) build

# `reach` exits 1 when the internet is not reachable: that is an answer, not a
# failed run, so only exit status 2 (bad input) fails `make run`.
run: build
	@$(SWIFT) run --skip-build reach $(ARGS) || [ $$? -eq 1 ]

# Integration tests need root (they make network namespaces); without root
# they skip, unless REACH_REQUIRE_NETNS=1 makes them fail.
test: setup
	$(SWIFT) test --disable-swift-testing

# Benchmarks (their own package): classification and evaluation with
# package-benchmark, the monitor against a real kernel (root: it makes network
# namespaces), then docs/benchmarks/ (table and gnuplot plots).
BENCH_RESULTS := Benchmarks/.results
bench: setup
	@command -v gnuplot >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gnuplot-nox; }
	rm -rf $(BENCH_RESULTS) && mkdir -p $(BENCH_RESULTS)
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark \
		--target Classification --target Evaluation --no-progress \
		--format histogramPercentiles --path .results
	cd Benchmarks && $(SWIFT) run -c release Monitor --output .results/monitor.json
	python3 Benchmarks/report.py $(BENCH_RESULTS) docs/benchmarks

# What CI runs: the classification benchmark against its static thresholds
# (Benchmarks/Thresholds: no allocation on the hot path).
bench-check: setup
	cd Benchmarks && $(SWIFT) package benchmark thresholds check --target Classification --no-progress

clean:
	rm -rf .build Benchmarks/.build Benchmarks/.results
