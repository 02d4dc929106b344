#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e: the flight recorder outlives its domain, with nobody watching.  A
# Linux guest (busybox initramfs, ringside-agent, the workload) under its
# own libvirtd and QEMU TCG, enabled in overwrite mode, with a pvpanic
# device; ringside's hook installed with its own capture directory.
#   A. <on_crash>destroy</on_crash>: the workload marks its steps, then
#      "panic", and crashes the guest (guest_init.sh rs_e2e=panic).  No
#      snapshot is taken: libvirt ends the domain (shut off, crashed) and
#      the hook captures the rings at release.  The capture is a perf.data
#      file perf opens; its markers are the workload's steps in order,
#      "panic" last (e2e-check --panic); its kernel samples are named by
#      the guest's own kallsyms (through the domain's build-id cache beside
#      its captures, DIR/DOMAIN/.ringside-debug, perf --buildid-dir; none
#      in DIR/.debug, nor in the HOME's); the region file is gone.
#   B. <on_crash>restart</on_crash>: libvirt resets the guest inside the
#      same QEMU (no hook runs); ringside-service, following libvirt's
#      events, captures the crash by itself (markers ending in "panic",
#      kernel samples named), reconnects when libvirtd restarts, refuses
#      the crash loop's next crash by its rate limit (counted), logs each
#      restart as one reset; `virsh destroy` afterwards leaves the hook's
#      capture perf reads.
#   B2. the agent stops after the workload (a hang): the service, with
#      hang-after 8, captures it by itself (the workload's steps whole,
#      the records the stopped agent left in the guest kernel's buffers,
#      read from the guest's memory, and the host's view of both vCPU
#      threads from its flight recorder of them);
#      `ringside capture DOMAIN` asks it for one over its control socket
#      (reason request); a capture of no such domain is refused, said
#   B3. the same service serves its metrics; a real Prometheus scrapes it
#      every second; with the domain paused (its rings hold still), the
#      values read back through Prometheus' HTTP API equal what
#      `ringside stat DOMAIN` says of the same rings, and its captures by
#      reason equal the capture files.
#   C. with --keep 2 a third stop leaves the newest two; a capture
#      directory that cannot be made keeps the region as
#      /dev/shm/ringside-DOMAIN~kept, `stat DOMAIN` says so, and it
#      snapshots into a file perf reads.
#   D. the service records the domain in normal mode continuously (a file
#      every 5 s) across a libvirtd restart: each file opens in perf, and
#      all files' records and LOST counts equal what ringside stat says
#      the rings' producers produced and lost.  A second guest runs beside
#      it in overwrite mode (its agent stops after the workload): with both
#      paused, a real Prometheus scraping the same service reads back for
#      every ring of both domains what `ringside stat` says, and for the
#      recorded one the recorder's records and LOST counts per ring equal
#      the rings' produced and lost; the overwrite one is not recorded.
#   E. the domain in overwrite mode again, with an i6300esb watchdog whose
#      action is none (QEMU says it fired, the guest runs on): the guest
#      runs the workload, stops its agent and opens /dev/watchdog, never
#      to feed it (rs_e2e=watchdog, a hung guest); a service told to
#      capture on the watchdog only captures it by itself (reason
#      watchdog in the file's name and its sidecar, the workload's steps
#      whole, perf reads it), and its /metrics count as many watchdog
#      captures as there are files.
# Installs no package.  Exit 77 when something it needs is missing
# (prometheus for B3: scripts/setup.sh installs it).
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 CHECK=$5 GUEST_INIT=$6 HOOK_PROGRAM=$7
SERVICE=$8
KCHECK=$(dirname "${BASH_SOURCE[0]}")/ksyms_check.py
DOM=rs-crash-$$
DOM2=rs-crash2-$$
SHM=/dev/shm/ringside-$DOM
HOOK=/etc/libvirt/hooks/qemu.d/ringside
STEPS=20
T0=$(date +%s)

e2e_need_own_libvirt
command -v prometheus >/dev/null || skip "no prometheus (scripts/setup.sh)"
command -v jq >/dev/null || skip "no jq (scripts/setup.sh)"
W=$(lg_workdir /tmp/rs-crash.XXXXXX)
CAP=$W/captures
DEFINED='' DEFINED2='' HOOKED='' SVC_PID='' PROM_PID=''
cleanup() {
	[ -n "$SVC_PID" ] && lg_kill_wait "$SVC_PID"
	[ -n "$PROM_PID" ] && lg_kill_wait "$PROM_PID"
	if [ -n "$DEFINED2" ]; then
		vsh destroy "$DOM2" >/dev/null 2>&1
		vsh undefine "$DOM2" >/dev/null 2>&1
	fi
	e2e_teardown
	rm -f "$SHM" "$SHM~kept" "/dev/shm/ringside-$DOM2" "/dev/shm/ringside-$DOM2~kept"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# pvpanic: at panic() the guest tells QEMU, and libvirt applies on_crash;
# the watchdog's driver, for part E (no device before then: it idles)
e2e_pvpanic
e2e_watchdog
e2e_prepare
# the hook file is read at every call: its options take effect now
"$RINGSIDE" hook install --program "$HOOK_PROGRAM" --capture-dir "$CAP" \
	--keep 2 >/dev/null || { bad "hook install --capture-dir"; exit 1; }
grep -q -- "--capture-dir '$CAP' --keep 2 " "$HOOK" &&
	ok "the hook runs with --capture-dir $CAP --keep 2" ||
	bad "hook file: $(tail -n 1 "$HOOK")"

# domain_xml POLICY: the panic run's domain with <on_crash>POLICY</on_crash>
domain_xml() {
	lg_domain_xml $DOM qemu "$W" panic |
		sed -e "s|</on_poweroff>|&<on_crash>$1</on_crash>|" \
		    -e "s|<devices>|&<panic model='isa'/>|"
}

# captures: the domain's capture files, oldest first
captures() { ls "$CAP/$DOM/"*.data 2>/dev/null | sort; }

# wait_captures N: until the domain has N captures (the hook wrote them)
wait_captures() {
	local _
	for _ in $(seq 600); do
		[ "$(captures | wc -l)" -ge "$1" ] && return 0
		sleep 0.2
	done
	return 1
}

# judge FILE WHAT CONSOLE: perf opens FILE; the workload's markers end in
# "panic"; perf names its kernel samples after the guest's own kallsyms
# (CONSOLE: the boot's console, with the workload's pid and the table)
judge() {
	local wpid cache
	cache=$(dirname "$1")/.ringside-debug
	[ -d "$cache" ] && [ ! -e "$(dirname "$(dirname "$1")")/.debug" ] &&
		[ ! -e "$HOME/.debug" ] &&
		ok "$2: the guest's names in the domain's own cache $cache, none in perf's" ||
		bad "$2: no cache $cache, or one in $(dirname "$(dirname "$1")")/.debug or $HOME/.debug"
	wpid=$(sed -n 's/.*E2E-WORKLOAD pid=\([0-9]*\).*/\1/p' "$3" | head -n 1)
	perf --buildid-dir "$cache" script -i "$1" > /dev/null 2> "$W/script.err" &&
		[ ! -s "$W/script.err" ] && ok "$2: perf script opens $(basename "$1")" ||
		{ bad "$2: perf script: $(head -n 3 "$W/script.err")"; }
	if [ -n "$wpid" ] && "$CHECK" "$1" --pid "$wpid" --comm rs-workload \
		--steps $STEPS --panic > "$W/check" 2>&1; then
		ok "$2: markers before the panic: $(cat "$W/check")"
	else
		bad "$2: the capture's markers (pid '$wpid'):"; sed 's/^/     /' "$W/check"
	fi
	perf --buildid-dir "$cache" script -i "$1" -F event,ip,sym -G \
		> "$W/ksyms" 2>/dev/null
	python3 "$KCHECK" names "$3" "$W/ksyms" 95 > "$W/names" &&
		ok "$2: kernel samples: $(head -n 1 "$W/names")" ||
		{ bad "$2: kernel samples: $(head -n 1 "$W/names")"; tail -n +2 "$W/names"; }
}

# ---- A: on_crash destroy ---------------------------------------------------------
domain_xml destroy > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1
"$RINGSIDE" enable $DOM --mode overwrite >/dev/null 2>"$W/err" ||
	{ bad "enable: $(cat "$W/err")"; exit 1; }
note "start; the guest panics by itself, nobody takes a snapshot"
vsh start $DOM >/dev/null || { bad "virsh start"; exit 1; }
wait_console "E2E-PANIC" 300
wait_captures 1 && ok "a capture appeared: $(captures | head -n 1)" ||
	{ bad "no capture in $CAP/$DOM after the crash"; ls -la "$CAP" "$CAP/$DOM" 2>&1; }
state=$(vsh domstate --reason $DOM 2>/dev/null)
case $state in "shut off (crashed)"*) ok "libvirt: $state" ;; *) bad "domain state: $state" ;; esac
[ -e "$SHM" ] && bad "the region file is left after release" ||
	ok "the region file went once captured"
[ -e "$SHM~kept" ] && bad "the region was kept aside: the capture failed"
first=$(captures | head -n 1)
[ -n "$first" ] && judge "$first" "on_crash destroy" "$W/console.log"

# ---- B: on_crash restart: the host service captures each crash -------------------
# libvirt 9.0 restarts a crashed domain inside the same QEMU process (a
# reset, libvirt's "fake reboot"): no hook runs, and the region survives
# the reset.  ringside-service follows libvirt's events and captures the
# flight recorder at the crash, by itself, rate-limited per domain (here
# one per hour: the crash loop's second crash is refused and counted); it
# reconnects when libvirtd restarts under it.  Every boot of this run
# waits for a key before its crash (rs_e2e=panickey): one crash at a time,
# whatever the guest's speed.  What stops the domain afterwards leaves the
# hook's capture: here virsh destroy.
SVC_CAP=$W/svc
printf '%s\n' "# the e2e's service: its own capture directory, one capture an hour" \
	"capture-dir = $SVC_CAP" "rate-limit = 1/3600" > "$W/service.conf"
"$SERVICE" --config "$W/service.conf" --uri "$LG_URI" > "$W/service.log" 2>&1 &
SVC_PID=$!
# svc_wait PATTERN N: until the service's log has N lines matching PATTERN
svc_wait() {
	local _
	for _ in $(seq 1500); do
		[ "$(grep -c -- "$1" "$W/service.log")" -ge "$2" ] && return 0
		kill -0 "$SVC_PID" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
# console_wait PATTERN N: until the console has N lines matching PATTERN
console_wait() {
	local _
	for _ in $(seq 1500); do
		[ "$(grep -ac -- "$1" "$W/console.log")" -ge "$2" ] && return 0
		sleep 0.2
	done
	bad "the console has not $2 lines '$1'"
	return 1
}
svc_wait "following libvirt's domain events" 1 &&
	ok "ringside-service follows libvirt ($W/service.conf)" ||
	{ bad "ringside-service did not start:"; sed 's/^/     /' "$W/service.log"; }
svc_captures() { ls "$SVC_CAP/$DOM/"*-panic.data 2>/dev/null | sort; }
vsh dumpxml --inactive $DOM |
	sed -e 's|<on_crash>destroy</on_crash>|<on_crash>restart</on_crash>|' \
	    -e 's|rs_e2e=panic<|rs_e2e=panickey<|' > "$W/domain.xml"
grep -q '<on_crash>restart</on_crash>' "$W/domain.xml" &&
	grep -q 'rs_e2e=panickey<' "$W/domain.xml" &&
	vsh define "$W/domain.xml" >/dev/null 2>"$W/err" ||
	bad "virsh define (on_crash restart): $(cat "$W/err")"
rm -f "$W/console.log"
note "start again with on_crash restart; the service watches"
vsh start $DOM >/dev/null || { bad "virsh start (restart)"; exit 1; }
pid=$(pgrep -f "guest=$DOM," | head -n 1)
wait_console "E2E-WAIT-PANIC" 300
vsh send-key $DOM KEY_ENTER >/dev/null || bad "virsh send-key (first crash)"
svc_wait "$DOM: panic: flight recorder captured" 1 &&
	ok "the crash, captured by the service: $(grep -m 1 "$DOM: panic: flight recorder captured" "$W/service.log" | sed 's/.*captured: //')" ||
	{ bad "no capture by the service after the crash:"; sed 's/^/     /' "$W/service.log"; }
svc1=$(svc_captures | head -n 1)
[ -n "$svc1" ] && judge "$svc1" "the service's capture" "$W/console.log"
# the reset: the guest boots again in the same QEMU, and no hook ran
console_wait 'E2E-BOOT' 2 && [ "$(pgrep -f "guest=$DOM," | head -n 1)" = "$pid" ] &&
	[ -e "$SHM" ] &&
	ok "on_crash restart: the guest booted again in the same QEMU (pid $pid), region kept" ||
	bad "on_crash restart: boots $(grep -ac 'E2E-BOOT' "$W/console.log"), QEMU '$pid' -> '$(pgrep -f "guest=$DOM," | head -n 1)'"
[ "$(captures | wc -l)" = 1 ] && ok "no hook ran at the reset: still one hook capture" ||
	bad "hook captures after the reset: $(captures | wc -l)"
# libvirtd restarts under the service: it reconnects
kill "$LG_LIBVIRTD_PID"
for _ in $(seq 100); do kill -0 "$LG_LIBVIRTD_PID" 2>/dev/null || break; sleep 0.1; done
libvirtd -d -p "$W/libvirtd.pid" || bad "libvirtd -d (restart)"
LG_LIBVIRTD_PID=$(cat "$W/libvirtd.pid")
svc_wait "connected to libvirtd again" 1 &&
	ok "libvirtd restarted: the service reconnected" ||
	{ bad "the service did not reconnect:"; tail -n 5 "$W/service.log"; }
# the crash loop's second crash: seen after the reconnect, refused
console_wait 'E2E-WAIT-PANIC' 2
vsh send-key $DOM KEY_ENTER >/dev/null || bad "virsh send-key (second crash)"
svc_wait "$DOM: panic: not captured: rate limit reached" 1 &&
	[ "$(svc_captures | wc -l)" = 1 ] &&
	ok "the crash loop's second crash: seen after the reconnect, refused by the rate limit" ||
	{ bad "second crash: $(svc_captures | wc -l) service captures"; tail -n 5 "$W/service.log"; }
# each restart is one reset to the service, however many reboot events
# libvirt sends for it (three within 40 ms each in libvirt 9.0)
console_wait 'E2E-BOOT' 3
svc_wait "$DOM: the guest reset" 2 &&
	[ "$(grep -c -- "$DOM: the guest reset" "$W/service.log")" = 2 ] &&
	ok "two restarts, two resets in the service's log" ||
	bad "two restarts: $(grep -c -- "$DOM: the guest reset" "$W/service.log") resets in the service's log"
kill -TERM "$SVC_PID"
wait "$SVC_PID"
SVC_PID=''
grep -q "stopping: .* 1 captures, 1 rate-limited, 0 failed, 0 dropped, .* 1 reconnects" "$W/service.log" &&
	ok "the service's summary: $(grep -m 1 stopping "$W/service.log" | sed 's/.*stopping: //')" ||
	bad "the service's summary: $(grep stopping "$W/service.log")"
vsh destroy $DOM >/dev/null 2>&1
wait_captures 2 && second=$(captures | tail -n 1) &&
	ok "virsh destroy left a capture: $(basename "$second")" ||
	bad "no capture after virsh destroy"
[ -n "${second:-}" ] && perf --buildid-dir "$CAP/$DOM/.ringside-debug" script -i "$second" \
	>/dev/null 2>"$W/script.err" && [ ! -s "$W/script.err" ] &&
	ok "perf script opens it" || bad "perf script on the destroy's capture"

# ---- B2: a hang, and a capture asked for ----------------------------------------
# The agent stops after the workload (rs_e2e=hang): its heartbeat stops
# with it, and the service, told to call 8 s without one a hang, captures
# by itself (reason hang).  Then root asks for one over the service's
# control socket: `ringside capture DOMAIN` (reason request).
# free_port: a TCP port on the loopback nobody listens on now
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
MPORT=$(free_port)
printf '%s\n' "capture-dir = $SVC_CAP" "rate-limit = 5/3600" "hang-after = 8" \
	"socket = $W/svc.sock" "metrics = 127.0.0.1:$MPORT" > "$W/service.conf"
mv "$W/service.log" "$W/service-b.log"
"$SERVICE" --config "$W/service.conf" --uri "$LG_URI" > "$W/service.log" 2>&1 &
SVC_PID=$!
svc_wait "following libvirt's domain events" 1 ||
	{ bad "ringside-service did not start again:"; sed 's/^/     /' "$W/service.log"; }
vsh dumpxml --inactive $DOM | sed -e 's|rs_e2e=panickey<|rs_e2e=hang<|' > "$W/domain.xml"
grep -q 'rs_e2e=hang<' "$W/domain.xml" && vsh define "$W/domain.xml" >/dev/null 2>"$W/err" ||
	bad "virsh define (hang): $(cat "$W/err")"
rm -f "$W/console.log"
note "start again: the agent stops after the workload"
vsh start $DOM >/dev/null || { bad "virsh start (hang)"; exit 1; }
wait_console "E2E-AGENT-STOPPED" 300
svc_wait "$DOM: hang: flight recorder captured" 1 &&
	ok "the hang: $(grep -m 1 "heartbeat has not moved" "$W/service.log" | sed 's/.*service: //')" ||
	{ bad "no hang capture:"; tail -n 8 "$W/service.log"; }
# the agent stopped, its kernel's buffers filled on: the service read
# them from the guest's memory into the capture
grep -m 1 "$DOM: hang: flight recorder captured" "$W/service.log" |
	grep -q " [1-9][0-9]* records from the guest kernel's buffers" &&
	ok "the hang's capture holds what the stopped agent had not forwarded: $(grep -m 1 "$DOM: hang: flight recorder captured" "$W/service.log" | grep -o '[0-9]* records from the guest kernel.s buffers[^)]*')" ||
	bad "the hang's capture read nothing of the guest kernel's buffers: $(grep -m 1 "$DOM: hang: flight recorder captured" "$W/service.log")"
hang=$(ls "$SVC_CAP/$DOM/"*-hang.data 2>/dev/null | sort | tail -n 1)
wpid=$(sed -n 's/.*E2E-WORKLOAD pid=\([0-9]*\).*/\1/p' "$W/console.log" | head -n 1)
[ -n "$hang" ] && "$CHECK" "$hang" --pid "$wpid" --comm rs-workload --steps $STEPS \
	> "$W/check" 2>&1 && ok "the hang's capture: $(cat "$W/check")" ||
	{ bad "the hang's capture '$hang' (pid '$wpid'):"; sed 's/^/     /' "$W/check"; }
# the host's side of each vCPU, from the service's flight recorder of
# the vCPU threads: both in the capture
"$RINGSIDE" report "$hang" > "$W/hang.rep" 2>&1
grep -q "^  vCPU 0: running .*" "$W/hang.rep" && grep -q "^  vCPU 1: running .*" "$W/hang.rep" &&
	ok "the hang's capture has the host's view: $(grep '^host view' "$W/hang.rep"); $(grep -c '^  vCPU [0-9]*: running' "$W/hang.rep") vCPUs" ||
	bad "the hang's capture has no host view of both vCPUs: $(grep 'host view' "$W/hang.rep"; grep 'host view' "$W/service.log" | tail -n 2)"
"$RINGSIDE" capture $DOM --socket "$W/svc.sock" > "$W/capture.out" 2>&1 &&
	req=$(sed -n 's/.*captured by the service: //p' "$W/capture.out") &&
	case $req in "$SVC_CAP/$DOM/"*-request.data) [ -f "$req" ] ;; *) false ;; esac &&
	perf --buildid-dir "$SVC_CAP/$DOM/.ringside-debug" script -i "$req" >/dev/null 2>&1 &&
	ok "ringside capture: $(cat "$W/capture.out")" ||
	{ bad "ringside capture:"; cat "$W/capture.out"; }
"$RINGSIDE" capture no-such-domain --socket "$W/svc.sock" > "$W/capture.out" 2>&1
[ $? = 1 ] && grep -q "the service says" "$W/capture.out" &&
	ok "a capture of no domain: $(cat "$W/capture.out")" ||
	{ bad "ringside capture of no domain:"; cat "$W/capture.out"; }

# ---- B3: the metrics, scraped by a real Prometheus -------------------------------
# The domain paused first (virsh suspend): its rings hold still, and a
# paused guest is no hang.  Prometheus scrapes the service every second;
# once it says the target is up, every value read back through its query
# API is compared with `ringside stat DOMAIN` of the same rings (taken
# while paused) and with the capture files.
vsh suspend $DOM >/dev/null || bad "virsh suspend"
"$RINGSIDE" stat $DOM > "$W/stat.out" 2>&1 || bad "ringside stat $DOM: $(cat "$W/stat.out")"
PPORT=$(free_port)
printf '%s\n' "global:" "  scrape_interval: 1s" "  scrape_timeout: 1s" \
	"scrape_configs:" "  - job_name: ringside" "    static_configs:" \
	"      - targets: ['127.0.0.1:$MPORT']" > "$W/prometheus.yml"
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/prom" \
	--web.listen-address="127.0.0.1:$PPORT" > "$W/prometheus.log" 2>&1 &
PROM_PID=$!
PROM=http://127.0.0.1:$PPORT
# prom_q QUERY: the one value of an instant query ("none": no series)
prom_q() {
	curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" |
		jq -r 'if (.data.result | length) == 1 then .data.result[0].value[1] else "none" end'
}
up=''
for _ in $(seq 600); do
	up=$(curl -sf "$PROM/api/v1/targets" 2>/dev/null |
		jq -r '.data.activeTargets[0].health // empty' 2>/dev/null)
	[ "$up" = up ] && [ "$(prom_q "ringside_region_mapped{domain=\"$DOM\"}")" = 1 ] && break
	kill -0 "$PROM_PID" 2>/dev/null || break
	sleep 0.2
done
[ "$up" = up ] && ok "Prometheus scrapes the service's metrics (127.0.0.1:$MPORT)" ||
	{ bad "Prometheus: target '$up':"; tail -n 5 "$W/prometheus.log"; curl -s "http://127.0.0.1:$MPORT/metrics" | head -n 20; }
# prom_vs_stat DOMAIN STAT: every ring of stat's table (ring mode data_head
# data_tail fill size fill% aux_head aux_tail aux_size guest_produced
# guest_lost) against Prometheus' values of the same ring; the values that
# agree in $same, those that differ in $differ (each one said), the rings
# in $rings, ring 0's guest_produced in $prod0
prom_vs_stat() {
	local ring mode head tail fill size auxh auxt auxs prod lost pair name want v
	same=0 differ=0
	while read -r ring mode head tail fill size _ auxh auxt auxs prod lost _; do
		for pair in "ring_size_bytes $size" "ring_fill_bytes $fill" \
		    "ring_data_head_bytes $head" "ring_data_tail_bytes $tail" \
		    "ring_aux_size_bytes $auxs" "ring_aux_head_bytes $auxh" \
		    "ring_aux_tail_bytes $auxt" \
		    "guest_claimed_produced_records_total $prod" \
		    "guest_claimed_lost_records_total $lost"; do
			read -r name want <<< "$pair"
			v=$(prom_q "ringside_$name{domain=\"$1\",ring=\"$ring\"}")
			if [ "$v" = "$want" ]; then
				same=$((same + 1))
			else
				differ=$((differ + 1))
				echo "   $1 ring $ring ($mode): ringside_$name $v, stat $want"
			fi
		done
	done < <(grep -E '^ *[0-9]+ (normal|overwrite) ' "$2")
	rings=$(grep -cE '^ *[0-9]+ (normal|overwrite) ' "$2")
	prod0=$(grep -E '^ *0 (normal|overwrite) ' "$2" | awk '{print $11}')
}
prom_vs_stat "$DOM" "$W/stat.out"
[ "$rings" -gt 0 ] && [ "$differ" = 0 ] && [ "${prod0:-0}" -gt 0 ] &&
	ok "Prometheus' values of $rings rings equal ringside stat's ($same values; ring 0: guest_produced $prod0)" ||
	{ bad "Prometheus and ringside stat differ ($differ of $((same + differ))):"; sed 's/^/     /' "$W/stat.out"; }
beat=$(sed -n 's/.*heartbeat \([0-9]*\)$/\1/p' "$W/stat.out")
att=$(grep -q "agent attached" "$W/stat.out" && echo 1 || echo 0)
[ -n "$beat" ] && [ "$(prom_q "ringside_guest_claimed_agent_heartbeats_total{domain=\"$DOM\"}")" = "$beat" ] &&
	[ "$(prom_q "ringside_agent_attached{domain=\"$DOM\"}")" = "$att" ] &&
	ok "the agent: heartbeat $beat, attached $att, as stat says" ||
	bad "the agent's heartbeat/attached: Prometheus $(prom_q "ringside_guest_claimed_agent_heartbeats_total{domain=\"$DOM\"}")/$(prom_q "ringside_agent_attached{domain=\"$DOM\"}"), stat $beat/$att"
nhang=$(find "$SVC_CAP/$DOM" -name '*-hang.data' | wc -l)
nreq=$(find "$SVC_CAP/$DOM" -name '*-request.data' | wc -l)
[ "$nhang" -gt 0 ] && [ "$nreq" -gt 0 ] &&
	[ "$(prom_q "ringside_captures_total{domain=\"$DOM\",reason=\"hang\"}")" = "$nhang" ] &&
	[ "$(prom_q "ringside_captures_total{domain=\"$DOM\",reason=\"request\"}")" = "$nreq" ] &&
	[ "$(prom_q "ringside_captures_total{domain=\"$DOM\",reason=\"panic\"}")" = none ] &&
	[ "$(prom_q ringside_capture_requests_total)" = "$(grep -c "a capture was asked for" "$W/service.log")" ] &&
	[ "$(prom_q ringside_hangs_total)" = 1 ] &&
	ok "captures by reason: hang $nhang, request $nreq, as the capture files; requests and hangs as the log" ||
	bad "captures: Prometheus hang $(prom_q "ringside_captures_total{domain=\"$DOM\",reason=\"hang\"}") request $(prom_q "ringside_captures_total{domain=\"$DOM\",reason=\"request\"}"), files $nhang $nreq; requests $(prom_q ringside_capture_requests_total), hangs $(prom_q ringside_hangs_total)"
t=$(prom_q "ringside_last_capture_timestamp_seconds{domain=\"$DOM\",reason=\"request\"}")
now=$(date +%s)
awk -v t="$t" -v lo="$T0" -v hi="$now" 'BEGIN { exit !(t + 0 >= lo && t + 0 <= hi) }' &&
	ok "the last request's time: $t (within the run)" || bad "last capture time '$t' not in [$T0, $now]"
# Prometheus' own linter of the exposition text (names, units, types)
curl -sf "http://127.0.0.1:$MPORT/metrics" > "$W/metrics.txt" &&
	grep -q "^ringside_ring_size_bytes{domain=\"$DOM\"" "$W/metrics.txt" &&
	promtool check metrics < "$W/metrics.txt" > "$W/promtool.out" 2>&1 &&
	ok "promtool check metrics: the text follows Prometheus' conventions" ||
	{ bad "promtool check metrics:"; sed 's/^/     /' "$W/promtool.out"; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/")" = 404 ] &&
	ok "the endpoint answers 404 but for /metrics" || bad "GET / is not 404"
lg_kill_wait "$PROM_PID"
PROM_PID=''
vsh resume $DOM >/dev/null || bad "virsh resume"
kill -TERM "$SVC_PID"
wait "$SVC_PID"
SVC_PID=''
grep -q "stopping: .* 2 captures, .* 1 hangs, 2 requests" "$W/service.log" &&
	ok "the service's summary: $(grep -m 1 stopping "$W/service.log" | sed 's/.*stopping: //')" ||
	bad "the service's summary: $(grep stopping "$W/service.log")"

# ---- C: the bound, and a capture that cannot be written ----------------------------
# the hang run's stop is the hook's third: --keep 2 keeps the newest two
vsh destroy $DOM >/dev/null 2>&1
for _ in $(seq 600); do
	[ "$(captures | tail -n 1)" != "$second" ] && break
	sleep 0.2
done
n=$(captures | wc -l)
[ "$(captures | tail -n 1)" != "$second" ] && [ "$n" = 2 ] &&
	! captures | grep -qx "$first" && captures | grep -qx "$second" &&
	ok "a third stop: --keep 2 kept the newest two, the oldest went" ||
	{ bad "after a third stop: $n captures"; captures; }
# a capture directory that cannot be made: the rings stay in /dev/shm
: > "$W/not-a-dir"
"$RINGSIDE" hook install --program "$HOOK_PROGRAM" \
	--capture-dir "$W/not-a-dir/captures" >/dev/null || bad "hook install (bad dir)"
vsh start $DOM >/dev/null || bad "virsh start (fourth)"
vsh destroy $DOM >/dev/null 2>&1
for _ in $(seq 300); do [ -e "$SHM~kept" ] && break; sleep 0.2; done
[ -e "$SHM~kept" ] && [ ! -e "$SHM" ] &&
	ok "the capture could not be written: the region kept as $SHM~kept" ||
	bad "no $SHM~kept after a failed capture"
"$RINGSIDE" stat $DOM > "$W/stat.out" 2>&1
grep -q "$SHM~kept" "$W/stat.out" && ok "stat says so: $(grep -m 1 kept "$W/stat.out")" ||
	{ bad "stat does not mention the kept region"; cat "$W/stat.out"; }
"$RINGSIDE" snapshot "$SHM~kept" -o "$W/kept.data" -q 2>"$W/err" &&
	perf script -i "$W/kept.data" >/dev/null 2>&1 &&
	ok "the kept region snapshots into a file perf reads" ||
	bad "snapshot of the kept region: $(cat "$W/err")"
grep -aq "could not be captured" /var/log/libvirt/libvirtd.log "$W"/*.log 2>/dev/null ||
	note "(the hook's message goes to libvirtd's log)"

# ---- D: continuous recording of a normal-mode domain, across a libvirtd restart --
# The domain enabled in normal mode, rs_e2e=normal (the workload, then a
# key's marker).  The service records it from its start, a file every 5 s;
# libvirtd restarts under it while the guest waits for the key; the key's
# marker is recorded after the restart.  Once the agent has exited and the
# rings are drained, the service ends (SIGTERM): every file opens in perf,
# and all files' records and LOST counts are what the rings' producers
# say they produced and lost (ringside stat).
"$RINGSIDE" hook install --program "$HOOK_PROGRAM" --capture-dir "$CAP" \
	>/dev/null || bad "hook install (D)"
rm -f "$SHM~kept"
REC=$W/rec
MPORT=$(free_port)
printf '%s\n' "capture-dir = $SVC_CAP" "socket = none" "metrics = 127.0.0.1:$MPORT" \
	"capture-on = none" "record = all" "record-dir = $REC" \
	"rotate-seconds = 5" > "$W/service.conf"
mv "$W/service.log" "$W/service-b2.log"
"$SERVICE" --config "$W/service.conf" --uri "$LG_URI" > "$W/service.log" 2>&1 &
SVC_PID=$!
svc_wait "following libvirt's domain events" 1 ||
	{ bad "ringside-service did not start (D):"; sed 's/^/     /' "$W/service.log"; }
vsh dumpxml --inactive $DOM | sed -e 's|rs_e2e=[a-z]*<|rs_e2e=normal<|' > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null 2>"$W/err" || bad "virsh define (normal): $(cat "$W/err")"
"$RINGSIDE" enable $DOM --mode normal >/dev/null 2>"$W/err" ||
	bad "enable --mode normal: $(cat "$W/err")"
rm -f "$W/console.log"
# the second guest, at the same time: overwrite mode (a flight recorder,
# never recorded even with record = all), its agent stopped after the
# workload; its own console
lg_domain_xml $DOM2 qemu "$W" hang |
	sed -e "s|$W/console.log|$W/console2.log|" > "$W/domain2.xml"
vsh define "$W/domain2.xml" >/dev/null 2>"$W/err" && DEFINED2=1 ||
	bad "virsh define $DOM2: $(cat "$W/err")"
"$RINGSIDE" enable $DOM2 --mode overwrite >/dev/null 2>"$W/err" ||
	bad "enable $DOM2 --mode overwrite: $(cat "$W/err")"
rm -f "$W/console2.log"
note "start in normal mode: the service records it; $DOM2 beside it in overwrite mode"
vsh start $DOM >/dev/null || { bad "virsh start (normal)"; exit 1; }
vsh start $DOM2 >/dev/null || bad "virsh start $DOM2"
svc_wait "$DOM: recording its rings" 1 && ok "the service records $DOM" ||
	{ bad "no recording:"; tail -n 5 "$W/service.log"; }
wait_console "E2E-KEY-WAIT" 300
recs() { ls "$REC/$DOM/"rec-*.data 2>/dev/null | sort; }
# a file completed before the restart (the first rotation)
for _ in $(seq 300); do [ "$(recs | wc -l)" -ge 1 ] && break; sleep 0.2; done
before=$(recs | wc -l)
kill "$LG_LIBVIRTD_PID"
for _ in $(seq 100); do kill -0 "$LG_LIBVIRTD_PID" 2>/dev/null || break; sleep 0.1; done
libvirtd -d -p "$W/libvirtd.pid" || bad "libvirtd -d (restart, D)"
LG_LIBVIRTD_PID=$(cat "$W/libvirtd.pid")
svc_wait "connected to libvirtd again" 1 ||
	{ bad "the service did not reconnect (D):"; tail -n 5 "$W/service.log"; }
vsh send-key $DOM KEY_ENTER >/dev/null || bad "virsh send-key (D)"
console_wait "E2E-DONE" 1
# the rings drained: every ring's tail at its head (stat's columns)
for _ in $(seq 300); do
	"$RINGSIDE" stat $DOM > "$W/stat-d.out" 2>&1
	grep -E '^ *[0-9]+ normal ' "$W/stat-d.out" | awk '$3 != $4 { n++ } END { exit n > 0 }' && break
	sleep 0.2
done

# -- D2: two domains at once, scraped by Prometheus -----------------------------
# Both paused (their rings hold still: the normal one drained, its agent
# gone; the overwrite one's agent stopped), each one's `ringside stat`
# taken; a Prometheus of its own scrapes the recording service every
# second.  Every ring's values of both domains read back through its query
# API equal stat's; the recorder's records (LOST records aside) and LOST
# counts of each ring of the recorded domain equal the ring's produced
# and lost, once the service's last look reached the drained rings (the
# recorder publishes its counts every quarter second: waited for, up to
# a minute); the overwrite domain has no recorder's series.
lg_wait_console "$W/console2.log" "E2E-AGENT-STOPPED" 300 &&
	ok "$DOM2 (overwrite) ran its workload beside $DOM; its agent stopped" ||
	{ bad "$DOM2: $LG_WHY"; lg_console_tail "$W/console2.log"; }
vsh suspend $DOM >/dev/null || bad "virsh suspend $DOM"
vsh suspend $DOM2 >/dev/null || bad "virsh suspend $DOM2"
"$RINGSIDE" stat $DOM > "$W/stat-d1.out" 2>&1 || bad "ringside stat $DOM: $(cat "$W/stat-d1.out")"
"$RINGSIDE" stat $DOM2 > "$W/stat-d2.out" 2>&1 || bad "ringside stat $DOM2: $(cat "$W/stat-d2.out")"
PPORT=$(free_port)
printf '%s\n' "global:" "  scrape_interval: 1s" "  scrape_timeout: 1s" \
	"scrape_configs:" "  - job_name: ringside" "    static_configs:" \
	"      - targets: ['127.0.0.1:$MPORT']" > "$W/prometheus.yml"
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/prom2" \
	--web.listen-address="127.0.0.1:$PPORT" > "$W/prometheus2.log" 2>&1 &
PROM_PID=$!
PROM=http://127.0.0.1:$PPORT
up=''
for _ in $(seq 600); do
	up=$(curl -sf "$PROM/api/v1/targets" 2>/dev/null |
		jq -r '.data.activeTargets[0].health // empty' 2>/dev/null)
	[ "$up" = up ] && [ "$(prom_q "ringside_region_mapped{domain=\"$DOM\"}")" = 1 ] &&
		[ "$(prom_q "ringside_region_mapped{domain=\"$DOM2\"}")" = 1 ] && break
	kill -0 "$PROM_PID" 2>/dev/null || break
	sleep 0.2
done
[ "$up" = up ] && ok "Prometheus scrapes the recording service (127.0.0.1:$MPORT), both domains mapped" ||
	{ bad "Prometheus (D): target '$up':"; tail -n 5 "$W/prometheus2.log"; }
for d in 1 2; do
	dom=$DOM; [ $d = 2 ] && dom=$DOM2
	prom_vs_stat "$dom" "$W/stat-d$d.out"
	[ "$rings" -gt 0 ] && [ "$differ" = 0 ] && [ "${prod0:-0}" -gt 0 ] &&
		ok "$dom: Prometheus' values of $rings rings equal ringside stat's ($same values; ring 0: guest_produced $prod0)" ||
		{ bad "$dom: Prometheus and ringside stat differ ($differ of $((same + differ))):"; sed 's/^/     /' "$W/stat-d$d.out"; }
done
# rec_vs_stat: the recorder's per-ring counts against stat's produced and
# lost of the recorded domain; the rings that differ in $rdiff
rec_vs_stat() {
	local ring prod lost r l
	rdiff=0 rsum=0
	while read -r ring _ _ _ _ _ _ _ _ _ prod lost _; do
		r=$(prom_q "ringside_recorder_records_total{domain=\"$DOM\",ring=\"$ring\"}")
		l=$(prom_q "ringside_recorder_guest_claimed_lost_records_total{domain=\"$DOM\",ring=\"$ring\"}")
		[ "$r" = "$prod" ] && [ "$l" = "$lost" ] || { rdiff=$((rdiff + 1)); echo "ring $ring: recorder $r records, $l lost; stat produced $prod, lost $lost"; }
		case $r in '' | *[!0-9]*) ;; *) rsum=$((rsum + r)) ;; esac
	done < <(grep -E '^ *[0-9]+ normal ' "$W/stat-d1.out")
}
for _ in $(seq 300); do
	rec_vs_stat > "$W/rec-vs-stat.out"
	[ "$rdiff" = 0 ] && break
	sleep 0.2
done
[ "$rdiff" = 0 ] && [ "$rsum" -gt 0 ] &&
	ok "$DOM: the recorder's records and LOST counts of each ring equal stat's produced and lost ($rsum records)" ||
	{ bad "$DOM: the recorder's counts differ from stat's on $rdiff rings:"; sed 's/^/     /' "$W/rec-vs-stat.out"; }
c=$(prom_q "sum(ringside_recorder_corrupt_total{domain=\"$DOM\"}) + sum(ringside_recorder_unwritable_records_total{domain=\"$DOM\"})")
bound=$(prom_q "ringside_time_sync_error_bound_seconds{domain=\"$DOM\"}")
[ "$(prom_q "ringside_recorder_recording{domain=\"$DOM\"}")" = 1 ] &&
	[ "$(prom_q "ringside_recorder_started_total{domain=\"$DOM\"}")" = 1 ] &&
	[ "$(prom_q "ringside_recorder_failed_total{domain=\"$DOM\"}")" = 0 ] && [ "$c" = 0 ] &&
	[ "$(prom_q "count(ringside_recorder_records_total{domain=\"$DOM2\"})")" = none ] &&
	[ "$(prom_q "count(ringside_recorder_recording{domain=\"$DOM2\"})")" = none ] &&
	ok "$DOM recorded (1 recording, none failed, nothing corrupt), $DOM2 not" ||
	bad "recorders: $DOM recording $(prom_q "ringside_recorder_recording{domain=\"$DOM\"}") started $(prom_q "ringside_recorder_started_total{domain=\"$DOM\"}") failed $(prom_q "ringside_recorder_failed_total{domain=\"$DOM\"}") corrupt+unwritable $c; $DOM2 series $(prom_q "count(ringside_recorder_records_total{domain=\"$DOM2\"})")"
# the endpoint's own count after a scrape of ours: Prometheus' first
# scrape reads the count from before it answered itself (0)
curl -sf "http://127.0.0.1:$MPORT/metrics" > /dev/null
scrapes=$(curl -sf "http://127.0.0.1:$MPORT/metrics" |
	awk '/^ringside_http_responses_total\{.*code="200"/ { s += $2 } END { print s + 0 }')
[ "${scrapes//none/0}" -gt 0 ] 2>/dev/null &&
	ok "the endpoint counted $scrapes scrapes, $(prom_q ringside_http_connections_dropped_total) connections dropped" ||
	bad "scrapes counted: '$scrapes'"
curl -sf "http://127.0.0.1:$MPORT/metrics" > "$W/metrics-d.txt" &&
	promtool check metrics < "$W/metrics-d.txt" > "$W/promtool.out" 2>&1 &&
	ok "promtool check metrics: the recording service's text too" ||
	{ bad "promtool check metrics (D):"; sed 's/^/     /' "$W/promtool.out"; }
lg_kill_wait "$PROM_PID"
PROM_PID=''
vsh resume $DOM >/dev/null || bad "virsh resume $DOM"
vsh resume $DOM2 >/dev/null || bad "virsh resume $DOM2"
sleep 1   # let one more rotation come after the restart
kill -TERM "$SVC_PID"
wait "$SVC_PID"
SVC_PID=''
after=$(recs | wc -l)
[ "$after" -gt "$before" ] && [ "$before" -ge 1 ] &&
	ok "libvirtd restarted: the recording went on ($before files before, $after after)" ||
	{ bad "files before the restart $before, after $after"; tail -n 8 "$W/service.log"; }
nperf=0 rec_all=0 lost_all=0 key=0
for f in $(recs); do
	perf script -i "$f" > /dev/null 2> "$W/script.err" && nperf=$((nperf + 1)) ||
		bad "perf script $(basename "$f"): $(head -n 2 "$W/script.err")"
	"$RINGSIDE" report "$f" --json > "$W/rep.json" 2>/dev/null || bad "report $(basename "$f")"
	# the producer's own LOST records say what it dropped; they are not
	# among what it produced
	rec_all=$((rec_all + $(jq '.total.records - .total.types.lost' "$W/rep.json")))
	lost_all=$((lost_all + $(jq '.total.lost' "$W/rep.json")))
	"$RINGSIDE" dump "$f" 2>/dev/null | grep -q "key seen" && key=1
	[ "$(jq -r .domain "$f.json" 2>/dev/null)" = "$DOM" ] || bad "$(basename "$f"): no sidecar"
done
[ "$nperf" = "$after" ] && ok "each of the $after files opens in perf" || bad "$nperf of $after files open in perf"
# the time sync's bound Prometheus read (D2) is the last file's last
# point's: the agent was gone by then, no sync came after (none at all
# when the guest never answered in time: then neither says one)
"$RINGSIDE" report "$(recs | tail -n 1)" --json > "$W/rep.json" 2>/dev/null
fb=$(jq -r '.clock.points | if length > 0 then .[-1].bound_ns else "none" end' "$W/rep.json")
if [ "$fb" = none ]; then
	[ "$bound" = none ] &&
		ok "no time sync held ($(jq -r .clock.state "$W/rep.json")): no error bound exposed" ||
		bad "the files have no time sync, Prometheus a bound of $bound s"
else
	awk -v b="$bound" -v n="$fb" 'BEGIN { d = b * 1e9 - n; exit !(n > 0 && d < 0.5 && d > -0.5) }' &&
		ok "$DOM: the time sync's error bound, $bound s, is the last file's ($fb ns)" ||
		bad "$DOM: time sync error bound: Prometheus '$bound' s, the last file $fb ns"
fi
[ "$(jq -r .reason "$(recs | tail -n 1).json")" = shutdown ] &&
	[ "$(jq -r .reason "$(recs | head -n 1).json")" = rotation ] &&
	ok "sidecars: rotation, ..., shutdown" || bad "sidecar reasons"
[ "$key" = 1 ] && ok "the key's marker, written after the restart, was recorded" ||
	bad "no 'key seen' marker in the recordings"
prod=$(grep -E '^ *[0-9]+ normal ' "$W/stat-d.out" | awk '{ n += $11 } END { print n + 0 }')
glost=$(grep -E '^ *[0-9]+ normal ' "$W/stat-d.out" | awk '{ n += $12 } END { print n + 0 }')
[ "$prod" -gt 0 ] && [ "$rec_all" = "$prod" ] && [ "$lost_all" = "$glost" ] &&
	ok "delivered + lost == produced: $rec_all records (LOST records aside), $lost_all lost, as stat says" ||
	{ bad "the files hold $rec_all records, $lost_all lost; stat: produced $prod, lost $glost"; sed 's/^/     /' "$W/stat-d.out"; }
vsh destroy $DOM >/dev/null 2>&1
vsh destroy $DOM2 >/dev/null 2>&1

# ---- E: the watchdog fires ------------------------------------------------------
# <watchdog model='i6300esb' action='none'/>: QEMU tells libvirt the
# watchdog fired and does nothing else (the guest runs on, its flight
# recorder with it); libvirt's watchdog event reaches the service, told
# to capture on the watchdog only.  The i6300esb resets itself once it has
# fired, but how often it fires is QEMU's business: the capture files are
# counted, and /metrics must say as many.
MPORT=$(free_port)
printf '%s\n' "capture-dir = $SVC_CAP" "socket = none" "metrics = 127.0.0.1:$MPORT" \
	"capture-on = watchdog" "rate-limit = 5/3600" > "$W/service.conf"
mv "$W/service.log" "$W/service-d.log"
"$SERVICE" --config "$W/service.conf" --uri "$LG_URI" > "$W/service.log" 2>&1 &
SVC_PID=$!
svc_wait "following libvirt's domain events" 1 ||
	{ bad "ringside-service did not start (E):"; sed 's/^/     /' "$W/service.log"; }
vsh dumpxml --inactive $DOM |
	sed -e 's|rs_e2e=[a-z]*<|rs_e2e=watchdog<|' \
	    -e "s|<devices>|&<watchdog model='i6300esb' action='none'/>|" > "$W/domain.xml"
grep -q 'rs_e2e=watchdog<' "$W/domain.xml" && vsh define "$W/domain.xml" >/dev/null 2>"$W/err" ||
	bad "virsh define (watchdog): $(cat "$W/err")"
"$RINGSIDE" enable $DOM --mode overwrite >/dev/null 2>"$W/err" ||
	bad "enable --mode overwrite (E): $(cat "$W/err")"
vsh dumpxml --inactive $DOM | grep -q "<watchdog model='i6300esb' action='none'" &&
	ok "the domain has an i6300esb watchdog (action none), in overwrite mode" ||
	bad "no watchdog device in the domain's XML"
rm -f "$W/console.log"
note "start with a watchdog: the guest arms it after the workload and never feeds it"
vsh start $DOM >/dev/null || { bad "virsh start (watchdog)"; exit 1; }
wait_console "E2E-WATCHDOG-ARMED" 300 && ok "the guest ran the workload and armed its watchdog"
svc_wait "$DOM: watchdog: flight recorder captured" 1 &&
	ok "the watchdog: $(grep -m 1 "$DOM: its watchdog fired" "$W/service.log" | sed 's/.*service: //'); $(grep -m 1 "$DOM: watchdog: flight recorder captured" "$W/service.log" | sed 's/.*captured: //')" ||
	{ bad "no watchdog capture by the service:"; tail -n 8 "$W/service.log"; lg_console_tail "$W/console.log"; }
state=$(vsh domstate $DOM 2>/dev/null)
[ "$state" = running ] && ok "action none: the domain runs on after its watchdog fired" ||
	bad "domain state after the watchdog: '$state'"
wdogs() { ls "$SVC_CAP/$DOM/"*-watchdog.data 2>/dev/null | sort; }
wd=$(wdogs | head -n 1)
wpid=$(sed -n 's/.*E2E-WORKLOAD pid=\([0-9]*\).*/\1/p' "$W/console.log" | head -n 1)
[ -n "$wd" ] && [ "$(jq -r .reason "$wd.json" 2>/dev/null)" = watchdog ] &&
	[ "$(jq -r .domain "$wd.json" 2>/dev/null)" = "$DOM" ] &&
	ok "$(basename "$wd"): its sidecar says domain $DOM, reason watchdog" ||
	{ bad "the watchdog capture '$wd', its sidecar:"; head -n 20 "$wd.json" 2>&1; }
[ -n "$wd" ] && perf --buildid-dir "$SVC_CAP/$DOM/.ringside-debug" script -i "$wd" \
	> /dev/null 2> "$W/script.err" &&
	[ ! -s "$W/script.err" ] && ok "perf script opens it" ||
	bad "perf script on the watchdog capture: $(head -n 3 "$W/script.err")"
[ -n "$wd" ] && "$CHECK" "$wd" --pid "$wpid" --comm rs-workload --steps $STEPS \
	> "$W/check" 2>&1 && ok "the watchdog's capture: $(cat "$W/check")" ||
	{ bad "the watchdog's capture '$wd' (pid '$wpid'):"; sed 's/^/     /' "$W/check"; }
# the counter is the service's own count of the files it wrote: each
# capture is counted once written, so wait until they agree (a minute)
mcount() {
	curl -sf "http://127.0.0.1:$MPORT/metrics" | grep '^ringside_captures_total{' |
		grep "domain=\"$DOM\"" | grep 'reason="watchdog"' | awk '{ print $2 }'
}
for _ in $(seq 300); do
	nwd=$(wdogs | wc -l)
	[ "$nwd" -gt 0 ] && [ "$(mcount)" = "$nwd" ] && break
	sleep 0.2
done
nfired=$(grep -c "$DOM: its watchdog fired" "$W/service.log")
[ "$nwd" -gt 0 ] && [ "$(mcount)" = "$nwd" ] && [ "$nfired" -ge "$nwd" ] &&
	ok "/metrics: ringside_captures_total{reason=\"watchdog\"} $(mcount), as the $nwd capture files (the log: fired $nfired times)" ||
	bad "/metrics watchdog captures '$(mcount)', files $nwd, fired $nfired"
kill -TERM "$SVC_PID"
wait "$SVC_PID"
SVC_PID=''
grep -q "stopping: .* $nwd captures, .* 0 failed, 0 dropped, 0 hangs" "$W/service.log" &&
	ok "the service's summary: $(grep -m 1 stopping "$W/service.log" | sed 's/.*stopping: //')" ||
	bad "the service's summary: $(grep stopping "$W/service.log")"
vsh destroy $DOM >/dev/null 2>&1

echo "$fails failure(s)"
[ $fails = 0 ]
