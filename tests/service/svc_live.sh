#!/bin/bash
# SPDX-License-Identifier: MIT
#
# ringside-service follows what the operator does to a running guest,
# under a real libvirtd and QEMU (TCG), with `record = all`:
#
#   svc_live.sh RINGSIDE AGENT MARK GUEST_INIT_LIVE HOOK SERVICE
#
# The guest boots with no ringside device and `ringside-agent --follow`
# (tests/e2e/guest_init_live.sh); the service runs from before.  Then:
#  - `enable --live --mode normal`: the service records the new region
#    (libvirt's device-added event) without a restart; stat gives the
#    heartbeat's age;
#  - `disable --live`: the recording ends, its file completed with reason
#    "disabled"; no file after it (two rotation periods later), the
#    service holds nothing of the removed region, its metrics say 0
#    recordings;
#  - `enable --live` again: recorded again, the agent's markers after the
#    plug in the new files;
#  - a reset of the paused guest: one reset in the log and the metrics;
#    stat says the agent's status is from before the reset; once resumed
#    the new boot's agent attaches and stat says it beats;
#  - no hang capture at any point (hang-after 8: the removed region's
#    stopped heartbeat, and the reset's, would have made one);
#  - SIGTERM: the control socket is removed.
# Runs under the e2e lock (it owns libvirtd).  Exit 77 when QEMU, libvirt
# or a kernel is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 GUEST_INIT=$4 HOOK_PROGRAM=$5 SERVICE=$6
# guest_init_live.sh runs no workload: the mark tool stands in for it
WORKLOAD=$MARK
DOM=rs-svclive-$$
SHM=/dev/shm/ringside-$DOM
HOOK=/etc/libvirt/hooks/qemu.d/ringside
ROTATE=5

e2e_need_own_libvirt
[ -x "$SERVICE" ] || skip "no ringside-service (built without libvirt)"
command -v jq >/dev/null || skip "no jq (see scripts/setup.sh)"

W=$(lg_workdir /tmp/rs-svclive.XXXXXX)
DEFINED='' HOOKED='' SVC_PID=''
cleanup() {
	[ -n "$SVC_PID" ] && lg_kill_wait "$SVC_PID"
	e2e_teardown
	rm -f "$SHM"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# svc_count PATTERN: lines of the service's log with PATTERN
svc_count() { grep -c -- "$1" "$W/service.log" 2>/dev/null || true; }
# svc_wait PATTERN N SECONDS: until the service's log has N such lines
svc_wait() {
	local _
	for _ in $(seq $(($3 * 5))); do
		[ "$(svc_count "$1")" -ge "$2" ] && return 0
		kill -0 "$SVC_PID" 2>/dev/null || break
		sleep 0.2
	done
	bad "no ${2}th '$1' in the service's log within $3 s"
	tail -n 15 "$W/service.log" | sed 's/^/     /'
	return 1
}
REC=$W/rec/$DOM
# files: the domain's complete recordings, oldest first
files() { ls "$REC"/rec-*.data 2>/dev/null | sort; }
nfiles() { files | wc -l; }
# wait_files N SECONDS: until the domain has N complete recordings
wait_files() {
	local _
	for _ in $(seq $(($2 * 5))); do
		[ "$(nfiles)" -ge "$1" ] && [ -e "$(files | tail -n 1).json" ] && return 0
		sleep 0.2
	done
	bad "no ${1}th recording within $2 s ($(nfiles))"
	return 1
}
reason() { jq -r .reason "$1.json" 2>/dev/null; }
# metric NAME: its value in the service's /metrics
metric() {
	python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
		"http://127.0.0.1:$MPORT/metrics" 2>/dev/null |
		awk -v m="$1" '$1 == m { print $2 }'
}
# newest "live N" marker in recording FILE (0: none)
marks_in() {
	"$RINGSIDE" dump "$1" 2>/dev/null | grep -o '"live [0-9]*"' |
		tr -dc '0-9\n' | sort -n | tail -n 1 | grep . || echo 0
}
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

e2e_prepare
lg_domain_xml "$DOM" qemu "$W" live > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1

MPORT=$(free_port)
printf '%s\n' "capture-dir = $W/svc-captures" "rate-limit = 10/3600" \
	"hang-after = 8" "socket = $W/svc.sock" "metrics = 127.0.0.1:$MPORT" \
	"record = all" "record-dir = $W/rec" "rotate-seconds = $ROTATE" \
	"pprof = no" > "$W/service.conf"
"$SERVICE" --config "$W/service.conf" --uri "$LG_URI" > "$W/service.log" 2>&1 &
SVC_PID=$!
svc_wait "following libvirt's domain events" 1 10 || exit 1
[ -S "$W/svc.sock" ] && ok "the service runs ($W/service.conf)" ||
	bad "no control socket $W/svc.sock"

vsh start "$DOM" >/dev/null || { bad "virsh start"; exit 1; }
note "booting $DOM (TCG) with no ringside device"
wait_console "waiting for a ringside device" 300 || exit 1
console_wait_nth "E2E-IVSHMEM \[ \]" 1 30 || exit 1

# ---- enable --live: recorded without a restart -----------------------------------
"$RINGSIDE" enable "$DOM" --live --mode normal --data-pages 64 --freq 100 \
	--sideband-pages 0 > "$W/out" 2>&1 || { bad "enable --live: $(cat "$W/out")"; exit 1; }
svc_wait "$DOM: recording its rings" 1 60 &&
	ok "enable --live: the service records $DOM: $(grep -m 1 "$DOM: recording" "$W/service.log" | sed 's/.*service: //')" ||
	exit 1
console_wait_nth "attached to the region on" 1 120 || exit 1
console_wait_nth "E2E-MARK" 1 60 || exit 1
"$RINGSIDE" stat "$DOM" > "$W/stat1" 2>&1
grep -q "^heartbeat: moved .* into stat's look" "$W/stat1" &&
	ok "stat: $(grep '^heartbeat:' "$W/stat1")" ||
	{ bad "stat gives no age of a beating heartbeat"; cat "$W/stat1"; }
grep -q "from before the guest's last reset" "$W/stat1" &&
	bad "stat: a live agent's status taken for one from before a reset"
wait_files 2 60 && ok "recording: $(nfiles) files, the last one's reason: $(reason "$(files | tail -n 1)")" ||
	exit 1
M_BEFORE=$(console_nth "E2E-MARK" 1 | sed 's/.*E2E-MARK \([0-9]*\).*/\1/')

# ---- disable --live: the recording ends ------------------------------------------
"$RINGSIDE" disable "$DOM" --live > "$W/out" 2>&1 ||
	{ bad "disable --live: $(cat "$W/out")"; exit 1; }
note "$(head -n 1 "$W/out")"
# the file being written is completed, reason "disabled": the last one
for _ in $(seq 300); do
	last=$(files | tail -n 1)
	[ "$(reason "$last")" = disabled ] && break
	sleep 0.2
done
[ "$(reason "$last")" = disabled ] &&
	ok "disable --live: the recording ended, its file completed: $(basename "$last") (reason disabled)" ||
	{ bad "no file completed with reason 'disabled' ($(for f in $(files); do printf '%s ' "$(reason "$f")"; done))"; tail -n 10 "$W/service.log"; }
N_DISABLED=$(nfiles)
# the newest marker recorded before the disable
LAST_M=0
for f in $(files); do
	x=$(marks_in "$f")
	[ "$x" -gt "$LAST_M" ] && LAST_M=$x
done
# two rotation periods and more: a recording still running would have
# completed a file by then (the bug: a 0-record file every period)
sleep $((2 * ROTATE + 2))
[ "$(nfiles)" = "$N_DISABLED" ] && ! ls "$REC"/*.tmp.?????? >/dev/null 2>&1 &&
	ok "no file after it in $((2 * ROTATE + 2)) s ($N_DISABLED files)" ||
	bad "files after disable --live: $N_DISABLED -> $(nfiles) $(ls "$REC" | grep tmp)"
[ "$(svc_count "$DOM: not opted in any more\|$DOM: its region file was removed")" = 1 ] &&
	ok "one log line says why: $(grep -m 1 "$DOM: not opted in any more\|$DOM: its region file was removed" "$W/service.log" | sed 's/.*service: //')" ||
	{ bad "not one log line saying why the recording ended"; grep "$DOM" "$W/service.log"; }
[ "$(metric ringside_recordings)" = 0 ] &&
	[ "$(metric "ringside_recorder_recording{domain=\"$DOM\"}")" = 0 ] &&
	ok "metrics: ringside_recordings 0, recorder_recording{$DOM} 0" ||
	bad "metrics: recordings $(metric ringside_recordings), $DOM's $(metric "ringside_recorder_recording{domain=\"$DOM\"}")"
held=$(grep -c "ringside-$DOM" "/proc/$SVC_PID/maps")
fds=$(ls -l "/proc/$SVC_PID/fd" 2>/dev/null | grep -c "ringside-$DOM")
[ "$held" = 0 ] && [ "$fds" = 0 ] &&
	ok "the service holds nothing of the removed region (maps, fds)" ||
	bad "the service still holds the removed region: $held mappings, $fds descriptors"

# ---- enable --live again: recorded again --------------------------------------------
"$RINGSIDE" enable "$DOM" --live --mode normal --data-pages 64 --freq 100 \
	--sideband-pages 0 > "$W/out" 2>&1 || { bad "enable --live again: $(cat "$W/out")"; exit 1; }
svc_wait "$DOM: recording its rings" 2 60 &&
	ok "enable --live again: recorded again, no service restart" || exit 1
console_wait_nth "attached to the region on" 2 120 || exit 1
N_AGAIN=$(nfiles)
wait_files $((N_AGAIN + 2)) 60 || exit 1
m=0
for f in $(files | tail -n +$((N_DISABLED + 1))); do
	x=$(marks_in "$f")
	[ "$x" -gt "$m" ] && m=$x
done
[ "$m" -gt "$LAST_M" ] && [ "$m" -gt "$M_BEFORE" ] &&
	ok "the new region's files hold the agent's later markers (live $m; before disable: live $LAST_M)" ||
	bad "no marker after the second plug in the new files (newest live $m, before: $LAST_M)"

# ---- a reset: one, and the agent's status of the boot before says so --------------
console_wait_nth "E2E-MARK" 2 60 || exit 1
vsh suspend "$DOM" >/dev/null || bad "virsh suspend"
vsh reset "$DOM" >/dev/null || bad "virsh reset"
svc_wait "$DOM: the guest reset" 1 30 || exit 1
"$RINGSIDE" stat "$DOM" --look 1 > "$W/stat2" 2>&1
grep -q "^heartbeat: the status of an agent from before the guest's last reset" "$W/stat2" &&
	ok "stat of the reset, paused guest: $(grep "from before" "$W/stat2" | cut -c 12-140)" ||
	{ bad "stat does not say the agent's status is from before the reset"; cat "$W/stat2"; }
BOOTS=$(console_count "E2E-BOOT")
vsh resume "$DOM" >/dev/null || bad "virsh resume"
console_wait_nth "E2E-BOOT" $((BOOTS + 1)) 120 || exit 1
console_wait_nth "attached to the region on" 3 180 || exit 1
"$RINGSIDE" stat "$DOM" > "$W/stat3" 2>&1
grep -q "^heartbeat: moved" "$W/stat3" && ! grep -q "from before" "$W/stat3" &&
	ok "after the new boot's agent attached: $(grep '^heartbeat:' "$W/stat3")" ||
	{ bad "stat after the new boot"; cat "$W/stat3"; }
[ "$(svc_count "$DOM: the guest reset")" = 1 ] &&
	[ "$(metric ringside_guest_resets_total)" = 1 ] &&
	ok "one reset: one log line, ringside_guest_resets_total 1" ||
	bad "the reset: $(svc_count "$DOM: the guest reset") log lines, $(metric ringside_guest_resets_total) counted"

# ---- no hang capture; SIGTERM removes the socket ------------------------------------
# hang-after 8: the old region's heartbeat stood still since disable, the
# reset's since the suspend; neither is a hang of a live agent
if ls "$W/svc-captures/$DOM/"*-hang.data >/dev/null 2>&1 ||
	grep -q "a hang" "$W/service.log"; then
	bad "a hang capture: $(grep -m 1 'a hang' "$W/service.log")"
else
	ok "no hang capture after disable, enable or the reset"
fi
[ "$(metric ringside_hangs_total)" = 0 ] || bad "ringside_hangs_total $(metric ringside_hangs_total)"
kill -TERM "$SVC_PID"
wait "$SVC_PID"
rc=$?
SVC_PID=''
[ $rc = 0 ] && [ ! -e "$W/svc.sock" ] &&
	ok "SIGTERM: the service ended (status 0), its control socket removed" ||
	bad "SIGTERM: status $rc, socket $(ls -l "$W/svc.sock" 2>&1)"
grep -q "$DOM: the guest reset\|recording" "$W/service.log" && note "the service's log:" &&
	grep "$DOM\|stopping" "$W/service.log" | sed 's/ringside-service: /     /' | head -n 30

echo "$fails failure(s)"
[ $fails = 0 ]
