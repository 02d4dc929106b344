#!/bin/bash
# The service's continuous recording over a region file the cli suite's
# producer writes, without libvirt (svc-rec-drive): the files rotate by
# size, each one reads back whole (report, and perf where it runs), and
# their records plus the LOST counts add up to what the producer
# attempted; every file has its sidecar, the last one says "stop"; the
# post-command runs on each file, a failure retried; every file has its
# pprof profile beside it (FILE.data.pb.gz), which go tool pprof reads.
# Usage: svc_record.sh RINGSIDE PRODUCER DRIVE
DRIVE=$3
. "$(dirname "$0")/../cli/lib.sh" "$1" "$2"

R=$RINGSIDE
REG=$(region rec)
DIR=$WORK/rec
mkdir -p "$DIR"

# The post-command: notes each file; the first time it fails (retried
# 1 s later).
POST=$WORK/post.sh
cat >"$POST" <<EOP
#!/bin/sh
[ -e "$WORK/failed-once" ] || { touch "$WORK/failed-once"; exit 1; }
[ -s "\$2" ] || exit 1
echo "\$1" >>"$WORK/posted"
EOP
chmod +x "$POST"

# 2 rings of 16 pages; 64-byte records.  20000 per ring, 1.25 MiB each:
# files rotate at 256 KiB of records, whatever the timing.  At 1000 Hz
# the recorder backs off while the rings are idle (up to 49 ms here).
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --freq 1000 ||
	fail "create"
"$DRIVE" "$DIR" dom1 "$REG" "$WORK/until" 262144 0 0 "$POST" \
	>"$WORK/drive.out" 2>"$WORK/drive.err" &
DRV=$!
BG_PIDS="$DRV"
wait_for "$DIR/dom1" 30
"$PRODUCER" write "$REG" --records 20000 --burst 100 --rate 40000 \
	>"$WORK/producer.out" 2>"$WORK/producer.err" || fail "producer"
touch "$WORK/until"
wait "$DRV" || { cat "$WORK/drive.err" >&2; fail "svc-rec-drive failed"; }
BG_PIDS=""
cat "$WORK/producer.out" "$WORK/drive.out"

ls "$DIR/dom1" | grep -v '\.json$' | grep -v '\.data\.pb\.gz$' | grep -qv '^rec-.*\.data$' &&
	{ ls -l "$DIR/dom1"; fail "something else than complete recordings left"; }
mapfile -t FILES < <(ls "$DIR/dom1"/rec-*.data)
NF=${#FILES[@]}
[ "$NF" -ge 4 ] || fail "$NF files: expected at least 4 rotations' worth"
expect_in "$WORK/drive.out" "files $NF rotations $((NF - 1)) "

PERF=$(command -v perf) && "$PERF" version >/dev/null 2>&1 || PERF=
[ -n "$PERF" ] || note "perf does not run here: report alone reads the files"
declare -A DELIV LOST
for f in "${FILES[@]}"; do
	n=$(basename "$f")
	run 0 "rep-$n" "$R" report "$f" --json
	rep=$WORK/rep-$n.out
	for r in 0 1; do
		DELIV[$r]=$(( ${DELIV[$r]:-0} + $(json "$rep" ".rings[$r].types | .seq + .sample + .marker + .aux + .comm + .mmap2") ))
		LOST[$r]=$(( ${LOST[$r]:-0} + $(json "$rep" ".rings[$r].lost") ))
		expect_eq "$n ring $r: checksum errors" "$(json "$rep" ".rings[$r].seq_bad")" 0
	done
	[ -s "$f.json" ] || fail "$n: no sidecar"
	expect_eq "$n: sidecar records" "$(json "$f.json" .records)" "$(json "$rep" .total.records)"
	expect_eq "$n: sidecar lost" "$(json "$f.json" .guest_claimed.lost)" "$(json "$rep" .total.lost)"
	expect_eq "$n: sidecar domain" "$(json "$f.json" .domain)" dom1
	expect_eq "$n: sidecar file" "$(json "$f.json" .file)" "$n"
	expect_eq "$n: sidecar bytes" "$(json "$f.json" .bytes)" "$(stat -c %s "$f")"
	expect_eq "$n: sidecar uuid" "$(json "$f.json" .uuid)" 00000000-0000-4000-8000-000000000001
	[ "$(json "$f.json" .end_monotonic_ns)" -ge "$(json "$f.json" .start_monotonic_ns)" ] ||
		fail "$n: its time range ends before it starts"
	json "$f.json" .start_time | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{9}Z$' ||
		fail "$n: start_time is not ISO 8601"
	# its profile: a gzipped profile.proto pprof reads
	gzip -t "$f.pb.gz" 2>/dev/null || fail "$n: no profile $n.pb.gz"
	if [ -n "$PERF" ]; then
		"$PERF" script -i "$f" >"$WORK/perf-$n.out" 2>"$WORK/perf-$n.err" ||
			{ cat "$WORK/perf-$n.err" >&2; fail "perf script cannot read $n"; }
	fi
done
expect_in "$WORK/drive.err" "profiles: $NF written, 0 failed, 0 skipped"
if GO=$(command -v go); then
	"$GO" tool pprof -raw "${FILES[0]}.pb.gz" >"$WORK/pprof.out" 2>&1 ||
		{ cat "$WORK/pprof.out" >&2; fail "go tool pprof cannot read ${FILES[0]}.pb.gz"; }
	grep -q "^PeriodType: cpu nanoseconds" "$WORK/pprof.out" ||
		fail "go tool pprof: no cpu period type in ${FILES[0]}.pb.gz"
fi
# the last file is the one the stop completed
expect_eq "last reason" "$(json "${FILES[NF - 1]}.json" .reason)" stop
expect_eq "first reason" "$(json "${FILES[0]}.json" .reason)" rotation

note "delivered + lost == produced, over every file"
for r in 0 1; do
	attempted=$(producer_field "$WORK/producer.out" $r attempted)
	lost=$(producer_field "$WORK/producer.out" $r lost)
	expect_eq "ring $r: lost (files vs producer)" "${LOST[$r]}" "$lost"
	expect_eq "ring $r: delivered + lost" "$((DELIV[$r] + LOST[$r]))" "$attempted"
done

note "the recorder's counts per domain and ring (the metrics') equal the files'"
dline=$(grep '^domain dom1 ' "$WORK/drive.out") || fail "no counts of domain dom1"
case $dline in
*" files $NF rotations $((NF - 1)) pruned 0 pruned_bytes 0 started 1 failed 0 recording 0 "*) ;;
*) fail "domain counts: $dline (files $NF)" ;;
esac
for r in 0 1; do
	case $dline in
	*" ring $r records ${DELIV[$r]} bytes "*" lost ${LOST[$r]} corrupt 0"*) ;;
	*) fail "ring $r: counts '$dline', files: records ${DELIV[$r]} lost ${LOST[$r]}" ;;
	esac
done

note "the post-command had every file, the one that failed once retried"
expect_eq "posted" "$(sort "$WORK/posted" | uniq | wc -l)" "$NF"
expect_in "$WORK/drive.out" "post_ok $NF post_failed 0 post_run $((NF + 1)) "

note "retention: a bound per domain keeps the newest"
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 || fail "create again"
rm -f "$WORK/until"
"$DRIVE" "$DIR" dom1 "$REG" "$WORK/until" 262144 0 600000 \
	>"$WORK/drive2.out" 2>"$WORK/drive2.err" &
DRV=$!
BG_PIDS="$DRV"
"$PRODUCER" write "$REG" --records 20000 --burst 100 --rate 40000 \
	>"$WORK/producer2.out" 2>"$WORK/producer2.err" || fail "producer"
touch "$WORK/until"
wait "$DRV" || { cat "$WORK/drive2.err" >&2; fail "svc-rec-drive failed"; }
BG_PIDS=""
cat "$WORK/drive2.out"
total=$(cat "$DIR/dom1"/rec-*.data "$DIR/dom1"/rec-*.data.json | wc -c)
newest=$(ls "$DIR/dom1"/rec-*.data | tail -1)
[ "$total" -le 600000 ] || [ "$(ls "$DIR/dom1"/rec-*.data | wc -l)" = 1 ] ||
	fail "$total bytes kept, bound 600000"
grep -q 'pruned [1-9]' "$WORK/drive2.out" || fail "nothing pruned"
# the files pruned, counted against their domain as in the totals
npruned=$(sed -n 's/^files .* pruned \([0-9]*\) .*/\1/p' "$WORK/drive2.out")
grep -q "^domain dom1 .* pruned $npruned pruned_bytes [1-9][0-9]* " "$WORK/drive2.out" ||
	fail "domain dom1's pruned files: $(grep '^domain' "$WORK/drive2.out"), total $npruned"
[ -s "$newest.json" ] || fail "the newest file lost its sidecar"
expect_eq "newest reason" "$(json "$newest.json" .reason)" stop
for f in "$DIR/dom1"/rec-*.data; do
	[ -e "$f.json" ] || fail "$f kept without its sidecar"
done
for j in "$DIR/dom1"/*.json; do
	[ -e "${j%.json}" ] || fail "$j kept without its file"
done
exit 0
