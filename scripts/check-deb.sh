#!/bin/sh
# Checks a built Debian package: the app and the `sonde` CLI, a .desktop entry that launches the
# app with its icon (so it is in the app menu) and passes desktop-file-validate, the icons, the
# CLI's shell completions and manual pages where bash, zsh, fish and man look, and that the CLI
# runs from the extracted package. With --release, also that both binaries are stripped and the
# package is under 20 MB. Prints the package's size and installed size.
# Usage: check-deb.sh [--release] PACKAGE.deb
set -eu
release=
if [ "$1" = --release ]; then release=1; shift; fi
deb=$1
fail() { echo "check-deb: $deb: $*" >&2; exit 1; }
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
for want in usr/bin/sonde-desktop usr/bin/sonde usr/share/applications/Sonde.desktop \
    usr/share/icons/hicolor/32x32/apps/sonde-desktop.png usr/share/icons/hicolor/128x128/apps/sonde-desktop.png \
    usr/share/bash-completion/completions/sonde usr/share/zsh/vendor-completions/_sonde \
    usr/share/fish/vendor_completions.d/sonde.fish usr/share/man/man1/sonde.1.gz \
    usr/share/man/man1/sonde-tools-list.1.gz; do
  echo "$files" | grep -qx "./$want\|$want" || fail "missing $want"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
entry="$tmp/usr/share/applications/Sonde.desktop"
for line in "Name=Sonde" "Exec=sonde-desktop" "Icon=sonde-desktop" "Type=Application"; do
  grep -qx "$line" "$entry" || fail "the .desktop entry lacks $line"
done
desktop-file-validate "$entry" || fail "the .desktop entry does not validate"
dpkg-deb -f "$deb" Depends | grep -q libwebkit2gtk-4.1 || fail "no WebKitGTK dependency"
version=$("$tmp/usr/bin/sonde" --version) || fail "sonde --version does not run from the package"
echo "$version" | grep -Eq '^sonde [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,}|unknown)\)$' || fail "sonde --version says '$version'"
# The completion works in bash: `sonde too<Tab>` completes to `tools`.
completed=$(bash -c '. "$1"; COMP_WORDS=(sonde too); COMP_CWORD=1; COMP_LINE="sonde too"; COMP_POINT=9
  _sonde sonde too sonde; echo "${COMPREPLY[*]}"' _ "$tmp/usr/share/bash-completion/completions/sonde")
[ "$completed" = tools ] || fail "bash completes 'sonde too' as '$completed', not 'tools'"
zcat "$tmp/usr/share/man/man1/sonde.1.gz" | grep -q '^\.TH sonde 1' || fail "sonde.1 is not a manual page"
size=$(stat -c %s "$deb")
if [ -n "$release" ]; then
  for bin in sonde sonde-desktop; do
    sections=$(readelf -S -W "$tmp/usr/bin/$bin")
    # (.debug_gdb_scripts is a few bytes rustc loads into memory for debuggers, not debug info.)
    echo "$sections" | grep -Eq '\.debug_(info|line|str|abbrev|aranges|ranges|rnglists|loc|loclists) ' &&
      fail "usr/bin/$bin carries debug info"
    echo "$sections" | grep -q '\.symtab' && fail "usr/bin/$bin is not stripped of its symbols"
  done
  [ "$size" -lt $((20 * 1024 * 1024)) ] || fail "the package is $size bytes, over 20 MB"
fi
installed=$(dpkg-deb -f "$deb" Installed-Size)
echo "check-deb: $(basename "$deb"): sonde-desktop and sonde ($version)$([ -n "$release" ] && echo ', both stripped'), the .desktop entry (valid), icons, bash/zsh/fish completions and $(echo "$files" | grep -c 'man1/.*\.1\.gz') manual pages"
echo "check-deb: package $(numfmt --to=iec-i --suffix=B "$size"), installed $(numfmt --to=iec-i --suffix=B $((installed * 1024)))"
