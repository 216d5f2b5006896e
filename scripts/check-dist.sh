#!/bin/sh
# Checks the CLI's tarball: every file it promises, a binary that runs from the unpacked tree
# with an empty environment, that needs no shared library beyond glibc's and libgcc_s (the
# "static enough" of a Rust binary linked with glibc), manual pages man reads, a bash completion
# that completes, and (with --release) a stripped binary. Prints its size and the glibc it needs.
# Usage: check-dist.sh [--release] SONDE.tar.gz
set -eu
release=
if [ "$1" = --release ]; then release=1; shift; fi
tarball=$1
fail() { echo "check-dist: $tarball: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
root=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
[ "$(basename "$root").tar.gz" = "$(basename "$tarball")" ] || fail "does not unpack into one folder named as it is"
for want in bin/sonde share/man/man1/sonde.1.gz share/man/man1/sonde-doctor.1.gz \
    share/bash-completion/completions/sonde share/zsh/site-functions/_sonde \
    share/fish/vendor_completions.d/sonde.fish LICENSE-MIT LICENSE-APACHE INSTALL; do
  [ -s "$root/$want" ] || fail "missing $want"
done
version=$(cd / && env -i "$root/bin/sonde" --version) || fail "bin/sonde --version does not run"
echo "$version" | grep -Eq '^sonde [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,}|unknown)\)$' || fail "sonde --version says '$version'"
needed=$(readelf -d "$root/bin/sonde" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
  case $lib in
    libc.so.6|libm.so.6|libgcc_s.so.1|ld-linux-*.so.2|libdl.so.2|libpthread.so.0|librt.so.1) ;;
    *) fail "bin/sonde needs $lib, which a machine may not have" ;;
  esac
done
glibc=$(objdump -T "$root/bin/sonde" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -u | tail -n 1)
grep -q "glibc $glibc or later" "$root/INSTALL" || fail "INSTALL does not say the glibc it needs ($glibc)"
zcat "$root/share/man/man1/sonde.1.gz" | grep -q '^\.TH sonde 1' || fail "sonde.1 is not a manual page"
completed=$(bash -c '. "$1"; COMP_WORDS=(sonde too); COMP_CWORD=1; COMP_LINE="sonde too"; COMP_POINT=9
  _sonde sonde too sonde; echo "${COMPREPLY[*]}"' _ "$root/share/bash-completion/completions/sonde")
[ "$completed" = tools ] || fail "bash completes 'sonde too' as '$completed', not 'tools'"
if [ -n "$release" ]; then
  readelf -S -W "$root/bin/sonde" | grep -q '\.symtab' && fail "bin/sonde is not stripped of its symbols"
fi
echo "check-dist: $(basename "$tarball"): $version, needs only glibc $glibc ($(echo $needed | tr ' ' ,)), $(ls "$root/share/man/man1" | wc -l) manual pages, bash/zsh/fish completions; $(numfmt --to=iec-i --suffix=B "$(stat -c %s "$tarball")")"
