#!/bin/bash
# SIGINT or SIGTERM while the producer is still writing: record completes
# the file, which then holds exactly what record said it wrote.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
REG=$(region sig)
"$PRODUCER" create "$REG" --rings 2 --data-pages 4 || fail "create"

for sig in INT TERM; do
	note "SIG$sig during record"
	OUT=$WORK/sig$sig.data
	"$PRODUCER" write "$REG" --records 1000000 --rate 20000 --markers 1000 \
		--samples 1000 >/dev/null 2>&1 &
	PROD=$!
	BG_PIDS=$PROD
	"$R" record "$REG" -o "$OUT" --interval 2 >"$WORK/rec$sig.out" 2>"$WORK/rec$sig.err" &
	REC=$!
	BG_PIDS="$PROD $REC"
	# the signal lands while both write: record has its handler (it
	# made OUT.tmp.XXXXXX) and has drained every ring at least once
	wait_for_tmp "$OUT" 60
	wait_rings "$R" "$REG" data_tail 60
	kill -"$sig" "$REC"
	wait "$REC"
	rc=$?
	BG_PIDS=$PROD
	kill "$PROD"; wait "$PROD" 2>/dev/null
	BG_PIDS=""
	cat "$WORK/rec$sig.out"
	expect_eq "record exit status after SIG$sig" "$rc" 0
	[ -s "$OUT" ] || fail "no file after SIG$sig"
	no_tmp_file "$OUT"
	expect_in "$WORK/rec$sig.out" "(interrupted)"
	run 0 "rep$sig" "$R" report "$OUT" --json
	total=$(json "$WORK/rep$sig.out" .total.records)
	[ "$total" -gt 0 ] || fail "no records before SIG$sig"
	expect_in "$WORK/rec$sig.out" "wrote $total records"
	for r in 0 1; do
		expect_eq "ring $r bad" "$(json "$WORK/rep$sig.out" ".rings[$r].seq_bad")" 0
	done
	run 0 "dump$sig" "$R" dump "$OUT"
	expect_eq "dump lines" "$(wc -l <"$WORK/dump$sig.out")" "$total"
done
echo "ok"
