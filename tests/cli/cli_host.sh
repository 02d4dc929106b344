#!/bin/bash
# The host's view of a VMM's vCPU threads in `ringside record --vm`: a
# stand-in VMM whose threads are named as vCPU threads ("CPU N/KVM") and
# spin; vCPU 0's thread pinned to one host CPU beside a busy loop, so that
# the host preempts it while it is runnable.  The file holds the host's
# context switches on vCPU 0's lane (perf script shows them among the
# guest's records), `report` names steal on vCPU 0, `--no-host` and a VMM
# without vCPU threads record the guest side alone and say so.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
[ -x "${FAKE_VMM:-}" ] || fail "FAKE_VMM is not set (meson sets it)"
command -v taskset >/dev/null || fail "taskset is missing (util-linux)"
command -v perf >/dev/null || fail "perf is missing (scripts/setup.sh installs it)"
# switch records on the caller's own threads: perf_event_paranoid <= 2,
# or CAP_PERFMON (root)
PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
[ "$(id -u)" = 0 ] || [ "$PARANOID" -le 2 ] ||
	skip "perf_event_paranoid $PARANOID and not root: no per-thread perf events"

REG=$(region host)
"$PRODUCER" create "$REG" --rings 2 --data-pages 4 || fail "create"
"$PRODUCER" write "$REG" --records 200 >"$WORK/p.out" || fail "producer"
SOCK=$WORK/vm.sock
"$FAKE_VMM" "$SOCK" "$REG" --vcpu-threads 2 &
VM=$!
BG_PIDS=$VM
wait_for "$SOCK" 30

# tid_of PID NAME: the thread of PID named NAME
tid_of() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] && { basename "$t"; return; }
	done
}
TID0=$(tid_of "$VM" "CPU 0/KVM")
[ -n "$TID0" ] || fail "the stand-in VMM has no thread 'CPU 0/KVM'"
CPU=$(taskset -pc "$$" | sed 's/.*: *//; s/[-,].*//')
taskset -pc "$CPU" "$TID0" >/dev/null || fail "cannot pin $TID0"

note "vCPU 0 beside a busy loop on host CPU $CPU: preempted while runnable"
taskset -c "$CPU" sh -c 'end=$(($(date +%s) + 3)); while [ "$(date +%s)" -lt "$end" ]; do :; done' &
HOG=$!
BG_PIDS="$BG_PIDS $HOG"
run 0 rec "$R" record --vm "$SOCK" -o "$WORK/h.data" --duration 1.5
expect_in "$WORK/rec.out" "ringside record: host view: 2 vCPU threads of pid $VM (context switches)"
expect_in "$WORK/rec.out" "context switches of 2 vCPU threads filed"
run 0 rep "$R" report "$WORK/h.data"
expect_in "$WORK/rep.out" "host view: "
expect_in "$WORK/rep.out" "  vCPU 1: running "
STEAL=$(awk '$1 == "vCPU" && $2 == "0:" { for (i = 1; i < NF; i++) if ($i == "running)") { print $(i + 1); exit } }' "$WORK/rep.out")
PRE=$(awk '$1 == "vCPU" && $2 == "0:" { for (i = 1; i < NF; i++) if ($i == "preemptions,") { print $(i - 1); exit } }' "$WORK/rep.out")
[ -n "$STEAL" ] || { cat "$WORK/rep.out"; fail "no vCPU 0 line in the report"; }
awk -v s="$STEAL" 'BEGIN { exit !(s > 0) }' || { cat "$WORK/rep.out"; fail "vCPU 0: no steal beside a busy loop"; }
[ "$PRE" -gt 0 ] || fail "vCPU 0: no preemption"
grep -q '^    vCPU 0 steal [0-9.]* s from [0-9.]* s (preempted on host CPU '"$CPU" "$WORK/rep.out" ||
	{ cat "$WORK/rep.out"; fail "vCPU 0: no preemption on host CPU $CPU listed"; }
# perf: the switches in time order among the guest's records, on lane 0
perf script -i "$WORK/h.data" --show-switch-events -C 0 >"$WORK/perf0.out" 2>"$WORK/perf0.err" ||
	{ cat "$WORK/perf0.err"; fail "perf script"; }
grep -q 'CPU 0/KVM .*PERF_RECORD_SWITCH OUT preempt' "$WORK/perf0.out" ||
	{ head -20 "$WORK/perf0.out"; fail "perf script: no preemption of 'CPU 0/KVM' on CPU 0"; }
grep -q 'CPU 1/KVM' "$WORK/perf0.out" && fail "perf script -C 0 shows vCPU 1's thread"
awk '/PERF_RECORD_SWITCH/ { t = $4; sub(/:$/, "", t); if (t + 0 < last) bad = 1; last = t + 0 } END { exit bad }' \
	"$WORK/perf0.out" || fail "perf script: switches out of time order"
# the readers of the guest's records skip the host's: --json counts
# the guest's alone
run 0 json "$R" report --json "$WORK/h.data"
expect_eq "records of the guest" "$(json "$WORK/json.out" .total.records)" \
	"$(awk '$1 == "total:" { print $2; exit }' "$WORK/rep.out")"
kill "$HOG" 2>/dev/null

note "--no-host: the guest side alone"
run 0 nohost "$R" record --vm "$SOCK" -o "$WORK/n.data" --duration 0.3 --no-host
grep -q "host view" "$WORK/nohost.out" && fail "--no-host: a host view was recorded"
run 0 nrep "$R" report "$WORK/n.data"
grep -q "host view" "$WORK/nrep.out" && fail "--no-host: report shows a host view"

note "a VMM without vCPU threads: said, the guest side alone"
SOCK2=$WORK/vm2.sock
"$FAKE_VMM" "$SOCK2" "$REG" &
BG_PIDS="$BG_PIDS $!"
wait_for "$SOCK2" 30
run 0 none "$R" record --vm "$SOCK2" -o "$WORK/x.data" --duration 0.3
expect_in "$WORK/none.out" "ringside record: host view: not recorded: "
expect_in "$WORK/none.out" "the guest side alone"
[ -s "$WORK/x.data" ] || fail "no file without the host view"

note "ringside run: exits by reason per vCPU beside the guest's records"
if [ ! -w /dev/kvm ] || [ ! -e "${RS_PAYLOAD:-}" ]; then
	note "no usable /dev/kvm here: ringside run's exits not checked"
else
	run 0 vm "$R" run "$RS_PAYLOAD" --vcpus 2 -o "$WORK/run.data"
	expect_in "$WORK/vm.out" "ringside run: host view: 2 vCPU threads (context switches"
	if grep -q "host view: no exits:" "$WORK/vm.out"; then
		note "this host traces no exits: $(grep 'no exits' "$WORK/vm.out")"
	else
		# each vCPU of the payload ends in HLT: an exit to the VMM
		for v in 0 1; do
			grep -q "^    vCPU $v exits to the VMM: [1-9][0-9]*:.* HLT [1-9]" "$WORK/vm.out" ||
				{ cat "$WORK/vm.out"; fail "run: vCPU $v: no HLT exit to the VMM"; }
		done
		run 0 vrep "$R" report "$WORK/run.data"
		for v in 0 1; do
			expect_eq "vCPU $v's exits, run and report" \
				"$(grep "^    vCPU $v exits to the VMM" "$WORK/vrep.out")" \
				"$(grep "^    vCPU $v exits to the VMM" "$WORK/vm.out")"
		done
		perf script -i "$WORK/run.data" -C 1 >"$WORK/runperf.out" 2>&1 ||
			fail "perf script of run's file"
		grep -q "CPU 1/KVM .*ringside:host:" "$WORK/runperf.out" ||
			fail "perf script: no exit of CPU 1/KVM on CPU 1"
	fi
fi
echo "PASS"
