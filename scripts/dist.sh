#!/bin/sh
# Makes the CLI's tarball, for a machine without the desktop app: `bin/sonde`, its manual pages
# and shell completions (laid out by deb-stage.sh, as the .deb has them, under share/), the
# licences and an INSTALL note; then checks it with check-dist.sh. The archive is reproducible
# (sorted, owned by root, no time stamps but the files'). Prints its path.
# Usage: dist.sh [--release] SONDE_BINARY OUT_DIR (--release: check-dist.sh's release checks)
set -eu
release=
if [ "$1" = --release ]; then release=--release; shift; fi
sonde=$1
out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
version=$("$sonde" --version | awk '{print $2}')
name=sonde-$version-$(uname -m)-linux
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/scripts/deb-stage.sh" "$sonde" "$tmp/stage" > /dev/null
root=$tmp/$name
mkdir -p "$root/share/zsh/site-functions"
mv "$tmp/stage/usr/bin" "$root/bin"
mv "$tmp/stage/usr/share/man" "$tmp/stage/usr/share/bash-completion" "$tmp/stage/usr/share/fish" "$root/share/"
# zsh looks in site-functions under a prefix of one's own (vendor-completions is Debian's).
mv "$tmp/stage/usr/share/zsh/vendor-completions/_sonde" "$root/share/zsh/site-functions/_sonde"
cp "$here/LICENSE-MIT" "$here/LICENSE-APACHE" "$root/"
cat > "$root/INSTALL" <<TEXT
sonde $version, the command line of Sonde (an inspector for MCP servers), for Linux on $(uname -m).

Unpack it into a prefix of your own and put its bin/ on your PATH, for example:

    tar -xzf $name.tar.gz --strip-components=1 -C ~/.local

Then \`sonde --version\`. The manual pages (\`man sonde\`, \`man sonde-doctor\`) and the bash, zsh and
fish completions come with it, under share/. It needs glibc $(objdump -T "$root/bin/sonde" |
  grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -u | tail -n 1) or later and nothing else.
TEXT
mkdir -p "$out"
tar -C "$tmp" --sort=name --owner=0 --group=0 --numeric-owner -czf "$out/$name.tar.gz" "$name"
"$here/scripts/check-dist.sh" $release "$out/$name.tar.gz"
echo "$out/$name.tar.gz"
