# Shared by the vmm_*.sh tests: the ringside command end to end on a real
# /dev/kvm.  Usage: . vmm_lib.sh RINGSIDE PAYLOAD
# The guest may run 1000x faster or slower than the host's consumer: no
# step waits a fixed time for the other side.  A "nothing lost" ring holds
# the whole workload; a consumer meant to find losses attaches after the
# guest finished (wait_attempted); one that must be attached first is
# waited for (wait_consumer).  Sleeps and bounds only catch hangs.
. "$(dirname "$0")/../cli/lib.sh"
. "$(dirname "$0")/../cli/perf_judge.sh"

# shellcheck disable=SC2034 # used by the scripts that source this
R=$RINGSIDE
PAYLOAD=$2
SOCK=$WORK/vm.sock
VM_PID=""

[ -e /dev/kvm ] || skip "no /dev/kvm: the ringside VMM needs KVM"
[ -r /dev/kvm ] && [ -w /dev/kvm ] || skip "/dev/kvm is not usable by $(id -un)"
[ -f "$PAYLOAD" ] || fail "no guest agent at $PAYLOAD"

# ring_col OUT RING COLUMN: a value from the per-ring table of `ringside run`.
ring_col() {
	awk -v r="$2" -v c="$3" '
		$1 == "ring" && $2 == "state" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		(c in col) && $1 == r && $2 ~ /^[a-z]/ { print $(col[c]); exit }' "$1"
}

PYTHON3=$(command -v /usr/bin/python3 || command -v python3)

# now_ns: host CLOCK_MONOTONIC in ns (what a guest TSC converts to).
now_ns() {
	"$PYTHON3" -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'
}

# start_vm NAME ARGS...: `ringside run PAYLOAD ARGS --control $SOCK` in the
# background, output in $WORK/NAME.out/.err; returns once it listens.
start_vm() {
	local name=$1 i
	shift
	rm -f "$SOCK"
	"$R" run "$PAYLOAD" "$@" --control "$SOCK" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	VM_PID=$!
	BG_PIDS="$BG_PIDS $VM_PID"
	VM_NAME=$name
	for i in $(seq 500); do
		[ -S "$SOCK" ] && return
		kill -0 "$VM_PID" 2>/dev/null || break
		sleep 0.02
	done
	cat "$WORK/$name.err" >&2
	fail "$name: the VM never served $SOCK"
}

# stop_vm: SIGTERM the VM of start_vm; it must exit 0 and remove its socket.
stop_vm() {
	local rc
	kill -TERM "$VM_PID"
	wait "$VM_PID"
	rc=$?
	BG_PIDS=${BG_PIDS/ $VM_PID/}
	[ "$rc" = 0 ] || { cat "$WORK/$VM_NAME.err" >&2; fail "$VM_NAME: run exited $rc"; }
	[ ! -e "$SOCK" ] || fail "$VM_NAME: $SOCK left behind"
}

# balance OUT REPORT_JSON RINGS: per ring, the records in the file plus the
# LOST counts (the file's, and those from before a recording) equal
# what the guest attempted (run's table), and the
# sequence numbers are intact and in order.
balance() {
	local out=$1 rep=$2 r produced delivered lost
	for r in $(seq 0 $(($3 - 1))); do
		produced=$(ring_col "$out" "$r" produced)
		delivered=$(json "$rep" ".rings[$r].types | .seq + .sample + .marker + .aux")
		# with the losses from before a recording, counted apart
		lost=$(json "$rep" ".rings[$r].lost + (.rings[$r].host.early_lost // 0)")
		[ -n "$produced" ] && [ "$produced" -gt 0 ] || fail "ring $r: produced '$produced'"
		expect_eq "ring $r: delivered $delivered + lost $lost" \
			"$((delivered + lost))" "$produced"
		expect_eq "ring $r: checksum errors" "$(json "$rep" ".rings[$r].seq_bad")" 0
		expect_eq "ring $r: out of order" "$(json "$rep" ".rings[$r].seq_out_of_order")" 0
		[ "$(json "$rep" ".rings[$r].seq_gaps")" -le "$lost" ] ||
			fail "ring $r: more sequence gaps than records lost"
	done
}

# wait_attempted VCPUS N: until every vCPU of the VM on $SOCK has attempted
# N records (the guest agent reached the end of its workload), 60 s at most.
wait_attempted() {
	local i n
	for i in $(seq 300); do
		"$R" snapshot --vm "$SOCK" -o "$WORK/wait.data" >"$WORK/wait.out" 2>&1 ||
			fail "snapshot while waiting: $(cat "$WORK/wait.out")"
		n=$(grep -c "^  vCPU [0-9]*: [a-z ()]*, $2 records attempted" "$WORK/wait.out")
		[ "$n" = "$1" ] && return
		sleep 0.2
	done
	cat "$WORK/wait.out" >&2
	fail "the guest did not reach $2 records on $1 vCPUs"
}

# wait_attempted_any VCPUS N: until every vCPU has attempted N records or
# more (a guest that keeps writing), 60 s at most.
wait_attempted_any() {
	local i
	for i in $(seq 300); do
		"$R" snapshot --vm "$SOCK" -o "$WORK/wait.data" >"$WORK/wait.out" 2>&1 ||
			fail "snapshot while waiting: $(cat "$WORK/wait.out")"
		awk -v want="$2" -v vcpus="$1" '
			$1 == "vCPU" && $(NF - 2) + 0 >= want { n++ }
			END { exit n != vcpus }' "$WORK/wait.out" && return
		sleep 0.2
	done
	cat "$WORK/wait.out" >&2
	fail "the guest did not reach $2 records on $1 vCPUs"
}

# wait_consumer PID: until PID, a `ringside record --vm`, holds its
# consumer lock on the region (it has attached), 60 s at most.
wait_consumer() {
	local i
	for i in $(seq 3000); do
		awk -v p="$1" '$2 == "FLOCK" && $5 == p { f = 1 } END { exit !f }' \
			/proc/locks && return
		kill -0 "$1" 2>/dev/null || fail "consumer $1 ended before it attached"
		sleep 0.02
	done
	fail "consumer $1 did not attach in 60 s"
}
