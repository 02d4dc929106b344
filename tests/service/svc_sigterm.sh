#!/bin/bash
# SIGTERM completes every open file: three domains recorded at once
# (svc-rec-multi, the service's recorders, without libvirt), each with a
# file being written (FILE.tmp), get SIGTERM as the service does; every
# domain's files are then complete (no .tmp), its last one says
# "shutdown", perf and report read each, and per domain and ring the
# records in the files plus the LOST counts add up to what the producer
# attempted: the last pass took what the rings still held.
# Usage: svc_sigterm.sh RINGSIDE PRODUCER SVC_REC_MULTI
MULTI=$3
. "$(dirname "$0")/../cli/lib.sh" "$1" "$2"

R=$RINGSIDE
DIR=$WORK/rec
ARGS=()
for d in a b c; do
	"$PRODUCER" create "$(region $d)" --rings 2 --data-pages 64 || fail "create $d"
	ARGS+=("dom$d=$(region $d)")
done
# a long interval: what the producers write last is still in the rings
# when SIGTERM comes, for the last pass to take
"$MULTI" --no-pprof --interval-ms 1000 \
	"$DIR" "${ARGS[@]}" >"$WORK/multi.out" 2>"$WORK/multi.err" &
DRV=$!
BG_PIDS="$DRV"
for d in a b c; do
	wait_for "$DIR/dom$d" 30
done
for d in a b c; do
	"$PRODUCER" write "$(region $d)" --records 3000 --burst 100 --rate 20000 \
		>"$WORK/producer-$d.out" 2>"$WORK/producer-$d.err" &
	eval "P$d=\$!"
done
for d in a b c; do
	eval "wait \$P$d" || { cat "$WORK/producer-$d.err" >&2; fail "producer $d"; }
done
for d in a b c; do
	ls "$DIR/dom$d"/*.tmp >/dev/null 2>&1 || fail "dom$d: no file being written before SIGTERM"
done
kill -TERM "$DRV"
wait "$DRV" || { cat "$WORK/multi.err" >&2; fail "svc-rec-multi failed at SIGTERM"; }
BG_PIDS=""
cat "$WORK/multi.err"

PERF=$(command -v perf) && "$PERF" version >/dev/null 2>&1 || PERF=
for d in a b c; do
	ls "$DIR/dom$d" | grep -q '\.tmp$' && fail "dom$d: a file left incomplete"
	mapfile -t FILES < <(ls "$DIR/dom$d"/rec-*.data)
	NF=${#FILES[@]}
	[ "$NF" -ge 1 ] || fail "dom$d: no file"
	expect_eq "dom$d: last reason" "$(json "${FILES[NF - 1]}.json" .reason)" shutdown
	DELIV=(0 0) LOST=(0 0)
	for f in "${FILES[@]}"; do
		n=$(basename "$f")
		run 0 "rep-$d-$n" "$R" report "$f" --json
		rep=$WORK/rep-$d-$n.out
		for r in 0 1; do
			DELIV[r]=$(( DELIV[r] + $(json "$rep" ".rings[$r].types | .seq + .sample + .marker + .aux + .comm + .mmap2") ))
			LOST[r]=$(( LOST[r] + $(json "$rep" ".rings[$r].lost") ))
		done
		if [ -n "$PERF" ]; then
			"$PERF" script -i "$f" >/dev/null 2>"$WORK/perf.err" ||
				{ cat "$WORK/perf.err" >&2; fail "perf script cannot read $f"; }
		fi
	done
	for r in 0 1; do
		attempted=$(producer_field "$WORK/producer-$d.out" $r attempted)
		expect_eq "dom$d ring $r: delivered + lost" "$((DELIV[r] + LOST[r]))" "$attempted"
	done
done
expect_in "$WORK/multi.err" "recordings: 3 started, 0 failed"
exit 0
