#!/bin/bash
# The flight recorder outlives a scribbled header (docs/abi.md, "The
# header page guard"; docs/cli.md, "A damaged region header"): a guest
# that zeroes its region's header page has its writes to the host's fields
# refused and counted, and the snapshot stays whole; a header the host
# side scribbles (the guard cannot stop that) is read by the VMM's layout:
# every ring's newest records, the damage named, exit status 3.
. "$(dirname "$0")/vmm_lib.sh"

# intact NAME: both rings' records whole, the newest 1199.
intact() {
	local r
	run 0 "$1-rep" "$R" report "$WORK/$1.data" --json
	for r in 0 1; do
		expect_eq "$1: ring $r newest" "$(json "$WORK/$1-rep.out" ".rings[$r].seq_last")" 1199
		expect_eq "$1: ring $r gaps" "$(json "$WORK/$1-rep.out" ".rings[$r].seq_gaps")" 0
		expect_eq "$1: ring $r checksums" "$(json "$WORK/$1-rep.out" ".rings[$r].seq_bad")" 0
	done
}

note "the guest zeroes its header page: the guard keeps the host's fields"
start_vm scribble --vcpus 2 --records 1200 --mode overwrite --workload scribble
# vCPU 0 makes 512 8-byte stores over the page once its records are in;
# 88 of them fall in the guest's own fields (status, sideband, perf
# buffer, user symbol and process state descriptors, its time sync
# line, its identity), the other 424 are refused.
for i in $(seq 300); do
	run 0 wait "$R" snapshot --vm "$SOCK" -o "$WORK/wait.data"
	grep -q "; 424 guest writes to host fields refused" "$WORK/wait.out" && break
	[ "$i" = 300 ] && { cat "$WORK/wait.out"; fail "the guest's 424 refused writes never all arrived"; }
	sleep 0.2
done
wait_attempted 2 1350   # 1200 records and 150 samples per vCPU
run 0 guarded "$R" snapshot --vm "$SOCK" --stable -o "$WORK/guarded.data"
cat "$WORK/guarded.out" "$WORK/guarded.err"
expect_in "$WORK/guarded.out" "header page: read-only to the guest; 424 guest writes to host fields refused"
expect_in "$WORK/guarded.err" "the guest tried 424 writes to the host's part of the region header; the VMM refused them"
grep -q "header damaged" "$WORK/guarded.err" && fail "guarded: the header was damaged"
intact guarded
run 0 stat "$R" stat --vm "$SOCK"
expect_in "$WORK/stat.out" "424 guest writes to host fields refused"

note "the host side scribbles over it (the memfd): read by the VMM's layout"
fd=$(find "/proc/$VM_PID/fd" -lname '/memfd:ringside-region*' -printf '%f\n' | head -n 1)
[ -n "$fd" ] || fail "no region memfd in /proc/$VM_PID/fd"
dd if=/dev/zero of="/proc/$VM_PID/fd/$fd" bs=4096 count=1 conv=notrunc status=none ||
	fail "cannot write the region memfd"
run 3 dmg "$R" snapshot --vm "$SOCK" -o "$WORK/dmg.data"
cat "$WORK/dmg.err"
expect_in "$WORK/dmg.err" "header damaged: magic (guest says 0, host laid out 0x"
expect_in "$WORK/dmg.err" "nr_rings (guest says 0, host laid out 2)"
intact dmg
run 3 dmg-stat "$R" stat --vm "$SOCK"
expect_in "$WORK/dmg-stat.err" "header damaged: magic"
stop_vm
echo "PASS"
