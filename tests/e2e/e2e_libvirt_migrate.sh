#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Live migration of an enabled guest, with a real Linux guest, real QEMU
# and a real libvirtd:
#
#   e2e_libvirt_migrate.sh RINGSIDE AGENT MARK WORKLOAD HOOK QEMU_DST
#
# libvirt refuses to migrate a domain to its own host, so the destination
# is a QEMU this script starts with the source's own command line (read
# from /proc, libvirt's descriptors replaced by paths of its own: QEMU_DST,
# qemu_dst.py), its region's memory backend on a file of its own and
# -incoming tcp:127.0.0.1:PORT.  ringside's hook runs for it as the
# destination host's libvirt would run it (`ringside hook run`, the domain
# renamed DOMAIN-dst so that its region is /dev/shm/ringside-DOMAIN-dst):
# prepare lays the region out before QEMU starts, release captures it
# after QEMU ends.  The source is the domain libvirtd runs, enabled in
# overwrite mode (markers only); it migrates through QMP (virsh
# qemu-monitor-command).  Its /init (written here) sends a marker every
# few tenths of a second (ringside-mark --sync: in the ring when it
# returns, then said on the console).  Checked:
#   1. a migration to a port nobody listens on fails, and one to a
#      destination QEMU killed halfway (the bandwidth held low, killed
#      once some MiB went) fails: both times the source runs on, its
#      region file is the same file (inode, size), and the markers written
#      after the failure are in a snapshot of it, with every earlier one;
#   2. a migration that completes: the destination runs, the source is
#      paused; the destination's region file parses (`stat PATH`: the
#      header came across with the guest's RAM) and a snapshot of it taken
#      at once holds every marker written on the source (1..N, none twice);
#   3. the agent keeps writing there: markers the guest writes after the
#      migration (seen on the destination's console) are in a later
#      snapshot of the destination's file, the heartbeat moves, and the
#      source's file has none of them; at the end the agent detaches
#      cleanly on the destination, and the destination's hook captures
#      the migrated region at release with every marker of the run.
# What the hook keeps of a failed incoming migration (the destination's
# release) and of the source after a migration (its release) is said,
# not judged: libvirt tells neither hook why the domain stopped.
# Nothing waits on the guest's speed but console lines and the migration's
# states (bounded).  Exit 77 when something it needs is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 HOOK_PROGRAM=$5 QEMU_DST=$6
DOM=rs-e2e-mig-$$
SHM=/dev/shm/ringside-$DOM
DOMDST=$DOM-dst
DST_SHM=/dev/shm/ringside-$DOMDST
HOOK=/etc/libvirt/hooks/qemu.d/ringside

e2e_need_own_libvirt
command -v python3 >/dev/null || skip "no python3"
W=$(lg_workdir /tmp/rs-e2e-mig.XXXXXX)
CAP=$W/captures
GUEST_INIT=$(dirname "${BASH_SOURCE[0]}")/guest_init_marks.sh
DST_PIDS='' DEFINED='' HOOKED=''
cleanup() {
	local p
	for p in $DST_PIDS; do lg_kill_wait "$p"; done
	e2e_teardown
	rm -f "$SHM" "$SHM~kept" "$DST_SHM" "$DST_SHM~kept"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# qmp_src COMMAND [JSON-ARGUMENTS]: a QMP command to the source's QEMU,
# through libvirt; its "return" as JSON
qmp_src() {
	local m
	m="{\"execute\":\"$1\"${2:+,\"arguments\":$2}}"
	vsh qemu-monitor-command "$DOM" "$m" |
		python3 -c 'import json,sys; m = json.load(sys.stdin); print(json.dumps(m.get("return", m)))'
}

# mig_field JSON KEY...: a field of query-migrate's answer
mig_field() {
	python3 -c 'import json,sys
v = json.loads(sys.argv[1])
for k in sys.argv[2:]:
    v = v.get(k, {}) if isinstance(v, dict) else {}
print(v if v != {} else "")' "$@"
}

# wait_migration STATES SECONDS: until the source's migration status is
# one of STATES (space-separated); the last answer in MIG, status in MST
wait_migration() {
	local _
	for _ in $(seq $(($2 * 5))); do
		MIG=$(qmp_src query-migrate)
		MST=$(mig_field "$MIG" status)
		case " $1 " in *" $MST "*) return 0 ;; esac
		sleep 0.2
	done
	return 1
}

# start_dst NAME PORT: a destination QEMU waiting for the migration on
# PORT, its region on DST_SHM, monitor $W/NAME.qmp, console
# $W/NAME-console.log; its pid in DST_PID
start_dst() {
	local qpid _ argv
	qpid=$(cat "/run/libvirt/qemu/$DOM.pid")
	rm -f "$W/$1.qmp" "$W/$1-console.log"
	python3 "$QEMU_DST" argv "$qpid" "$SHM" "$DST_SHM" "$W/$1.qmp" \
		"$W/$1-console.log" "$2" > "$W/$1.argv" ||
		{ bad "the destination's command line from pid $qpid"; return 1; }
	mapfile -d '' argv < "$W/$1.argv"
	"${argv[@]}" > "$W/$1.out" 2>&1 &
	DST_PID=$!
	DST_PIDS="$DST_PIDS $DST_PID"
	for _ in $(seq 100); do
		[ -S "$W/$1.qmp" ] && python3 "$QEMU_DST" qmp "$W/$1.qmp" query-status \
			>/dev/null 2>&1 && return 0
		kill -0 $DST_PID 2>/dev/null || break
		sleep 0.2
	done
	bad "the destination QEMU ($1) does not answer: $(tail -n 3 "$W/$1.out")"
	return 1
}

# snap_marks REGION NAME: snapshot REGION into $W/NAME.data and its marker
# ids, in file order, into $W/NAME.marks
snap_marks() {
	"$RINGSIDE" snapshot "$1" -o "$W/$2.data" -q 2> "$W/$2.err" ||
		{ bad "snapshot $1: $(cat "$W/$2.err")"; return 1; }
	"$RINGSIDE" dump "$W/$2.data" |
		awk '$3 == "marker" { sub("id=", "", $4); if ($4 + 0 < 4294901760) print $4 }' > "$W/$2.marks"
}

# marks_check NAME LO HI: NAME.marks holds every id from 1 to at least HI,
# each once, and none above LO (LO empty: no bound); says so
marks_check() {
	python3 - "$W/$1.marks" "$2" "$3" <<'PY'
import sys
ids = [int(x) for x in open(sys.argv[1]).read().split()]
hi_bound = int(sys.argv[2]) if sys.argv[2] else None
need = int(sys.argv[3])
dups = sorted({i for i in ids if ids.count(i) > 1})
top = max(ids) if ids else 0
missing = sorted(set(range(1, top + 1)) - set(ids))
print(f"markers 1..{top}: {len(ids)} there, {len(dups)} twice, {len(missing)} missing"
      + (f" {missing[:8]}" if missing else "") + (f" twice {dups[:8]}" if dups else ""))
good = ids and not dups and not missing and top >= need and \
    (hi_bound is None or top <= hi_bound)
sys.exit(0 if good else 1)
PY
}

hb() { sed -n 's/.*heartbeat \([0-9]*\).*/\1/p' "$1" | head -n 1; }

# hook_dst OP SUBOP: ringside's hook as the destination host's libvirt
# would run it for the domain (here named DOMDST, so that its region is
# DST_SHM beside the source's): the domain's live XML, renamed
hook_dst() {
	vsh dumpxml $DOM | sed "s|<name>$DOM</name>|<name>$DOMDST</name>|; s|name='ringside-$DOM'|name='ringside-$DOMDST'|" |
		"$RINGSIDE" hook run --capture-dir "$CAP" $DOMDST "$1" "$2" - > "$W/hook.$1.out" 2>&1
}

e2e_prepare
"$RINGSIDE" hook install --program "$HOOK_PROGRAM" --capture-dir "$CAP" >/dev/null ||
	{ bad "hook install --capture-dir"; exit 1; }
lg_domain_xml $DOM qemu "$W" normal > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1
"$RINGSIDE" enable $DOM --trace markers --data-pages 64 >/dev/null ||
	{ bad "enable --trace markers"; exit 1; }
vsh dumpxml --inactive $DOM | grep -q "<shmem name='ringside-$DOM' role='master'>" &&
	ok "the region's device is role='master' (migratable)" ||
	bad "no <shmem role='master'> in the XML"
note "start (TCG)"
vsh start $DOM >/dev/null || { bad "virsh start"; exit 1; }
LG_PROGRESS=15 wait_console "E2E-MARK 2" 240 || exit 1
INODE=$(stat -c '%i %s' "$SHM")
note "markers flow; the source's region $SHM (inode, size: $INODE)"

# ---- 1a: a port nobody listens on -----------------------------------------
PORT=$(python3 "$QEMU_DST" port)
qmp_src migrate "{\"uri\":\"tcp:127.0.0.1:$PORT\"}" > "$W/mig0" 2>&1
wait_migration "failed" 30 && ok "migration to a closed port: status $MST" ||
	bad "migration to a closed port: $(cat "$W/mig0"), status $MST"
[ "$(vsh domstate $DOM)" = running ] && ok "the source runs on" ||
	bad "the source is $(vsh domstate $DOM)"

# ---- 1b: a destination killed halfway ---------------------------------------
# 1 MiB/s: the guest's RAM takes tens of seconds, the destination dies
# once 2 MiB have gone, long before the end
qmp_src migrate-set-parameters '{"max-bandwidth":1048576}' >/dev/null ||
	bad "migrate-set-parameters max-bandwidth"
# as on a destination host: the hook lays the region out at prepare,
# QEMU maps that file, the incoming stream writes over it
hook_dst prepare begin || { bad "hook prepare begin (destination): $(cat "$W/hook.prepare.out")"; exit 1; }
PORT=$(python3 "$QEMU_DST" port)
start_dst dst1 "$PORT" || exit 1
M0=$(last_mark)
qmp_src migrate "{\"uri\":\"tcp:127.0.0.1:$PORT\"}" > "$W/mig1" 2>&1 ||
	bad "migrate (to be killed): $(cat "$W/mig1")"
sent=0
for _ in $(seq 300); do
	MIG=$(qmp_src query-migrate)
	MST=$(mig_field "$MIG" status)
	sent=$(mig_field "$MIG" ram transferred)
	[ "$MST" = active ] && [ "${sent:-0}" -ge 2097152 ] && break
	case $MST in completed|failed|cancelled) break ;; esac
	sleep 0.2
done
if [ "$MST" = active ]; then
	kill -KILL "$DST_PID"
	wait "$DST_PID" 2>/dev/null
	ok "the destination QEMU killed halfway: $sent bytes of RAM sent, status $MST"
else
	bad "the migration to kill was '$MST' after $sent bytes"
fi
wait_migration "failed cancelled" 60 && ok "the source's migration ended: $MST" ||
	bad "the source's migration after the destination died: $MST"
[ "$(vsh domstate $DOM)" = running ] && ok "the source runs on" ||
	bad "the source is $(vsh domstate $DOM) after the failed migration"
[ "$(stat -c '%i %s' "$SHM" 2>/dev/null)" = "$INODE" ] &&
	ok "the source keeps its region file (same inode and size)" ||
	bad "the source's region file changed: $(stat -c '%i %s' "$SHM" 2>&1) (was $INODE)"
# the destination's libvirt would stop its QEMU and run release
hook_dst release end
rc=$?
[ -e "$DST_SHM" ] && bad "the hook left $DST_SHM after the failed incoming migration" ||
	ok "the destination's hook at release (status $rc) removed its region file"
n=$(find "$CAP/$DOMDST" -name '*.data' 2>/dev/null | wc -l)
note "what the destination's hook kept of the failed incoming migration: $n capture(s), $(ls "$DST_SHM~kept" 2>/dev/null | wc -l) ~kept file; it said: $(tr '\n' ' ' < "$W/hook.release.out")"
M1=$(last_mark)
wait_mark_after $((M1 + 1)) 120 || exit 1
M1=$(last_mark)
"$RINGSIDE" stat $DOM > "$W/stat.dom" 2>&1 && grep -q "agent attached" "$W/stat.dom" &&
	ok "stat DOMAIN after the failures: $(sed -n 2p "$W/stat.dom")" ||
	bad "stat DOMAIN after the failures: $(cat "$W/stat.dom")"
snap_marks "$SHM" failed || exit 1
r=$(marks_check failed "" "$M1") && ok "the source's region after the failures: $r" ||
	bad "the source's region after the failures: $r"
note "markers $M0 before the killed migration, $M1 after it"
"$RINGSIDE" stat "$SHM" > "$W/stat.failed" 2>&1 ||
	bad "stat of the source's region: $(cat "$W/stat.failed")"

# ---- 2: a migration that completes ------------------------------------------
# At full speed: it converges in a pass or two.  (A migration held in
# many passes, bandwidth low and downtime limit tiny, corrupts this
# guest's kernel on the destination under QEMU 7.2's TCG, with or without
# ringside's device: not tried here.)
qmp_src migrate-set-parameters '{"max-bandwidth":1073741824}' >/dev/null ||
	bad "migrate-set-parameters max-bandwidth"
hook_dst prepare begin || { bad "hook prepare begin (destination): $(cat "$W/hook.prepare.out")"; exit 1; }
snap_marks "$DST_SHM" dst-laid-out || exit 1
[ ! -s "$W/dst-laid-out.marks" ] && ok "the destination's region, laid out by the hook, has no marker yet" ||
	bad "the destination's fresh region has markers: $(head -c 80 "$W/dst-laid-out.marks")"
PORT=$(python3 "$QEMU_DST" port)
start_dst dst "$PORT" || exit 1
DST=$DST_PID
M2=$(last_mark)
t0=$(date +%s%N)
qmp_src migrate "{\"uri\":\"tcp:127.0.0.1:$PORT\"}" > "$W/mig2" 2>&1 ||
	bad "migrate: $(cat "$W/mig2")"
wait_migration "completed failed cancelled" 180
t1=$(date +%s%N)
if [ "$MST" = completed ]; then
	ok "migration completed in $(( (t1 - t0) / 1000000 )) ms as seen here: total $(mig_field "$MIG" total-time) ms, downtime $(mig_field "$MIG" downtime) ms, $(mig_field "$MIG" ram transferred) bytes of RAM"
else
	bad "migration: $MST ($MIG)"
	exit 1
fi
M3=$(last_mark)
# the destination runs once it has loaded the last of the stream
for _ in $(seq 150); do
	st=$(python3 "$QEMU_DST" qmp "$W/dst.qmp" query-status)
	[ "$(mig_field "$st" status)" = running ] && break
	sleep 0.2
done
[ "$(mig_field "$st" status)" = running ] && ok "the destination runs" ||
	bad "the destination: $st"
vsh domstate --reason $DOM | grep -q '^paused' && ok "the source is $(vsh domstate --reason $DOM)" ||
	bad "the source is $(vsh domstate --reason $DOM)"
[ -f "$DST_SHM" ] && [ "$(stat -c %s "$DST_SHM")" = "${INODE#* }" ] &&
	ok "the destination's region file is there, $(stat -c %s "$DST_SHM") bytes" ||
	bad "the destination's region file: $(stat -c %s "$DST_SHM" 2>&1)"
"$RINGSIDE" stat "$DST_SHM" > "$W/stat.dst1" 2>&1 ||
	bad "stat $DST_SHM: $(cat "$W/stat.dst1")"
# the header is guest RAM too: the layout, the modes, the agent's
# attachment and its kernel's build id are the source's
hdr() { sed -n '1s/^region [^:]*: //p; /agent attached/s/, heartbeat.*//p; /build id/p' "$1"; }
[ "$(hdr "$W/stat.dst1" | wc -l)" = 3 ] && [ "$(hdr "$W/stat.dst1")" = "$(hdr "$W/stat.failed")" ] &&
	ok "stat of the destination's region: the source's header ($(hdr "$W/stat.dst1" | head -n 1))" ||
	{ bad "the destination's header is not the source's"; diff <(hdr "$W/stat.failed") <(hdr "$W/stat.dst1"); }
snap_marks "$DST_SHM" dst-at-once || exit 1
r=$(marks_check dst-at-once "" "$M3") &&
	ok "the destination's region holds the source's records: $r (the source's console: $M3 at the end)" ||
	bad "the destination's region at once: $r (the source's console: $M3)"
note "markers: $M2 when the migration began, $M3 when it completed"

# ---- 3: the agent keeps writing on the destination ------------------------
wait_mark_after $((M3 + 2)) 120 "$W/dst-console.log" || exit 1
M4=$(last_mark "$W/dst-console.log")
snap_marks "$DST_SHM" dst-later || exit 1
r=$(marks_check dst-later "" "$M4") &&
	ok "markers written on the destination are in its region: $r (its console: $M4)" ||
	bad "the destination's region later: $r (its console: $M4)"
"$RINGSIDE" stat "$DST_SHM" > "$W/stat.dst2" 2>&1
h1=$(hb "$W/stat.dst1") h2=$(hb "$W/stat.dst2")
[ -n "$h1" ] && [ -n "$h2" ] && [ "$h2" -gt "$h1" ] &&
	ok "the agent's heartbeat in the destination's region: $h1 -> $h2" ||
	bad "heartbeat in the destination's region: '$h1' -> '$h2'"
snap_marks "$SHM" src-after || exit 1
top=$(sort -n "$W/src-after.marks" | tail -n 1)
r=$(marks_check src-after "" "$M3") && [ "$top" -lt "$M4" ] &&
	ok "the source's region (paused) stops at marker $top: $((top + 1))..$M4 are the destination's alone" ||
	bad "the source's region after the migration: $r (the destination's console: $M4)"

# ---- the end: the agent exits on the destination -------------------------
python3 "$QEMU_DST" qmp "$W/dst.qmp" send-key '{"keys":[{"type":"qcode","data":"ret"}]}' >/dev/null ||
	bad "send-key to the destination"
lg_wait_console "$W/dst-console.log" "E2E-AGENT-EXIT" 120 || true
grep -aq "E2E-AGENT-EXIT rc=0" "$W/dst-console.log" &&
	ok "the agent detached on the destination, status 0" ||
	bad "agent exit on the destination: $(grep -a E2E-AGENT-EXIT "$W/dst-console.log")"
M5=$(last_mark "$W/dst-console.log")
python3 "$QEMU_DST" qmp "$W/dst.qmp" quit >/dev/null 2>&1
lg_kill_wait "$DST"
# the destination's QEMU stopped: its hook captures the migrated region
rm -rf "${CAP:?}/$DOMDST"
hook_dst release end || bad "hook release end (destination): $(cat "$W/hook.release.out")"
c=$(find "$CAP/$DOMDST" -name '*.data' 2>/dev/null | head -n 1)
if [ -n "$c" ] && [ ! -e "$DST_SHM" ]; then
	"$RINGSIDE" dump "$c" |
		awk '$3 == "marker" { sub("id=", "", $4); if ($4 + 0 < 4294901760) print $4 }' > "$W/dst-capture.marks"
	r=$(marks_check dst-capture "" "$M5") &&
		ok "the destination's capture at release holds the guest's whole run: $r" ||
		bad "the destination's capture at release: $r (its console: $M5)"
else
	bad "no capture of the destination's region at release ($(cat "$W/hook.release.out"))"
fi
vsh destroy $DOM >/dev/null 2>&1
note "captures the hook made of the source's region at release: $(find "$CAP/$DOM" -name '*.data' 2>/dev/null | wc -l)"
"$RINGSIDE" disable $DOM >/dev/null || bad "disable"
note "done: $fails failed"
[ $fails = 0 ]
