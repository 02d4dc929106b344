#!/bin/bash
# The service's recording on a full disk, without libvirt (svc-rec-multi
# records a region file the cli suite's producer writes), on a small
# tmpfs of its own:
# 1. the file being written when the disk fills is cut back to its last
#    whole record on disk and completed (perf and report read it, its
#    sidecar says "disk-full" and what it could not hold); the recording
#    pauses, and starts again in a new file once room is made; every
#    record the producer attempted is in a file, counted in a LOST
#    record, or counted as lost to the full disk;
# 2. with rotation, the domain's oldest recordings are removed to make
#    room and its newest kept;
# 3. a domain without older files of its own has the oldest of the
#    other domains removed, never one's newest;
# 4. on a disk out of inodes (a small tmpfs's nr_inodes), a sidecar that
#    finds no room has room made (the domain's older recording removed)
#    and is written, and the next file, which cannot be begun, takes no
#    name: the files' counters run on without a gap once it is begun.
# Usage: svc_disk_full.sh RINGSIDE PRODUCER SVC_REC_MULTI
MULTI=$3
. "$(dirname "$0")/../cli/lib.sh" "$1" "$2"

[ "$(id -u)" = 0 ] || skip "not root: cannot mount the small tmpfs this test fills"
R=$RINGSIDE
MNT=$WORK/mnt
mkdir -p "$MNT"
mount -t tmpfs -o size=32m ringside-disk-full "$MNT" 2>"$WORK/mount.err" ||
	skip "mount -t tmpfs refused: $(cat "$WORK/mount.err")"
INO=$WORK/ino
trap 'umount "$MNT" 2>/dev/null; umount "$INO" 2>/dev/null; cleanup' EXIT
DIR=$MNT/rec
REG=$(region full)

# status_field FILE NAME: a number from svc-rec-multi's counts line.
status_field() {
	awk -v f="$2" '{ for (i = 1; i < NF; i += 2) if ($i == f) print $(i + 1) }' "$1" 2>/dev/null
}

# wait_status NAME MIN SECONDS: until the counts say NAME >= MIN.
wait_status() {
	local i=0 v
	while :; do
		v=$(status_field "$WORK/status" "$1")
		[ -n "$v" ] && [ "$v" -ge "$2" ] && return 0
		i=$((i + 1))
		[ "$i" -le $(($3 * 20)) ] || { cat "$WORK/multi.err" >&2; fail "timed out waiting for $1 >= $2 (${v:-none})"; }
		sleep 0.05
	done
}

# wait_log FILE TEXT SECONDS: until svc-rec-multi's log FILE says TEXT;
# status 1 if it did not (the caller's check says what was missing).
wait_log() {
	local _
	for _ in $(seq $(($3 * 20))); do
		grep -q -- "$2" "$1" && return 0
		sleep 0.05
	done
	return 1
}

# stop_multi ERR: svc-rec-multi told to stop (each domain's file
# completed), and its end; ERR its log.
stop_multi() {
	touch "$WORK/until"
	wait "$DRV" || { cat "$1" >&2; fail "svc-rec-multi failed"; }
	BG_PIDS=""
}

PERF=$(command -v perf) && "$PERF" version >/dev/null 2>&1 || PERF=
[ -n "$PERF" ] || note "perf does not run here: report alone reads the files"

note "1. a file cut back on a full disk, recording again once there is room"
# 2 rings of 2 MiB, 80000 64-byte records each as fast as the producer
# goes (the rings overflow: LOST records): whatever the timing, at least
# 4 MiB of records enter the rings, over 8 MiB in perf.data, and the
# recorder drains them all unless the disk is full.  3 MiB are free: the
# writer's third 1 MiB flush fills the disk.  Once the filler is gone,
# 29 MiB are free, more than the 22 MiB all 160000 records would take.
"$PRODUCER" create "$REG" --rings 2 --data-pages 512 || fail "create"
dd if=/dev/zero of="$MNT/filler" bs=1M count=29 status=none || fail "filler"
"$MULTI" --no-pprof --retry-ms 50 --until "$WORK/until" --status "$WORK/status" \
	"$DIR" dom1="$REG" >"$WORK/multi.out" 2>"$WORK/multi.err" &
DRV=$!
BG_PIDS="$DRV"
wait_status started 1 30
"$PRODUCER" write "$REG" --records 80000 --rate 0 \
	--flush-timeout 300 >"$WORK/producer.out" 2>"$WORK/producer.err" &
PROD=$!
BG_PIDS="$DRV $PROD"
wait_status disk_full 1 120
grep -q "dom1: the disk is full (" "$WORK/multi.err" || fail "the full disk was not logged"
# paused: no room is made while the filler holds it (it is no recording)
wait_status salvaged 1 30
note "a capture on the full disk fails, says why, leaves nothing, keeps the region"
OREG=$(region flight)
"$PRODUCER" create "$OREG" --rings 1 --data-pages 4 --overwrite || fail "create flight"
"$PRODUCER" write "$OREG" --records 500 >/dev/null || fail "write flight"
cp "$OREG" "$WORK/flight.before"
# what the cut gave back, taken too: the disk is full to the last block
dd if=/dev/zero of="$MNT/filler2" bs=4k status=none 2>/dev/null
run 1 cap-full "$MULTI" --flight "$MNT/cap" dom2 "$OREG"
expect_in "$WORK/cap-full.out" "No space left on device"
[ -z "$(ls -A "$MNT/cap/dom2" 2>/dev/null)" ] || { ls -l "$MNT/cap/dom2"; fail "the failed capture left a file"; }
cmp -s "$OREG" "$WORK/flight.before" || fail "the failed capture changed the region"
rm -f "$MNT/filler" "$MNT/filler2"
run 0 cap-room "$MULTI" --flight "$MNT/cap" dom2 "$OREG"
expect_in "$WORK/cap-room.out" "ok $MNT/cap/dom2/"
wait "$PROD" || { cat "$WORK/producer.err" >&2; fail "producer"; }
BG_PIDS="$DRV"
# the recorder tries again on its own period: stopped only once it did
wait_log "$WORK/multi.err" "recording again" 60
stop_multi "$WORK/multi.err"
cat "$WORK/producer.out" "$WORK/multi.out"
grep -q "recording again" "$WORK/multi.err" || fail "the recording did not start again"
grep -q "cut back to what reached the full disk: .* lost" "$WORK/multi.err" || fail "the file cut back was not logged"

ls "$DIR/dom1" | grep -v '\.json$' | grep -qv '^rec-.*\.data$' &&
	{ ls -l "$DIR/dom1"; fail "something else than complete recordings left (a .tmp?)"; }
mapfile -t FILES < <(ls "$DIR/dom1"/rec-*.data)
NF=${#FILES[@]}
[ "$NF" -ge 2 ] || fail "$NF files: expected the one cut back and one after"
expect_eq "first file's reason" "$(json "${FILES[0]}.json" .reason)" disk-full
[ "$(json "${FILES[0]}.json" .host_observed.disk_lost)" -gt 0 ] ||
	fail "the file cut back says nothing of what it could not hold"
expect_eq "last file's reason" "$(json "${FILES[NF - 1]}.json" .reason)" stop
DELIV=0 LOST=0 SIDE_DISK=0 SIDE_DISK_LOST=0
for f in "${FILES[@]}"; do
	n=$(basename "$f")
	run 0 "rep-$n" "$R" report "$f" --json
	rep=$WORK/rep-$n.out
	for r in 0 1; do
		DELIV=$((DELIV + $(json "$rep" ".rings[$r].types | .seq + .sample + .marker + .aux + .comm + .mmap2")))
		LOST=$((LOST + $(json "$rep" ".rings[$r].lost")))
		expect_eq "$n ring $r: checksum errors" "$(json "$rep" ".rings[$r].seq_bad")" 0
	done
	expect_eq "$n: sidecar records" "$(json "$f.json" .records)" "$(json "$rep" .total.records)"
	SIDE_DISK=$((SIDE_DISK + $(json "$f.json" .host_observed.disk_lost)))
	SIDE_DISK_LOST=$((SIDE_DISK_LOST + $(json "$f.json" .guest_claimed.disk_lost_lost)))
	if [ -n "$PERF" ]; then
		"$PERF" script -i "$f" >"$WORK/perf-$n.out" 2>"$WORK/perf-$n.err" ||
			{ cat "$WORK/perf-$n.err" >&2; fail "perf script cannot read $n"; }
	fi
done
DISK=$(status_field "$WORK/multi.out" disk_lost)
DISK_LOST=$(status_field "$WORK/multi.out" disk_lost_lost)
[ "$DISK" -gt 0 ] || fail "no record counted lost to the full disk"
expect_eq "files' sidecars vs counts: disk_lost" "$SIDE_DISK" "$DISK"
expect_eq "files' sidecars vs counts: disk_lost_lost" "$SIDE_DISK_LOST" "$DISK_LOST"
expect_eq "files" "$(status_field "$WORK/multi.out" files)" "$NF"
expect_eq "salvaged" "$(status_field "$WORK/multi.out" salvaged)" 1
expect_eq "failed" "$(status_field "$WORK/multi.out" failed)" 0
expect_in "$WORK/multi.err" "disk full 1 times: 1 files cut back, 0 lost, $DISK records lost"
attempted=$(( $(producer_field "$WORK/producer.out" 0 attempted) + $(producer_field "$WORK/producer.out" 1 attempted) ))
note "delivered $DELIV + LOST $LOST + lost to the disk $DISK (+ $DISK_LOST in LOST records) == attempted $attempted"
expect_eq "delivered + lost + lost to the disk" "$((DELIV + LOST + DISK + DISK_LOST))" "$attempted"

note "2. rotating: the oldest recordings make room, the newest stay"
rm -rf "$DIR" "$WORK/until" "$WORK/status"
"$PRODUCER" create "$REG" --rings 2 --data-pages 512 || fail "create again"
# other files on the disk that are no recordings stay: 2 MiB of them
dd if=/dev/zero of="$MNT/other" bs=1M count=2 status=none || fail "other"
"$MULTI" --no-pprof --retry-ms 50 --room-bytes 1572864 --rotate-bytes 524288 \
	--until "$WORK/until" --status "$WORK/status" \
	"$DIR" dom1="$REG" >"$WORK/multi2.out" 2>"$WORK/multi2.err" &
DRV=$!
BG_PIDS="$DRV"
wait_status started 1 30
# 4 rounds of at least 8 MiB each when the recorder keeps up: more than
# the 30 MiB left; more rounds until recordings were removed for room (a
# recorder slower than the producer loses records in the rings, which
# fill no disk)
for i in $(seq 40); do
	"$PRODUCER" write "$REG" --records 40000 --burst 100 --rate 40000 \
		--flush-timeout 300 >"$WORK/producer2-$i.out" 2>"$WORK/producer2-$i.err" ||
		{ cat "$WORK/producer2-$i.err" >&2; fail "producer round $i"; }
	[ "$i" -ge 4 ] && [ "$(status_field "$WORK/status" disk_pruned)" -ge 1 ] && break
done
stop_multi "$WORK/multi2.err"
cat "$WORK/multi2.out"
[ "$(status_field "$WORK/multi2.out" disk_full)" -ge 1 ] || fail "the disk never filled"
[ "$(status_field "$WORK/multi2.out" disk_pruned)" -ge 1 ] || fail "no recording removed to make room"
[ -e "$MNT/other" ] || fail "a file that is no recording was removed"
mapfile -t FILES < <(ls "$DIR/dom1"/rec-*.data)
NF=${#FILES[@]}
total=$(status_field "$WORK/multi2.out" files)
[ "$NF" -lt "$total" ] || fail "$NF files of $total kept: none removed"
# the oldest went, the newest stayed: the names' counters kept run
# without a gap up to the last file's (a file the full disk let no
# rotation begin takes no counter: part 4)
ls "$DIR/dom1"/rec-*-000000.data >/dev/null 2>&1 && fail "the oldest file was kept"
prev=
for f in "${FILES[@]}"; do
	n=${f##*-}; n=$((10#${n%.data}))
	[ -z "$prev" ] || [ "$n" = $((prev + 1)) ] || fail "a gap before $f: not the newest kept"
	prev=$n
done
expect_eq "the last file's counter" "$prev" "$((total - 1))"
for f in "${FILES[@]}"; do
	run 0 "rep2-$(basename "$f")" "$R" report "$f" --json
	[ -e "$f.json" ] || fail "$f kept without its sidecar"
done

note "3. without older files of its own, the oldest of other domains make room"
rm -rf "$DIR" "$WORK/until" "$WORK/status"
mkdir -p "$DIR/other"
for i in 0 1 2; do
	f=$DIR/other/rec-20000101T00000${i}Z-00000$i.data
	dd if=/dev/zero of="$f" bs=1M count=4 status=none || fail "other $i"
	echo '{}' >"$f.json"
done
"$PRODUCER" create "$REG" --rings 2 --data-pages 512 || fail "create 3"
# one file (no rotation): the domain has no older file to remove
"$MULTI" --no-pprof --retry-ms 50 --room-bytes 1572864 \
	--until "$WORK/until" --status "$WORK/status" \
	"$DIR" dom1="$REG" >"$WORK/multi3.out" 2>"$WORK/multi3.err" &
DRV=$!
BG_PIDS="$DRV"
wait_status started 1 30
# 18 MiB free, at least 32 MiB written when the recorder keeps up: two
# other domain's files go; more rounds until the oldest went
for i in $(seq 40); do
	"$PRODUCER" write "$REG" --records 40000 --burst 100 --rate 40000 \
		--flush-timeout 300 >"$WORK/producer3-$i.out" 2>"$WORK/producer3-$i.err" ||
		{ cat "$WORK/producer3-$i.err" >&2; fail "producer round $i"; }
	[ "$i" -ge 4 ] && [ ! -e "$DIR/other/rec-20000101T000000Z-000000.data" ] && break
done
stop_multi "$WORK/multi3.err"
cat "$WORK/multi3.out"
[ -e "$DIR/other/rec-20000101T000000Z-000000.data" ] && fail "the other domain's oldest file was kept"
[ -e "$DIR/other/rec-20000101T000000Z-000000.data.json" ] && fail "its sidecar was kept"
[ -e "$DIR/other/rec-20000101T000002Z-000002.data" ] || fail "the other domain's newest file was removed"
[ -e "$MNT/other" ] || fail "a file that is no recording was removed"

note "4. out of inodes: room made for a sidecar, no name for a file not begun"
rm -rf "$WORK/until" "$WORK/status"
mkdir -p "$INO"
mount -t tmpfs -o size=32m,nr_inodes=256 ringside-disk-full "$INO" 2>"$WORK/mount.err" ||
	fail "mount -t tmpfs -o nr_inodes=256: $(cat "$WORK/mount.err")"
DIR=$INO/rec
mkdir -p "$DIR/dom1"
# an older recording of the domain (no sidecar: one inode)
OLD=$DIR/dom1/rec-20000101T000000Z-000000.data
echo old >"$OLD"
# every inode taken by files that are no recordings, then one given back:
# the first file's
n=0
while touch "$INO/f$n" 2>/dev/null; do n=$((n + 1)); done
expect_eq "inodes free once full" "$(df --output=iavail "$INO" | tail -n 1 | tr -d ' ')" 0
rm "$INO/f0"
"$PRODUCER" create "$REG" --rings 2 --data-pages 512 || fail "create 4"
# bytes enough (1 MiB of room, 31 MiB free): inodes are what is missing
"$MULTI" --no-pprof --retry-ms 50 --room-bytes 1048576 --rotate-bytes 65536 \
	--until "$WORK/until" --status "$WORK/status" \
	"$DIR" dom1="$REG" >"$WORK/multi4.out" 2>"$WORK/multi4.err" &
DRV=$!
BG_PIDS="$DRV"
wait_status started 1 30
# 256 KiB: the first file rotates (64 KiB) whatever the passes took;
# every record fits in the rings, so none is lost while the recording
# pauses
"$PRODUCER" write "$REG" --records 2000 --rate 0 >"$WORK/producer4.out" 2>"$WORK/producer4.err" ||
	{ cat "$WORK/producer4.err" >&2; fail "producer 4"; }
# the first file completed, the second could not be begun: paused
wait_log "$WORK/multi4.err" "dom1: the disk is full (" 60 ||
	{ cat "$WORK/multi4.err" >&2; fail "the disk out of inodes was not logged"; }
FILES=()
for f in "$DIR/dom1"/rec-*.data; do
	[ "$f" = "$OLD" ] || FILES+=("$f")
done
expect_eq "files recorded while paused" "${#FILES[@]}" 1
[ -e "${FILES[0]}.json" ] || { cat "$WORK/multi4.err" >&2; fail "${FILES[0]} completed without its sidecar"; }
[ -e "$OLD" ] && fail "the older recording was kept: no room made for the sidecar"
rm -f "$INO"/f*
wait_log "$WORK/multi4.err" "recording again" 60
stop_multi "$WORK/multi4.err"
cat "$WORK/multi4.out" "$WORK/multi4.err"
expect_eq "'recording again' lines" "$(grep -c "recording again" "$WORK/multi4.err")" 1
expect_eq "disk full" "$(status_field "$WORK/multi4.out" disk_full)" 1
expect_eq "files" "$(status_field "$WORK/multi4.out" files)" 2
mapfile -t FILES < <(ls "$DIR/dom1"/rec-*.data)
expect_eq "files kept" "${#FILES[@]}" 2
DELIV=0
for k in 0 1; do
	f=${FILES[k]}
	n=${f##*-}
	expect_eq "file $k's counter" "$((10#${n%.data}))" "$k"
	[ -e "$f.json" ] || fail "$f kept without its sidecar"
	run 0 "rep4-$k" "$R" report "$f" --json
	DELIV=$((DELIV + $(json "$WORK/rep4-$k.out" "[.rings[].types.seq] | add")))
	expect_eq "$f: LOST counts" "$(json "$WORK/rep4-$k.out" "[.rings[].lost] | add")" 0
done
attempted=$(( $(producer_field "$WORK/producer4.out" 0 attempted) + $(producer_field "$WORK/producer4.out" 1 attempted) ))
expect_eq "records in the two files (the rings held them while paused)" "$DELIV" "$attempted"
exit 0
