#!/bin/bash
# record across wraps and losses: every record the producer attempted is in
# the file or counted by a LOST record; report, dump and stat agree.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
REG=$(region rec)
OUT=$WORK/rec.data

# 2 rings of 8 KiB: 64-byte records, ~127 per ring.  The first 600 per ring
# go in before record starts (losses for sure), then 20000 more at 20000/s
# (some 150 wraps of each ring).
"$PRODUCER" create "$REG" --rings 2 --data-pages 2 || fail "create"
"$PRODUCER" write "$REG" --records 20600 --burst 600 --rate 20000 \
	--ready "$WORK/ready" >"$WORK/producer.out" 2>"$WORK/producer.err" &
PROD=$!
BG_PIDS="$PROD"
wait_for "$WORK/ready" 30
"$R" record "$REG" -o "$OUT" --interval 1 >"$WORK/record.out" 2>"$WORK/record.err" &
REC=$!
BG_PIDS="$PROD $REC"
wait "$PROD" || { cat "$WORK/producer.err" >&2; fail "producer failed"; }
BG_PIDS="$REC"
stop_record "$REC" "$OUT" || { cat "$WORK/record.err" >&2; fail "record exited $?"; }
BG_PIDS=""
cat "$WORK/producer.out"
cat "$WORK/record.out"
[ -s "$WORK/record.err" ] && { cat "$WORK/record.err" >&2; fail "record wrote to stderr off a terminal"; }
no_tmp_file "$OUT"
[ -s "$OUT" ] || fail "no output file"

note "report numbers equal the producer's"
run 0 report-json "$R" report "$OUT" --json
REP=$WORK/report-json.out
check_balance "$WORK/producer.out" "$REP" 2 seq-only
for r in 0 1; do
	lost=$(producer_field "$WORK/producer.out" $r lost)
	[ "$lost" -gt 0 ] || fail "ring $r: the burst should have lost records"
done
TOTAL=$(json "$REP" .total.records)
expect_in "$WORK/record.out" "wrote $TOTAL records"

note "what predates the recording: the full rings' records kept, losses apart"
EARLY=$(json "$REP" '[.rings[].host.early_records] | add')
ELOST=$(json "$REP" '[.rings[].host.early_lost] | add')
[ "$EARLY" -gt 0 ] || fail "no record predates the recording"
[ "$ELOST" -gt 0 ] || fail "no loss predates the recording"
expect_in "$WORK/record.out" "$EARLY records and $ELOST losses predate the recording"
# each ring held about its size at the attach: 8 KiB of 64-byte records
for r in 0 1; do
	e=$(json "$REP" ".rings[$r].host.early_records")
	[ "$e" -ge 100 ] && [ "$e" -le 128 ] || fail "ring $r: $e records predate, not a full ring's"
	expect_eq "ring $r: LOST left out of the file" \
		"$(json "$REP" ".rings[$r].host.early_lost_records")" 1
	expect_in "$WORK/record.out" "before the recording: $e records (in the file), lost $(json "$REP" ".rings[$r].host.early_lost") in 1 LOST records"
done
expect_in "$WORK/record.out" "(interrupted)"

note "report text"
run 0 report "$R" report "$OUT"
expect_in "$WORK/report.out" "ring 0: "
expect_in "$WORK/report.out" "ring 1: "
if [ "$(json "$REP" '.rings[0].lost')" -gt 0 ]; then
	expect_in "$WORK/report.out" "records lost $(json "$REP" '.rings[0].lost')"
else
	expect_in "$WORK/report.out" "guest claims: lost 0 in 0 LOST records"
fi
expect_in "$WORK/report.out" "before the recording: $(json "$REP" '.rings[0].host.early_records') records (in the file)"
expect_in "$WORK/report.out" "total: $TOTAL records"

note "dump: one line per record"
run 0 dump "$R" dump "$OUT"
expect_eq "dump lines" "$(wc -l <"$WORK/dump.out")" "$TOTAL"
expect_eq "dump LOST lines" "$(grep -c ' LOST ' "$WORK/dump.out")" \
	"$(json "$REP" '.total.types.lost')"
grep -q '^\[000\] [0-9]*\.[0-9]\{9\} seq  *seq=0 producer=0 fill=24 ok$' \
	"$WORK/dump.out" || { head -3 "$WORK/dump.out"; fail "dump line format"; }
grep -q 'BAD-CHECKSUM' "$WORK/dump.out" && fail "dump shows bad checksums"

note "stat shows the rings as the producer left them"
run 0 stat "$R" stat "$REG"
expect_in "$WORK/stat.out" "2 rings"
# the producer's counters are the guest's claims, and named so (issue 13)
expect_in "$WORK/stat.out" "guest_produced, guest_lost: the guest's claims"
produced=$(stat_col "$WORK/stat.out" 0 guest_produced)
attempted=$(producer_field "$WORK/producer.out" 0 attempted)
lost=$(producer_field "$WORK/producer.out" 0 lost)
[ -n "$produced" ] || { cat "$WORK/stat.out"; fail "no ring 0 line in stat"; }
lostcol=$(stat_col "$WORK/stat.out" 0 guest_lost)
expect_eq "stat lost" "$lostcol" "$lost"
# produced counts committed records, LOST records included
[ "$produced" -ge "$((attempted - lost))" ] || fail "stat produced $produced < $((attempted - lost))"
run 0 stat-repeat "$R" stat "$REG" --interval 0.05 --count 3
expect_eq "stat reports" "$(grep -c '^region' "$WORK/stat-repeat.out")" 3

note "record --duration stops by itself and keeps what was there"
"$PRODUCER" write "$REG" --records 50 >"$WORK/p2.out" || fail "producer"
run 0 dur "$R" record "$REG" -o "$WORK/dur.data" --duration 0.3 --quiet
[ -s "$WORK/dur.out" ] && fail "--quiet printed"
run 0 dur-rep "$R" report "$WORK/dur.data" --json
expect_eq "records after --duration" \
	"$(json "$WORK/dur-rep.out" '.total.types.seq')" 100
note "the doorbell fd wakes record long before its interval"
REG=$(region bell)
"$PRODUCER" create "$REG" --rings 1 --data-pages 4 || fail "create"
mkfifo "$WORK/bell"
exec 6<>"$WORK/bell"
"$R" record "$REG" -o "$WORK/bell.data" --interval 60000 --doorbell-fd 6 \
	>"$WORK/bell.out" 2>"$WORK/bell.err" &
REC=$!
BG_PIDS=$REC
# its first pass done, record waits for the doorbell (or 60000 s)
wait_for_tmp "$WORK/bell.data" 60
wait_polling "$REC" 60
"$PRODUCER" write "$REG" --records 50 >/dev/null || fail "producer"
run 0 bell-stat1 "$R" stat "$REG"
fill=$(stat_col "$WORK/bell-stat1.out" 0 fill)
[ "$fill" -gt 0 ] || fail "record drained without a doorbell (fill $fill)"
# asleep, record said so before it slept: the producer skipped nothing
expect_eq "consumer while record sleeps" "$(stat_col "$WORK/bell-stat1.out" 0 consumer)" wake
expect_eq "doorbells skipped while record sleeps" \
	"$(stat_col "$WORK/bell-stat1.out" 0 guest_skipped)" 0
expect_in "$WORK/bell-stat1.out" "guest_bells, guest_skipped: the guest's claims too"
echo ring >&6
# until record drained (60 s only guards against a hang: with an interval
# of 60000 s, any drain at all is the doorbell's)
for i in $(seq 600); do
	run 0 bell-stat2 "$R" stat "$REG"
	fill=$(stat_col "$WORK/bell-stat2.out" 0 fill)
	[ "$fill" = 0 ] && break
	sleep 0.1
done
expect_eq "fill after the doorbell (after $i tries)" "$fill" 0
stop_record "$REC" "$WORK/bell.data" || fail "record with doorbell: $(cat "$WORK/bell.err")"
BG_PIDS=""
exec 6>&-
run 0 bell-rep "$R" report "$WORK/bell.data" --json
expect_eq "records via the doorbell" "$(json "$WORK/bell-rep.out" .total.types.seq)" 50

note "one consumer at a time"
# until SIGINT, not --duration: it must still hold the lock for the
# steps below however long they take
"$R" record "$REG" -o "$WORK/first.data" >"$WORK/first.out" 2>&1 &
REC=$!
BG_PIDS=$REC
inode=$(stat -c %i "$REG")
for i in $(seq 300); do
	grep -q "FLOCK .*:$inode " /proc/locks && break
	sleep 0.05
done
grep -q "FLOCK .*:$inode " /proc/locks || fail "the first record took no lock ($i tries)"
run 1 second "$R" record "$REG" -o "$WORK/second.data" --duration 0.1
expect_in "$WORK/second.err" "another consumer"
no_output_file "$WORK/second.data"
run 0 while-recording "$R" snapshot "$REG" -o "$WORK/third.data" --quiet
kill -INT "$REC"; wait "$REC" || fail "first record"
BG_PIDS=""

note "a doorbell that hangs up falls back to polling"
run 0 hangup "$R" record "$REG" -o "$WORK/hup.data" --duration 0.3 --doorbell-fd 7 7</dev/null
expect_in "$WORK/hangup.err" "doorbell fd 7 hung up"
run 1 badbell "$R" record "$REG" -o "$WORK/x.data" --doorbell-fd 9
expect_in "$WORK/badbell.err" "not an open descriptor"
no_output_file "$WORK/x.data"

note "nothing to wake it and idle rings: it backs off up to what they hold"
# 2 rings of 64 KiB sampled at 1000 Hz: with the deepest call chains
# (1096 B a sample) they hold 59 ms, less the host's 10 ms stall: 49 ms,
# as `enable` computes it.  Sleeps of 10, 20, 40, then 49 ms: in a second,
# at most 23 passes however fast the host, where a 10 ms poll makes ~100.
IDLE=$(region idle)
"$PRODUCER" create "$IDLE" --rings 2 --data-pages 16 --freq 1000 || fail "create idle"
run 0 idle "$R" record "$IDLE" -o "$WORK/idle.data" --duration 1
expect_in "$WORK/idle.out" "sleeps: 10 ms after a pass that took records, doubling up to 49 ms while the rings were idle"
passes=$(sed -n 's/.* while the rings were idle; \([0-9]*\) passes$/\1/p' "$WORK/idle.out")
[ -n "$passes" ] && [ "$passes" -ge 2 ] && [ "$passes" -le 23 ] ||
	fail "an idle second took '$passes' passes, not 2..23"
# --interval is kept as given; a region without a rate is polled as before
run 0 idle-fixed "$R" record "$IDLE" -o "$WORK/idle2.data" --duration 0.2 --interval 10
grep -q "sleeps:" "$WORK/idle-fixed.out" && fail "--interval 10 backed off"
run 0 idle-norate "$R" record "$REG" -o "$WORK/idle3.data" --duration 0.2
grep -q "sleeps:" "$WORK/idle-norate.out" && fail "a region without a rate backed off"
rm -f "$IDLE"
echo "ok"
