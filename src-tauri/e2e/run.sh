#!/usr/bin/env bash
# Runs desktop.py against the app with tauri-driver up; make test wraps this in xvfb-run.
set -euo pipefail
APP=$1
PY=$2
tauri-driver --port 4444 --native-driver /usr/bin/WebKitWebDriver > "${TMPDIR:-/tmp}/tauri-driver.log" 2>&1 &
DRV=$!
trap 'kill $DRV 2>/dev/null; wait $DRV 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/4444) 2>/dev/null && break; sleep 0.1; done
"$PY" "$(dirname "$0")/desktop.py" "$APP"
