#!/usr/bin/env bash
# Runs a WebDriver script (desktop.py by default) against the app with tauri-driver up;
# make test and make bench wrap this in xvfb-run. The driver listens on free ports (handed to the
# script as SONDE_DRIVER_URL), so two checkouts can run their window tests at once.
set -euo pipefail
APP=$1
PY=$2
SCRIPT=${3:-desktop.py}
shift $(( $# < 3 ? $# : 3 ))
# Free ports, so that two checkouts can run their window tests at once.
read -r PORT NATIVE < <("$PY" -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
export SONDE_DRIVER_URL="http://127.0.0.1:$PORT"
# The driver's own words, which the script prints when a session dies under it; the run's
# mark, which every process started under the driver inherits (desktop.py ends its leftovers by it).
export SONDE_DRIVER_LOG="${TMPDIR:-/tmp}/tauri-driver-$PORT.log"
export SONDE_E2E_RUN="$PORT-$$"
tauri-driver --port "$PORT" --native-port "$NATIVE" --native-driver /usr/bin/WebKitWebDriver > "$SONDE_DRIVER_LOG" 2>&1 &
DRV=$!
export SONDE_DRIVER_PID=$DRV
trap 'kill $DRV 2>/dev/null; wait $DRV 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
"$PY" "$(dirname "$0")/$SCRIPT" "$APP" "$@"
