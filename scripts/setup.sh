#!/usr/bin/env bash
# Install every Debian package ringside needs to build, test and demo.
# Idempotent: apt-get runs only when something is missing.  Run as root.
set -euo pipefail

packages=(
	# build
	gcc meson ninja-build pkg-config
	# unit tests, sanitizers, valgrind; jq reads the JSON reports in scripts
	check libsubunit-dev valgrind jq
	# the doorbell protocol's Promela model (abi/model, suite model)
	spin
	# fuzzing (tests/fuzz, scripts/fuzz.sh): clang and its libFuzzer runtime
	clang libclang-rt-14-dev
	# perf.data is judged by the real perf, and by hotspot's parser
	# (hotspot-perfparser, tests/e2e/readers_check.sh)
	linux-perf hotspot
	# pprof profiles (pprof/): gzip through zlib; go tool pprof judges
	# them (tests/pprof)
	zlib1g-dev golang-go
	# Intel PT: libipt encodes/decodes packets, Zydis classifies instructions
	libipt-dev libzydis-dev
	# Linux guests under QEMU and libvirt (e2e suite), domain XML parsing
	qemu-system-x86 linux-image-amd64 busybox-static cpio
	# the QEMU plugin header's Debian patches, if any (qemu-plugin-header.sh)
	patchutils dpkg-dev
	libvirt-daemon-system libvirt-daemon-driver-qemu libvirt-clients
	libvirt-dev libxml2-dev procps
	# Debian packages (scripts/package.sh) and the Debian guest that
	# installs one (tests/e2e/e2e_debian_*.sh): a debootstrap root made a
	# disk image by mke2fs -d; lintian judges the packages
	debootstrap e2fsprogs file lintian
	# the service's metrics are scraped by a real Prometheus (e2e
	# libvirt-crash); its own service never starts (policy-rc.d below)
	prometheus
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

# What this script wrote to the host, removed on every way out of it: an
# install that fails or is interrupted must not leave a host whose
# services can no longer start.
policy=/usr/sbin/policy-rc.d
own_policy=0
remove_policy() {
	if [ "$own_policy" = 1 ]; then
		rm -f "$policy"
		own_policy=0
	fi
}
trap remove_policy EXIT
# A signal ends the script as that signal, once the policy is gone.
for sig in HUP INT TERM; do
	trap "remove_policy; trap - $sig; kill -$sig \$\$" "$sig"
done

if ((${#missing[@]})); then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages: ${missing[*]}; run as root" >&2
		exit 1
	fi
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# No service may start during the install: the e2e tests start their
	# own virtlogd and libvirtd and refuse to run beside another one.
	# Owned before it is written, so that no way out can leave it.
	if [ ! -e "$policy" ]; then
		own_policy=1
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 755 "$policy"
	fi
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
	remove_policy
fi

# QEMU's plugin header (qemu-plugin.h) for exactly the installed QEMU, from
# Debian's source package: meson builds the PT plugin (pt-virt/qemu/) only
# when it is there.  Needs the network once; cached afterwards.
if [ "$(id -u)" -eq 0 ]; then
	bash "$(dirname "$0")/qemu-plugin-header.sh" >/dev/null ||
		echo "setup: no QEMU plugin header: ringside-qemu-pt.so will not be built" >&2
fi

# perf refuses to read files it does not own unless told otherwise; ringside's
# tests hand it files they wrote themselves, so nothing to change here.
exit 0
