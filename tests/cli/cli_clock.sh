#!/bin/bash
# clock: host-correlated time (docs/cli.md, "Time").  A producer acting as
# a guest agent whose clock is the host's CLOCK_MONOTONIC + 5 s answers
# the time sync through the region; record (a sync at the start and the
# end) and snapshot (one) convert its times back to host CLOCK_MONOTONIC,
# within the bound they print, and say so in the file where perf reads it.
# A guest that never answers costs a bounded wait (one ping), never the
# snapshot.  Nothing here depends on how fast anything runs: every time is
# checked against host clock readings taken before and after, widened by
# the bound; record is stopped (SIGINT) and the agent released (--until)
# only once what is checked has happened (the producer's --done and
# --synced files), never after a number of seconds.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
OFF=5000000000

# expect_re FILE REGEX
expect_re() {
	grep -qE -- "$2" "$1" || { cat "$1" >&2; fail "/$2/ not in $(basename "$1")"; }
}
SYNCED='host CLOCK_MONOTONIC \+ [0-9]{10} ns, error bound ±[0-9.]+ µs \([0-9]+ rounds\)'

# within WHAT VALUE LOW HIGH
within() {
	[ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
		fail "$1: $2 not in [$3, $4]"
}

# check_points REPORT_JSON NPOINTS: every sync recovered +5 s within its bound.
check_points() {
	local n i off bound
	n=$(json "$1" '.clock.points | length')
	expect_eq "sync points" "$n" "$2"
	expect_eq "clock state" "$(json "$1" .clock.state)" synced
	for i in $(seq 0 $(($2 - 1))); do
		off=$(json "$1" ".clock.points[$i].offset_ns")
		bound=$(json "$1" ".clock.points[$i].bound_ns")
		within "offset of sync $i" "$off" $((OFF - bound)) $((OFF + bound))
		[ "$bound" -lt 1000000000 ] || fail "sync $i: bound $bound ns"
		expect_eq "refused in sync $i" "$(json "$1" ".clock.points[$i].refused")" 0
	done
}

# check_times REPORT_JSON T0 T1: every record's time in the file within
# [T0, T1] of the host's clock, widened by the largest bound.
check_times() {
	local b first last
	b=$(json "$1" '[.clock.points[].bound_ns] | max')
	first=$(json "$1" .total.first_time)
	last=$(json "$1" .total.last_time)
	within "first time" "$first" $(($2 - b)) $(($3 + b))
	within "last time" "$last" $(($2 - b)) $(($3 + b))
}

note "record: synced at the start and the end, times back on the host's clock"
REG=$(region rec)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 || fail "create"
T0=$("$PRODUCER" now)
# 16 pages hold every record of a ring: nothing is lost however late
# record drains
"$PRODUCER" write "$REG" --tsync $OFF --records 300 --burst 0 --rate 200 \
	--samples 20 --markers 20 --ready "$WORK/ready" --done "$WORK/done" \
	--until "$WORK/release" >"$WORK/p.out" &
PROD=$!
BG_PIDS=$PROD
wait_for "$WORK/ready" 30
"$R" record "$REG" -o "$WORK/rec.data" >"$WORK/rec.out" 2>"$WORK/rec.err" &
REC=$!
BG_PIDS="$PROD $REC"
# the end's sync is answered: the agent answers until released below
wait_for "$WORK/done" 60
stop_record "$REC" "$WORK/rec.data" || { cat "$WORK/rec.err" >&2; fail "record"; }
BG_PIDS=$PROD
T1=$("$PRODUCER" now)
cat "$WORK/rec.out"
expect_re "$WORK/rec.out" "^guest clock: $SYNCED"
expect_re "$WORK/rec.out" "^  at the end: $SYNCED"
expect_in "$WORK/rec.out" "interpolated"
run 0 rep "$R" report "$WORK/rec.data" --json
check_points "$WORK/rep.out" 2
expect_eq "records" "$(json "$WORK/rep.out" .total.types.seq)" 600
check_times "$WORK/rep.out" "$T0" "$T1"
run 0 rept "$R" report "$WORK/rec.data"
expect_re "$WORK/rept.out" "^guest clock: $SYNCED"
expect_in "$WORK/rept.out" "times in this file are host CLOCK_MONOTONIC (HEADER_CLOCKID, HEADER_CLOCK_DATA)"

note "perf reads the clock and shows host times"
if command -v perf >/dev/null; then
	run 0 hdr perf report -i "$WORK/rec.data" --header-only
	expect_in "$WORK/hdr.out" "clockid frequency: 1000 MHz"
	expect_in "$WORK/hdr.out" "use_clockid = 1"
	run 0 ps perf script -i "$WORK/rec.data" -F time
	[ ! -s "$WORK/ps.err" ] || { cat "$WORK/ps.err" >&2; fail "perf script wrote on stderr"; }
	b=$(json "$WORK/rep.out" '[.clock.points[].bound_ns] | max')
	# perf prints seconds.microseconds: compare in µs
	lo=$(((T0 - b) / 1000 - 1)) hi=$(((T1 + b) / 1000 + 1))
	awk -v lo="$lo" -v hi="$hi" '{ t = $1; sub(":", "", t); split(t, p, ".");
		us = p[1] * 1000000 + p[2]; if (us < lo || us > hi) { print "out: " $0; bad = 1 } }
		END { exit bad }' "$WORK/ps.out" || fail "perf script times outside [T0, T1]"
	[ "$(wc -l <"$WORK/ps.out")" -gt 600 ] || fail "perf script: too few lines"
	run 0 tod perf script -i "$WORK/rec.data" -F tod,time
	[ ! -s "$WORK/tod.err" ] || { cat "$WORK/tod.err" >&2; fail "perf script -F tod wrote on stderr"; }
else
	note "no perf: skipped"
fi
touch "$WORK/release"
wait "$PROD" || fail "producer"
BG_PIDS=""
expect_in "$WORK/p.out" "tsync answers"

note "record started before the agent attaches: synced once it does"
REG=$(region late)
"$PRODUCER" create "$REG" --rings 1 --data-pages 16 || fail "create"
"$R" record "$REG" -o "$WORK/late.data" >"$WORK/late.out" 2>"$WORK/late.err" &
REC=$!
BG_PIDS=$REC
# record runs (its handler is in: it made its temporary file) before the agent
# attaches; SIGINT only once the agent answered a sync of the running
# record, and the end's sync is answered too (--until)
wait_for_tmp "$WORK/late.data" 60
"$PRODUCER" write "$REG" --tsync $OFF --records 50 --synced "$WORK/synced" \
	--until "$WORK/release-late" >/dev/null &
PROD=$!
BG_PIDS="$REC $PROD"
wait_for "$WORK/synced" 60
stop_record "$REC" "$WORK/late.data" || { cat "$WORK/late.err" >&2; fail "record (late agent)"; }
BG_PIDS=$PROD
touch "$WORK/release-late"
wait "$PROD" || fail "producer (late agent)"
BG_PIDS=""
cat "$WORK/late.out"
expect_re "$WORK/late.out" "^guest clock: $SYNCED"
expect_re "$WORK/late.out" "^  at the end: $SYNCED"
run 0 repl "$R" report "$WORK/late.data" --json
check_points "$WORK/repl.out" 2

note "snapshot: one sync"
REG=$(region snap)
"$PRODUCER" create "$REG" --rings 1 --data-pages 4 --overwrite || fail "create"
T0=$("$PRODUCER" now)
# --burst 100: --ready once all 100 records are in the ring
"$PRODUCER" write "$REG" --tsync $OFF --records 100 --burst 100 --markers 5 \
	--ready "$WORK/ready2" --until "$WORK/release2" >"$WORK/p2.out" &
PROD=$!
BG_PIDS=$PROD
wait_for "$WORK/ready2" 30
run 0 snap "$R" snapshot "$REG" -o "$WORK/snap.data"
T1=$("$PRODUCER" now)
touch "$WORK/release2"
wait "$PROD" || fail "producer (snapshot)"
BG_PIDS=""
expect_re "$WORK/snap.out" "^guest clock: $SYNCED"
run 0 reps "$R" report "$WORK/snap.data" --json
check_points "$WORK/reps.out" 1
check_times "$WORK/reps.out" "$T0" "$T1"
expect_eq "records in the snapshot" "$(json "$WORK/reps.out" .total.types.seq)" 100

# No time bound here: how long the wait takes depends on the machine.
# What bounds it is that the host pings a silent guest once and gives up:
# the snapshot says how many pings it sent.
note "a guest that never answers: one ping, times unconverted"
REG=$(region mute)
"$PRODUCER" create "$REG" --rings 1 --data-pages 4 --overwrite || fail "create"
S0=$("$PRODUCER" now)
"$PRODUCER" write "$REG" --tsync $OFF --mute --records 50 --burst 50 \
	--ready "$WORK/ready3" --until "$WORK/release3" >/dev/null &
PROD=$!
BG_PIDS=$PROD
wait_for "$WORK/ready3" 30
run 0 mute "$R" snapshot "$REG" -o "$WORK/mute.data"
touch "$WORK/release3"
wait "$PROD" || fail "producer (mute)"
BG_PIDS=""
expect_in "$WORK/mute.out" "guest clock: no time sync: the guest did not answer; times are the guest's, unconverted"
expect_in "$WORK/mute.out" "  pings: 1 sent, 1 unanswered (at most 5.0 s for a first answer)"
run 0 repm "$R" report "$WORK/mute.data" --json
expect_eq "state" "$(json "$WORK/repm.out" .clock.state)" no_answer
# unconverted: the guest's clock, 5 s ahead of the host's, written after S0
[ "$(json "$WORK/repm.out" .total.first_time)" -ge $((S0 + OFF)) ] ||
	fail "times were converted"
run 0 reptm "$R" report "$WORK/mute.data"
expect_in "$WORK/reptm.out" "guest clock: no time sync: the guest did not answer"

note "no agent attached: no sync tried, said so"
REG=$(region none)
"$PRODUCER" create "$REG" --rings 1 --data-pages 4 || fail "create"
"$PRODUCER" write "$REG" --records 10 >/dev/null || fail "producer"
run 0 none "$R" snapshot "$REG" -o "$WORK/none.data"
expect_in "$WORK/none.out" "guest clock: no time sync: no agent attached to the region"
exit 0
