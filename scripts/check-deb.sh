#!/bin/sh
# Checks a built Debian package: the app binary, a .desktop entry that launches it with its
# icon (so it is in the app menu), and the icons themselves. Usage: check-deb.sh PACKAGE.deb
set -eu
deb=$1
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
fail() { echo "check-deb: $deb: $*" >&2; exit 1; }
for want in usr/bin/sonde-desktop usr/share/applications/Sonde.desktop \
    usr/share/icons/hicolor/32x32/apps/sonde-desktop.png usr/share/icons/hicolor/128x128/apps/sonde-desktop.png; do
  echo "$files" | grep -qx "$want" || fail "missing $want"
done
entry=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO usr/share/applications/Sonde.desktop)
for line in "Name=Sonde" "Exec=sonde-desktop" "Icon=sonde-desktop" "Type=Application"; do
  echo "$entry" | grep -qx "$line" || fail "the .desktop entry lacks $line"
done
dpkg-deb -f "$deb" Depends | grep -q libwebkit2gtk-4.1 || fail "no WebKitGTK dependency"
echo "check-deb: $(basename "$deb") has the binary, the .desktop entry (Name=Sonde, Exec=sonde-desktop) and its icons"
