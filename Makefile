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


# Real third-party servers the integration tests talk to (pinned).
EVERYTHING := @modelcontextprotocol/server-everything@2026.8.31
FILESYSTEM := @modelcontextprotocol/server-filesystem@2026.8.31
TIME_SERVER := mcp-server-time==2026.10.19
PY_SDK := mcp==2.3.0
TS_SDK := @modelcontextprotocol/server@2.4.0 @modelcontextprotocol/node@2.1.2 @modelcontextprotocol/client@2.4.0 zod@4
CONFORMANCE := @modelcontextprotocol/conformance@0.2.0-alpha.12
# MCP Apps examples: a tool whose result is an HTML app the window renders (issue 36).
APPS_EXAMPLES := @modelcontextprotocol/server-basic-vanillajs@2.0.3 @modelcontextprotocol/server-basic-react@2.0.3
# What reads sonde test's reports in its tests: a JUnit parser, and the SARIF 2.1.0 schema as
# Microsoft ships it (lib/schemas/sarif-2.1.0-rtm.5.json).
JUNIT_PARSER := junitparser==5.0.3
# OpenTelemetry's SDK, so the Python SDK's client traces and sends traceparent in _meta (issue 57).
OTEL_SDK := opentelemetry-sdk==1.45.2
SARIF_SCHEMA := @microsoft/jest-sarif@1.0.0-beta.0
# Microsoft's SARIF Multitool (a .NET program its npm package ships for Linux), whose `validate`
# a SARIF report must pass with no error.
SARIF_MULTITOOL := @microsoft/sarif-multitool@5.7.0
# A real authorization server for the OAuth tests (needs Node >= 22.12).
OAUTH_AS := oauth2-mock-server@9.3.0
# Node >= 22 (the conformance suite and the Inspector CLI need it), from the npm registry. Defined
# before the rules that list it: make expands prerequisites as it reads them.
NODE22 := $(PEERS)/node22/node_modules/.bin/node

.PHONY: run test docs record-tree conformance deb build desktop ui-build ui-deps e2e-deps deps peers bench bench-peers fmt-check clippy cycles fuzz clean-cache

## make run: build the UI and the desktop app, then open Sonde (the Demo server is one click away).
run: deps ui-deps desktop
	@if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "make: no display; running Sonde under Xvfb instead (screenshot: import -window root shot.png)"; \
	  DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent xvfb-run -a -s "-screen 0 1280x800x24" $(DESKTOP); \
	else $(DESKTOP); fi

# The real-window suite, as make test and make docs run it: the debug app driven under Xvfb, in a
# data home of its own made afresh.
E2E = rm -rf $(CACHE)/e2e-home && mkdir -p $(CACHE)/shots && \
  SONDE_FIXTURE=$(CARGO_TARGET_DIR)/debug/sonde-fixture SONDE_SHOTS=$(CACHE)/shots PATH=$(CACHE)/tools/bin:$$PATH \
  DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent XDG_DATA_HOME=$(CACHE)/e2e-home/data XDG_CONFIG_HOME=$(CACHE)/e2e-home/config \
  xvfb-run -a -s "-screen 0 1280x800x24" src-tauri/e2e/run.sh $(DESKTOP) $(CACHE)/e2e-venv/bin/python

## make test: install what the tests need, then fmt, clippy and every test layer; it fails if the
## run changed a tracked file (a lock file rewritten by an install, say).
# One build, no incremental state: it only pays on the next edit, and it doubled the disk a cold
# run needs. record-tree comes first, before the installs.
test: export CARGO_INCREMENTAL = 0
test: record-tree deps peers ui-deps e2e-deps fmt-check cycles clippy
	python3 scripts/check-docs.py
	$(MAKE) --no-print-directory conformance
	cd ui && npm run lint && npx tsc --noEmit && npx vitest run
	cd ui && npm run build && node e2e/ui.mjs
	$(MAKE) --no-print-directory desktop
	$(CARGO) build -p sonde-fixture -p sonde-cli
	$(MAKE) --no-print-directory install-check
	$(E2E)
	@command -v cargo-nextest >/dev/null || $(CARGO) install cargo-nextest --locked
	$(MAKE) --no-print-directory deb DEB_FLAGS=--debug
	$(MAKE) --no-print-directory dist DIST_FLAGS=--debug
	$(CARGO) nextest run --workspace --no-fail-fast
	scripts/check-clean-tree.sh end

## make install-check: the CLI alone installs from this tree with cargo install (into a scratch
## root, from this build's debug artifacts) and runs, as the guide tells a user to install it.
.PHONY: install-check
install-check:
	rm -rf $(CACHE)/install-root
	$(CARGO) install --locked --debug --path crates/sonde-cli --root $(CACHE)/install-root
	$(CACHE)/install-root/bin/sonde --version | grep -q '^sonde '

## make docs: the guide's screenshots, taken from this build by the real-window suite (each
## image a page names, written to docs/img), and its reference pages generated from the code.
docs: deps peers ui-deps e2e-deps desktop
	$(CARGO) build -p sonde-fixture -p sonde-cli
	$(CARGO_TARGET_DIR)/debug/sonde reference docs/reference
	mkdir -p docs/img && export SONDE_GUIDE_IMG=$(CURDIR)/docs/img && \
	  export SONDE_GUIDE_BUILD="$$($(CARGO_TARGET_DIR)/debug/sonde --version)" && $(E2E)
	scripts/guide-report.sh $(CARGO_TARGET_DIR)/debug/sonde docs/img/report.png
	python3 scripts/check-docs.py

## make reference: only the reference pages (docs/reference), regenerated from this build's
## command line and filter grammar: after a change to an option, a command's help, its exit
## codes or examples (crates/sonde-cli/src/manual.rs).
.PHONY: reference
reference:
	$(CARGO) build -p sonde-cli
	$(CARGO_TARGET_DIR)/debug/sonde reference docs/reference

# What the tracked files hold before make test, edits not yet committed included.
record-tree:
	scripts/check-clean-tree.sh start

## make deb: the Debian package: the app with its .desktop entry and icons, and the `sonde` CLI
## with its completions and manual pages (release, both binaries stripped; DEB_FLAGS=--debug for a
## quick debug build, checked for contents only), checked by scripts/check-deb.sh, which prints
## its size. Install it with apt install ./FILE.deb.
DEB_FLAGS ?=
DEB_PROFILE = $(if $(filter --debug,$(DEB_FLAGS)),debug,release)
# A release build stripped of debug info and symbols: the package ships what runs (the line
# tables a profile needs stay in release builds made without it).
deb: export CARGO_PROFILE_RELEASE_STRIP = symbols
deb: deps ui-deps
	$(CARGO) build -p sonde-cli $(if $(filter release,$(DEB_PROFILE)),--release)
	scripts/deb-stage.sh $(CARGO_TARGET_DIR)/$(DEB_PROFILE)/sonde $(CACHE)/deb-stage > $(CACHE)/deb-config.json
	TAURI_APP_PATH=$(CURDIR) ui/node_modules/.bin/tauri build $(DEB_FLAGS) --bundles deb --config $(CACHE)/deb-config.json
	scripts/check-deb.sh $(if $(filter release,$(DEB_PROFILE)),--release) \
	  $$(ls -t $(CARGO_TARGET_DIR)/$(DEB_PROFILE)/bundle/deb/Sonde_*_amd64.deb | head -n 1)

## make dist: the CLI alone as a tarball beside the .deb ($(CARGO_TARGET_DIR)/release/bundle/dist/
## sonde-VERSION-ARCH-linux.tar.gz): the binary (release, stripped), its manual pages and shell
## completions, the licences; checked by scripts/check-dist.sh, which prints its size and the
## glibc it needs. DIST_FLAGS=--debug for a quick debug build, checked for contents only.
DIST_FLAGS ?=
DIST_PROFILE = $(if $(filter --debug,$(DIST_FLAGS)),debug,release)
.PHONY: dist
dist: export CARGO_PROFILE_RELEASE_STRIP = symbols
dist: deps
	$(CARGO) build -p sonde-cli $(if $(filter release,$(DIST_PROFILE)),--release)
	scripts/dist.sh $(if $(filter release,$(DIST_PROFILE)),--release) \
	  $(CARGO_TARGET_DIR)/$(DIST_PROFILE)/sonde $(CARGO_TARGET_DIR)/$(DIST_PROFILE)/bundle/dist

# The self-contained app (ui/dist embedded), copied out of target/: any plain cargo build of the
# workspace rebuilds target/debug/sonde-desktop as a dev binary that loads the Vite dev server.
DESKTOP := $(CACHE)/app/sonde-desktop

build:
	$(CARGO) build --workspace

# The `sonde` CLI goes beside it: the app runs its demo server from that small binary.
desktop: ui-build
	$(CARGO) build -p sonde-desktop --features custom-protocol
	$(CARGO) build -p sonde-cli
	mkdir -p $(CACHE)/app && cp -f $(CARGO_TARGET_DIR)/debug/sonde-desktop $(DESKTOP)
	cp -f $(CARGO_TARGET_DIR)/debug/sonde $(CACHE)/app/sonde

ui-build: ui-deps
	cd ui && npm run build

# The UI's npm packages, exactly as the lock file has them (npm ci empties node_modules first and
# fails if the lock is out of date), reinstalled when the lock file changes.
ui-deps: ui/node_modules/.installed

ui/node_modules/.installed: ui/package-lock.json
	cd ui && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The real window's e2e: tauri-driver (from crates.io, into the cache) and selenium (PyPI).
e2e-deps: $(CACHE)/tools/bin/tauri-driver $(CACHE)/e2e-venv/bin/python

$(CACHE)/tools/bin/tauri-driver:
	$(CARGO) install tauri-driver --locked --root $(CACHE)/tools

$(CACHE)/e2e-venv/bin/python:
	python3 -m venv $(CACHE)/e2e-venv
	$(CACHE)/e2e-venv/bin/pip install --quiet --disable-pip-version-check --cache-dir $(CACHE)/pip selenium==4.*

# System packages: a C toolchain, WebKitGTK and friends for the desktop app, Node.js and npm,
# Python's venv, and Xvfb, WebKitWebDriver and Chromium for the UI tests.
APT_PACKAGES := build-essential pkg-config curl file libssl-dev libwebkit2gtk-4.1-dev libxdo-dev dbus-daemon gnome-keyring \
	libayatana-appindicator3-dev librsvg2-dev nodejs npm python3-venv xvfb xauth webkit2gtk-driver \
	chromium fonts-dejavu-core imagemagick xdotool x11-utils desktop-file-utils man-db
deps:
	@command -v $(CARGO) >/dev/null || { echo "make: Rust is missing; install it with rustup (https://rustup.rs)"; exit 1; }
	@missing=$$(for p in $(APT_PACKAGES); do \
	  case $$p in nodejs) command -v node >/dev/null && continue;; npm) command -v npm >/dev/null && continue;; \
	    python3-venv) python3 -c 'import venv, ensurepip' 2>/dev/null && continue;; esac; \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make: installing" $$missing; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# npm peers go to an ignored cache; the stamp names the pinned version, so a bump reinstalls.
peers: $(PEERS)/npm/.installed-server-everything-2026.8.31 $(PEERS)/npm/.installed-server-filesystem-2026.8.31 \
	$(PEERS)/py/.installed-2026.10.19-2.3.0 $(PEERS)/py/.installed-junitparser-5.0.3 $(PEERS)/py/.installed-otel-sdk-1.45.2 $(PEERS)/reports/.installed-jest-sarif-1.0.0-beta.0 \
	$(PEERS)/tsv2/ts_v2_server.mjs $(PEERS)/tsv2/ts_client.mjs $(PEERS)/tsv2/ts_versions_server.mjs $(PEERS)/tsv2/ts_skills_server.mjs $(PEERS)/schemas/schema-2026-07-28.json $(PEERS)/oauth/oauth_as.mjs \
	$(PEERS)/apps/.installed-basic-2.0.3

$(PEERS)/apps/.installed-basic-2.0.3:
	mkdir -p $(PEERS)/apps
	cd $(PEERS)/apps && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error $(APPS_EXAMPLES)
	touch $@

$(PEERS)/npm/.installed-server-everything-2026.8.31:
	mkdir -p $(PEERS)/npm
	cd $(PEERS)/npm && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error $(EVERYTHING)
	touch $@

# After server-everything: both install into the same npm directory, one at a time.
$(PEERS)/npm/.installed-server-filesystem-2026.8.31: $(PEERS)/npm/.installed-server-everything-2026.8.31
	cd $(PEERS)/npm && npm install --no-audit --no-fund --loglevel=error $(FILESYSTEM)
	touch $@

$(PEERS)/py/.installed-2026.10.19-2.3.0:
	[ -x $(PEERS)/py/bin/python ] || python3 -m venv $(PEERS)/py
	$(PEERS)/py/bin/pip install --quiet --disable-pip-version-check --cache-dir $(CACHE)/pip $(TIME_SERVER) $(PY_SDK)
	touch $@

$(PEERS)/py/.installed-junitparser-5.0.3: $(PEERS)/py/.installed-2026.10.19-2.3.0
	$(PEERS)/py/bin/pip install --quiet --disable-pip-version-check --cache-dir $(CACHE)/pip $(JUNIT_PARSER)
	touch $@

# After junitparser: one pip at a time in the venv.
$(PEERS)/py/.installed-otel-sdk-1.45.2: $(PEERS)/py/.installed-junitparser-5.0.3
	$(PEERS)/py/bin/pip install --quiet --disable-pip-version-check --cache-dir $(CACHE)/pip $(OTEL_SDK)
	touch $@

$(PEERS)/reports/.installed-jest-sarif-1.0.0-beta.0:
	mkdir -p $(PEERS)/reports
	cd $(PEERS)/reports && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error $(SARIF_SCHEMA)
	touch $@

peers: $(PEERS)/reports/.installed-sarif-multitool-5.7.0

# After jest-sarif: both install into the same npm directory, one at a time.
$(PEERS)/reports/.installed-sarif-multitool-5.7.0: $(PEERS)/reports/.installed-jest-sarif-1.0.0-beta.0
	cd $(PEERS)/reports && npm install --no-audit --no-fund --loglevel=error $(SARIF_MULTITOOL)
	touch $@

# ESM ignores NODE_PATH, so the script runs from beside its node_modules.
$(PEERS)/tsv2/ts_v2_server.mjs: tests/peers/ts_v2_server.mjs
	mkdir -p $(PEERS)/tsv2
	cd $(PEERS)/tsv2 && { [ -f package.json ] || { npm init -y >/dev/null && npm pkg set type=module; }; } && \
	  npm install --no-audit --no-fund --loglevel=error $(TS_SDK)
	cp $< $@

# The client script beside the same node_modules (installed again here so a cache made before
# the client package was pinned gets it).
$(PEERS)/tsv2/ts_client.mjs: tests/peers/ts_client.mjs $(PEERS)/tsv2/ts_v2_server.mjs
	cd $(PEERS)/tsv2 && npm install --no-audit --no-fund --loglevel=error $(TS_SDK)
	cp $< $@

# The builds of one server the replay, test and diff checks are tried on, beside the same SDK.
$(PEERS)/tsv2/ts_versions_server.mjs: tests/peers/ts_versions_server.mjs $(PEERS)/tsv2/ts_v2_server.mjs
	cp $< $@

# A skills server on the same SDK's Skills extension.
$(PEERS)/tsv2/ts_skills_server.mjs: tests/peers/ts_skills_server.mjs $(PEERS)/tsv2/ts_v2_server.mjs
	cp $< $@

# ESM again: the authorization server's script sits beside its node_modules; Node 22 runs it.
$(PEERS)/oauth/oauth_as.mjs: tests/peers/oauth_as.mjs $(NODE22)
	mkdir -p $(PEERS)/oauth
	cd $(PEERS)/oauth && { [ -f package.json ] || { npm init -y >/dev/null && npm pkg set type=module; }; } && \
	  npm install --no-audit --no-fund --loglevel=error $(OAUTH_AS)
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

# No two modules of one folder import each other, in any crate, nor two of ui/src's folders
# (scripts/check-cycles.py says how it reads imports); its self-test runs first, so a check that
# found nothing because it read nothing fails. And the core's one front door: nothing outside
# src/ names a module of the core (scripts/check-front-door.py, which tests itself first).
cycles:
	python3 scripts/test_check_cycles.py -q
	python3 scripts/check-cycles.py
	python3 scripts/check-front-door.py

# The official conformance suite's client scenarios (both revisions, auth/* included) against
# `sonde conformance-client`; ends with "N passed, N failed".
conformance: peers $(NODE22)
	$(CARGO) build -p sonde-cli
	tests/conformance/run.sh $(NODE22) $(PEERS)/conformance/node_modules/@modelcontextprotocol/conformance \
	  $(CARGO_TARGET_DIR)/debug/sonde

$(NODE22):
	mkdir -p $(PEERS)/node22
	cd $(PEERS)/node22 && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error node@22
	touch $@

## make bench: what Sonde costs, as ratios measured in one run (writes bench/results.json,
## bench/window.json from the real window at a million entries, and the table of
## docs/performance.md from both).
bench: deps peers bench-peers ui-build e2e-deps
	$(CARGO) build --release -p sonde-bench -p sonde-fixture -p sonde-cli
	$(CARGO_TARGET_DIR)/release/sonde-bench
	$(CARGO) build --release -p sonde-desktop -p sonde-empty-window \
	  --features sonde-desktop/custom-protocol,sonde-empty-window/custom-protocol
	rm -rf $(CACHE)/bench-home
	PATH=$(CACHE)/tools/bin:$$PATH DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
	  XDG_DATA_HOME=$(CACHE)/bench-home/data XDG_CONFIG_HOME=$(CACHE)/bench-home/config \
	  SONDE_FIXTURE=$(CARGO_TARGET_DIR)/release/sonde-fixture \
	  xvfb-run -a -s "-screen 0 1280x800x24" src-tauri/e2e/run.sh $(CARGO_TARGET_DIR)/release/sonde-desktop \
	  $(CACHE)/e2e-venv/bin/python window_bench.py bench/window.json \
	  $(CARGO_TARGET_DIR)/release/sonde-bench $(CARGO_TARGET_DIR)/release/sonde-empty-window
	rm -rf $(CACHE)/bench-home
	python3 scripts/performance-page.py

# The official Inspector CLI needs Node >= 22.19: both come from the npm registry.
bench-peers: $(NODE22) $(PEERS)/inspector/.installed-2.12.0

$(PEERS)/inspector/.installed-2.12.0:
	mkdir -p $(PEERS)/inspector
	cd $(PEERS)/inspector && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@2.12.0
	touch $@

## make fuzz: run each fuzzer (stdout frames; SSE parsing and header encoding) for FUZZ_SECONDS (default 60).
FUZZ_SECONDS ?= 60
fuzz:
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	cd fuzz && $(CARGO) +nightly fuzz run frames -- -max_total_time=$(FUZZ_SECONDS)
	cd fuzz && $(CARGO) +nightly fuzz run sse_headers -- -max_total_time=$(FUZZ_SECONDS)

clean-cache:
	rm -rf $(CACHE)
