#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build ringside's Debian packages with the Debian tools:
#
#   scripts/package.sh [--guest | --host] [-o OUTDIR] [-B BUILDDIR] [--lintian]
#
#   ringside-agent_V_amd64.deb   the guest's: ringside-agent, ringside-mark,
#                                the marker library, header and .pc, the
#                                udev rule and ringside-agent@.service
#                                that start the agent with the device,
#                                the man page, a sysvinit example
#   ringside_V_amd64.deb         the host's: ringside, ringside-hook,
#                                ringside-pt-trace, the QEMU PT plugin if
#                                this host can build it, the docs
#
# A release build configured for /usr in BUILDDIR (build-pkg), `meson
# install` of it into a staging DESTDIR, the files split between the two
# packages (dist/README.md says which goes where), Depends from
# dpkg-shlibdeps, control files from dist/debian/, `dpkg-deb --build
# --root-owner-group`.  --lintian runs lintian on each and fails on an
# error.  Prints the paths of the packages it made, one a line; progress
# on stderr.  Both install with `apt install ./FILE.deb`.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
which=all out=$top/dist/out build=build-pkg lint=0
while (($#)); do
	case $1 in
	--guest) which=guest ;;
	--host) which=host ;;
	-o) out=$2; shift ;;
	-B) build=$2; shift ;;
	--lintian) lint=1 ;;
	-h|--help) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "package.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
for p in dpkg-deb dpkg-shlibdeps file meson ninja strip; do
	command -v $p >/dev/null ||
		{ echo "package.sh: $p is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done

say() { echo "package.sh: $*" >&2; }
t0=$(date +%s)
# -Dtests=disabled: the packages hold no test; buildtype release: -O2, no
# debug info to strip beyond the symbols.
bash scripts/build.sh "$build" --prefix=/usr --buildtype=release -Dtests=disabled
say "built $build in $(($(date +%s) - t0)) s"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rs-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
meson install -C "$build" --no-rebuild --quiet --destdir "$stage" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; say "meson install failed"; exit 1; }
version=$(meson introspect --projectinfo "$build" | sed -n 's/.*"version": *"\([^"]*\)".*/\1/p')
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
libdir=usr/lib/$multiarch
mkdir -p "$out"

# put PKG FILE...: move FILE (relative to the stage) into PKG's tree
put() {
	local pkg=$1 f
	shift
	for f in "$@"; do
		[ -e "$stage/$f" ] || { say "$f was not installed"; exit 1; }
		mkdir -p "$tmp/$pkg/$(dirname "$f")"
		mv "$stage/$f" "$tmp/$pkg/$f"
	done
}
# doc PKG: copyright and changelog, as Debian policy wants them
doc() {
	local d=$tmp/$1/usr/share/doc/$1
	mkdir -p "$d"
	cp dist/debian/copyright "$d/copyright"
	sed "s/@PACKAGE@/$1/; s/@VERSION@/$version/" dist/debian/changelog |
		gzip -9n > "$d/changelog.gz"
}
# strip_elf PKG: strip the ELF programs and shared objects, as dh_strip
strip_elf() {
	local f
	while IFS= read -r f; do
		case $(file -b "$f") in
		ELF*executable*|ELF*shared\ object*)
			strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f" ;;
		ELF*relocatable*|current\ ar\ archive*)
			strip --strip-debug --remove-section=.comment "$f" ;;
		esac
	done < <(find "$tmp/$1" -type f)
}
# build PKG CONTROL [ELF...]: control from dist/debian/CONTROL with the
# version, the architecture, the size and the shared libraries' Depends
build_deb() {
	local pkg=$1 control=$2 deps='' size
	shift 2
	strip_elf "$pkg"
	if (($#)); then
		mkdir -p "$tmp/shlibs/debian"
		printf 'Source: ringside\n\nPackage: %s\nArchitecture: any\n' "$pkg" \
			> "$tmp/shlibs/debian/control"
		deps=$(cd "$tmp/shlibs" && dpkg-shlibdeps -O "${@/#/$tmp/$pkg/}" 2>/dev/null |
			sed -n 's/^shlibs:Depends=//p')
	fi
	mkdir -p "$tmp/$pkg/DEBIAN"
	size=$(du -sk --exclude=DEBIAN "$tmp/$pkg" | cut -f1)
	sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
		-e "s/@DEPENDS@/${deps:+Depends: $deps}/" "dist/debian/$control" |
		grep -v '^$' > "$tmp/$pkg/DEBIAN/control"
	(cd "$tmp/$pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
		sort -z | xargs -0 md5sum > DEBIAN/md5sums)
	for s in postinst prerm postrm; do
		[ -f "dist/debian/$pkg.$s" ] && install -m 755 "dist/debian/$pkg.$s" "$tmp/$pkg/DEBIAN/$s"
	done
	find "$tmp/$pkg" -type d -exec chmod 755 {} +
	dpkg-deb --root-owner-group -Zxz --build "$tmp/$pkg" "$out/${pkg}_${version}_$arch.deb" >/dev/null
	say "$(printf '%-16s %6s KiB installed, %5s KiB .deb' "$pkg" "$size" \
		"$(($(stat -c %s "$out/${pkg}_${version}_$arch.deb") / 1024))")"
	if [ "$lint" = 1 ]; then
		lintian --tag-display-limit 0 "$out/${pkg}_${version}_$arch.deb" > "$tmp/lint" 2>&1 || true
		sed 's/^/  lintian: /' "$tmp/lint" >&2
		if grep -q '^E:' "$tmp/lint"; then
			say "lintian reports errors for $pkg"
			exit 1
		fi
	fi
	echo "$out/${pkg}_${version}_$arch.deb"
}

if [ "$which" != host ]; then
	g=ringside-agent
	put $g usr/sbin/ringside-agent usr/bin/ringside-mark \
		"$libdir/libringside-mark.a" "$libdir/pkgconfig/ringside-mark.pc" \
		usr/include/ringside/mark.h usr/include/ringside/mark_wire.h
	install -D -m 644 dist/guest/60-ringside-agent.rules \
		"$tmp/$g/usr/lib/udev/rules.d/60-ringside-agent.rules"
	install -D -m 644 dist/guest/ringside-agent@.service \
		"$tmp/$g/usr/lib/systemd/system/ringside-agent@.service"
	install -D -m 644 dist/guest/ringside-agent.8 "$tmp/$g/usr/share/man/man8/ringside-agent.8"
	gzip -9n "$tmp/$g/usr/share/man/man8/ringside-agent.8"
	ln -s ringside-agent.8.gz "$tmp/$g/usr/share/man/man8/ringside-mark.8.gz"
	install -D -m 644 dist/guest/ringside-agent.init \
		"$tmp/$g/usr/share/doc/$g/examples/ringside-agent.init"
	install -D -m 644 dist/debian/$g.lintian-overrides "$tmp/$g/usr/share/lintian/overrides/$g"
	doc $g
	build_deb $g ringside-agent.control
fi
if [ "$which" != guest ]; then
	h=ringside
	elf=(usr/bin/ringside usr/bin/ringside-hook usr/bin/ringside-service
	     usr/bin/ringside-pt-trace)
	put $h "${elf[@]}"
	install -D -m 644 dist/host/ringside-service.service \
		"$tmp/$h/usr/lib/systemd/system/ringside-service.service"
	install -D -m 644 dist/host/service.conf \
		"$tmp/$h/usr/share/doc/$h/examples/service.conf"
	if [ -e "$stage/$libdir/ringside/ringside-qemu-pt.so" ]; then
		put $h "$libdir/ringside/ringside-qemu-pt.so"
		elf+=("$libdir/ringside/ringside-qemu-pt.so")
	else
		say "no QEMU plugin in this build (no qemu-plugin.h): $h goes without it"
	fi
	mkdir -p "$tmp/$h/usr/share/doc/$h"
	cp README.md docs/*.md "$tmp/$h/usr/share/doc/$h/"
	doc $h
	build_deb $h ringside.control "${elf[@]}"
fi
say "done in $(($(date +%s) - t0)) s"
