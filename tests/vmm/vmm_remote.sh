#!/bin/bash
# The consumer in another process: `ringside run --control` serves the
# region, `ringside record --vm` receives the memfd and the doorbell
# eventfds over the socket, wakes on the doorbells and accounts for every
# record; one consumer at a time (snapshot and stat --vm alongside it); a
# VMM that goes away ends the recording.
. "$(dirname "$0")/vmm_lib.sh"
need_perf

# summary_bells OUT RING [FIELD]: doorbells record read for RING (the
# line's field 2), or with FIELD 6 and 8 the guest's rung and skipped.
summary_bells() {
	awk -v r="$2" -v n="${3:-2}" '$1 == "ring" && $2 == r":" { f = 1; next }
		f && $1 == "doorbells:" { sub(/,$/, "", $n); print $n; exit }' "$1"
}

note "a consumer that attaches late: the guest overran its rings meanwhile"
# It attaches once both vCPUs attempted all 2000 SEQ and 250 SAMPLE
# records (they wait to place their LOST record): a one-page ring overran.
start_vm late --vcpus 2 --records 2000 --data-pages 1
wait_attempted 2 2250
run 0 late-rec "$R" record --vm "$SOCK" -o "$WORK/late.data"
cat "$WORK/late-rec.out"
expect_in "$WORK/late-rec.out" "(the VM ended)"
stop_vm
cat "$WORK/late.out"
judge late "$WORK/late.data" guest >/dev/null
balance "$WORK/late.out" "$WORK/late.rep" 2
# the overrun predates the recording: its losses are counted apart, not
# LOST records in the file (perf, the judge, had none to warn of)
ELOST=$(json "$WORK/late.rep" '[.rings[].host.early_lost] | add')
[ "$ELOST" -gt 0 ] || fail "nothing lost: the test did not overrun"
expect_eq "LOST records in the file" "$(json "$WORK/late.rep" .total.types.lost)" 0
expect_in "$WORK/late-rec.out" "$(json "$WORK/late.rep" '[.rings[].host.early_records] | add') records and $ELOST losses predate the recording"
for r in 0 1; do
	expect_eq "ring $r: state" "$(ring_col "$WORK/late.out" $r state)" halted
	# Every doorbell rung reaches record; how many were rung rather than
	# skipped (record polling) depends on the interleaving, their sum not.
	bells=$(summary_bells "$WORK/late-rec.out" $r)
	rung=$(ring_col "$WORK/late.out" $r guest-bells)
	skipped=$(ring_col "$WORK/late.out" $r skipped)
	expect_eq "ring $r: doorbells read by record == rung by the guest" "$bells" "$rung"
	expect_eq "ring $r: rung, the ring's count" "$(summary_bells "$WORK/late-rec.out" $r 6)" "$rung"
	expect_eq "ring $r: skipped, record's summary" "$(summary_bells "$WORK/late-rec.out" $r 8)" "$skipped"
	[ $((rung + skipped)) -gt 0 ] ||
		fail "ring $r: no doorbell fell due (rung $rung, skipped $skipped)"
	expect_eq "ring $r: mmio exits" "$(ring_col "$WORK/late.out" $r mmio)" 0
done
# How many passes a doorbell started depends on how the two sides
# interleaved: shown, not asserted.
expect_in "$WORK/late-rec.out" "woken by doorbells:"
expect_in "$WORK/late-rec.out" "sleeps given up on a re-check"

note "one consumer at a time; snapshots while it records"
# 600 SEQ and 75 SAMPLE records fit in 64 KiB: nothing lost, whenever
# record attaches.
start_vm excl --vcpus 1 --records 600 --workload hang --data-pages 16
"$R" record --vm "$SOCK" -o "$WORK/excl.data" >"$WORK/excl-rec.out" 2>"$WORK/excl-rec.err" &
REC=$!
BG_PIDS="$BG_PIDS $REC"
wait_consumer "$REC"
run 1 second "$R" record --vm "$SOCK" -o "$WORK/second.data"
expect_in "$WORK/second.err" "another consumer"
no_output_file "$WORK/second.data"
run 0 while-rec "$R" snapshot --vm "$SOCK" -o "$WORK/while.data"
expect_in "$WORK/while-rec.out" "live copy of 1 rings"
wait_attempted 1 675   # 600 sequence records and 75 samples, then the hang
# after the guest's agent attached and wrote (a slow KVM may start the
# guest after record has attached), not before
run 0 stat-vm "$R" stat --vm "$SOCK"
expect_in "$WORK/stat-vm.out" "region $SOCK: 1 rings"
expect_in "$WORK/stat-vm.out" "agent attached (kind 1"
kill -INT "$REC"
wait "$REC" || { cat "$WORK/excl-rec.err" >&2; fail "record --vm exited $?"; }
BG_PIDS=${BG_PIDS/ $REC/}
expect_in "$WORK/excl-rec.out" "(interrupted)"
stop_vm
expect_eq "hung vCPU" "$(ring_col "$WORK/excl.out" 0 state)" stopped
judge excl "$WORK/excl.data" guest >/dev/null
balance "$WORK/excl.out" "$WORK/excl.rep" 1
expect_eq "lost" "$(json "$WORK/excl.rep" ".rings[0].lost")" 0
expect_eq "seq records" "$(json "$WORK/excl.rep" ".rings[0].types.seq")" 600
expect_eq "last seq" "$(json "$WORK/excl.rep" ".rings[0].seq_last")" 599

note "the VMM goes away while record runs: the file is still complete"
# record attached, the guest through its 300 SEQ and 38 SAMPLE records
# (~19 KB, in 64 KiB): then the VMM ends.
start_vm gone --vcpus 1 --records 300 --workload hang --data-pages 16
"$R" record --vm "$SOCK" -o "$WORK/gone.data" >"$WORK/gone-rec.out" 2>"$WORK/gone-rec.err" &
REC=$!
BG_PIDS="$BG_PIDS $REC"
wait_consumer "$REC"
wait_attempted 1 338
stop_vm
wait "$REC" || { cat "$WORK/gone-rec.err" >&2; fail "record --vm exited $?"; }
BG_PIDS=${BG_PIDS/ $REC/}
expect_in "$WORK/gone-rec.out" "(the VM ended)"
run 0 gone-rep "$R" report "$WORK/gone.data" --json
expect_eq "seq records" "$(json "$WORK/gone-rep.out" ".rings[0].types.seq")" 300
expect_eq "lost" "$(json "$WORK/gone-rep.out" ".rings[0].lost")" 0
echo "ok"
