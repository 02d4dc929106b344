#!/bin/bash
# SIGTERM completes every open file: three domains recorded at once
# (svc-rec-multi, the service's recorders, without libvirt), each with a
# file being written (FILE.tmp.XXXXXX), get SIGTERM as the service does; every
# domain's files are then complete (no .tmp), its last one says
# "shutdown", perf and report read each, and per domain and ring the
# records in the files plus the LOST counts add up to what the producer
# attempted: the last pass took what the rings still held.
# Then the same with ringside-service itself, given the regions by the
# configuration's record-region (no libvirt domain; libvirt's test
# driver for its events), stopped by SIGTERM.
# Usage: svc_sigterm.sh RINGSIDE PRODUCER SVC_REC_MULTI [RINGSIDE_SERVICE]
MULTI=$3
SERVICE=${4:-}
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
	ls "$DIR/dom$d"/*.tmp.?????? >/dev/null 2>&1 || fail "dom$d: no file being written before SIGTERM"
done
kill -TERM "$DRV"
wait "$DRV" || { cat "$WORK/multi.err" >&2; fail "svc-rec-multi failed at SIGTERM"; }
BG_PIDS=""
cat "$WORK/multi.err"

PERF=$(command -v perf) && "$PERF" version >/dev/null 2>&1 || PERF=
# check DIR TAG: every domain's files complete, the last one "shutdown",
# delivered + lost == attempted per ring
check() {
	local dir=$1 tag=$2 d f n r rep NF attempted
	local -a FILES DELIV LOST
	for d in a b c; do
		ls "$dir/dom$d" | grep -q '\.tmp\.' && fail "$tag dom$d: a file left incomplete"
		mapfile -t FILES < <(ls "$dir/dom$d"/rec-*.data)
		NF=${#FILES[@]}
		[ "$NF" -ge 1 ] || fail "$tag dom$d: no file"
		expect_eq "$tag dom$d: last reason" "$(json "${FILES[NF - 1]}.json" .reason)" shutdown
		DELIV=(0 0) LOST=(0 0)
		for f in "${FILES[@]}"; do
			n=$tag-$d-$(basename "$f")
			run 0 "rep-$n" "$R" report "$f" --json
			rep=$WORK/rep-$n.out
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
			attempted=$(producer_field "$WORK/producer-$tag-$d.out" $r attempted)
			expect_eq "$tag dom$d ring $r: delivered + lost" "$((DELIV[r] + LOST[r]))" "$attempted"
		done
	done
}
for d in a b c; do
	cp "$WORK/producer-$d.out" "$WORK/producer-multi-$d.out"
done
check "$DIR" multi
expect_in "$WORK/multi.err" "recordings: 3 started, 0 failed"

[ -n "$SERVICE" ] || { note "built without libvirt: ringside-service itself not run"; exit 0; }
note "ringside-service itself, its regions by record-region, SIGTERM"
DIR=$WORK/rec-svc
{
	echo "uri = test:///default"
	echo "socket = none"
	echo "metrics = none"
	echo "pprof = no"
	echo "record-dir = $DIR"
	for d in a b c; do
		# at a domain's 1000 Hz: the service's recorders back off
		# while the rings are idle, and SIGTERM still wakes them
		"$PRODUCER" create "$(region $d)" --rings 2 --data-pages 64 \
			--freq 1000 || fail "create $d again"
		echo "record-region = dom$d $(region $d)"
	done
} >"$WORK/service.conf"
"$SERVICE" --config "$WORK/service.conf" --capture-dir "$WORK/captures" \
	>"$WORK/service.out" 2>"$WORK/service.err" &
SVC=$!
BG_PIDS="$SVC"
for d in a b c; do
	wait_for "$DIR/dom$d" 30
done
for d in a b c; do
	"$PRODUCER" write "$(region $d)" --records 3000 --burst 100 --rate 20000 \
		>"$WORK/producer-svc-$d.out" 2>"$WORK/producer-svc-$d.err" &
	eval "P$d=\$!"
done
for d in a b c; do
	eval "wait \$P$d" || { cat "$WORK/producer-svc-$d.err" >&2; fail "producer $d"; }
done
for d in a b c; do
	ls "$DIR/dom$d"/*.tmp.?????? >/dev/null 2>&1 || fail "dom$d: no file being written before SIGTERM"
done
kill -TERM "$SVC"
wait "$SVC" || { cat "$WORK/service.err" >&2; fail "ringside-service failed at SIGTERM"; }
BG_PIDS=""
cat "$WORK/service.err"
check "$DIR" svc
expect_in "$WORK/service.err" "recordings: 3 started, 0 failed"
exit 0
