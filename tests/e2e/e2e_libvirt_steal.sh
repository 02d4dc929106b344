#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The host takes a vCPU away, and the recording says so, from a real
# Linux guest under QEMU TCG and libvirtd:
#
#   e2e_libvirt_steal.sh RINGSIDE AGENT MARK WORKLOAD HOOK
#
# The guest keeps both vCPUs busy and writes a marker every 0.2 s.  While
# `ringside record DOMAIN` runs, the test throttles vCPU 0's thread ("CPU
# 0/TCG") with a cgroup of its own: 1 ms of CPU per second (cgroup v1
# cpu.cfs_quota_us, v2 cpu.max) for about 3 s, then lets it go.  The
# kernel counts the time the group was throttled (cpu.stat): time the
# thread was runnable and not running.  Checks:
#   - record recorded the host's view of both vCPU threads;
#   - report names steal on vCPU 0 of at least the throttled time the
#     kernel counted (>= 1 s): what the test imposed;
#   - its longest preemptions are those of the throttle (more than half
#     a second each), and the guest's samples of vCPU 0 have a gap there:
#     none within them (less the clock's error bound), some outside;
#   - perf script shows the host's preemption of CPU 0/TCG on CPU 0.
# No timing assumption beyond the lower bound: the guest under TCG may be
# as slow as it likes.  Exit 77 when something it needs is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 HOOK_PROGRAM=$5
DOM=rs-e2e-steal-$$
HOOK=/etc/libvirt/hooks/qemu.d/ringside

e2e_need_own_libvirt
command -v perf >/dev/null || skip "no perf"
# the cgroup the test throttles the thread in
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CGV=2
	grep -qw cpu /sys/fs/cgroup/cgroup.controllers || skip "cgroup v2 without the cpu controller"
else
	CGV=1
	CGROOT=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
	[ -n "$CGROOT" ] || skip "no cgroup v1 cpu controller mounted"
fi
W=$(lg_workdir /tmp/rs-e2e-steal.XXXXXX)
GUEST_INIT=$(dirname "${BASH_SOURCE[0]}")/guest_init_marks.sh
RECORD_PID='' DEFINED='' HOOKED='' CG='' TID0=''
cleanup() {
	[ -n "$RECORD_PID" ] && lg_kill_wait "$RECORD_PID"
	if [ -n "$CG" ]; then
		if [ "$CGV" = 1 ]; then
			[ -n "$TID0" ] && echo "$TID0" > "$CGROOT/tasks" 2>/dev/null
			rmdir "$CG" 2>/dev/null
		else
			echo "max 100000" > "$CG/cpu.max" 2>/dev/null
		fi
	fi
	e2e_teardown
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# throttled_ns: what the kernel counted of the group's throttled time
throttled_ns() {
	if [ "$CGV" = 1 ]; then
		awk '$1 == "throttled_time" { print $2 }' "$CG/cpu.stat"
	else
		awk '$1 == "throttled_usec" { print $2 * 1000 }' "$CG/cpu.stat"
	fi
}
# throttle 1|0: 1 ms a second, or no limit
throttle() {
	if [ "$CGV" = 1 ]; then
		if [ "$1" = 1 ]; then
			echo 1000000 > "$CG/cpu.cfs_period_us" &&
				echo 1000 > "$CG/cpu.cfs_quota_us"
		else
			echo -1 > "$CG/cpu.cfs_quota_us"
		fi
	elif [ "$1" = 1 ]; then
		echo "1000 1000000" > "$CG/cpu.max"
	else
		echo "max 100000" > "$CG/cpu.max"
	fi
}

e2e_prepare
lg_domain_xml "$DOM" qemu "$W" steal > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1
"$RINGSIDE" enable "$DOM" --mode normal >/dev/null || { bad "enable"; exit 1; }
vsh start "$DOM" >/dev/null || { bad "virsh start"; exit 1; }
note "booting (TCG)"
wait_mark_after 2 900 || exit 1

QPID=$(cat "/run/libvirt/qemu/$DOM.pid")
for t in /proc/"$QPID"/task/*; do
	[ "$(cat "$t/comm" 2>/dev/null)" = "CPU 0/TCG" ] && TID0=${t##*/}
done
[ -n "$TID0" ] || { bad "QEMU (pid $QPID) has no thread 'CPU 0/TCG'"; exit 1; }
if [ "$CGV" = 1 ]; then
	# a group of the test's own, the vCPU thread alone in it
	CG=$CGROOT/rs-e2e-steal-$$
	mkdir "$CG" && echo "$TID0" > "$CG/tasks" ||
		{ bad "cannot move vCPU 0's thread $TID0 into $CG"; exit 1; }
else
	# libvirt's own group of the vCPU (cgroup v2 moves no single thread
	# out of its process's threaded subtree)
	CG=/sys/fs/cgroup$(awk -F: '$1 == "0" { print $3 }' "/proc/$QPID/task/$TID0/cgroup")
	case $CG in */vcpu0) ;; *) CG=''; skip "vCPU 0's thread is in no group of its own: $CG" ;; esac
fi

"$RINGSIDE" record "$DOM" -o "$W/rec.data" >"$W/rec.out" 2>"$W/rec.err" &
RECORD_PID=$!
# the recording runs and the guest goes on marking
m=$(last_mark)
wait_mark_after $((m + 3)) 300 || exit 1
note "vCPU 0's thread throttled to 1 ms a second"
before=$(throttled_ns)
throttle 1 || { bad "cannot throttle $CG"; exit 1; }
# until the kernel has counted at least 2 s of it (it counts at the end
# of each throttled period)
for _ in $(seq 600); do
	[ $(($(throttled_ns) - before)) -ge 2000000000 ] && break
	sleep 0.1
done
throttle 0
after=$(throttled_ns)
IMPOSED_NS=$((after - before))
note "throttled for $IMPOSED_NS ns"
[ "$IMPOSED_NS" -ge 1000000000 ] || { bad "the kernel counted only $IMPOSED_NS ns of throttling"; exit 1; }
m=$(last_mark)
wait_mark_after $((m + 3)) 300 || exit 1
kill -INT "$RECORD_PID"
wait "$RECORD_PID"
rc=$?
RECORD_PID=''
[ $rc = 0 ] || { bad "record: status $rc: $(cat "$W/rec.err")"; cat "$W/rec.out"; exit 1; }
grep -q "host view: 2 vCPU threads of pid $QPID" "$W/rec.out" &&
	ok "record: $(grep 'host view:' "$W/rec.out" | tail -n 1)" ||
	{ bad "record recorded no host view: $(grep 'host view' "$W/rec.out")"; exit 1; }

"$RINGSIDE" report "$W/rec.data" >"$W/rep.out" 2>"$W/rep.err" ||
	{ bad "report: $(cat "$W/rep.err")"; exit 1; }
grep '^  vCPU\|^host view\|^    vCPU 0 steal' "$W/rep.out"
IMPOSED=$(awk -v n="$IMPOSED_NS" 'BEGIN { printf "%.6f", n / 1e9 }')
STEAL=$(awk '$1 == "vCPU" && $2 == "0:" { for (i = 1; i < NF; i++) if ($i == "running)") { print $(i + 1); exit } }' "$W/rep.out")
awk -v s="${STEAL:-0}" -v i="$IMPOSED" 'BEGIN { exit !(s + 0 >= i - 0.000001) }' &&
	ok "report: steal on vCPU 0 $STEAL s >= $IMPOSED s the kernel throttled it" ||
	bad "report: steal on vCPU 0 '${STEAL}' s < $IMPOSED s imposed"
# the throttle's preemptions (each at most a period, 1 s)
awk '$1 == "vCPU" && $2 == "0" && $3 == "steal" && $4 > 0.5 { printf "%.0f %s\n", $4 * 1e9, $7 }' \
	"$W/rep.out" > "$W/long"
[ -s "$W/long" ] &&
	ok "report: $(wc -l < "$W/long") preemptions of vCPU 0 over 0.5 s, the longest $(awk 'NR == 1 { printf "%.6f", $1 / 1e9 }' "$W/long") s" ||
	bad "report lists no preemption of vCPU 0 over 0.5 s"

# the guest's own samples of vCPU 0 (its timer's, taken on vCPU 0): none
# while its thread could not run
# (within the time sync's error bound), some outside
BOUND_NS=$(grep -o 'error bound ±[0-9.]* [µm]s' "$W/rec.out" | awk '
	{ v = $3; sub(/±/, "", v); n = v * ($4 == "ms" ? 1e6 : 1e3); if (n > m) m = n }
	END { printf "%d", m + 0 }')
perf script -i "$W/rec.data" -C 0 --ns -F event,time \
	>"$W/perf0.out" 2>"$W/perf0.err" || bad "perf script: $(head -n 3 "$W/perf0.err")"
read -r inside outside < <(awk -v e="$BOUND_NS" '
	FNR == NR { len[NR] = $1; st[NR] = $2 * 1e9; n = NR; next }
	$2 != "ringside:sample:" { next }
	{ t = $1; sub(/:$/, "", t); split(t, p, "."); ns = p[1] * 1e9 + p[2]
	  hit = 0
	  for (k = 1; k <= n; k++)
		if (ns > st[k] + 1000 + e && ns < st[k] + len[k] - 1000 - e) hit = 1
	  if (hit) i++; else o++ }
	END { print i + 0, o + 0 }' "$W/long" "$W/perf0.out")
[ "$outside" -gt 0 ] && [ "$inside" = 0 ] &&
	ok "vCPU 0's guest samples: $outside outside the host's long preemptions, none within (bound ${BOUND_NS} ns)" ||
	bad "vCPU 0's guest samples: $inside within the host's long preemptions, $outside outside"
# shown: the gap around the longest one
read -r len st < "$W/long"
note "vCPU 0 preempted $(awk -v l="$len" -v s="$st" 'BEGIN { printf "%.6f .. %.6f", s, s + l / 1e9 }'); its guest samples: $(awk -v s="$st" '
	$2 == "ringside:sample:" { t = $1; sub(/:$/, "", t)
		if (t + 0 < s + 0) b = t; else if (a == "") a = t }
	END { print "last before " b ", first after " a }' "$W/perf0.out")"
perf script -i "$W/rec.data" -C 0 --show-switch-events >"$W/perf0s.out" 2>&1
grep -q 'CPU 0/TCG .*PERF_RECORD_SWITCH OUT preempt' "$W/perf0s.out" &&
	ok "perf script: CPU 0/TCG preempted, on CPU 0 among the guest's records" ||
	bad "perf script shows no preemption of CPU 0/TCG on CPU 0"

vsh send-key "$DOM" KEY_ENTER >/dev/null 2>&1
echo "$fails failure(s)"
[ $fails = 0 ]
