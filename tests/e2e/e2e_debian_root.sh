#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A Debian 12 root with systemd and its own kernel, for the e2e tests that
# boot a real distribution (e2e_debian_agent.sh), built once and cached:
#
#   e2e_debian_root.sh         print the cached root's directory, building
#                              it first when it is not there
#
# debootstrap --variant=minbase --include=$RS_DEBIAN_INCLUDE bookworm, from
# the mirror apt uses (the first deb URI of /etc/apt/sources*), into
# $RS_DEBIAN_CACHE (/var/cache/ringside/debian-root) under a name keyed by
# the suite, the variant, the package list and the mirror: a changed list
# builds a new root, an unchanged one is reused as it is.  The list has
# linux-image-amd64 and initramfs-tools: the guest boots the kernel and the
# initramfs (MODULES=most: virtio_pci, virtio_blk, ext4) that the root's
# /boot holds, not the host's.  Built beside its final name and renamed into place,
# so an interrupted build leaves no half root.  The root is never changed
# after it is built: its users copy it.  Roots of other keys are removed
# once a new one is in place.  Progress on stderr; status 1 with the reason
# when debootstrap fails.
set -euo pipefail
suite=bookworm
variant=minbase
include=${RS_DEBIAN_INCLUDE:-systemd-sysv,udev,kmod,initramfs-tools,linux-image-amd64}
cache=${RS_DEBIAN_CACHE:-/var/cache/ringside/debian-root}

mirror=${RS_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(grep -hoE '^(URIs:|deb) +[^ ]+' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '{ print $NF }' | grep -v security | head -n 1 || true)
	mirror=${mirror:-http://deb.debian.org/debian}
fi
key=$(printf '%s\n' "$suite" "$variant" "$include" "$mirror" | sha256sum | cut -c 1-16)
root=$cache/$suite-$key

if [ -f "$root/.rs-complete" ]; then
	echo "$root"
	exit 0
fi
command -v debootstrap >/dev/null ||
	{ echo "e2e_debian_root: no debootstrap (scripts/setup.sh installs it)" >&2; exit 1; }
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.building.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
echo "e2e_debian_root: debootstrap $variant $suite with $include from $mirror (a few minutes)" >&2
if ! debootstrap --variant="$variant" --include="$include" "$suite" "$tmp/root" "$mirror" \
	>"$tmp/log" 2>&1; then
	tail -n 20 "$tmp/log" >&2
	echo "e2e_debian_root: debootstrap failed" >&2
	exit 1
fi
# what debootstrap leaves that a guest booting this root must not keep
rm -rf "$tmp/root/var/cache/apt/archives/"*.deb "$tmp/root/var/lib/apt/lists/"*_Packages
touch "$tmp/root/.rs-complete"
rm -rf "$root"
mv "$tmp/root" "$root"
echo "e2e_debian_root: built in $(($(date +%s) - t0)) s, $(du -sm "$root" | cut -f1) MB: $root" >&2
for old in "$cache"/"$suite"-*; do
	[ "$old" = "$root" ] || rm -rf "$old"
done
echo "$root"
