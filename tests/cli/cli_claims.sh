#!/bin/bash
# Host facts and guest claims (issue 13, items 2 and 4): a guest that lies
# in its records (LOST counts of 2^61 and 2^64-1, a LOST_SAMPLES count of
# 2^64-1, an AUX record of 2^62 bytes, a marker stamped 2^64-1 ns) gets
# its claims flagged and left out of the sums, never added up; a region
# whose records are corrupt (a header of size 12 in a 40-byte sequence
# record) is reported on stderr with --quiet too, and
# record and snapshot exit 3 (the file whole, the source not).  The lies
# are written into the rings before anything reads them, so what is
# flagged does not depend on timing.  The producer answers the time sync,
# so the file's times are normally the host's and the marker's is flagged;
# a sync that got no answer in time (a loaded machine) leaves them the
# guest's, and then the report must say they were not checked and flag
# none (the time rules themselves: test_tally).
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
OFF=5000000000
HUGE=2219460346403425822

# claims REPORT_JSON KIND: what every ring of a --hostile file must show.
claims() {
	local r times=0
	expect_eq "window" "$(json "$1" .window.kind)" "$2"
	[ "$(json "$1" .window.times_checked)" = true ] && times=1
	[ "$times" = 1 ] || [ "$(json "$1" .clock.state)" != synced ] ||
		fail "times in host CLOCK_MONOTONIC, not checked"
	for r in 0 1; do
		if [ "$2" = record ]; then
			# in the ring when the recording began: counted
			# apart, the LOST records not in the file
			expect_eq "ring $r: LOST summed" "$(json "$1" ".rings[$r].host.early_lost")" 7
			expect_eq "ring $r: LOST flagged" "$(json "$1" ".rings[$r].host.early_flagged")" 2
			expect_eq "ring $r: LOST records" "$(json "$1" ".rings[$r].host.early_lost_records")" 1
			expect_eq "ring $r: LOST in the file" "$(json "$1" ".rings[$r].types.lost")" 0
			expect_eq "ring $r: LOST_SAMPLES summed" "$(json "$1" ".rings[$r].host.early_lost_samples")" 0
			expect_eq "ring $r: LOST_SAMPLES flagged" "$(json "$1" ".rings[$r].host.early_flagged_samples")" 1
		else
			expect_eq "ring $r: LOST summed" "$(json "$1" ".rings[$r].lost")" 7
			expect_eq "ring $r: LOST flagged" "$(json "$1" ".rings[$r].flagged.lost")" 2
			expect_eq "ring $r: LOST records" "$(json "$1" ".rings[$r].types.lost")" 3
			expect_eq "ring $r: LOST_SAMPLES summed" "$(json "$1" ".rings[$r].lost_samples")" 0
			expect_eq "ring $r: LOST_SAMPLES flagged" "$(json "$1" ".rings[$r].flagged.lost_samples")" 1
		fi
		expect_eq "ring $r: AUX flagged" "$(json "$1" ".rings[$r].flagged.aux")" 1
		expect_eq "ring $r: AUX bytes" "$(json "$1" ".rings[$r].aux_bytes")" 0
		expect_eq "ring $r: times flagged" "$(json "$1" ".rings[$r].flagged.time")" "$times"
		expect_eq "ring $r: host facts" "$(json "$1" ".rings[$r].host.corrupt")" 0
		expect_eq "ring $r: ring size" "$(json "$1" ".rings[$r].host.data_size")" 32768
	done
	if [ "$2" != record ]; then
		expect_eq "total LOST" "$(json "$1" .total.lost)" 14
		expect_eq "total flagged" "$(json "$1" .total.flagged.lost)" 4
	fi
	# the span is the plausible times': within the window
	[ "$times" = 0 ] ||
		[ "$(json "$1" .total.last_time)" -le "$(json "$1" '.window.end_ns + .window.slack_ns')" ] ||
		fail "last time beyond the window"
}

# text REPORT: the text report keeps the host's figures apart.
text() {
	expect_in "$1" "host facts: $2 from "
	expect_in "$1" "  host: corrupt 0 (0 impossible heads), 0 bytes discarded"
	if [ "$2" = drained ]; then
		expect_in "$1" "  before the recording: 22 records (in the file), lost 7 in 1 LOST records, samples lost 0 in 0 LOST_SAMPLES (guest claims, not in the file); flagged, not summed: 2 LOST counts, 1 LOST_SAMPLES counts above 1 per ns"
		expect_in "$1" "  before the recording: 44 records (in the file), lost 14 in 2 LOST records"
	else
		expect_in "$1" "  guest claims: lost 7 in 1 LOST records, samples lost 0"
		expect_in "$1" "  flagged, not summed: 2 LOST counts, 1 LOST_SAMPLES counts above 1 per ns"
		expect_in "$1" "guest claims: lost 14 in 2 LOST records"
	fi
	expect_in "$1" "1 AUX sizes larger than the AUX area"
	! grep -q "$HUGE" "$1" || { cat "$1" >&2; fail "a lie was shown as a figure"; }
	if grep -q "times checked against it" "$1"; then
		expect_in "$1" ", 1 times outside the"
		! grep -q "18446744073" "$1" || { cat "$1" >&2; fail "a time lie was shown"; }
	else
		expect_in "$1" "times not checked (the guest's clock"
	fi
}

note "snapshot: the lies flagged, exit 3, said on stderr"
REG=$(region snap)
"$PRODUCER" create "$REG" --rings 2 --data-pages 8 --aux-pages 4 || fail "create"
"$PRODUCER" write "$REG" --tsync $OFF --records 20 --burst 20 --hostile \
	--until "$WORK/release" --ready "$WORK/ready" >/dev/null &
BG_PIDS=$!
wait_for "$WORK/ready" 30
run 3 snap "$R" snapshot "$REG" -o "$WORK/snap.data"
expect_in "$WORK/snap.err" "ringside snapshot: warning: the guest's records make"
expect_in "$WORK/snap.err" "implausible claims (LOST counts 4, LOST_SAMPLES 2, AUX sizes 2, times"
expect_in "$WORK/snap.out" "    guest claims: lost 7 in 1 LOST records"
expect_in "$WORK/snap.out" "    flagged, not summed: 2 LOST counts"
run 0 rep "$R" report "$WORK/snap.data" --json
claims "$WORK/rep.out" snapshot
run 0 rept "$R" report "$WORK/snap.data"
text "$WORK/rept.out" copied

note "snapshot --quiet: nothing on stdout, the warning on stderr, exit 3"
run 3 snapq "$R" snapshot "$REG" -o "$WORK/snapq.data" --quiet
[ ! -s "$WORK/snapq.out" ] || fail "--quiet printed a summary"
expect_in "$WORK/snapq.err" "implausible claims"

note "record --quiet: the same lies, drained"
run 3 rec "$R" record "$REG" -o "$WORK/rec.data" --duration 0.5 --quiet
[ ! -s "$WORK/rec.out" ] || fail "--quiet printed a summary"
expect_in "$WORK/rec.err" "ringside record: warning: the guest's records make"
expect_in "$WORK/rec.err" "implausible claims (LOST counts 4, LOST_SAMPLES 2, AUX sizes 2, times"
run 0 repr "$R" report "$WORK/rec.data" --json
claims "$WORK/repr.out" record
run 0 reprt "$R" report "$WORK/rec.data"
text "$WORK/reprt.out" drained
touch "$WORK/release"
wait "$BG_PIDS" || fail "producer"
BG_PIDS=""

note "dump still shows each record as the guest wrote it"
# (a snapshot's: the recording left out the LOST records the ring held
# when it began, counted apart)
run 0 dump "$R" dump "$WORK/snap.data"
expect_in "$WORK/dump.out" "lost=$HUGE"

note "a corrupt ring: record --quiet says so on stderr and exits 3"
REG=$(region corrupt)
"$PRODUCER" create "$REG" --rings 1 --data-pages 8 || fail "create"
"$PRODUCER" write "$REG" --records 10 --corrupt >/dev/null || fail "producer"
run 3 snapc "$R" snapshot "$REG" -o "$WORK/snapc.data" --quiet
expect_in "$WORK/snapc.err" "ringside snapshot: warning: the source was corrupt: 1 events"
run 3 recc "$R" record "$REG" -o "$WORK/recc.data" --duration 0.2 --quiet
[ ! -s "$WORK/recc.out" ] || fail "--quiet printed a summary"
expect_in "$WORK/recc.err" "ringside record: warning: the source was corrupt: 1 events (0 impossible heads), 40 bytes discarded"
run 0 repc "$R" report "$WORK/recc.data" --json
expect_eq "corrupt" "$(json "$WORK/repc.out" .rings[0].host.corrupt)" 1
expect_eq "bytes discarded" "$(json "$WORK/repc.out" .rings[0].host.corrupt_bytes)" 40
expect_eq "records kept" "$(json "$WORK/repc.out" .rings[0].types.seq)" 10

note "a healthy region: exit 0, nothing on stderr"
REG=$(region fine)
"$PRODUCER" create "$REG" --rings 1 --data-pages 8 || fail "create"
"$PRODUCER" write "$REG" --records 10 >/dev/null || fail "producer"
run 0 recf "$R" record "$REG" -o "$WORK/recf.data" --duration 0.2 --quiet
[ ! -s "$WORK/recf.err" ] || { cat "$WORK/recf.err" >&2; fail "stderr on a healthy region"; }
run 0 repf "$R" report "$WORK/recf.data" --json
expect_eq "flagged" "$(json "$WORK/repf.out" '.total.flagged | .lost + .lost_samples + .aux + .time')" 0
expect_eq "window" "$(json "$WORK/repf.out" .window.times_checked)" false
echo ok
