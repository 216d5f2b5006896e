#!/usr/bin/env bash
# Runs a WebDriver script (desktop.py by default) against the app with tauri-driver up;
# make test and make bench wrap this in xvfb-run. SONDE_WEBDRIVER_PORT (default 4444, and the
# port after it for WebKitWebDriver) lets two checkouts run their window tests at once.
set -euo pipefail
APP=$1
PY=$2
SCRIPT=${3:-desktop.py}
shift $(( $# < 3 ? $# : 3 ))
export SONDE_WEBDRIVER_PORT=${SONDE_WEBDRIVER_PORT:-4444}
tauri-driver --port "$SONDE_WEBDRIVER_PORT" --native-port $((SONDE_WEBDRIVER_PORT + 1)) \
  --native-driver /usr/bin/WebKitWebDriver > "${TMPDIR:-/tmp}/tauri-driver.log" 2>&1 &
DRV=$!
trap 'kill $DRV 2>/dev/null; wait $DRV 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$SONDE_WEBDRIVER_PORT") 2>/dev/null && break; sleep 0.1; done
"$PY" "$(dirname "$0")/$SCRIPT" "$APP" "$@"
