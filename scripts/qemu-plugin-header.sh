#!/usr/bin/env bash
# Fetch QEMU's plugin API header, qemu-plugin.h, for exactly the
# qemu-system-x86 installed here, from Debian's source package of the same
# version: Debian ships no such header, and a plugin must be built against
# the API of the QEMU that loads it (QEMU_PLUGIN_VERSION).  The header is
# QEMU's (GPL-2.0-or-later) and is never committed; it lands in
#   ${RS_QEMU_PLUGIN_DIR:-/var/cache/ringside/qemu-plugin}/VERSION/qemu-plugin.h
# and the path is printed on stdout.  Idempotent; run as root (apt).
# Exit 0 with the path, 1 when it cannot be had (no network, no source).
# --cached: only look in the cache (no apt, no network; what meson runs).
set -euo pipefail
cached=0
[ "${1:-}" = --cached ] && cached=1

pkg=qemu-system-x86
bin=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
	{ echo "qemu-plugin-header: $pkg is not installed" >&2; exit 1; }
src=$(dpkg-query -W -f='${source:Version}' "$pkg")
dir=${RS_QEMU_PLUGIN_DIR:-/var/cache/ringside/qemu-plugin}/${src//:/_}
if [ -s "$dir/qemu-plugin.h" ]; then
	echo "$dir/qemu-plugin.h"
	exit 0
fi
[ $cached = 0 ] || exit 1

# apt needs a deb-src line for the suites the binary came from
list=/etc/apt/sources.list.d/ringside-deb-src.sources
if ! apt-get source --print-uris -q "qemu=$src" >/dev/null 2>&1; then
	cat > "$list" <<'LIST'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
LIST
	apt-get update -q >/dev/null || true
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
( cd "$work" && apt-get source --download-only -q "qemu=$src" >/dev/null 2>&1 ) ||
	{ echo "qemu-plugin-header: cannot download the source of qemu $src" >&2; exit 1; }
orig=$(ls "$work"/qemu_*.orig.tar.* 2>/dev/null | head -n 1)
deb=$(ls "$work"/qemu_*.debian.tar.* 2>/dev/null | head -n 1)
[ -n "$orig" ] || { echo "qemu-plugin-header: no upstream tarball for $src" >&2; exit 1; }
tar -xf "$orig" -C "$work" --wildcards '*/include/qemu/qemu-plugin.h'
hdr=$(ls "$work"/*/include/qemu/qemu-plugin.h | head -n 1)
# Debian's own patches to that header, if any, in their series order
if [ -n "$deb" ]; then
	tar -xf "$deb" -C "$work"
	if [ -f "$work/debian/patches/series" ]; then
		while read -r p _; do
			case "$p" in ''|'#'*) continue ;; esac
			grep -q 'include/qemu/qemu-plugin.h' "$work/debian/patches/$p" 2>/dev/null ||
				continue
			command -v filterdiff >/dev/null || {
				echo "qemu-plugin-header: Debian patches the header ($p): install patchutils" >&2
				exit 1; }
			filterdiff -i '*include/qemu/qemu-plugin.h' "$work/debian/patches/$p" |
				patch -s -p1 -d "$(dirname "$(dirname "$(dirname "$hdr")")")"
		done < "$work/debian/patches/series"
	fi
fi
mkdir -p "$dir"
cp "$hdr" "$dir/qemu-plugin.h"
echo "qemu $bin (source $src)" > "$dir/VERSION"
echo "$dir/qemu-plugin.h"
