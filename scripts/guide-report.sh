#!/bin/sh
# The guide's picture of an HTML report (docs/img/report.png), for `make docs`: a session of the
# demo server recorded by the CLI (a few calls, one slow), exported with `sonde export --format
# html`, opened in headless Chromium by check-report.mjs, which checks it and takes the picture.
# usage: scripts/guide-report.sh SONDE OUT.png
set -eu
sonde=$1
out=$2
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config"
printf 'call echo text=hello\ncall add a=1 b=2\ncall slow seconds=1 steps=4\ncall image\ncall echo text=again\ncall add a=3 b=4\n' |
  "$sonde" shell -q -- "$sonde" demo-server >/dev/null
"$sonde" export -q --format html --out "$home/report.html"
node scripts/check-report.mjs "$home/report.html" --shot "$home/report.png"
convert "$home/report.png" -strip +dither -colors 64 -define png:compression-level=9 "$out"
SONDE_GUIDE_BUILD=$("$sonde" --version) python3 "$(dirname "$0")/pictures.py" record "$(basename "$out" .png)"
