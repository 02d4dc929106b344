#!/bin/bash
# The flight recorder over the control socket: `ringside snapshot --vm`,
# stable (vCPUs paused) and live, on overwrite rings of a guest that runs,
# one that hung, and one that died of a triple fault.
. "$(dirname "$0")/vmm_lib.sh"
need_perf

# intact NAME RINGS: the snapshot's report shows consecutive, whole records.
intact() {
	local r
	run 0 "$1-rep" "$R" report "$WORK/$1.data" --json
	for r in $(seq 0 $(($2 - 1))); do
		[ "$(json "$WORK/$1-rep.out" ".rings[$r].types.seq")" -gt 0 ] ||
			fail "$1: ring $r has no records"
		expect_eq "$1: ring $r gaps" "$(json "$WORK/$1-rep.out" ".rings[$r].seq_gaps")" 0
		expect_eq "$1: ring $r order" \
			"$(json "$WORK/$1-rep.out" ".rings[$r].seq_out_of_order")" 0
		expect_eq "$1: ring $r checksums" "$(json "$WORK/$1-rep.out" ".rings[$r].seq_bad")" 0
	done
}

# newest NAME RING: the newest sequence number in snapshot NAME.
newest() {
	json "$WORK/$1-rep.out" ".rings[$2].seq_last"
}

note "a guest that hangs after its records: stable and live give them all"
start_vm hang --vcpus 2 --records 1200 --mode overwrite --workload hang
wait_attempted 2 1350
run 0 hang-stable "$R" snapshot --vm "$SOCK" --stable -o "$WORK/hang-stable.data"
cat "$WORK/hang-stable.out"
expect_in "$WORK/hang-stable.out" "stable (vCPUs paused) copy of 2 rings"
expect_in "$WORK/hang-stable.out" "vCPU 1: running"
intact hang-stable 2
run 0 hang-live "$R" snapshot --vm "$SOCK" -o "$WORK/hang-live.data"
expect_in "$WORK/hang-live.out" "live copy of 2 rings"
intact hang-live 2
for r in 0 1; do
	expect_eq "hung: ring $r newest (stable)" "$(newest hang-stable $r)" 1199
	expect_eq "hung: ring $r newest (live)" "$(newest hang-live $r)" 1199
done
judge hang-stable "$WORK/hang-stable.data" guest >/dev/null
stop_vm

note "a guest that keeps writing: every snapshot intact, each newer"
# One vCPU, so that the snapshots get the nested guest's other CPU.  A live
# copy can lose the whole ring to the writer while it copies (its reader
# descheduled meanwhile): then it holds nothing, and says what it cut.
start_vm busy --vcpus 1 --records 4000000000 --mode overwrite
wait_attempted_any 1 100
prev=-1
first=""
for i in 1 2 3; do
	for kind in live stable; do
		flag=""; [ $kind = stable ] && flag=--stable
		run 0 "busy-$kind$i" "$R" snapshot --vm "$SOCK" $flag \
			-o "$WORK/busy-$kind$i.data"
		run 0 "busy-$kind$i-rep" "$R" report "$WORK/busy-$kind$i.data" --json
		if [ $kind = live ] &&
		   [ "$(json "$WORK/busy-$kind$i-rep.out" ".rings[0].types.seq")" = 0 ]; then
			grep -q "cut [1-9][0-9]* bytes" "$WORK/busy-$kind$i.out" ||
				fail "busy-$kind$i: no records, and nothing cut"
			continue
		fi
		intact "busy-$kind$i" 1
		n=$(newest "busy-$kind$i" 0)
		[ "$n" -ge "$prev" ] || fail "busy: snapshot $kind$i went back: $n < $prev"
		prev=$n
		[ -n "$first" ] || first=$n
	done
	expect_in "$WORK/busy-stable$i.out" "stable (vCPUs paused)"
	expect_in "$WORK/busy-live$i.out" "live copy"
done
# the guest moves on between snapshots, however slowly
for i in $(seq 300); do
	[ "$(newest busy-stable3 0)" -gt "$first" ] && break
	sleep 0.2
	run 0 busy-stable3 "$R" snapshot --vm "$SOCK" --stable -o "$WORK/busy-stable3.data"
	intact busy-stable3 1
done
[ "$(newest busy-stable3 0)" -gt "$first" ] ||
	fail "busy: the guest did not move between the snapshots"
stop_vm
expect_eq "busy: vCPU stopped by run" "$(ring_col "$WORK/busy.out" 0 state)" stopped
# the pauses are kicks, not guest exits
[ "$(ring_col "$WORK/busy.out" 0 kicks)" -ge 3 ] || fail "busy: stable snapshots paused nothing"

note "a guest that triple-faults: the flight recorder still holds its records"
start_vm crash --vcpus 2 --records 1000 --mode overwrite --workload crash
for i in $(seq 300); do
	run 0 crash-stable "$R" snapshot --vm "$SOCK" --stable -o "$WORK/crash-stable.data"
	[ "$(grep -c 'shutdown (triple fault)' "$WORK/crash-stable.out")" = 2 ] && break
	sleep 0.2
done
# the vCPUs' states are read after the copy's resume: the snapshot that
# saw them shut down may have copied the rings a moment before the last
# records.  Once both are down nothing writes; this copy is the last word.
run 0 crash-stable "$R" snapshot --vm "$SOCK" --stable -o "$WORK/crash-stable.data"
cat "$WORK/crash-stable.out"
expect_in "$WORK/crash-stable.out" "vCPU 0: shutdown (triple fault), 1125 records attempted"
expect_in "$WORK/crash-stable.out" "vCPU 1: shutdown (triple fault), 1125 records attempted"
intact crash-stable 2
run 0 crash-live "$R" snapshot --vm "$SOCK" -o "$WORK/crash-live.data"
intact crash-live 2
for r in 0 1; do
	expect_eq "crashed: ring $r newest (stable)" "$(newest crash-stable $r)" 999
	expect_eq "crashed: ring $r newest (live)" "$(newest crash-live $r)" 999
done
judge crash-live "$WORK/crash-live.data" guest >/dev/null
stop_vm
expect_in "$WORK/crash.out" "shutdown"
echo "ok"
