# Sonde's two commands: `make run` and `make test`. Everything they need is installed from
# here (Debian packages, npm peers into .cache/), never by hand.

SHELL := /bin/bash
CARGO ?= cargo
export CARGO_TARGET_DIR ?= $(CURDIR)/target
CACHE := $(CURDIR)/.cache
PEERS := $(CACHE)/peers
export SONDE_PEERS := $(PEERS)
export npm_config_cache := $(CACHE)/npm
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SONDE := $(CARGO_TARGET_DIR)/debug/sonde

# Real third-party servers the integration tests talk to (pinned).
EVERYTHING := @modelcontextprotocol/server-everything@2026.8.31
TIME_SERVER := mcp-server-time==2026.10.19
PY_SDK := mcp==2.3.0
TS_SDK := @modelcontextprotocol/server@2.4.0 @modelcontextprotocol/node@2.1.2 zod@4
CONFORMANCE := @modelcontextprotocol/conformance@0.2.0-alpha.12

.PHONY: run test build deps peers bench bench-peers fmt-check clippy unit fuzz clean-cache

## make run: build, then list the bundled demo server's tools (prints the session log path).
run: deps build
	$(SONDE) tools list -- $(SONDE) demo-server

## make test: install what the tests need, then fmt, clippy and every test layer.
test: deps peers fmt-check clippy
	@command -v cargo-nextest >/dev/null || $(CARGO) install cargo-nextest --locked
	$(CARGO) nextest run --workspace --no-fail-fast

build:
	$(CARGO) build --workspace

# System packages: a C toolchain for -sys crates, Node.js and npm for the npm peers, Python's
# venv for the PyPI peers.
deps:
	@command -v $(CARGO) >/dev/null || { echo "make: Rust is missing; install it with rustup (https://rustup.rs)"; exit 1; }
	@missing=""; \
	command -v cc >/dev/null || missing="$$missing build-essential"; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	python3 -c 'import venv, ensurepip' 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# npm peers go to an ignored cache; the stamp names the pinned version, so a bump reinstalls.
peers: $(PEERS)/npm/.installed-server-everything-2026.8.31 $(PEERS)/py/.installed-2026.10.19-2.3.0 \
	$(PEERS)/tsv2/ts_v2_server.mjs $(PEERS)/schemas/schema-2026-07-28.json

$(PEERS)/npm/.installed-server-everything-2026.8.31:
	mkdir -p $(PEERS)/npm
	cd $(PEERS)/npm && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error $(EVERYTHING)
	touch $@

$(PEERS)/py/.installed-2026.10.19-2.3.0:
	[ -x $(PEERS)/py/bin/python ] || python3 -m venv $(PEERS)/py
	$(PEERS)/py/bin/pip install --quiet --disable-pip-version-check --cache-dir $(CACHE)/pip $(TIME_SERVER) $(PY_SDK)
	touch $@

# ESM ignores NODE_PATH, so the script runs from beside its node_modules.
$(PEERS)/tsv2/ts_v2_server.mjs: tests/peers/ts_v2_server.mjs
	mkdir -p $(PEERS)/tsv2
	cd $(PEERS)/tsv2 && { [ -f package.json ] || { npm init -y >/dev/null && npm pkg set type=module; }; } && \
	  npm install --no-audit --no-fund --loglevel=error $(TS_SDK)
	cp $< $@

# The official JSON schemas of each revision, as bundled in the conformance package.
$(PEERS)/schemas/schema-2026-07-28.json: tests/peers/extract_schemas.py
	mkdir -p $(PEERS)/conformance
	cd $(PEERS)/conformance && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error $(CONFORMANCE)
	python3 $< $(PEERS)/conformance/node_modules/@modelcontextprotocol/conformance $(PEERS)/schemas

fmt-check:
	$(CARGO) fmt --all --check

clippy:
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## make bench: what Sonde costs, as ratios measured in one run (writes bench/results.json).
bench: deps peers bench-peers
	$(CARGO) build --release --workspace
	$(CARGO_TARGET_DIR)/release/sonde-bench

# The official Inspector CLI needs Node >= 22.19: both come from the npm registry.
bench-peers: $(PEERS)/inspector/.installed-2.12.0

$(PEERS)/inspector/.installed-2.12.0:
	mkdir -p $(PEERS)/node22 $(PEERS)/inspector
	cd $(PEERS)/node22 && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error node@22
	cd $(PEERS)/inspector && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@2.12.0
	touch $@

## make fuzz: run the frame splitter/decoder fuzzer for a bounded time (FUZZ_SECONDS, default 60).
FUZZ_SECONDS ?= 60
fuzz:
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	cd fuzz && $(CARGO) +nightly fuzz run frames -- -max_total_time=$(FUZZ_SECONDS)

clean-cache:
	rm -rf $(CACHE)
