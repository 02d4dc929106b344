#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The operator's job on a libvirt guest, end to end, on any machine (as root):
#   1. virtlogd and libvirtd, started here where no libvirtd runs (no
#      systemd); ringside's hook, installed here unless it is already;
#   2. a throwaway 2-vCPU domain booting this host's kernel with a busybox
#      initramfs: ringside-agent, ringside-mark and the e2e workload
#      rs-workload, under tests/e2e/guest_init.sh as /init;
#   3. `ringside enable --mode normal`, start, `ringside record DOMAIN` while
#      the workload runs, `perf report` of the guest's samples by thread,
#      then by function: guest kernel functions named from the symbols the
#      agent published in the region, rs-workload's from its binary;
#   4. `ringside enable` (overwrite mode: the flight recorder), start, the
#      guest panics, `ringside snapshot --stable DOMAIN`, the last markers
#      and the last samples' named call chains before the panic;
#   5. `ringside disable`, and everything made here goes again: domain,
#      region file, hook, daemons, files.
# Exits non-zero if any step fails, cleaning up all the same.
#   BUILD=DIR        the build directory (default build; built if needed)
#   DEMO_ACCEL=A     auto (default), tcg or kvm.  auto takes KVM only where
#                    the host CPU has vmx or svm: an emulated /dev/kvm runs
#                    the KVM API but hangs a Linux guest in early boot.
#   DEMO_KEEP=1      keep the work directory (perf.data files, console)
# The daemons, initramfs, domain XML and console waits are shared with the
# e2e test (scripts/lib/libvirt-guest.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# shellcheck source=scripts/lib/libvirt-guest.sh
. scripts/lib/libvirt-guest.sh
build=${BUILD:-build}
# the seconds in step lines count from demo.sh's start when it runs us
T0=${DEMO_T0:-$(date +%s)}

die() { echo "demo-libvirt: $*" >&2; exit 1; }
step() { printf '\n== [%d s] %s\n' $(($(date +%s) - T0)) "$*"; }

[ "$(id -u)" = 0 ] || die "run me as root (libvirtd, /dev/shm, the libvirt hook)"
bash scripts/build.sh "$build"
R=$(realpath "$build/cli/ringside")
HOOK_PROGRAM=$(realpath "$build/hook/ringside-hook")
AGENT=$build/guest-agent/linux/ringside-agent
MARK=$build/guest-agent/mark-tool/ringside-mark
WORKLOAD=$build/tests/e2e/rs-workload
for f in "$AGENT" "$MARK" "$WORKLOAD"; do
	[ -x "$f" ] || die "no $f in $build (a sanitized build makes no Linux agent)"
done
lg_prereq || die "$LG_WHY"

accel=${DEMO_ACCEL:-auto}
if [ "$accel" = auto ]; then
	if [ -c /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then accel=kvm; else accel=tcg; fi
fi
case $accel in
tcg) domtype=qemu ;;
kvm) [ -c /dev/kvm ] || die "DEMO_ACCEL=kvm, but there is no /dev/kvm"; domtype=kvm ;;
*) die "DEMO_ACCEL: auto, tcg or kvm, not '$accel'" ;;
esac

DOM=rs-demo-$$
SHM=/dev/shm/ringside-$DOM
HOOK=/etc/libvirt/hooks/qemu.d/ringside
if [ -e "$HOOK" ] && ! grep -q "ringside libvirt hook" "$HOOK"; then
	die "$HOOK exists and is not ringside's; the demo leaves it alone"
fi

# What was made here, so that teardown removes exactly that; it counts
# what it could not undo in TD_FAILS.
W='' RECORD_PID='' DEFINED='' HOOKED='' MADE_DIRS=() TD_FAILS=0 CAPDIR=
td() { "$@" && return 0; TD_FAILS=$((TD_FAILS + 1)); return 1; }

teardown() {
	local -   # set +e for this function only: undo all it can
	set +e
	if [ -n "$RECORD_PID" ]; then
		lg_kill_wait "$RECORD_PID"
		wait "$RECORD_PID" 2>/dev/null || true
		RECORD_PID=''
	fi
	if [ -n "$DEFINED" ]; then
		vsh destroy "$DOM" >/dev/null 2>&1 || true   # mostly stopped already
		td "$R" disable "$DOM"
		td vsh undefine "$DOM" >/dev/null && echo "virsh undefine $DOM"
		DEFINED=''
	fi
	# libvirt leaves the domain's QEMU log behind; the hook, its captures
	td rm -f "$SHM" "/var/log/libvirt/qemu/$DOM.log"
	[ -z "$CAPDIR" ] || td rm -rf "${CAPDIR:?}/$DOM"
	if [ -n "$HOOKED" ]; then
		if [ -e "$W/hook.orig" ]; then
			td cp -p "$W/hook.orig" "$HOOK" && echo "restored the ringside hook that was there before"
		else
			td "$R" hook uninstall
		fi
		HOOKED=''
	fi
	for d in "${MADE_DIRS[@]}"; do rmdir "$d" 2>/dev/null || true; done
	MADE_DIRS=()
	if [ -n "$LG_LIBVIRTD_PID$LG_VIRTLOGD_PID" ]; then
		echo "stopping libvirtd ${LG_LIBVIRTD_PID:-(not ours)}, virtlogd ${LG_VIRTLOGD_PID:-(not ours)}"
		lg_daemons_stop
	fi
	if [ -n "$W" ]; then
		if [ "${DEMO_KEEP:-0}" = 1 ]; then
			echo "kept $W (DEMO_KEEP=1)"
		else
			rm -rf "$W"
		fi
		W=''
	fi
}
on_exit() {
	local rc=$?
	set +e
	if [ -n "$W$DEFINED$HOOKED$LG_LIBVIRTD_PID$LG_VIRTLOGD_PID" ]; then
		echo "demo-libvirt: failed (status $rc); cleaning up" >&2
		teardown
	fi
	exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# fail_console WHAT: the guest did not get there; show its console.
fail_console() {
	echo "demo-libvirt: $LG_WHY ($1)" >&2
	lg_console_tail "$W/console.log" >&2
	exit 1
}

# A libvirtd that was running before the hook was installed never runs it
# (libvirtd looks for hooks when it starts): lay the region out by hand with
# `ringside hook run`, which does what the hook does.  Where libvirtd is
# ours the hook does it.
prepare_region() {
	[ -z "$LG_LIBVIRTD_PID" ] || return 0
	vsh dumpxml --inactive "$DOM" | "$R" hook run "$DOM" prepare begin -
}

# boot WHAT: start the domain (WHAT says what the guest will do).
boot() {
	prepare_region
	rm -f "$W/console.log"
	vsh start "$DOM" >/dev/null
	echo "virsh start $DOM ($accel): $1"
}
# wait_guest PATTERN SECONDS WHAT: wait for the console to show PATTERN,
# with a progress line every 3 s meanwhile.
wait_guest() {
	LG_PROGRESS=3 LG_SINCE=$BOOTED lg_wait_console "$W/console.log" "$1" "$2" ||
		fail_console "$3"
}

step "1. libvirtd and ringside's hook"
W=$(lg_workdir /tmp/rs-demo.XXXXXX)
if [ -e "$HOOK" ] && grep -qF "exec '$HOOK_PROGRAM' " "$HOOK"; then
	echo "ringside's hook is installed already and runs $HOOK_PROGRAM"
	CAPDIR=$(sed -n "s/.*--capture-dir '\([^']*\)'.*/\1/p" "$HOOK")
	CAPDIR=${CAPDIR:-/var/lib/ringside/captures}
else
	[ ! -e "$HOOK" ] || cp -p "$HOOK" "$W/hook.orig"
	for d in /etc/libvirt/hooks/qemu.d /etc/libvirt/hooks; do
		[ -d "$d" ] || MADE_DIRS+=("$d")
	done
	HOOKED=1
	# captures of stopped domains go to the demo's own directory
	CAPDIR=$W/captures
	"$R" hook install --program "$HOOK_PROGRAM" --capture-dir "$CAPDIR"
fi
libvirtd_before=$(lg_running libvirtd)
lg_daemons_start "$W" || die "$LG_WHY"
if [ -n "$libvirtd_before" ]; then
	echo "using the libvirtd that runs already (pid $libvirtd_before)"
else
	echo "started virtlogd ${LG_VIRTLOGD_PID:-(one ran already)} and libvirtd $LG_LIBVIRTD_PID (stopped at the end)"
fi

# perf's own build-id cache in the work directory, so that the demo leaves
# nothing behind; ringside record and snapshot file the guest's names in
# their own cache beside each file ($W/.ringside-debug), never in it
export HOME=$W/home
mkdir -p "$HOME"

step "2. a throwaway domain $DOM: $(basename "$LG_KERNEL") + busybox initramfs with the agent and rs-workload"
lg_initramfs "$W" "$AGENT" "$MARK" "$WORKLOAD" tests/e2e/guest_init.sh || die "$LG_WHY"
lg_domain_xml "$DOM" "$domtype" "$W" normal > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null
DEFINED=1
echo "virsh define: 2 vCPUs, 256 MiB, $accel, serial console in $W/console.log"

step "3. record: ringside enable $DOM --mode normal, start it, ringside record $DOM"
"$R" enable "$DOM" --mode normal --data-pages 256 --freq 1000
BOOTED=$(date +%s)
boot "the agent samples every guest CPU, rs-workload marks 20 steps"
"$R" record "$DOM" -o "$W/record.data" -i 20 >"$W/record.out" 2>"$W/record.err" &
RECORD_PID=$!
wait_guest "E2E-WORKLOAD-OK" 120 "the workload did not finish"
echo "guest: $(grep -a -m 1 'E2E-WORKLOAD pid=' "$W/console.log" | tr -d '\r'), done after $(($(date +%s) - BOOTED)) s"
"$R" stat "$DOM" | sed 's/^/  /'
# the guest marks "key seen" when a key reaches its console
wait_guest "E2E-KEY-WAIT" 60 "the guest did not wait for its key"
vsh send-key "$DOM" KEY_ENTER >/dev/null
wait_guest "E2E-DONE" 60 "the agent did not detach"
kill -INT "$RECORD_PID"
wait "$RECORD_PID" || { cat "$W/record.err" >&2; die "ringside record $DOM failed"; }
RECORD_PID=''
cat "$W/record.out"
vsh destroy "$DOM" >/dev/null

step "   perf report -i record.data --stdio --sort comm,pid: the guest's samples by thread"
perf report -i "$W/record.data" --stdio --sort comm,pid --no-children -g none 2>/dev/null > "$W/report.txt"
grep -m 1 '^# Samples' "$W/report.txt" || true
awk '!/^#/ && NF && n++ < 12' "$W/report.txt" > "$W/report.top"
cat "$W/report.top"
grep -q ' rs-workload ' "$W/report.top" || die "perf report names no rs-workload thread"

step "   perf --buildid-dir .ringside-debug report -i record.data --sort dso,sym: the guest's functions by name"
# ringside record filed the guest kernel's symbols (published by its
# agent in the region's sideband) in its build-id cache beside the file,
# which perf reads when told to (--buildid-dir; record's summary says so).
grep "guest names:" "$W/record.out" || true
perf --buildid-dir "$W/.ringside-debug" report -i "$W/record.data" --stdio \
	--sort dso,sym --no-children -g none 2>/dev/null > "$W/functions.txt"
awk '!/^#/ && NF && n++ < 10' "$W/functions.txt" | tee "$W/functions.top"
grep -Eq '\[k\] [A-Za-z_]' "$W/functions.top" || die "perf report names no guest kernel function"

step "   perf report --symfs ROOT --comm rs-workload: its user functions, from the guest's binaries"
# User names come from the guest's own files: here the initramfs tree.
perf report -i "$W/record.data" --stdio --sort dso,sym --no-children -g none \
	--symfs "$W/root" --comm rs-workload 2>/dev/null > "$W/user.txt"
awk '!/^#/ && NF && n++ < 5' "$W/user.txt" | tee "$W/user.top"
grep -q ' hot_loop' "$W/user.top" || die "perf report does not name rs-workload's hot_loop"

step "4. flight recorder: ringside enable $DOM (overwrite), start it, the guest panics"
"$R" enable "$DOM"
vsh dumpxml --inactive "$DOM" | sed 's/rs_e2e=normal/rs_e2e=panic/' > "$W/domain-panic.xml"
vsh define "$W/domain-panic.xml" >/dev/null
BOOTED=$(date +%s)
boot "rs-workload marks 20 steps, marks 'panic' and crashes the kernel (sysrq c)"
wait_guest "Kernel panic" 120 "the guest did not panic"
echo "guest: $(grep -a -m 1 'Kernel panic' "$W/console.log" | tr -d '\r' | cut -c 1-100)"
"$R" snapshot "$DOM" --stable -o "$W/flight.data"
echo "domain after the stable snapshot: $(vsh domstate "$DOM")"

step "   ringside dump flight.data: the last markers before the panic"
"$R" dump "$W/flight.data" | grep ' marker ' | tail -n 6 | tee "$W/markers.txt"
grep -q '"panic"' "$W/markers.txt" || die "no 'panic' marker in the snapshot"

step "   perf --buildid-dir .ringside-debug script -i flight.data: the guest's last samples, then where each vCPU was (pid -1), named"
perf --buildid-dir "$W/.ringside-debug" script -i "$W/flight.data" \
	-F comm,tid,time,ip,sym 2>/dev/null > "$W/flight.txt"
# the last samples with their call chains (a blank line ends each)
awk 'BEGIN { RS = ""; ORS = "\n\n" } { s[NR % 4] = $0 } END {
	for (i = NR - 3; i <= NR; i++) if (i > 0) print s[i % 4] }' "$W/flight.txt" |
	tee "$W/flight.last"
grep -Eq '^[[:space:]]+[0-9a-f]+ [a-z_]' "$W/flight.last" || die "perf script names none of the last stacks"
# the last samples are each vCPU where the host found it (registers and
# kernel stack read through libvirt): the panicked one is in panic()
grep -Eq '^[[:space:]]+[0-9a-f]+ panic$' "$W/flight.last" || die "the last stacks do not show panic()"

step "   virsh destroy: nobody watching, the hook keeps the flight recorder by itself"
# (a crash under <on_crash>destroy</on_crash> or restart does the same)
vsh destroy "$DOM" >/dev/null
for _ in $(seq 100); do
	ls "$CAPDIR/$DOM/"*.data >/dev/null 2>&1 && break
	sleep 0.1
done
CAPTURE=$(ls "$CAPDIR/$DOM/"*.data 2>/dev/null | tail -n 1)
[ -n "$CAPTURE" ] || die "the hook kept no capture in $CAPDIR/$DOM"
echo "capture: $CAPTURE"
"$R" dump "$CAPTURE" | grep ' marker ' | tail -n 2

step "5. clean up: ringside disable, undefine, hook, daemons, files"
teardown
[ "$TD_FAILS" = 0 ] || die "$TD_FAILS clean-up steps failed"
echo "nothing of the demo is left: no domain, no $SHM, no daemons it started"
step "done in $(($(date +%s) - T0)) s"
