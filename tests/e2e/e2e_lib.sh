# SPDX-License-Identifier: MIT
# Shared by the e2e scripts that boot a Debian guest under their own
# libvirtd (e2e_libvirt*.sh): the verdict helpers, the checks that the test
# may take libvirt over, the teardown, a console wait.  Source after
# scripts/lib/libvirt-guest.sh; the script sets AGENT, HOOK, RINGSIDE and,
# once it has one, W (its work directory), DOM and DEFINED/HOOKED.
T0=${T0:-$(date +%s)}
fails=0
skip() { echo "SKIP: $*"; exit 77; }
ok()   { echo "ok   $*"; }
bad()  { echo "FAIL $*"; fails=$((fails + 1)); }
note() { echo "--   [$(($(date +%s) - T0)) s] $*"; }

# e2e_need_own_libvirt: root, the Linux agent, QEMU and libvirt, no libvirt
# daemon already running and no foreign hook (the test installs its own).
e2e_need_own_libvirt() {
	local d pid
	[ "$(id -u)" = 0 ] || skip "needs root (libvirtd, /dev/shm, the hook)"
	[ -x "$AGENT" ] || skip "no Linux agent (sanitized builds do not make one)"
	lg_prereq || skip "$LG_WHY"
	for d in libvirtd virtlogd; do
		pid=$(lg_running $d)
		[ -z "$pid" ] || skip "$d already runs (pid $pid); this test starts and stops its own"
	done
	if [ -e "$HOOK" ] && ! grep -q "ringside libvirt hook" "$HOOK"; then
		skip "$HOOK exists and is not ringside's"
	fi
}

# e2e_teardown: the domain, the daemons, the hook; the work directory is
# kept after a failure or with RS_E2E_KEEP=1.
e2e_teardown() {
	if [ -n "${DEFINED:-}" ]; then
		vsh destroy "$DOM" >/dev/null 2>&1
		vsh undefine "$DOM" >/dev/null 2>&1
	fi
	lg_daemons_stop
	[ -n "${HOOKED:-}" ] && "$RINGSIDE" hook uninstall >/dev/null
	if [ "${RS_E2E_KEEP:-0}" = 1 ] || [ "$fails" != 0 ]; then
		echo "work directory kept: $W"
	else
		rm -rf "$W"
	fi
}

# wait_console PATTERN SECONDS: until the guest's console shows PATTERN
wait_console() {
	lg_wait_console "$W/console.log" "$1" "$2" && return 0
	bad "$LG_WHY"
	lg_console_tail "$W/console.log"
	return 1
}
