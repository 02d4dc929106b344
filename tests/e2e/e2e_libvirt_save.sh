#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A recording that outlives the guest's saves, with a real Linux guest,
# real QEMU and a real libvirtd:
#
#   e2e_libvirt_save.sh RINGSIDE AGENT MARK WORKLOAD HOOK
#
# An enabled domain (normal mode) boots the Debian kernel with the agent;
# its /init (written here) sends a marker every few tenths of a second
# (ringside-mark --sync: in the ring when it returns, then said on the
# console).  `ringside record DOMAIN -o rec.data` runs throughout while the
# domain is (1) saved (virsh save) and restored, then (2) managedsaved and
# started again.  Checked:
#   - record goes on across both: it says the domain was saved and runs
#     again, and writes rec.data (before the first save), rec.data.1
#     (between the restore and the managed save), rec.data.2 (after it);
#   - each file is whole, perf reads it, and each has its own clock
#     synced after the restore (a sync bound in every file);
#   - the markers: the last one written before each save and the first
#     ones after each restore are in the files, each marker once (none
#     delivered twice), and no marker id missing from the first to the
#     last recorded one;
#   - delivered + lost == produced per ring across it all: the records of
#     the three files, LOST records included, are exactly the guest's
#     produced counter as `ringside stat` shows it once the agent has
#     exited, and their LOST counts its lost counter.
# Nothing waits on the guest's speed but console lines (bounded by long
# timeouts).  Exit 77 when something it needs is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 HOOK_PROGRAM=$5
DOM=rs-e2e-save-$$
SHM=/dev/shm/ringside-$DOM
HOOK=/etc/libvirt/hooks/qemu.d/ringside

e2e_need_own_libvirt
W=$(lg_workdir /tmp/rs-e2e-save.XXXXXX)
GUEST_INIT=$(dirname "${BASH_SOURCE[0]}")/guest_init_marks.sh
RECORD_PID='' DEFINED='' HOOKED=''
cleanup() {
	[ -n "$RECORD_PID" ] && lg_kill_wait "$RECORD_PID"
	vsh managedsave-remove "$DOM" >/dev/null 2>&1
	e2e_teardown
	rm -f "$SHM"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wait_state STATE SECONDS: until `virsh domstate --reason` begins so
wait_state() {
	local _ s
	for _ in $(seq $(($2 * 5))); do
		s=$(vsh domstate --reason "$DOM" 2>/dev/null)
		case $s in "$1"*) return 0 ;; esac
		sleep 0.2
	done
	bad "domain state '$s', not '$1' within $2 s"
	return 1
}

# wait_record_says TEXT N SECONDS: until record's stdout has TEXT N times
wait_record_says() {
	local _
	for _ in $(seq $(($3 * 5))); do
		[ "$(grep -c -- "$1" "$W/rec.out")" -ge "$2" ] && return 0
		kill -0 "$RECORD_PID" 2>/dev/null || break
		sleep 0.2
	done
	bad "record did not say '$1' ($2 times) within $3 s"
	cat "$W/rec.out" "$W/rec.err"
	return 1
}

e2e_prepare
lg_domain_xml $DOM qemu "$W" normal > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1
"$RINGSIDE" enable $DOM --mode normal --data-pages 64 >/dev/null ||
	{ bad "enable --mode normal"; exit 1; }
vsh dumpxml --inactive $DOM | grep -q "<shmem name='ringside-$DOM' role='master'>" &&
	ok "the region's device is role='master' (migratable)" ||
	bad "no <shmem role='master'> in the XML"
note "start (TCG)"
vsh start $DOM >/dev/null || { bad "virsh start"; exit 1; }
"$RINGSIDE" record $DOM -o "$W/rec.data" -i 20 > "$W/rec.out" 2> "$W/rec.err" &
RECORD_PID=$!
LG_PROGRESS=15 wait_console "E2E-MARK 2" 240 || exit 1
note "markers flow"

# ---- 1: virsh save, virsh restore ----------------------------------------
M1=$(last_mark)
vsh save $DOM "$W/dom.save" >/dev/null || { bad "virsh save"; exit 1; }
wait_state "shut off (saved)" 60
note "saved after marker $M1: $(vsh domstate --reason $DOM)"
wait_record_says "was saved: waiting for it to run again" 1 60
kill -0 "$RECORD_PID" 2>/dev/null && ok "record waits while the domain is saved" ||
	bad "record ended when the domain was saved"
[ -e "$SHM" ] && bad "the region file outlived the saved domain's QEMU" ||
	ok "the hook removed the region file at release"
vsh restore "$W/dom.save" >/dev/null || { bad "virsh restore"; exit 1; }
wait_state running 60
wait_record_says "runs again: every ring reattached" 1 60 &&
	ok "record: $(grep -m 1 "runs again" "$W/rec.out")"
# two markers after the restore: the file between the saves has some
wait_mark_after $((M1 + 1)) 120 && note "markers after the restore: $(last_mark)"

# ---- 2: managedsave, start ------------------------------------------------
M2=$(last_mark)
vsh managedsave $DOM >/dev/null || { bad "virsh managedsave"; exit 1; }
wait_state "shut off (saved)" 60
note "managedsaved after marker $M2"
wait_record_says "was saved: waiting for it to run again" 2 60
vsh start $DOM >/dev/null || { bad "virsh start (managed save)"; exit 1; }
wait_state running 60
wait_record_says "runs again: every ring reattached" 2 60 &&
	ok "record goes on after the managed save"
wait_mark_after $((M2 + 1)) 120 && note "markers after the start: $(last_mark)"
M3=$(last_mark)

# ---- the end: the agent exits, then the counts ---------------------------
vsh send-key $DOM KEY_ENTER >/dev/null || bad "virsh send-key"
wait_console "E2E-AGENT-EXIT" 120 || true
grep -aq "E2E-AGENT-EXIT rc=0" "$W/console.log" && ok "the agent detached, status 0" ||
	bad "agent exit: $(grep -a E2E-AGENT-EXIT "$W/console.log")"
"$RINGSIDE" stat $DOM > "$W/stat" 2>&1 || bad "stat DOMAIN: $(cat "$W/stat")"
kill -INT $RECORD_PID
wait $RECORD_PID
rc=$?
RECORD_PID=
[ $rc = 0 ] && ok "record DOMAIN across two saves: exit 0" ||
	{ bad "record DOMAIN: status $rc"; cat "$W/rec.err"; }
sed 's/^/     /' "$W/rec.out"
grep -q "^across the recording: saved 2 times, ran again 2 times, 3 files$" "$W/rec.out" &&
	ok "record says: saved 2 times, ran again 2 times, 3 files" ||
	bad "record's summary of the saves"

FILES="$W/rec.data $W/rec.data.1 $W/rec.data.2"
for f in $FILES; do
	[ -s "$f" ] || { bad "no $f"; continue; }
	"$RINGSIDE" report "$f" --json > "$f.json" 2> "$f.err" || bad "report $f: $(cat "$f.err")"
	perf --buildid-dir "$(rs_cache "$f")" script -i "$f" > /dev/null \
		2> "$f.perr" && [ ! -s "$f.perr" ] &&
		ok "perf script reads $(basename "$f")" ||
		{ bad "perf script $(basename "$f")"; head -n 3 "$f.perr"; }
	off=$(python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))["clock"]["points"]; print(" ".join("%d+-%d" % (x["offset_ns"], x["bound_ns"]) for x in p))' "$f.json" 2>/dev/null)
	[ -n "$off" ] && ok "$(basename "$f") has its own clock sync: offset $off ns" ||
		bad "$(basename "$f"): no clock sync point"
	"$RINGSIDE" dump "$f" | awk '$3 == "marker" { sub("id=", "", $4); print $4 }' > "$f.marks"
done

# markers: each once, none missing, those around each save there
python3 - "$M1" "$M2" "$M3" "$W/rec.data.marks" "$W/rec.data.1.marks" \
	"$W/rec.data.2.marks" > "$W/marks.txt" <<'PY'
import sys
m1, m2, m3 = (int(x) for x in sys.argv[1:4])
files = [[int(x) for x in open(p).read().split()] for p in sys.argv[4:7]]
ids = [i for f in files for i in f if i < 0xffff0000]
dups = sorted({i for i in ids if ids.count(i) > 1})
lo, hi = min(ids), max(ids)
missing = sorted(set(range(lo, hi + 1)) - set(ids))
f0 = [i for i in files[0] if i < 0xffff0000]
f1 = [i for i in files[1] if i < 0xffff0000]
f2 = [i for i in files[2] if i < 0xffff0000]
print(f"markers {lo}..{hi}: {len(ids)} recorded, {len(dups)} twice, {len(missing)} missing; "
      f"before the save up to {max(f0)}, between {min(f1)}..{max(f1)}, after {min(f2)}..{max(f2)}")
good = (not dups and not missing and lo == 1 and max(f0) >= m1 and
        min(f1) > max(f0) and max(f1) >= m2 and min(f2) > max(f1) and hi >= m3)
if not good:
    print(f"console: before the save {m1}, before the managed save {m2}, at the end {m3}; "
          f"twice {dups[:10]}, missing {missing[:10]}")
sys.exit(0 if good else 1)
PY
[ $? = 0 ] && ok "$(head -n 1 "$W/marks.txt")" || { bad "$(head -n 1 "$W/marks.txt")"; tail -n +2 "$W/marks.txt"; }

# delivered + lost == produced, per ring, across the three files
python3 "$(dirname "${BASH_SOURCE[0]}")/balance_check.py" "$W/stat" "$W/rec.data.json" \
	"$W/rec.data.1.json" "$W/rec.data.2.json" > "$W/balance.txt"
[ $? = 0 ] && ok "delivered + lost == produced: $(tr '\n' ';' < "$W/balance.txt")" ||
	{ bad "delivered + lost != produced"; cat "$W/balance.txt" "$W/stat"; }

vsh destroy $DOM >/dev/null 2>&1
"$RINGSIDE" disable $DOM >/dev/null || bad "disable"
note "done: $fails failed"
[ $fails = 0 ]
