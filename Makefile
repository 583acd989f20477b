# LiveBridge — build, test, demo, install.
#   make demo      install what is missing, build release, run the demo (no accounts needed)
#   make test      install what is missing, build and run the whole test suite (what CI runs)
#   make deb       the Debian package, .build/deb/livebridge_<version>_<arch>.deb

PREFIX     ?= /usr/local
SWIFT      ?= swift
CONFIG_DIR ?= /etc/livebridge
BIN        := .build/release/livebridge
DEB_DIR    := .build/deb
# The release build links the Swift runtime into the binary, so it runs without a toolchain.
RELEASE_FLAGS ?= --static-swift-stdlib

.PHONY: all deps build release test demo install uninstall lint fuzz fuzz-smoke bench link-order deb package-test clean

all: build

## Install missing system packages (apt; through sudo when not root). Each area adds a script.
deps:
	@for script in scripts/deps/*.sh; do bash "$$script" || exit 1; done

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release $(RELEASE_FLAGS)

## The whole suite, as CI runs it.
# Tests run one at a time: several suites start real servers and helper processes, and on a
# 2-core machine parallel suites starve each other's socket deadlines.
# The package test needs root (chroot); as another user it is skipped, and says so.
test: deps lint fuzz-smoke
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel
	@if [ "$$(id -u)" -eq 0 ]; then $(MAKE) package-test; \
	else echo "make test: skipped the package test (needs root): sudo make package-test"; fi

demo: deps release
	$(BIN) demo

install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/livebridge
	install -d -m 0755 $(DESTDIR)$(CONFIG_DIR)
	@if [ ! -e $(DESTDIR)$(CONFIG_DIR)/livebridge.json5 ]; then \
		install -m 0600 examples/livebridge.json5 $(DESTDIR)$(CONFIG_DIR)/livebridge.json5; \
		echo "installed example config to $(DESTDIR)$(CONFIG_DIR)/livebridge.json5"; \
	else echo "kept existing $(DESTDIR)$(CONFIG_DIR)/livebridge.json5"; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/livebridge

## Benchmarks on a release build, no network (docs/performance.md): `make bench BENCH_ARGS=--quick`.
# The bench is its own program (livebridge-bench); it measures the livebridge next to it.
bench: release
	.build/release/livebridge-bench $(BENCH_ARGS)

## The release link's code layout (scripts/link/order.sh): profiles `livebridge run` in the resource
# bench under callgrind and rewrites scripts/link/livebridge.order and livebridge-hot.lds.
link-order: deps
	scripts/link/order.sh

## Fuzzing (fuzz/README.md): every libFuzzer harness for FUZZ_SECONDS each (default 5 minutes).
FUZZ_SECONDS ?= 300
fuzz: deps
	SWIFT=$(SWIFT) fuzz/run.sh --seconds $(FUZZ_SECONDS)

## A short pass of every harness, part of `make test` (so CI runs it): fails on any crash. A fixed
## seed makes it the same pass on every machine and run; `make fuzz` explores with fresh seeds.
FUZZ_SMOKE_SEED ?= 1
fuzz-smoke: deps
	SWIFT=$(SWIFT) fuzz/run.sh --fresh --runs 50000 --seed $(FUZZ_SMOKE_SEED)

## Style (.swift-format): part of `make test`, so CI fails on a finding.
lint:
	$(SWIFT) format lint --strict -r Sources adapters Tests examples

## The Debian package from the release build (scripts/package/deb.sh; README, "Install and run").
deb: deps release
	scripts/package/deb.sh $(BIN) $(DEB_DIR)

## That package installed with apt into a clean Debian 12 root (debootstrap, cached) and run there.
package-test:
	@[ "$$(id -u)" -eq 0 ] || { echo "make package-test: needs root (debootstrap, chroot, mount): sudo make package-test" >&2; exit 1; }
	$(MAKE) deb
	scripts/package/test.sh $$(ls $(DEB_DIR)/livebridge_*.deb)

clean:
	rm -rf .build
