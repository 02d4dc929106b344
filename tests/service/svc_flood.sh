#!/bin/bash
# A guest flooding its rings does not starve another one: two domains
# recorded at once by the service's recorders (svc-rec-multi, a pass
# every 100 ms as in the service), one whose producer writes 4 rings as
# fast as it can, one at a modest 2000 records/s.  Every record of both
# is in a file or counted in a LOST record (delivered + lost ==
# attempted), and the modest one loses none: its recorder is a thread of
# its own, and the flooding one drains at most its rings' bytes a pass.
# The flooding producer's first burst overflows its rings before the
# recorders start: those drops predate the recording, whenever its
# consumer attaches (the file's host facts, early_lost: docs/cli.md,
# "What predates a recording"), and the sum counts them apart from the
# file's LOST records; without the burst the same split would depend on
# how soon the recorder's thread ran.
# The recorders' CPU time is printed (a figure, not a check: timing).
# Usage: svc_flood.sh RINGSIDE PRODUCER SVC_REC_MULTI
MULTI=$3
. "$(dirname "$0")/../cli/lib.sh" "$1" "$2"

R=$RINGSIDE
DIR=$WORK/rec
FLOOD=$(region flood)
CALM=$(region calm)
"$PRODUCER" create "$FLOOD" --rings 4 --data-pages 64 || fail "create flood"
# 1 MiB: 16384 records, 8 s of the modest rate between two passes
"$PRODUCER" create "$CALM" --rings 1 --data-pages 256 || fail "create calm"
# 20000 records a ring at once, more than 64 pages hold: each ring drops
# some before any consumer exists; the rest once the recorders run
"$PRODUCER" write "$FLOOD" --records 300000 --burst 20000 --rate 0 \
	--ready "$WORK/flood.ready" --hold "$WORK/flood.go" \
	>"$WORK/flood.out" 2>"$WORK/flood.err" &
PF=$!
BG_PIDS="$PF"
wait_for "$WORK/flood.ready" 60
"$MULTI" --no-pprof --interval-ms 100 --rotate-bytes $((64 << 20)) \
	--until "$WORK/until" "$DIR" flood="$FLOOD" calm="$CALM" \
	>"$WORK/multi.out" 2>"$WORK/multi.err" &
DRV=$!
BG_PIDS="$PF $DRV"
wait_for "$DIR/flood" 30
wait_for "$DIR/calm" 30
"$PRODUCER" write "$CALM" --records 6000 --burst 10 --rate 2000 \
	>"$WORK/calm.out" 2>"$WORK/calm.err" &
PC=$!
BG_PIDS="$DRV $PC $PF"
touch "$WORK/flood.go"
wait "$PF" || { cat "$WORK/flood.err" >&2; fail "flood producer"; }
wait "$PC" || { cat "$WORK/calm.err" >&2; fail "calm producer"; }
BG_PIDS="$DRV"
touch "$WORK/until"
wait "$DRV" || { cat "$WORK/multi.err" >&2; fail "svc-rec-multi failed"; }
BG_PIDS=""
cat "$WORK/flood.out" "$WORK/calm.out" "$WORK/multi.out"

# count DOMAIN RINGS OUT: per ring "delivered lost early" over the
# domain's files: lost the file's LOST counts, early the losses before the
# recording (host facts, not in the file)
count() {
	local d=$1 rings=$2 f r rep
	local -a deliv lost early
	for f in "$DIR/$d"/rec-*.data; do
		rep=$WORK/rep-$d-$(basename "$f").out
		"$R" report "$f" --json >"$rep" 2>"$rep.err" || { cat "$rep.err" >&2; fail "report $f"; }
		for r in $(seq 0 $((rings - 1))); do
			deliv[r]=$(( ${deliv[r]:-0} + $(json "$rep" ".rings[$r].types | .seq + .sample + .marker + .aux + .comm + .mmap2") ))
			lost[r]=$(( ${lost[r]:-0} + $(json "$rep" ".rings[$r].lost") ))
			early[r]=$(( ${early[r]:-0} + $(json "$rep" ".rings[$r].host.early_lost // 0") ))
		done
	done
	for r in $(seq 0 $((rings - 1))); do
		echo "$r ${deliv[r]} ${lost[r]} ${early[r]}"
	done
}
count flood 4 >"$WORK/flood.count"
count calm 1 >"$WORK/calm.count"
total=0
while read -r r deliv lost early; do
	attempted=$(producer_field "$WORK/flood.out" "$r" attempted)
	[ "$early" -gt 0 ] ||
		fail "flood ring $r: no loss before the recording, yet its burst overflowed the ring before the recorders started"
	expect_eq "flood ring $r: delivered + lost + lost before the recording" \
		"$((deliv + lost + early))" "$attempted"
	expect_eq "flood ring $r: lost (files vs producer)" "$((lost + early))" \
		"$(producer_field "$WORK/flood.out" "$r" lost)"
	total=$((total + deliv))
done <"$WORK/flood.count"
read -r r deliv lost early <"$WORK/calm.count"
expect_eq "calm: lost before the recording" "$early" 0
expect_eq "calm: delivered" "$deliv" "$(producer_field "$WORK/calm.out" 0 attempted)"
expect_eq "calm: lost" "$lost" 0
expect_eq "calm: producer's lost" "$(producer_field "$WORK/calm.out" 0 lost)" 0
cpu=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "cpu_s") print $(i + 1) }' "$WORK/multi.out")
wall=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "wall_s") print $(i + 1) }' "$WORK/multi.out")
note "flood delivered $total records (of $((4 * 300000))), calm $deliv of 6000, none lost; recorders' CPU ${cpu} s in ${wall} s"
exit 0
