#!/bin/bash
# AUX: record drains the AUX areas into the file (PERF_RECORD_AUXTRACE after
# one AUXTRACE_INFO) and keeps the AUX records; truncation is counted;
# snapshots store each AUX area's valid bytes.  perf is the judge: `perf
# report --stats` reads the file with no warning, no AUX loss that did not
# happen, and its AUXTRACE records hold exactly the bytes ringside took
# (their sizes as `perf report -D` prints them); a truncation that did
# happen is the loss perf reports (perf script's warning).  dump and report still read the file.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
OUT=$WORK/aux.data
need_perf

# auxtrace_bytes FILE: the sum of the AUXTRACE records' sizes, per perf.
auxtrace_bytes() {
	local n=0 h
	for h in $("$PERF" report -D -i "$1" 2>/dev/null |
		   sed -n 's/.*PERF_RECORD_AUXTRACE size: \(0x[0-9a-f]*\).*/\1/p'); do
		n=$((n + h))
	done
	echo "$n"
}

# perf_stats NAME FILE: perf report --stats, nothing on stderr.
perf_stats() {
	run 0 "$1" "$PERF" report --stats -i "$2"
	[ ! -s "$WORK/$1.err" ] || { cat "$WORK/$1.err" >&2; fail "perf report --stats wrote on stderr"; }
}

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
expect_in "$WORK/rec.out" "AUX 10240 bytes taken, 10240 stored"
for r in 0 1; do
	expect_eq "ring $r AUX stored" "$(json "$WORK/rep.out" ".rings[$r].host.aux_stored")" 10240
done
check_balance "$WORK/p.out" "$WORK/rep.out" 2
perf_stats stats "$OUT"
expect_in "$WORK/stats.out" "AUXTRACE_INFO events:          1"
expect_in "$WORK/stats.out" "AUXTRACE events:"
! grep -q "AUX data lost" "$WORK/stats.out" || fail "perf reports AUX loss that did not happen"
expect_eq "AUXTRACE bytes" "$(auxtrace_bytes "$OUT")" 20480
run 0 script "$PERF" script -i "$OUT"
[ ! -s "$WORK/script.err" ] || { cat "$WORK/script.err" >&2; fail "perf script wrote on stderr"; }
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
drained=$(json "$WORK/rep2.out" .rings[0].host.aux_bytes)
expect_eq "AUXTRACE bytes" "$(auxtrace_bytes "$OUT")" "$drained"
expect_eq "stored" "$(json "$WORK/rep2.out" .rings[0].host.aux_stored)" "$drained"
perf_stats stats2 "$OUT"
# the loss that did happen, as perf counts it: the TRUNCATED AUX records
# (perf script warns at the end; its intel_pt decoder adds one "instruction
# trace error" per lost stretch)
run 0 script2 "$PERF" script -i "$OUT"
expect_in "$WORK/script2.err" "AUX data lost $trunc times out of 50!"

note "snapshot measures the AUX area"
REG=$(region snap)
"$PRODUCER" create "$REG" --rings 1 --data-pages 8 --aux-pages 4 --overwrite --aux-overwrite || fail "create"
"$PRODUCER" write "$REG" --records 100 --aux 50 --aux-size 1024 >/dev/null || fail "producer"
run 0 snap "$R" snapshot "$REG" -o "$OUT"
cat "$WORK/snap.out"
expect_in "$WORK/snap.out" "AUX: 16384 bytes valid, cut 0, overwritten 34816; 16384 stored"
perf_stats stats3 "$OUT"
expect_in "$WORK/stats3.out" "AUXTRACE events:          1"
! grep -q "AUX data lost" "$WORK/stats3.out" || fail "perf reports AUX loss that did not happen"
expect_eq "AUXTRACE bytes" "$(auxtrace_bytes "$OUT")" 16384
run 0 rep3 "$R" report "$OUT" --json
expect_eq "AUX stored" "$(json "$WORK/rep3.out" .rings[0].host.aux_stored)" 16384
run 0 dump3 "$R" dump "$OUT"
expect_in "$WORK/dump3.out" "AUX          offset="
echo "ok"
