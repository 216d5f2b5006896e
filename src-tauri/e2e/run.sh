#!/usr/bin/env bash
# Runs a WebDriver script (desktop.py by default) against the app with tauri-driver up;
# make test and make bench wrap this in xvfb-run.
set -euo pipefail
APP=$1
PY=$2
SCRIPT=${3:-desktop.py}
shift $(( $# < 3 ? $# : 3 ))
tauri-driver --port 4444 --native-driver /usr/bin/WebKitWebDriver > "${TMPDIR:-/tmp}/tauri-driver.log" 2>&1 &
DRV=$!
trap 'kill $DRV 2>/dev/null; wait $DRV 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/4444) 2>/dev/null && break; sleep 0.1; done
"$PY" "$(dirname "$0")/$SCRIPT" "$APP" "$@"
