#!/usr/bin/env bash
# Set everything up and run the demos, as root on Debian 12:
#   1. scripts/demo-libvirt.sh, the operator's job on any machine: a
#      throwaway libvirt guest traced through ringside's shared rings
#      (record, perf report by thread, a panic and the flight recorder);
#   2. scripts/demo-vmm.sh, ringside's own VMM: on /dev/kvm where it works,
#      otherwise in a nested guest that has KVM (tests/nested/kvm-run).
# scripts/demo-ring.sh shows the ring protocol alone between two host
# processes.  BUILD=DIR picks the build directory (default build);
# DEMO_KEEP=1 keeps the demos' files; see the scripts for the rest.
# Exits non-zero if any step fails.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export BUILD=${BUILD:-build}
# demo-libvirt.sh's step lines count the seconds from here
DEMO_T0=$(date +%s)
export DEMO_T0

if [ -c /dev/kvm ] && { : <>/dev/kvm; } 2>/dev/null; then
	vmm_where="on this host's /dev/kvm"
else
	vmm_where="in a nested guest (no usable /dev/kvm here)"
fi
echo "ringside demo: a libvirt guest traced from this host through shared rings in"
echo "its memory (record, perf report, a panic the flight recorder keeps), then"
echo "ringside's own KVM VMM $vmm_where."
printf '\n== [0 s] 0. the packages the demo needs, and its build in %s/\n' "$BUILD"
# The demo's packages only (scripts/test.sh installs what the tests add);
# apt's output goes to setup.sh's log, one line per step here.
bash scripts/setup.sh --demo
[ -f "$BUILD/build.ninja" ] ||
	echo "building $BUILD/ (meson, ninja: a few minutes the first time) ..."
bash scripts/build.sh "$BUILD"
echo "built $BUILD/ ($(($(date +%s) - DEMO_T0)) s so far)"
bash scripts/demo-libvirt.sh
if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	# demo-vmm keeps its files in DEMO_DIR; a temporary one unless asked
	if [ -z "${DEMO_DIR:-}" ] && [ "${DEMO_KEEP:-0}" != 1 ]; then
		DEMO_DIR=$(mktemp -d /tmp/ringside-demo.XXXXXX)
		export DEMO_DIR
		trap 'rm -rf "$DEMO_DIR"; echo "demo: removed $DEMO_DIR (DEMO_KEEP=1 keeps it)"' EXIT
	fi
	bash scripts/demo-vmm.sh
else
	# No KVM here: the same demo in a QEMU TCG guest with nested SVM that
	# has one (tests/nested/kvm-run, as the test suites use it), powered
	# off afterwards.  Its files live in that guest's /tmp and go with it.
	export RS_NESTED_DIR=/var/tmp/ringside-nested-demo
	trap 'tests/nested/kvm-run --stop' EXIT
	echo
	echo "== no usable /dev/kvm here: ringside's own VMM runs in a nested guest (QEMU TCG, nested SVM, this host's kernel and kvm-amd)"
	RS_KVM=nested tests/nested/kvm-run bash scripts/demo-vmm.sh
fi
