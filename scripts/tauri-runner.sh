#!/bin/sh
# The tauri CLI's cargo runner (tauri.conf.json build.runner). The CLI takes the crate beside
# tauri.conf.json (the repository root, the sonde-core library) for the app crate; this builds
# and runs the desktop shell instead, and after a build copies its binary to the name the CLI
# expects (the root package's), which mainBinaryName then renames in the bundle.
set -e
sub=$1
shift
cargo "$sub" -p sonde-desktop "$@"
if [ "$sub" = build ]; then
  dir=${CARGO_TARGET_DIR:-target}/debug
  case " $* " in *" --release "*) dir=${CARGO_TARGET_DIR:-target}/release ;; esac
  cp -f "$dir/sonde-desktop" "$dir/sonde-core"
fi
