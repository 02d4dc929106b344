#!/bin/bash
# SPDX-License-Identifier: MIT
#
# End to end with a real Linux guest, real QEMU and a real libvirtd:
#
#   e2e_libvirt.sh RINGSIDE AGENT MARK WORKLOAD CHECK GUEST_INIT HOOK
#
# Starts virtlogd and libvirtd (no systemd here), installs ringside's hook
# (the script that execs HOOK, ringside-hook),
# builds a busybox initramfs holding the agent and the workload, defines a
# domain with the Debian kernel from /boot, and checks:
#   A. enable/disable round trip on the persistent XML; bad options refused
#      with nothing changed; bad metadata refused by the hook at start
#   B. normal mode: the hook's region file (size, owner root, group
#      libvirt-qemu, 0660); `record DOMAIN` while the guest runs; samples
#      with the workload's pid and comm; markers in order; sched_switch;
#      `perf script` opens the file and names the workload's thread (the
#      guest's COMM records carried as perf's own); perf names >= 95% of the
#      workload's user samples by its functions (most of them hot_loop) from the
#      guest's MMAP2 records and the initramfs tree as --symfs; the guest
#      kernel's symbols (the agent's sideband): `perf script` and `perf
#      report` name >= 95% of the kernel samples as the guest's own
#      /proc/kallsyms (printed on its console) says; the agent detaches on
#      SIGTERM; the region file goes away with the domain; host-correlated
#      time: the printed sync bound is below 1 ms, a snapshot syncs too
#      and exits 0 with no time outside its window (the records it reads
#      from the guest kernel's perf buffers after the copy included), and
#      a marker the guest writes when the host sends a key lands, in host
#      CLOCK_MONOTONIC, between the host's clock before the key and after
#      the marker was in the ring, widened by the bound
#   C. overwrite mode: the guest panics (sysrq c) after the workload stopped
#      the agent (SIGSTOP: the race with panic() lost on purpose);
#      `snapshot --stable DOMAIN`
#      still returns what was written before, perf names the workload in it,
#      its kernel samples by the guest's symbols, the samples taken after
#      the agent stopped, which only the guest kernel's perf buffers in
#      guest memory can have given (the summary says how many; the newest
#      sample is one of them), the crash path (panic, sysrq_handle_crash,
#      __handle_sysrq) in the panicked vCPU's stack, read by the host
#      (asserted), and in the guest kernel's samples when it took any,
#      says the dead guest did not answer the time sync, and the domain
#      runs on
#   B, C: the recording and the snapshot as hotspot's parser and perf read
#      them on another machine, with and without `ringside archive`'s
#      tar (readers_check.sh); as pprof profiles (`report --pprof`), whose
#      `go tool pprof -top` has perf report's top ten kernel functions
#      with the same sample counts (pprof_check.sh)
#   D. the panicked domain's region header zeroed by the host (what a guest
#      scribbling over it leaves): `snapshot DOMAIN` exits 3, names the
#      damaged fields, and gives the same records as before the scribble;
#      `stat DOMAIN` exits 3
#   E. a 16-page overwrite ring wrapped >= 10 times under a workload that
#      keeps running, and short processes that come and go (a busybox
#      applet forked and never exec'd, applets exec'd in a pipe, a static
#      program of 50 ms): of the user samples of the processes alive at
#      the end, >= 99% have their binary in a live and in a crash snapshot
#      (the agent's process state table at the file's head); of all user
#      samples, at most 1% are [unknown] to perf report --sort dso in the
#      live snapshot, the crash snapshot and the hook's capture at the
#      crashed domain's destroy (the table keeps the processes that ended)
#   F. a 16-page normal ring that filled before `record` began: the
#      summary counts the records and losses that predate the recording,
#      and perf warns of no lost chunks but the recording's own
# Installs no package.  Exit 77 when something it needs is missing.
# RS_E2E_ACCEL=tcg|kvm (default tcg: Linux guests hang under this host's
# slow KVM); RS_E2E_KEEP=1 keeps the work directory.  The daemons, the
# initramfs, the domain XML and the console come from
# scripts/lib/libvirt-guest.sh, which scripts/demo-libvirt.sh shares.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
# readers_check: the file as hotspot and perf read it on another machine
. "$(dirname "${BASH_SOURCE[0]}")/readers_check.sh"
# pprof_judge: the file as a pprof profile, against perf report
. "$(dirname "${BASH_SOURCE[0]}")/pprof_check.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 CHECK=$5 GUEST_INIT=$6 HOOK_PROGRAM=$7
KCHECK=$(dirname "${BASH_SOURCE[0]}")/ksyms_check.py
ACCEL=${RS_E2E_ACCEL:-tcg}
DOM=rs-e2e-$$
SHM=/dev/shm/ringside-$DOM
HOOK=/etc/libvirt/hooks/qemu.d/ringside
STEPS=20
T0=$(date +%s)


# ---- what this test needs --------------------------------------------------
e2e_need_own_libvirt
case $ACCEL in
tcg) DOMTYPE=qemu ;;
kvm) [ -c /dev/kvm ] || skip "RS_E2E_ACCEL=kvm but no /dev/kvm"; DOMTYPE=kvm ;;
*) echo "RS_E2E_ACCEL: tcg or kvm, not '$ACCEL'"; exit 2 ;;
esac

W=$(lg_workdir /tmp/rs-e2e.XXXXXX)
RECORD_PID='' DEFINED='' HOOKED=''

cleanup() {
	[ -n "$RECORD_PID" ] && lg_kill_wait "$RECORD_PID"
	e2e_teardown
	rm -f "$SHM"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# perf_names FILE WHAT: perf names pid $WPID rs-workload.  `perf script`
# prints each sample with its thread's name at that time: all but the
# samples older than the thread's first COMM record (before its exec, or in
# a flight recorder the oldest tick's, whose COMM was overwritten) must say
# rs-workload.  `perf report` gives a thread's first name to its earlier
# samples too.
perf_names() {
	local all named
	perf script -i "$1" -F comm,pid,tid,event 2>/dev/null |
		awk -v p="$WPID" '$2 ~ "^"p"/" && / ringside:sample:/' > "$W/names"
	all=$(wc -l < "$W/names")
	named=$(grep -c "^ *rs-workload " "$W/names")
	if [ "$all" -gt 0 ] && [ $((named * 100)) -ge $((all * 90)) ]; then
		ok "$2: perf script names $named of pid $WPID's $all samples rs-workload"
	else
		bad "$2: perf script names $named of pid $WPID's $all samples rs-workload"
		sort "$W/names" | uniq -c | sort -rn | head -n 5
	fi
	perf report -i "$1" --stdio --sort comm,pid 2>/dev/null |
		grep -Eq " rs-workload +$WPID:rs-workload *\$" &&
		ok "$2: perf report names pid $WPID rs-workload" ||
		bad "$2: perf report --sort comm,pid does not name pid $WPID rs-workload"
}

# ksyms_judge FILE CONSOLE WHAT SUMMARY: the symbols' summary line, then
# perf's names of FILE's kernel samples against the guest's own kallsyms
ksyms_judge() {
	local line
	line=$(grep -o "guest kernel symbols: .*" "$4" | head -n 1)
	# a second boot of the same kernel (KASLR: other addresses) has its
	# table filed under its content id: the first boot's holds the build id
	echo "$line" | grep -Eq "^guest kernel symbols: [0-9]+ functions( \([0-9]+ modules\))?, (filed under )?build id [0-9a-f]{40}\$" &&
		ok "$3: $line" || { bad "$3: symbols: '$line'"; grep "guest kernel" "$4"; }
	note "guest kallsyms captured on the console: $(python3 "$KCHECK" table "$2")"
	perf --buildid-dir "$(rs_cache "$1")" script -i "$1" -F event,ip,sym -G \
		> "$W/$3.ksyms" 2>/dev/null
	python3 "$KCHECK" names "$2" "$W/$3.ksyms" 95 > "$W/$3.names" &&
		ok "$3: perf script: $(head -n 1 "$W/$3.names")" ||
		{ bad "$3: perf script: $(head -n 1 "$W/$3.names")"; tail -n +2 "$W/$3.names"; }
	perf --buildid-dir "$(rs_cache "$1")" report -i "$1" --stdio --sort sym \
		-g none --no-children > "$W/$3.report" 2>/dev/null
	python3 "$KCHECK" report "$W/$3.report" 95 > "$W/$3.rep" &&
		ok "$3: $(cat "$W/$3.rep")" || bad "$3: $(cat "$W/$3.rep")"
	pprof_judge "$1" "$3"
}

# user_syms FILE WHAT MODE: perf names pid $WPID's user samples from the
# guest's MMAP2 records, with the initramfs's tree ($W/root, the guest's
# root file system) as --symfs and an empty HOME (no build-id cache): at
# least 95% of them by one of the workload's functions, and most of them
# hot_loop (the rest: its start and exit, the clock it reads; how many is
# the guest's scheduling, so no tighter share is asserted), by
# `perf report` and by `perf script`.  MODE assert fails the test short of
# that; MODE note only says.
user_syms() {
	local home what=$2 mode=$3 counts
	home=$(mktemp -d "$W/home.XXXXXX")
	# perf report: one section per event; the guest's samples are
	# ringside:sample's.  Columns: overhead, samples, dso, [.] or [k],
	# symbol (an address, 0x..., when perf could not name it).
	HOME=$home perf report -i "$1" --stdio -n --no-children -g none \
		--symfs "$W/root" --sort dso,sym --pid "$WPID" \
		> "$W/$what.syms" 2> "$W/$what.syms.err"
	counts=$(awk '
		/^# Samples: / { ev = index($0, "of event '\''ringside:sample'\''") > 0; next }
		/^#/ || NF < 5 { next }
		ev && $4 == "[.]" {
			all += $2
			if ($3 == "rs-workload" && $5 !~ /^0x/) named += $2
			if ($5 == "hot_loop") hot += $2 }
		END { printf "%d %d %d\n", hot, named, all }' "$W/$what.syms")
	# shellcheck disable=SC2086  # three numbers, one word each
	user_syms_judge "$what: perf report --symfs" "$mode" $counts ||
		grep -v '^#' "$W/$what.syms" | grep -F '[.]' | head -n 8 | sed 's/^/     /'
	# perf script: comm, pid, ip, symbol ([unknown] when perf could not
	# name it); user addresses are shorter than the guest kernel's 16 hex
	# digits; no call chains (-G).  A sample at ip 0 (the guest kernel
	# gave no user ip) names nothing anywhere: left out.
	HOME=$home perf script -i "$1" --symfs "$W/root" -G -F comm,pid,ip,sym \
		> "$W/$what.script" 2> "$W/$what.script.err"
	counts=$(awk -v p="$WPID" '
		$1 == "rs-workload" && $2 == p && NF >= 4 && length($3) < 16 &&
		$3 != "0" {
			all++
			if ($4 != "[unknown]") named++
			if ($4 == "hot_loop") hot++ }
		END { printf "%d %d %d\n", hot, named, all }' "$W/$what.script")
	# shellcheck disable=SC2086  # three numbers, one word each
	user_syms_judge "$what: perf script --symfs" "$mode" $counts ||
		awk -v p="$WPID" '$1 == "rs-workload" && $2 == p && length($3) < 16 { print $4 }' \
			"$W/$what.script" | sort | uniq -c | sort -rn | head -n 5 | sed 's/^/     /'
}

# user_syms_judge WHAT MODE HOT NAMED ALL: says it; status 1 when short
user_syms_judge() {
	local what=$1 mode=$2 hot=$3 named=$4 all=$5 line
	line="$what: of pid $WPID's $all user samples, $named ($((all ? named * 100 / all : 0))%) named, $hot ($((all ? hot * 100 / all : 0))%) hot_loop"
	if [ "$all" -gt 0 ] && [ $((named * 100)) -ge $((all * 95)) ] &&
	   [ $((hot * 2)) -gt "$all" ]; then
		ok "$line"
	elif [ "$mode" = note ]; then
		note "$line"
	else
		bad "$line"
		return 1
	fi
}

# user_syms_cache FILE WHAT MODE: the same judgement of `perf report` with
# no --symfs: the workload's functions come from ringside's build-id cache
# beside the file alone (perf --buildid-dir; never perf's own $HOME/.debug,
# which stays empty), from the symbols the guest's agent published
# (docs/perfdata.md, "Guest user symbols").
user_syms_cache() {
	local what=$2 mode=$3 counts
	perf --buildid-dir "$(rs_cache "$1")" report -i "$1" --stdio -n \
		--no-children -g none --sort dso,sym \
		--pid "$WPID" > "$W/$what.csyms" 2> "$W/$what.csyms.err"
	counts=$(awk '
		/^# Samples: / { ev = index($0, "of event '\''ringside:sample'\''") > 0; next }
		/^#/ || NF < 5 { next }
		ev && $4 == "[.]" {
			all += $2
			if ($3 == "rs-workload" && $5 !~ /^0x/) named += $2
			if ($5 == "hot_loop") hot += $2 }
		END { printf "%d %d %d\n", hot, named, all }' "$W/$what.csyms")
	note "$what: $(grep -h "guest user symbols" "$W/$what.out" 2>/dev/null | sed 's/^ *//')"
	# shellcheck disable=SC2086  # three numbers, one word each
	user_syms_judge "$what: perf report, no --symfs (ringside's cache)" "$mode" $counts ||
		grep -v '^#' "$W/$what.csyms" | grep -F '[.]' | head -n 8 | sed 's/^/     /'
}

# The host's CLOCK_MONOTONIC in ns (the clock ringside's files are in).
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }

# bound_of REPORT_JSON: the largest sync bound of a file, ns ("" if none).
bound_of() {
	python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))["clock"]["points"]; print(max(x["bound_ns"] for x in p) if p else "")' "$1"
}

# ---- the guest --------------------------------------------------------------
note "initramfs from $LG_BUSYBOX, kernel $LG_KERNEL, accelerator $ACCEL"
lg_initramfs "$W" "$AGENT" "$MARK" "$WORKLOAD" "$GUEST_INIT" ||
	{ bad "$LG_WHY"; exit 1; }

# ---- daemons and hook --------------------------------------------------------
"$RINGSIDE" hook install --program "$HOOK_PROGRAM" --capture-dir "$W/captures" >/dev/null ||
	{ bad "ringside hook install"; exit 1; }
HOOKED=1
[ -x "$HOOK" ] && grep -q "^exec '$(realpath "$HOOK_PROGRAM")' --group " "$HOOK" &&
	ok "hook installed as $HOOK, runs ringside-hook" || bad "no executable $HOOK running $HOOK_PROGRAM"
lg_daemons_start "$W" || { bad "$LG_WHY"; exit 1; }
note "virtlogd $LG_VIRTLOGD_PID, libvirtd $LG_LIBVIRTD_PID"
# perf's own build-id cache ($HOME/.debug): a fresh one, which no guest's
# names reach (they go to ringside's cache beside each file, rs_cache).
export HOME=$W/home
mkdir -p "$HOME"

lg_domain_xml $DOM $DOMTYPE "$W" normal > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1

# ---- A: the XML ---------------------------------------------------------------
vsh dumpxml --inactive $DOM > "$W/xml0"
for opts in "--data-pages 3" "--aux-pages 6" "--mode fast" "--trace samples,bogus" \
	    "--freq 0" "--rings 1025" "--data-pages 262144" "--bogus"; do
	# shellcheck disable=SC2086  # word splitting of the options is wanted
	"$RINGSIDE" enable $DOM $opts >/dev/null 2>"$W/err"
	rc=$?
	vsh dumpxml --inactive $DOM > "$W/xml1"
	if [ $rc = 2 ] && cmp -s "$W/xml0" "$W/xml1"; then
		ok "enable $opts refused (status 2), XML unchanged"
	else
		bad "enable $opts: status $rc, XML $(cmp -s "$W/xml0" "$W/xml1" && echo unchanged || echo CHANGED)"
	fi
done
"$RINGSIDE" enable nosuch-$$ >/dev/null 2>&1
[ $? = 1 ] && ok "enable of an unknown domain fails" || bad "enable nosuch: not status 1"

"$RINGSIDE" enable $DOM --data-pages 32 >/dev/null || bad "enable"
vsh dumpxml --inactive $DOM > "$W/xml1"
grep -q "<ringside:region xmlns:ringside=\"https://ringside.dev/xmlns/1\"" "$W/xml1" &&
grep -q "<shmem name='ringside-$DOM' role='master'>" "$W/xml1" &&
grep -q "<model type='ivshmem-plain'/>" "$W/xml1" &&
	ok "enable wrote the metadata and the ivshmem-plain device" ||
	bad "enable: metadata or device missing from the XML"
# how long a ring holds at the rate, said; a normal ring too small for
# the agent's tick and the host's stall warned of (and enabled all the same)
"$RINGSIDE" enable $DOM --mode normal --data-pages 1 > "$W/out" 2> "$W/err" ||
	bad "enable --mode normal --data-pages 1"
grep -q "each vCPU's 4.0 KiB data ring holds ~12 ms at 1000 Hz with call chains" "$W/out" &&
grep -q "warning: $DOM: a normal-mode ring of 4.0 KiB fills in ~4 ms .*; --data-pages 32 holds it" "$W/err" &&
	ok "enable --data-pages 1: $(grep -o 'a normal-mode ring .*' "$W/err")" ||
	{ bad "enable --data-pages 1: no hold time or no warning"; cat "$W/out" "$W/err"; }
"$RINGSIDE" enable $DOM --mode normal > "$W/out" 2> "$W/err" || bad "enable --mode normal"
grep -q "each vCPU's 256.0 KiB data ring holds ~780 ms at 1000 Hz .* ~239 ms at 127 frames" "$W/out" &&
! grep -q "warning" "$W/err" &&
	ok "enable --mode normal: the default ring holds ~780 ms (239 ms at 127 frames), no warning" ||
	{ bad "enable --mode normal: hold time or warning"; cat "$W/out" "$W/err"; }
"$RINGSIDE" disable $DOM >/dev/null || bad "disable"
# libvirt keeps an empty <metadata/> once its last element is gone
vsh dumpxml --inactive $DOM | grep -v '^ *<metadata/>$' > "$W/xml2"
cmp -s "$W/xml0" "$W/xml2" && ok "enable + disable: the XML is as before" ||
	{ bad "enable + disable changed the XML"; diff "$W/xml0" "$W/xml2" | head; }
"$RINGSIDE" disable $DOM | grep -q "was not enabled" &&
	ok "disable of a domain not enabled changes nothing" || bad "second disable"

# Metadata ringside would not write: the hook stops the start.
"$RINGSIDE" enable $DOM >/dev/null
vsh metadata $DOM --config --uri https://ringside.dev/xmlns/1 --key ringside \
	--set "<region version='1' rings='2' data-pages='3'/>" >/dev/null
if vsh start $DOM >/dev/null 2>"$W/err"; then
	bad "a domain with bad ringside metadata started"
	vsh destroy $DOM >/dev/null 2>&1
else
	grep -q "data-pages" "$W/err" && ok "the hook refused bad metadata: $(grep -o 'ringside hook: [^;]*' "$W/err" | head -n 1)" ||
		{ bad "start failed, but not with the hook's message"; cat "$W/err"; }
fi
[ -e "$SHM" ] && bad "a region file was left by the refused start"

# ---- B: normal mode, record ------------------------------------------------------
"$RINGSIDE" enable $DOM --mode normal --data-pages 256 --freq 1000 >/dev/null ||
	bad "enable --mode normal"
size_m=$(vsh dumpxml --inactive $DOM | sed -n "/shmem name='ringside-$DOM'/,/shmem>/s/.*<size unit='M'>\([0-9]*\)<.*/\1/p")
note "start ($ACCEL) with a ${size_m} MiB region in normal mode"
rm -f "$W/console.log"
vsh start $DOM >/dev/null || { bad "virsh start"; exit 1; }
st=$(stat -c '%U %G %a %s' "$SHM" 2>/dev/null)
[ "$st" = "root libvirt-qemu 660 $((size_m << 20))" ] &&
	ok "region file: $st" || bad "region file: '$st', want 'root libvirt-qemu 660 $((size_m << 20))'"
"$RINGSIDE" record $DOM -o "$W/rec.data" -i 20 > "$W/rec.out" 2> "$W/rec.err" &
RECORD_PID=$!
wait_console "E2E-WORKLOAD-OK" 240 && note "workload done"
WPID=$(sed -n 's/.*E2E-WORKLOAD pid=\([0-9]*\).*/\1/p' "$W/console.log" | head -n 1)
"$RINGSIDE" stat $DOM > "$W/stat1" 2>&1
hb1=$(sed -n 's/.*heartbeat \([0-9]*\).*/\1/p' "$W/stat1")
# the agent beats once per tick, however slowly the guest runs
for _ in $(seq 600); do
	"$RINGSIDE" stat $DOM > "$W/stat2" 2>&1
	hb2=$(sed -n 's/.*heartbeat \([0-9]*\).*/\1/p' "$W/stat2")
	[ "${hb2:-0}" -gt "${hb1:-0}" ] && break
	sleep 0.1
done
grep -q "agent attached (kind 2, ABI 1, 2 rings used)" "$W/stat1" && [ "${hb2:-0}" -gt "${hb1:-0}" ] &&
	ok "stat DOMAIN: Linux agent attached, heartbeat $hb1 -> $hb2" ||
	{ bad "stat DOMAIN while the agent runs"; cat "$W/stat1"; }
# host-correlated time: one snapshot syncs once; then a marker at a known
# host time (nothing below depends on how fast the guest runs)
KEY_TB='' KEY_TA=''
if wait_console "E2E-KEY-WAIT" 60; then
	"$RINGSIDE" snapshot $DOM -o "$W/live.data" > "$W/live.out" 2>&1
	rc=$?
	line=$(grep "^guest clock:" "$W/live.out")
	grep -qE "^guest clock: host CLOCK_MONOTONIC [+-] [0-9]+ ns, error bound ±[0-9.]+ µs \([0-9]+ rounds" "$W/live.out" &&
		ok "snapshot DOMAIN synced the guest clock: ${line#guest clock: }" ||
		{ bad "snapshot DOMAIN: no time sync"; cat "$W/live.out"; }
	# the guest wrote on while the host read its kernel's perf buffers
	# and vCPUs after the copy: what it recovered there, and the vCPU
	# samples filed after it, are no lie (the window ends after those
	# reads): exit 0, no time flagged, the newest one inside the window
	"$RINGSIDE" report "$W/live.data" --json > "$W/live.json" 2>&1
	win=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); w = d["window"]; t = d["total"]
print(t["flagged"]["time"], w["times_checked"], t["last_time"] <= w["end_ns"] + w["slack_ns"])' "$W/live.json")
	kb=$(grep -o "^guest perf buffers: [0-9]* records recovered" "$W/live.out")
	[ $rc = 0 ] && [ "$win" = "0 True True" ] && [ -n "$kb" ] &&
		ok "live snapshot DOMAIN: exit 0, no time outside the window (${kb#guest perf buffers: })" ||
		{ bad "live snapshot DOMAIN: status $rc, flagged times, checked, newest inside: $win; '$kb'"; grep -E "window|warning" "$W/live.out"; }
	KEY_TB=$(mono_ns)
	vsh send-key $DOM KEY_ENTER >/dev/null || bad "virsh send-key"
	wait_console "E2E-KEY-MARKED" 60 && KEY_TA=$(mono_ns)
fi
wait_console "E2E-DONE" 300
grep -q "E2E-AGENT-EXIT rc=0" "$W/console.log" && ok "agent detached on SIGTERM, status 0" ||
	bad "agent exit: $(grep -a E2E-AGENT-EXIT "$W/console.log")"
"$RINGSIDE" stat $DOM 2>&1 | grep -q "agent not attached" && ok "stat: not attached after detach" ||
	bad "stat still shows an attached agent"
kill -INT $RECORD_PID
wait $RECORD_PID
rc=$?
RECORD_PID=
[ $rc = 0 ] && ok "record DOMAIN" || { bad "record DOMAIN: status $rc"; cat "$W/rec.err"; }
"$RINGSIDE" report "$W/rec.data" --json > "$W/rec.json"
b=$(bound_of "$W/rec.json")
line=$(grep "^guest clock:" "$W/rec.out")
if [ -n "$b" ] && [ "$b" -lt 1000000 ]; then
	ok "record DOMAIN: sync bound $b ns < 1 ms: ${line#guest clock: }"
else
	bad "record DOMAIN: sync bound '$b' ns, not below 1 ms"; cat "$W/rec.out"
fi
# it began before the guest: nothing predates it, and every ring's span
# (its timed records', the agent's first MMAP2 records filed at its first
# sample's time) lies within the recording's window
span=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); w = d["window"]; lo = w["start_ns"] - w["slack_ns"]
print(all(r["first_time"] is None or (r["first_time"] >= lo and r["last_time"] <= w["end_ns"] + w["slack_ns"]) for r in d["rings"]),
      sum(r["host"]["early_records"] + r["host"]["early_lost_records"] for r in d["rings"]), w["times_checked"])' "$W/rec.json")
[ "$span" = "True 0 True" ] && ! grep -q "predate" "$W/rec.out" &&
	ok "record DOMAIN: every ring's span within the recording, nothing predates it" ||
	bad "record DOMAIN: spans within the window, early records, times checked: '$span'"
# the key's marker, filed in host CLOCK_MONOTONIC: [before - bound, after + bound]
t=$("$RINGSIDE" dump "$W/rec.data" | awk '$3 == "marker" && $4 == "id=10" { print $2; exit }')
if [ -n "$t" ] && [ -n "$KEY_TB" ] && [ -n "$KEY_TA" ] && [ -n "$b" ]; then
	tm=$(( ${t%.*} * 1000000000 + 10#${t#*.} ))
	if [ $((KEY_TB - b)) -le "$tm" ] && [ "$tm" -le $((KEY_TA + b)) ]; then
		ok "the key's marker at host $tm ns: $((tm - KEY_TB)) ns after the key was sent, $((KEY_TA - tm)) ns before the host saw it (bound $b ns)"
	else
		bad "the key's marker at host $tm ns, outside [$KEY_TB - $b, $KEY_TA + $b]"
	fi
else
	bad "the key's marker: time '$t', host clock before '$KEY_TB' after '$KEY_TA', bound '$b'"
fi
if [ -n "$WPID" ] && "$CHECK" "$W/rec.data" --pid "$WPID" --comm rs-workload \
	--steps $STEPS --tracepoint --shell-marker > "$W/check1"; then
	ok "recorded: $(cat "$W/check1")"
else
	bad "recorded file (workload pid '${WPID}'):"
	sed 's/^/     /' "$W/check1" 2>/dev/null
fi
perf --buildid-dir "$(rs_cache "$W/rec.data")" script -i "$W/rec.data" \
	--show-lost-events > "$W/script.out" 2> "$W/script.err"
rc=$?
n=$(grep -c "ringside:sample" "$W/script.out")
if [ $rc = 0 ] && [ "$n" -gt 0 ] && [ ! -s "$W/script.err" ]; then
	ok "perf script: $n guest samples, nothing on stderr"
else
	bad "perf script: status $rc, $n samples"; head -n 5 "$W/script.err"
fi
[ -n "$WPID" ] && perf_names "$W/rec.data" "record"
"$RINGSIDE" report "$W/rec.data" --json > "$W/rec.json"
# the COMM records are perf's own: counted as such, shown as task events;
# perf counts the host's (the process table at the head) among them
comms=$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); t = d["total"]["types"]; print(t["comm"] + d["state"]["comm"], t["other"])' "$W/rec.json")
pcomms=$(perf report -i "$W/rec.data" --stats 2>/dev/null | awk '$1 == "COMM" && $2 == "events:" { print $3; exit }')
[ "${comms% *}" -gt 0 ] && [ "${comms#* }" = 0 ] && [ "$pcomms" = "${comms% *}" ] &&
	ok "COMM records: ${comms% *} in ringside report, $pcomms in perf report --stats, none carried as 'other'" ||
	bad "COMM records: ringside report (comm other) '$comms', perf report --stats '$pcomms'"
perf script -i "$W/rec.data" --show-task-events 2>/dev/null |
	grep -q "PERF_RECORD_COMM exec: rs-workload:$WPID/$WPID\$" &&
	ok "perf script --show-task-events: the exec of rs-workload (pid $WPID)" ||
	bad "perf script --show-task-events: no exec COMM of rs-workload:$WPID/$WPID"
"$RINGSIDE" dump "$W/rec.data" | grep -q " COMM  *pid=$WPID tid=$WPID comm=\"rs-workload\"" &&
	ok "ringside dump decodes the COMM records" || bad "ringside dump: no COMM of pid $WPID"
# the guest kernel's symbols: through the sideband into the file and the
# build-id cache; judged against the table the guest printed itself
cp "$W/console.log" "$W/console-normal.log"
ksyms_judge "$W/rec.data" "$W/console-normal.log" record "$W/stat1"
readers_check "$W/rec.data" record "$W/console-normal.log"
# the workload's mappings: MMAP2 records (the kernel's at its exec, the
# agent's before its first sample), which perf counts as its own
[ -n "$WPID" ] && user_syms "$W/rec.data" record assert
# The agent's word at its exit (its last line of user symbols, on the
# console before E2E-AGENT-EXIT; `record` read the table last after that,
# at E2E-DONE): the binaries it published, every one of them in the
# file's cache, before perf is asked to name the workload from there.  At
# least ringside-agent, rs-workload and ringside-mark (each exec'd in
# this boot: the kernel's MMAP2 of an exec tells the agent), none given
# up unread.
ubins=$(sed -n 's/.*ringside-agent: user symbols: \([0-9]*\) binaries published.*/\1/p' "$W/console-normal.log" | tail -n 1)
uunread=$(sed -n 's/.*ringside-agent: user symbols: .* \([0-9]*\) unreadable .*/\1/p' "$W/console-normal.log" | tail -n 1)
hbins=$(sed -n 's/.*guest user symbols (guest claims): \([0-9]*\) binaries.*/\1/p' "$W/rec.out" | head -n 1)
[ "${ubins:-0}" -ge 3 ] && [ "$uunread" = 0 ] && [ "$hbins" = "$ubins" ] &&
	ok "user symbols: the agent published $ubins binaries before its exit, the record's cache has $hbins" ||
	bad "user symbols: the agent published '$ubins' binaries ('$uunread' unreadable), the record's cache has '$hbins': $(grep -h "user symbols" "$W/console-normal.log")"
[ -n "$WPID" ] && user_syms_cache "$W/rec.data" rec assert
mmaps=$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print(d["total"]["types"]["mmap2"] + d["state"]["mmap2"])' "$W/rec.json" 2>/dev/null)
pmmaps=$(perf report -i "$W/rec.data" --stats 2>/dev/null | awk '$1 == "MMAP2" && $2 == "events:" { print $3; exit }')
[ "${mmaps:-0}" -gt 0 ] && [ "$pmmaps" = "$mmaps" ] &&
	ok "MMAP2 records: $mmaps in ringside report, $pmmaps in perf report --stats" ||
	bad "MMAP2 records: ringside report '$mmaps', perf report --stats '$pmmaps'"
"$RINGSIDE" dump "$W/rec.data" | grep -q " MMAP2  *pid=$WPID tid=$WPID .* file=\"/bin/rs-workload\"" &&
	ok "ringside dump shows the MMAP2 of /bin/rs-workload (pid $WPID)" ||
	bad "ringside dump: no MMAP2 of /bin/rs-workload for pid $WPID"
"$RINGSIDE" report "$W/rec.data" --symfs "$W/root" --top 3 > "$W/rec.urep"
top=$(awk '/^ +samples +% +function +file$/ { getline; print $3, $4; exit }' "$W/rec.urep")
[ "$top" = "hot_loop /bin/rs-workload" ] &&
	ok "ringside report --symfs: the top guest user function is $top" ||
	{ bad "ringside report --symfs: top user function '$top'"; sed 's/^/     /' "$W/rec.urep" | tail -n 8; }
# the COMM records are perf's own: counted as such, shown as task events
vsh destroy $DOM >/dev/null
for _ in $(seq 50); do [ -e "$SHM" ] || break; sleep 0.1; done
[ -e "$SHM" ] && bad "region file left after the domain stopped" ||
	ok "the hook removed the region file at release"

# ---- C: overwrite mode, panic, stable snapshot --------------------------------------
"$RINGSIDE" enable $DOM >/dev/null || bad "enable (overwrite)"
vsh dumpxml --inactive $DOM | sed 's/rs_e2e=normal/rs_e2e=panic/' > "$W/domain2.xml"
vsh define "$W/domain2.xml" >/dev/null || bad "redefine for the panic run"
note "start in overwrite mode; the guest will panic"
rm -f "$W/console.log"
vsh start $DOM >/dev/null || { bad "virsh start (panic run)"; exit 1; }
wait_console "E2E-PANIC" 240
wait_console "Kernel panic" 30 && ok "the guest kernel panicked"
WPID=$(sed -n 's/.*E2E-WORKLOAD pid=\([0-9]*\).*/\1/p' "$W/console.log" | head -n 1)
"$RINGSIDE" snapshot $DOM --stable -o "$W/snap.data" > "$W/snap.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "stable" "$W/snap.out" && ok "snapshot --stable DOMAIN after the panic" ||
	{ bad "snapshot --stable: status $rc"; cat "$W/snap.out"; }
grep -q "^guest clock: no time sync: the guest did not answer" "$W/snap.out" &&
	ok "the panicked guest did not answer the time sync; times unconverted" ||
	{ bad "snapshot after the panic: no 'did not answer'"; grep "guest clock" "$W/snap.out"; }
state=$(vsh domstate $DOM)
[ "$state" = running ] && ok "domain resumed after the stable snapshot" ||
	bad "domain state after the stable snapshot: $state"
if [ -n "$WPID" ] && "$CHECK" "$W/snap.data" --pid "$WPID" --comm rs-workload \
	--steps $STEPS --panic > "$W/check2"; then
	ok "flight recorder after the panic: $(cat "$W/check2")"
else
	bad "flight recorder after the panic:"; sed 's/^/     /' "$W/check2" 2>/dev/null
fi
perf --buildid-dir "$(rs_cache "$W/snap.data")" script -i "$W/snap.data" \
	> /dev/null 2> "$W/script.err" && [ ! -s "$W/script.err" ] &&
	ok "perf script opens the snapshot" || bad "perf script on the snapshot"
[ -n "$WPID" ] && perf_names "$W/snap.data" "snapshot"
ksyms_judge "$W/snap.data" "$W/console.log" snapshot "$W/snap.out"
readers_check "$W/snap.data" snapshot "$W/console.log"
# The samples the guest kernel took after the agent's last copy (the
# workload stopped the agent before the crash, guest_init.sh: the race
# with panic() that a user-space agent loses at times, lost on purpose)
# are still in its perf buffers; the snapshot reads them from guest memory
# at the addresses the agent published (docs/operator-guide.md, "What the
# flight recorder keeps").  Asserted: the summary says so, the file holds
# samples the rings alone do not, and its newest sample is one of them.
kb=$(grep "^guest perf buffers: " "$W/snap.out")
case "$kb" in
"guest perf buffers: "[0-9]*" records recovered from "*) ok "snapshot: ${kb#guest perf buffers: }" ;;
*) bad "snapshot: no guest perf buffer recovery: '$kb'"; cat "$W/snap.out" ;;
esac
grep -A4 "^guest perf buffers: " "$W/snap.out" | sed -n '2,$p'
note "the agent said: $(tr -d '\r' < "$W/console.log" | grep -a -m 1 "kernel perf buffers")"
perf --buildid-dir "$(rs_cache "$W/snap.data")" script -i "$W/snap.data" \
	-F event,ip,sym > "$W/snap.chains" 2>/dev/null
# the same without the vCPU stacks (read anew each time), with and
# without the guest perf buffers
"$RINGSIDE" snapshot $DOM --stable --no-vcpu-stacks -o "$W/snap1.data" -q ||
	bad "snapshot --no-vcpu-stacks"
"$RINGSIDE" snapshot $DOM --stable --no-guest-buffers --no-vcpu-stacks \
	-o "$W/snap0.data" -q || bad "snapshot --no-guest-buffers"
perf --buildid-dir "$(rs_cache "$W/snap1.data")" script -i "$W/snap1.data" \
	-F event,ip,sym > "$W/snap1.chains" 2>/dev/null
perf --buildid-dir "$(rs_cache "$W/snap0.data")" script -i "$W/snap0.data" \
	-F event,ip,sym > "$W/snap0.chains" 2>/dev/null
python3 "$KCHECK" extra "$W/snap1.chains" "$W/snap0.chains" panic \
	sysrq_handle_crash __handle_sysrq write_sysrq_trigger > "$W/extra"
newest() { perf script -i "$1" -F time 2>/dev/null | tr -d ' :' | sort -n | tail -n 1; }
t1=$(newest "$W/snap1.data") t0=$(newest "$W/snap0.data")
if grep -aq "E2E-PANIC agent stopped" "$W/console.log"; then
	grep -q "^[1-9][0-9]* samples only from the guest perf buffers" "$W/extra" &&
		ok "recovered from the guest perf buffers: $(head -n 1 "$W/extra")" ||
		bad "recovered from the guest perf buffers: $(head -n 1 "$W/extra")"
	python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]))' \
		"${t1:-0}" "${t0:-0}" &&
		ok "the newest sample ($t1 s) came from the guest perf buffers (the rings' newest: $t0 s)" ||
		bad "the newest sample: $t1 s with the guest perf buffers, $t0 s without"
else
	note "recovered from the guest perf buffers: $(head -n 1 "$W/extra")"
fi
sed -n '2,$p' "$W/extra" | sed 's/^/     /'
# The crash path, always: the host read each vCPU's registers and walked
# its kernel stack (cli/guest_vcpu.c), and the panicked vCPU sits in
# panic() under sysrq_handle_crash.  Its sample is among the newest (filed
# after every record), so the check of the last 50 samples' chains is
# deterministic; the guest kernel's own samples of that path, when it
# took any, come on top.
vs=$(sed -n '/^vCPU stacks: /,/^[^ ]/p' "$W/snap.out")
if printf '%s\n' "$vs" | grep -q "^    vCPU [0-9]* (kernel.*panic+0x[0-9a-f]* <- sysrq_handle_crash+"; then
	ok "snapshot: the panicked vCPU's stack: $(printf '%s\n' "$vs" | grep -m 1 'panic+' | sed 's/^ *//' | cut -c1-150)"
else
	bad "snapshot: no vCPU stack with panic <- sysrq_handle_crash"; printf '%s\n' "$vs"
fi
if python3 "$KCHECK" crash "$W/snap.chains" 50 panic sysrq_handle_crash \
	__handle_sysrq write_sysrq_trigger > "$W/crash"; then
	ok "snapshot: $(head -n 1 "$W/crash")"
else
	bad "snapshot: $(head -n 1 "$W/crash")"
fi
sed -n '2,$p' "$W/crash"
# a flight recorder may have overwritten the workload's MMAP2 records
# (written once per process and ring): said, not asserted
[ -n "$WPID" ] && user_syms "$W/snap.data" snapshot note
[ -n "$WPID" ] && user_syms_cache "$W/snap.data" snap note
"$RINGSIDE" snapshot $DOM -o "$W/snap2.data" -q && ok "live snapshot DOMAIN" ||
	bad "live snapshot DOMAIN"

# ---- D: the region header scribbled over ----------------------------------
# The host can write the region file, so this is what a guest that zeroed
# its header looks like.  The rings are read by the layout the hook laid
# out from the domain's metadata (docs/cli.md, "A damaged region header").
# The guest is dead (its agent stopped): the rings hold what they held
# before, and the snapshot must give exactly that.  Without the vCPU
# samples: the panicked vCPU spins in a delay loop, its RIP read twice
# differs.
"$RINGSIDE" snapshot $DOM --stable --no-guest-buffers --no-vcpu-stacks \
	-o "$W/whole.data" -q ||
	bad "snapshot before the scribble"
rings=$("$RINGSIDE" stat $DOM | sed -n 's/^region .*: \([0-9]*\) rings.*/\1/p')
dd if=/dev/zero of="$SHM" bs=64 count=1 conv=notrunc status=none ||
	bad "cannot write $SHM"
"$RINGSIDE" snapshot $DOM --stable --no-guest-buffers --no-vcpu-stacks \
	-o "$W/dmg.data" > "$W/dmg.out" 2> "$W/dmg.err"
rc=$?
[ $rc = 3 ] && ok "snapshot DOMAIN of a scribbled header: exit 3" ||
	{ bad "snapshot DOMAIN of a scribbled header: exit $rc"; cat "$W/dmg.err"; }
grep -q "header damaged: magic (guest says 0, host laid out 0x.*nr_rings (guest says 0, host laid out $rings)" "$W/dmg.err" &&
	ok "it names the damage: $(head -n 1 "$W/dmg.err")" ||
	{ bad "snapshot of a scribbled header: no damage named"; cat "$W/dmg.err"; }
"$RINGSIDE" dump "$W/whole.data" > "$W/whole.dump" 2>&1
"$RINGSIDE" dump "$W/dmg.data" > "$W/dmg.dump" 2>&1
[ -s "$W/whole.dump" ] && cmp -s "$W/whole.dump" "$W/dmg.dump" &&
	ok "every ring's records, the newest included, as before the scribble ($(wc -l < "$W/dmg.dump") records)" ||
	bad "the snapshot of the scribbled region differs from the one before"
"$RINGSIDE" stat $DOM > "$W/dmg.stat" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "header damaged" "$W/dmg.stat" && ok "stat DOMAIN: exit 3, damage named" ||
	{ bad "stat DOMAIN of a scribbled header: exit $rc"; cat "$W/dmg.stat"; }
vsh destroy $DOM >/dev/null

# ---- E: a flight recorder wrapped many times, its processes kept -----------
# A 16-page overwrite ring under a workload that keeps running (and
# processes that come and go): live snapshots until a ring has wrapped
# at least 10 times, then a crash.  Of the user samples of the processes
# alive at the end, perf gives >= 99% their binary (not [unknown]) in the
# live snapshot and in the crash snapshot, from the agent's process state
# table filed at each file's head; --no-process-state says what the
# rings alone give.
# alive_dso FILE WHAT: "NAMED ALL" user samples (the sampling event's;
# user addresses are shorter than the kernel's 16 hex digits) of the
# pids in $ALIVE
alive_dso() {
	perf script -i "$1" -G -F pid,event,ip,dso > "$W/$2.dso" 2> "$W/$2.dso.err"
	awk -v alive=" $ALIVE " '$2 == "ringside:sample:" && NF >= 4 &&
		length($3) < 16 && index(alive, " " $1 " ") {
			all++; if ($4 != "([unknown])") named++ }
		END { printf "%d %d\n", named, all }' "$W/$2.dso"
}
# flight_judge FILE0 FILE WHAT: the share without and with the table
flight_judge() {
	local b a
	# shellcheck disable=SC2046  # two numbers
	set -- "$1" "$2" "$3" $(alive_dso "$1" "$3-0") $(alive_dso "$2" "$3")
	b="$(($4 * 1000 / ($5 ? $5 : 1)))" a="$(($6 * 1000 / ($7 ? $7 : 1)))"
	line="$3: of the $7 user samples of the processes alive at the end, $6 ($((a / 10)).$((a % 10))%) have their binary (rings alone: $4 of $5, $((b / 10)).$((b % 10))%)"
	if [ "$7" -gt 0 ] && [ $(($6 * 100)) -ge $(($7 * 99)) ]; then
		ok "$line"
	else
		bad "$line"
		awk -v alive=" $ALIVE " '$2 == "ringside:sample:" && NF >= 4 &&
			length($3) < 16 && index(alive, " " $1 " ") &&
			$4 == "([unknown])" { print $1 }' \
			"$W/$3.dso" | sort | uniq -c | sort -rn | head -n 5 | sed 's/^/     /'
		grep "process state" "$W/$3.out" | sed 's/^/     /'
	fi
}
"$RINGSIDE" enable $DOM --data-pages 16 >/dev/null || bad "enable (flight, 16 pages)"
vsh dumpxml --inactive $DOM | sed 's/rs_e2e=panic/rs_e2e=flight/' > "$W/domain3.xml"
vsh define "$W/domain3.xml" >/dev/null || bad "redefine for the flight run"
note "start with a 16-page overwrite ring; the workload keeps running"
rm -f "$W/console.log"
vsh start $DOM >/dev/null || { bad "virsh start (flight run)"; exit 1; }
wraps=0
if wait_console "E2E-FLIGHT-WAIT" 240; then
	# the producer's count over what the ring holds, of the ring that
	# wrote most; not timed: as many live snapshots as it takes
	for _ in $(seq 300); do
		"$RINGSIDE" snapshot $DOM -o "$W/flive.data" > "$W/flive.out" 2>&1 ||
			{ bad "live snapshot (flight)"; cat "$W/flive.out"; break; }
		wraps=$(awk '/holds the newest/ && $4 > 0 { w = int($7 / $4); if (w > m) m = w }
			END { print m + 0 }' "$W/flive.out")
		[ "$wraps" -ge 10 ] && break
		sleep 1
	done
	"$RINGSIDE" snapshot $DOM --no-process-state -o "$W/flive0.data" > "$W/flive-0.out" 2>&1 ||
		bad "live snapshot --no-process-state"
	[ "$wraps" -ge 10 ] && ok "flight: a ring wrapped $wraps times; $(grep -m 1 'process state' "$W/flive.out" | sed 's/^ *//')" ||
		bad "flight: the ring wrapped only $wraps times"
	vsh send-key $DOM KEY_ENTER >/dev/null || bad "virsh send-key (flight)"
fi
if wait_console "Kernel panic" 120; then
	# the pids the guest listed before its crash, in its kernel's log
	# (so on the console before the panic's own lines): none is a
	# failure of its own, not a share of nothing
	ALIVE=$(sed -n 's/.*E2E-ALIVE \([0-9 ]*\).*/\1/p' "$W/console.log" | head -n 1)
	[ -n "${ALIVE// /}" ] || bad "flight: no E2E-ALIVE line with the processes alive at the end on the console before the panic"
	"$RINGSIDE" snapshot $DOM --stable -o "$W/fcrash.data" > "$W/fcrash.out" 2>&1 ||
		bad "crash snapshot (flight)"
	"$RINGSIDE" snapshot $DOM --stable --no-process-state -o "$W/fcrash0.data" \
		> "$W/fcrash-0.out" 2>&1 || bad "crash snapshot --no-process-state"
	flight_judge "$W/flive0.data" "$W/flive.data" flive
	flight_judge "$W/fcrash0.data" "$W/fcrash.data" fcrash
	unknown_judge "$W/flive.data" "flight, live snapshot" "$W/flive.out"
	unknown_judge "$W/fcrash.data" "flight, crash snapshot" "$W/fcrash.out"
	note "the agent's process state: $(grep -m 1 'process state' "$W/fcrash.out" | sed 's/^ *//')"
fi
captures_now
vsh destroy $DOM >/dev/null
# the hook's capture of the crashed domain, from its region file alone
if cap=$(new_capture 20); then
	unknown_judge "$cap" "flight, the hook's capture"
else
	bad "flight: no capture of the crashed domain by the hook"
fi

# ---- F: a recording that begins after its rings filled ----------------------
# A 16-page normal ring and the flight workload: nobody drains it until a
# ring has lost records (its producer's claim, `stat`).  Then `record`: the
# records the rings held are in the file, counted; the losses from before
# are counted apart, so perf has no lost chunks to warn of.
"$RINGSIDE" enable $DOM --mode normal --data-pages 16 >/dev/null || bad "enable (normal, 16 pages)"
note "start with a 16-page normal ring that nobody drains"
rm -f "$W/console.log"
vsh start $DOM >/dev/null || { bad "virsh start (late record)"; exit 1; }
if wait_console "E2E-FLIGHT-WAIT" 240; then
	glost=0
	for _ in $(seq 300); do
		"$RINGSIDE" stat $DOM > "$W/lstat" 2>&1
		glost=$(awk '$2 == "normal" { if ($12 > m) m = $12 } END { print m + 0 }' "$W/lstat")
		[ "$glost" -gt 0 ] && break
		sleep 1
	done
	"$RINGSIDE" record $DOM -o "$W/late.data" -d 3 > "$W/late.out" 2> "$W/late.err" ||
		{ bad "record after the rings filled: status $?"; cat "$W/late.err"; }
	"$RINGSIDE" report "$W/late.data" --json > "$W/late.json"
	# early records, early losses, LOST records of the recording's own
	read -r e_rec e_lost own_lost < <(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
h = [r["host"] for r in d["rings"]]
print(sum(x["early_records"] for x in h), sum(x["early_lost"] + x["early_lost_samples"] for x in h), d["total"]["types"]["lost"])' "$W/late.json")
	line=$(grep -m 1 "predate the recording" "$W/late.out")
	[ "$glost" -gt 0 ] && [ "${e_rec:-0}" -gt 0 ] && [ "${e_lost:-0}" -gt 0 ] &&
		[[ "$line" == "  $e_rec records and $e_lost losses predate the recording"* ]] &&
		ok "record after the rings filled (the guest claimed $glost lost): $e_rec records and $e_lost losses predate it, said in the summary" ||
		{ bad "record after the rings filled: stat lost '$glost', early '$e_rec' '$e_lost', summary '$line'"; cat "$W/late.out"; }
	perf report -i "$W/late.data" --stdio > /dev/null 2> "$W/late.perr"
	chunks=$(sed -n 's/.*Processed [0-9]* events and lost \([0-9]*\) chunks.*/\1/p' "$W/late.perr")
	[ "${chunks:-0}" = "${own_lost:-x}" ] &&
		ok "perf report: lost chunks '${chunks:-none}', the recording's own LOST records: $own_lost" ||
		bad "perf report warns of ${chunks:-no} lost chunks; the recording's own LOST records: '$own_lost'"
	vsh send-key $DOM KEY_ENTER >/dev/null
fi
vsh destroy $DOM >/dev/null

"$RINGSIDE" disable $DOM >/dev/null
vsh dumpxml --inactive $DOM | grep -q ringside && bad "disable left ringside in the XML" ||
	ok "disable removed ringside from the XML"

note "done: $fails failed"
[ $fails = 0 ]
