#!/bin/bash
# The real perf is the judge: perf script and perf report --stats open the
# files record and snapshot write, say nothing on stderr, and count what
# ringside counts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/perf_judge.sh"
need_perf

R=$RINGSIDE

note "a clean recording: samples, markers, sequence and AUX records"
REG=$(region clean)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --aux-pages 4 || fail "create"
"$R" record "$REG" -o "$WORK/clean.data" --interval 1 >/dev/null 2>"$WORK/rec.err" &
REC=$!
BG_PIDS=$REC
"$PRODUCER" write "$REG" --records 300 --samples 40 --markers 30 --aux 10 \
	>"$WORK/clean.p" || fail "producer"
stop_record "$REC" "$WORK/clean.data" || fail "record: $(cat "$WORK/rec.err")"
BG_PIDS=""
judge clean "$WORK/clean.data"
check_balance "$WORK/clean.p" "$WORK/clean.rep" 2
expect_eq "clean: lost" "$(json "$WORK/clean.rep" .total.lost)" 0
# plain perf report has nothing to complain about either
"$PERF" report -i "$WORK/clean.data" --stdio >"$WORK/plain.out" 2>"$WORK/plain.err" ||
	fail "perf report exited $?"
[ ! -s "$WORK/plain.err" ] || { cat "$WORK/plain.err" >&2; fail "perf report wrote to stderr"; }
expect_in "$WORK/plain.out" "of event 'ringside:sample'"
grep -q "ringside:marker:" "$WORK/clean.script" || fail "perf script shows no marker"
grep -q "marker 0" "$WORK/clean.script" || fail "perf script does not show the marker text"

note "a recording with losses"
REG=$(region lossy)
"$PRODUCER" create "$REG" --rings 2 --data-pages 2 || fail "create"
"$PRODUCER" write "$REG" --records 3000 --burst 600 --rate 20000 \
	--ready "$WORK/ready" >"$WORK/lossy.p" &
BG_PIDS=$!
wait_for "$WORK/ready" 30
"$R" record "$REG" -o "$WORK/lossy.data" --interval 1 >/dev/null 2>&1 &
REC=$!
BG_PIDS="$BG_PIDS $REC"
wait "${BG_PIDS%% *}" || fail "producer"
stop_record "$REC" "$WORK/lossy.data" || fail "record"
BG_PIDS=""
judge lossy "$WORK/lossy.data"
check_balance "$WORK/lossy.p" "$WORK/lossy.rep" 2 seq-only
# the burst's losses predate the recording: counted apart (host facts),
# not LOST records in the file, so perf (judge) has no overload to warn of
[ "$(json "$WORK/lossy.rep" '[.rings[].host.early_lost] | add')" -gt 0 ] ||
	fail "lossy: no loss from before the recording"
[ "$(json "$WORK/lossy.rep" '[.rings[].host.early_records] | add')" -gt 0 ] ||
	fail "lossy: no record from before the recording"

note "a snapshot of an overwrite ring"
REG=$(region ow)
"$PRODUCER" create "$REG" --rings 3 --data-pages 4 --overwrite || fail "create"
"$PRODUCER" write "$REG" --records 10000 --samples 500 --markers 500 >/dev/null || fail "producer"
"$R" snapshot "$REG" -o "$WORK/ow.data" >/dev/null || fail "snapshot"
judge snapshot "$WORK/ow.data"

note "a recording stopped by SIGINT mid-stream"
REG=$(region sig)
"$PRODUCER" create "$REG" --rings 2 --data-pages 4 || fail "create"
"$PRODUCER" write "$REG" --records 1000000 --rate 20000 --samples 1000 >/dev/null 2>&1 &
PROD=$!
BG_PIDS=$PROD
"$R" record "$REG" -o "$WORK/sig.data" --interval 2 >/dev/null 2>&1 &
REC=$!
BG_PIDS="$PROD $REC"
wait_for_tmp "$WORK/sig.data" 60
wait_rings "$R" "$REG" data_tail 60
stop_record "$REC" "$WORK/sig.data" || fail "record"
kill "$PROD"; wait "$PROD" 2>/dev/null
BG_PIDS=""
judge sigint "$WORK/sig.data"

note "call chains ending in a guessed frame: cut, counted, said"
REG=$(region trim)
# IP | TID | TIME | PERIOD | CALLCHAIN
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --sample-type $((0x127)) ||
	fail "create"
"$PRODUCER" write "$REG" --records 400 --samples 80 >/dev/null || fail "producer"
"$R" snapshot "$REG" -o "$WORK/trim.data" >"$WORK/trim.out" || fail "snapshot"
judge trim "$WORK/trim.data"
cut_n=$(sed -n 's/^  call chains: \([0-9]*\) frames cut from \([0-9]*\) samples.*/\1 \2/p' \
	"$WORK/trim.out")
[ -n "$cut_n" ] || { cat "$WORK/trim.out" >&2; fail "trim: no call chain line"; }
set -- $cut_n
[ "$1" -gt 0 ] && [ "$1" = "$2" ] || fail "trim: $1 frames cut from $2 samples"
expect_eq "trim: frames cut per ring, in the file" \
	"$(json "$WORK/trim.rep" '[.rings[].host.frames_trimmed] | add')" "$1"
"$PERF" script -i "$WORK/trim.data" 2>/dev/null | grep -q '^\s*0 \[unknown\]' &&
	fail "trim: perf script still shows a guessed 0 frame"

note "an empty recording"
REG=$(region empty)
"$PRODUCER" create "$REG" --rings 1 --data-pages 1 || fail "create"
"$R" record "$REG" -o "$WORK/empty.data" --duration 0.1 >/dev/null || fail "record"
judge empty "$WORK/empty.data"
echo "ok"
