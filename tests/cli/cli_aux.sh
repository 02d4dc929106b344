#!/bin/bash
# AUX: record drains the AUX areas (bytes counted, not stored) and keeps the
# AUX records; truncation is counted; snapshots measure the AUX areas.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
OUT=$WORK/aux.data

note "AUX that fits: no truncation"
REG=$(region fit)
"$PRODUCER" create "$REG" --rings 2 --data-pages 8 --aux-pages 4 || fail "create"
"$R" record "$REG" -o "$OUT" --interval 1 >"$WORK/rec.out" 2>"$WORK/rec.err" &
REC=$!
BG_PIDS=$REC
"$PRODUCER" write "$REG" --records 200 --aux 20 --aux-size 512 >"$WORK/p.out" || fail "producer"
stop_record "$REC" "$OUT" || fail "record failed: $(cat "$WORK/rec.err")"
BG_PIDS=""
cat "$WORK/rec.out"
run 0 rep "$R" report "$OUT" --json
for r in 0 1; do
	expect_eq "ring $r AUX records" "$(json "$WORK/rep.out" ".rings[$r].types.aux")" 20
	expect_eq "ring $r AUX bytes" "$(json "$WORK/rep.out" ".rings[$r].aux_bytes")" 10240
	expect_eq "ring $r truncated" "$(json "$WORK/rep.out" ".rings[$r].aux_truncated")" 0
done
expect_in "$WORK/rec.out" "AUX 10240 bytes taken"
check_balance "$WORK/p.out" "$WORK/rep.out" 2
run 0 dump "$R" dump "$OUT"
expect_in "$WORK/dump.out" "AUX          offset=0 size=512 flags=0"

note "AUX that overflows before anybody drains: TRUNCATED"
REG=$(region trunc)
"$PRODUCER" create "$REG" --rings 1 --data-pages 8 --aux-pages 4 || fail "create"
"$PRODUCER" write "$REG" --records 100 --aux 50 --aux-size 1024 --burst 100 \
	--ready "$WORK/ready" >"$WORK/p2.out" &
BG_PIDS=$!
wait_for "$WORK/ready" 30
run 0 rec2 "$R" record "$REG" -o "$OUT" --duration 0.3 --interval 1
wait $BG_PIDS || fail "producer"
BG_PIDS=""
run 0 rep2 "$R" report "$OUT" --json
trunc=$(json "$WORK/rep2.out" .rings[0].aux_truncated)
[ "$trunc" -gt 0 ] || fail "no truncated AUX record"
expect_eq "AUX records" "$(json "$WORK/rep2.out" .rings[0].types.aux)" 50
expect_eq "AUX bytes" "$(json "$WORK/rep2.out" .rings[0].aux_bytes)" 16384
run 0 dump2 "$R" dump "$OUT"
expect_in "$WORK/dump2.out" " truncated"

note "snapshot measures the AUX area"
REG=$(region snap)
"$PRODUCER" create "$REG" --rings 1 --data-pages 8 --aux-pages 4 --overwrite --aux-overwrite || fail "create"
"$PRODUCER" write "$REG" --records 100 --aux 50 --aux-size 1024 >/dev/null || fail "producer"
run 0 snap "$R" snapshot "$REG" -o "$OUT"
cat "$WORK/snap.out"
expect_in "$WORK/snap.out" "AUX: 16384 bytes valid, cut 0, overwritten 34816; not stored"
echo "ok"
