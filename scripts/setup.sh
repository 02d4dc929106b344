#!/usr/bin/env bash
# Install the Debian packages ringside needs, as root on Debian 12:
#   setup.sh --demo   what scripts/demo.sh needs: build the tree (the test
#                     programs included: the demo's guest workload is one),
#                     run the libvirt demo, and ringside's own VMM on this
#                     host's /dev/kvm or in the nested guest of
#                     tests/nested/kvm-run
#   setup.sh --test   (the default) all of that and what the tests add:
#                     sanitizers, valgrind, fuzzing, the readers that judge
#                     ringside's files, the Debian guest, Prometheus, and
#                     QEMU's plugin header (the PT plugin is built with it)
# apt's own output goes to a log file, /var/log/ringside-setup.log (or
# SETUP_LOG); here one line per step, and the log's tail if a step fails.
# Idempotent: apt-get runs only when something is missing.
set -euo pipefail

set_name='test'
case ${1:-} in
--demo) set_name=demo ;;
--test | '') ;;
-h | --help)
	sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0 ;;
*) echo "setup: --demo or --test, not '$1'" >&2; exit 2 ;;
esac

# What the demo needs; each one is also the tests' (the e2e suite runs the
# same guests).
demo_packages=(
	# build: the compiler, meson, and every library the build finds at
	# configure time, so that a tree the demo configured is the one the
	# tests build (Check builds tests/, where the demo's workload is)
	gcc meson ninja-build pkg-config check libsubunit-dev
	zlib1g-dev libipt-dev libzydis-dev libvirt-dev libxml2-dev
	# Linux guests under QEMU and libvirt, and the nested KVM guest of
	# tests/nested/kvm-run (the host's kernel and its modules, busybox)
	qemu-system-x86 linux-image-amd64 busybox-static cpio
	libvirt-daemon-system libvirt-daemon-driver-qemu libvirt-clients procps
	# the demo reads its files with the real perf
	linux-perf
)
test_packages=(
	# unit tests, sanitizers, valgrind; jq reads the JSON reports in scripts
	valgrind jq
	# the doorbell protocol's Promela model (abi/model, suite model)
	spin
	# fuzzing (tests/fuzz, scripts/fuzz.sh): clang and its libFuzzer runtime
	clang libclang-rt-14-dev
	# perf.data is judged by hotspot's parser too (hotspot-perfparser,
	# tests/e2e/readers_check.sh)
	hotspot
	# go tool pprof judges the pprof profiles (tests/pprof)
	golang-go
	# the QEMU plugin header's Debian patches, if any (qemu-plugin-header.sh)
	patchutils dpkg-dev
	# Debian packages (scripts/package.sh) and the Debian guest that
	# installs one (tests/e2e/e2e_debian_*.sh): a debootstrap root made a
	# disk image by mke2fs -d; lintian judges the packages
	debootstrap e2fsprogs file lintian
	# the service's metrics are scraped by a real Prometheus (e2e
	# libvirt-crash); its own service never starts (policy-rc.d below)
	prometheus
)
packages=("${demo_packages[@]}")
[ $set_name = demo ] || packages+=("${test_packages[@]}")

log=${SETUP_LOG:-/var/log/ringside-setup.log}
T0=$(date +%s)

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
# A signal ends the script as that signal, once the policy is gone (and
# the step running in the background, which ignores SIGINT, with it).
step_pid=
# shellcheck disable=SC2317  # called by the traps below
on_signal() {
	if [ -n "$step_pid" ]; then
		kill -TERM -- "-$step_pid" 2>/dev/null || true
		wait "$step_pid" 2>/dev/null || true
	fi
	remove_policy
	trap - "$1"
	kill "-$1" $$
}
for sig in HUP INT TERM; do
	# shellcheck disable=SC2064  # $sig expands now, on purpose
	trap "on_signal $sig" "$sig"
done

# step WHAT CMD...: run CMD with its output in the log, and one line here:
# "setup: WHAT ... done (N s)".  On a terminal the line counts the seconds
# meanwhile, and the packages set up so far (of $total, when set).  A
# failure shows the log's tail and ends the script with CMD's status.
total=
step() {
	local what=$1 t0 from pid rc=0 n
	shift
	t0=$(date +%s)
	printf '\n== %s: %s\n' "$(date -u +%FT%TZ)" "$*" >>"$log"
	from=$(($(stat -c %s "$log") + 1))
	if [ -t 1 ]; then
		# a process group of its own: a signal here ends all of it
		setsid "$@" >>"$log" 2>&1 </dev/null &
		pid=$! step_pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			n=$(tail -c "+$from" "$log" | awk -v of="${total:+ of $total}" '
				/^Get:/ { g++ } /^Unpacking / { u++ } /^Setting up / { s++ }
				END { if (u + s) printf ", %d unpacked, %d set up%s", u, s, of
				      else if (g) printf ", %d downloaded%s", g, of }')
			printf '\rsetup: %s ... %d s%s \033[K' "$what" $(($(date +%s) - t0)) "$n"
			sleep 1
		done
		wait "$pid" || rc=$?
		step_pid=
		printf '\r\033[K'
	else
		"$@" >>"$log" 2>&1 </dev/null || rc=$?
	fi
	if [ $rc != 0 ]; then
		echo "setup: $what ... failed (status $rc); the end of $log:" >&2
		tail -n 25 "$log" | sed 's/^/  /' >&2
		exit $rc
	fi
	echo "setup: $what ... done ($(($(date +%s) - t0)) s)"
}

if ((${#missing[@]})); then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages: ${missing[*]}; run as root" >&2
		exit 1
	fi
	: >>"$log" || { echo "setup: cannot write $log (SETUP_LOG=FILE)" >&2; exit 1; }
	echo "setup: ${#missing[@]} packages to install for the $([ $set_name = demo ] && echo demo || echo tests);" \
		"their names and apt's output go to $log"
	printf '\n== %s: setup.sh --%s: %s\n' "$(date -u +%FT%TZ)" "$set_name" "${missing[*]}" >>"$log"
	export DEBIAN_FRONTEND=noninteractive
	# No service may start during the install: the e2e tests start their
	# own virtlogd and libvirtd and refuse to run beside another one.
	# Owned before it is written, so that no way out can leave it.
	if [ ! -e "$policy" ]; then
		own_policy=1
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 755 "$policy"
	fi
	step "apt-get update" apt-get update -q
	install=(apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends)
	total=$("${install[@]}" -s "${missing[@]}" 2>/dev/null | grep -c '^Inst ' || true)
	step "apt-get install (${total:-?} packages with their dependencies)" \
		"${install[@]}" "${missing[@]}"
	total=
	remove_policy
fi

# QEMU's plugin header (qemu-plugin.h) for exactly the installed QEMU, from
# Debian's source package: meson builds the PT plugin (pt-virt/qemu/) only
# when it is there (the tests' plugin; the demo does not use it).  Needs
# the network once; cached afterwards.
if [ $set_name = test ] && [ "$(id -u)" -eq 0 ] &&
	! bash "$(dirname "$0")/qemu-plugin-header.sh" --cached >/dev/null 2>&1; then
	: >>"$log" || { echo "setup: cannot write $log (SETUP_LOG=FILE)" >&2; exit 1; }
	( step "QEMU's plugin header (Debian's qemu source package)" \
		bash "$(dirname "$0")/qemu-plugin-header.sh" ) ||
		echo "setup: no QEMU plugin header: ringside-qemu-pt.so will not be built" >&2
fi
if ((${#missing[@]})); then
	echo "setup: done in $(($(date +%s) - T0)) s"
fi

# perf refuses to read files it does not own unless told otherwise; ringside's
# tests hand it files they wrote themselves, so nothing to change here.
exit 0
