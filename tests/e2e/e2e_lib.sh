# SPDX-License-Identifier: MIT
# Shared by the e2e scripts that boot a Debian guest under their own
# libvirtd (e2e_libvirt*.sh): the verdict helpers, the checks that the test
# may take libvirt over, the set-up before a boot, the teardown, the
# console and crash waits.  Source after scripts/lib/libvirt-guest.sh; the
# script sets RINGSIDE, AGENT, MARK, WORKLOAD, GUEST_INIT, HOOK and
# HOOK_PROGRAM and, once it has one, W (its work directory), DOM and
# DEFINED.
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
	# a region the hook had to set aside (its capture failed)
	[ -n "${DOM:-}" ] && rm -f "/dev/shm/ringside-$DOM~kept"
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

# e2e_prepare: the guest's initramfs (LG_* set, W), ringside's hook (its
# captures in $W/captures), the daemons, and a HOME of the test's own for
# perf's build-id cache (which no guest's names reach: rs_cache).
# Exits the script with a verdict when a step fails.
e2e_prepare() {
	lg_initramfs "$W" "$AGENT" "$MARK" "$WORKLOAD" "$GUEST_INIT" || { bad "$LG_WHY"; exit 1; }
	# captures of stopped domains stay in the work directory
	"$RINGSIDE" hook install --program "$HOOK_PROGRAM" --capture-dir "$W/captures" \
		>/dev/null || { bad "hook install"; exit 1; }
	HOOKED=1
	lg_daemons_start "$W" || { bad "$LG_WHY"; exit 1; }
	export HOME=$W/home PERF_CONFIG=/dev/null
	mkdir -p "$HOME"
}

# console_count PATTERN: lines of the guest's console with PATTERN
console_count() { grep -c -- "$1" "$W/console.log" 2>/dev/null || true; }

# console_wait_nth PATTERN N SECONDS: until the console has N lines with
# PATTERN (a verdict and the console's tail when it has not)
console_wait_nth() {
	local _
	for _ in $(seq $(($3 * 5))); do
		[ "$(console_count "$1")" -ge "$2" ] && return 0
		sleep 0.2
	done
	bad "no ${2}th '$1' on the console within $3 s"
	lg_console_tail "$W/console.log"
	return 1
}

# console_nth PATTERN N: the Nth console line with PATTERN
console_nth() { grep -- "$1" "$W/console.log" | sed -n "${2}p" | tr -d '\r'; }

# e2e_wait_crashed: until the domain's state says it panicked (pvpanic
# with <on_crash>preserve</on_crash>); its `domstate --reason` in STATE.
e2e_wait_crashed() {
	local _
	for _ in $(seq 3000); do
		STATE=$(vsh domstate --reason "$DOM" 2>/dev/null)
		case $STATE in crashed*) return 0 ;; esac
		sleep 0.2
	done
	return 1
}

# e2e_pvpanic: the pvpanic modules of the guest's kernel into the
# initramfs tree ($W/root), loaded by guest_init.sh at boot: at panic()
# the guest tells QEMU, and libvirt applies <on_crash>.  Exits the script
# with a verdict when they are missing.
e2e_pvpanic() {
	local d
	d=/lib/modules/$(basename "$LG_KERNEL" | sed 's/^vmlinuz-//')/kernel/drivers/misc/pvpanic
	mkdir -p "$W/root/lib/modules"
	cp "$d/pvpanic.ko" "$W/root/lib/modules/1-pvpanic.ko" &&
		cp "$d/pvpanic-mmio.ko" "$W/root/lib/modules/2-pvpanic-mmio.ko" ||
		{ bad "no pvpanic modules in $d (linux-image-amd64 has them)"; exit 1; }
}

# e2e_watchdog: the i6300esb watchdog driver of the guest's kernel (and
# the watchdog core it needs: modinfo -F depends) into the initramfs tree,
# after pvpanic's, with a 2 s heartbeat: a guest that opens /dev/watchdog
# and never feeds it has QEMU's watchdog fire within seconds.  Exits the
# script with a verdict when they are missing.
e2e_watchdog() {
	local d
	d=/lib/modules/$(basename "$LG_KERNEL" | sed 's/^vmlinuz-//')/kernel/drivers/watchdog
	mkdir -p "$W/root/lib/modules"
	cp "$d/watchdog.ko" "$W/root/lib/modules/3-watchdog.ko" &&
		cp "$d/i6300esb.ko" "$W/root/lib/modules/4-i6300esb.ko" &&
		echo "heartbeat=2" > "$W/root/lib/modules/4-i6300esb.params" ||
		{ bad "no watchdog modules in $d (linux-image-amd64 has them)"; exit 1; }
}

# last_mark [CONSOLE]: the highest marker id a console (default
# $W/console.log) has shown, of guest_init_marks.sh's E2E-MARK N (0: none)
last_mark() {
	tr -d '\r' < "${1:-$W/console.log}" 2>/dev/null |
		sed -n 's/^E2E-MARK \([0-9]*\)$/\1/p' | sort -n | tail -n 1 | grep . || echo 0
}

# wait_mark_after N SECONDS [CONSOLE]: until a console shows a marker above N
wait_mark_after() {
	local _ m c=${3:-$W/console.log}
	for _ in $(seq $(($2 * 5))); do
		m=$(last_mark "$c")
		[ "$m" -gt "$1" ] && return 0
		grep -aq "Kernel panic\|Oops" "$c" && break
		sleep 0.2
	done
	bad "no marker above $1 on $(basename "$c") within $2 s$(grep -aq "Kernel panic\\|Oops" "$c" && echo ': the guest oopsed')"
	lg_console_tail "$c"
	return 1
}

# rs_cache FILE: ringside's build-id cache of a file it wrote, beside it,
# where the guest's names are (never perf's own ~/.debug): what `perf
# --buildid-dir` and hotspot's parser's --debug are given
rs_cache() {
	echo "$(cd "$(dirname "$1")" && pwd)/.ringside-debug"
}

# user_unknown FILE: "UNKNOWN ALL HOST" of FILE's samples in user mode
# (perf report --sort pid,dso,sym: "[.]"): those of the guest's processes
# whose binary perf does not know ([unknown]), all of the guest's, and the
# host's own samples of vCPUs in user mode (pid -1: a snapshot's vCPU
# registers, filed as no task, since the host does not know which task
# runs; docs/cli.md), counted apart: they are no guest process's.  The
# pid is the first field of "PID:COMMAND" (a name may hold spaces).
user_unknown() {
	perf --buildid-dir "$(rs_cache "$1")" report -i "$1" --stdio -n \
		--no-children -g none --sort pid,dso,sym \
		2>/dev/null | awk '
		/^# Samples: / { ev = index($0, "of event '\''ringside:sample'\''") > 0; next }
		/^#/ || NF < 6 || !ev { next }
		{ for (i = 4; i < NF && $i != "[.]"; i++) ; if ($i != "[.]") next }
		substr($3, 1, index($3, ":") - 1) == "-1" { host += $2; next }
		{ all += $2; if ($(i - 1) == "[unknown]") un += $2 }
		END { printf "%d %d %d\n", un, all, host }'
}

# unknown_judge FILE WHAT [OUT]: at most 1 % of the user samples of
# FILE's guest processes [unknown], and some; the processes of those
# said when it is more.  OUT, the snapshot's output: the host's own user
# samples (pid -1) are exactly its vCPUs in user mode ("vCPU N (user)").
unknown_judge() {
	local un all host line vu
	read -r un all host < <(user_unknown "$1")
	line="$2: of all $all user samples of the guest's processes, $un ($((all ? un * 1000 / all / 10 : 0)).$((all ? un * 1000 / all % 10 : 0))%) [unknown] to perf report --sort dso (and $host of the host's vCPU registers, pid -1, apart)"
	if [ "$all" -gt 0 ] && [ $((un * 100)) -le "$all" ]; then
		ok "$line"
	else
		bad "$line"
		perf --buildid-dir "$(rs_cache "$1")" script -i "$1" -G \
			-F comm,pid,event,ip,dso 2>/dev/null |
			awk '$NF == "([unknown])" && $(NF - 2) == "ringside:sample:" &&
				length($(NF - 1)) < 16 && $(NF - 3) != "-1" {
				$NF = $(NF - 1) = $(NF - 2) = ""; print }' |
			sort | uniq -c | sort -rn | head -n 8 | sed 's/^/     /'
	fi
	[ -n "${3:-}" ] || return 0
	vu=$(grep -Ec '^ *vCPU [0-9]+ \(user' "$3")
	[ "$host" = "$vu" ] &&
		ok "$2: the host's user samples (pid -1) are its $vu vCPUs in user mode" ||
		bad "$2: $host user samples of pid -1, but $vu vCPUs in user mode in $(basename "$3")"
}

# captures_now: the hook's captures of $DOM so far, for new_capture
captures_now() {
	local f
	for f in "$W/captures/$DOM/"*.data; do
		[ -e "$f" ] && echo "$f"
	done > "$W/caps0"
}

# new_capture SECONDS: the hook's capture of $DOM that captures_now did
# not list, once there is one (empty if none came)
new_capture() {
	local _ f
	for _ in $(seq $(($1 * 5))); do
		for f in "$W/captures/$DOM/"*.data; do
			[ -e "$f" ] && ! grep -qxF "$f" "$W/caps0" && { echo "$f"; return 0; }
		done
		sleep 0.2
	done
	return 1
}
