#!/bin/bash
# Bad input to run, record --vm and snapshot --vm: status 2 for bad usage,
# 1 for what is wrong at run time, and a message that names it.
. "$(dirname "$0")/vmm_lib.sh"

note "run: bad usage"
run 2 nopayload "$R" run
expect_in "$WORK/nopayload.err" "which payload"
run 2 twopayloads "$R" run "$PAYLOAD" "$PAYLOAD"
run 2 vcpus0 "$R" run "$PAYLOAD" --vcpus 0
expect_in "$WORK/vcpus0.err" "--vcpus"
run 2 vcpus-many "$R" run "$PAYLOAD" --vcpus 1025
run 2 pages3 "$R" run "$PAYLOAD" --data-pages 3
expect_in "$WORK/pages3.err" "power of two"
run 2 aux3 "$R" run "$PAYLOAD" --aux-pages 6
run 2 mode "$R" run "$PAYLOAD" --mode sideways
expect_in "$WORK/mode.err" "normal or overwrite"
run 2 workload "$R" run "$PAYLOAD" --workload nap
run 2 duration "$R" run "$PAYLOAD" --duration 0
run 2 control-and-o "$R" run "$PAYLOAD" --control "$SOCK" -o "$WORK/x.data"
run 2 unknown "$R" run "$PAYLOAD" --frobnicate
run 0 help "$R" run --help
expect_in "$WORK/help.out" "usage: ringside run PAYLOAD"

note "run: failures"
run 1 missing "$R" run "$WORK/no-such-payload"
expect_in "$WORK/missing.err" "payload $WORK/no-such-payload does not exist"
printf 'not an ELF image' >"$WORK/junk"
run 1 junk "$R" run "$WORK/junk" -o "$WORK/junk.data"
expect_in "$WORK/junk.err" "is not a loadable x86-64 ELF executable"
no_output_file "$WORK/junk.data"
run 1 notkvm "$R" run "$PAYLOAD" --kvm /dev/null
expect_in "$WORK/notkvm.err" "KVM API version"
run 1 nokvm "$R" run "$PAYLOAD" --kvm "$WORK/no-kvm"
expect_in "$WORK/nokvm.err" "cannot use the KVM device"
run 1 badout "$R" run "$PAYLOAD" --records 10 -o "$WORK/no/such/dir/x.data"
expect_in "$WORK/badout.err" "cannot create $WORK/no/such/dir/x.data.tmp.XXXXXX"
run 1 badout-ow "$R" run "$PAYLOAD" --records 10 --mode overwrite \
	-o "$WORK/no/such/dir/x.data"
expect_in "$WORK/badout-ow.err" "cannot create $WORK/no/such/dir/x.data.tmp.XXXXXX"
run 1 badsock "$R" run "$PAYLOAD" --control "$WORK/no/such/dir/s"
expect_in "$WORK/badsock.err" "cannot serve the control socket"

note "record/snapshot --vm: bad usage"
run 2 both "$R" record --vm "$SOCK" /dev/shm/x -o "$WORK/x.data"
expect_in "$WORK/both.err" "not both"
run 2 bell "$R" record --vm "$SOCK" --doorbell-fd 0 -o "$WORK/x.data"
run 2 snap-both "$R" snapshot --vm "$SOCK" /dev/shm/x -o "$WORK/x.data"
# --stable needs writers that can be paused: the region as a plain file
# (the VMM's memfd through /proc) has none
start_vm plain --records 10 --workload hang
memfd=$(find "/proc/$VM_PID/fd" -lname '/memfd:ringside-region*' | head -1)
[ -n "$memfd" ] || fail "no region memfd in /proc/$VM_PID/fd"
run 2 stable-plain "$R" snapshot "$memfd" --stable -o "$WORK/x.data"
expect_in "$WORK/stable-plain.err" "--stable needs a source whose writers can be paused"
no_output_file "$WORK/x.data"
run 0 live-plain "$R" snapshot "$memfd" -o "$WORK/plain.data"
expect_in "$WORK/live-plain.out" "live copy of 1 rings"
stop_vm

note "record/snapshot --vm: sockets that are not a ringside VMM"
run 1 nosock "$R" record --vm "$WORK/nothing.sock" -o "$WORK/x.data"
expect_in "$WORK/nosock.err" "no control socket $WORK/nothing.sock"
no_output_file "$WORK/x.data"
run 1 file "$R" snapshot --vm "$WORK/junk" -o "$WORK/x.data"
expect_in "$WORK/file.err" "nothing listens on $WORK/junk"
run 1 toolong "$R" record --vm "$WORK/$(printf 'x%.0s' $(seq 120))" -o "$WORK/x.data"
expect_in "$WORK/toolong.err" "not a usable socket path"

# fake_server KIND PATH: a unix socket server that is not a ringside VMM.
fake_server() {
	"$PYTHON3" - "$1" "$2" <<'PY' &
import os, socket, sys
kind, path = sys.argv[1], sys.argv[2]
st = socket.SOCK_STREAM if kind == "stream" else socket.SOCK_SEQPACKET
s = socket.socket(socket.AF_UNIX, st)
s.bind(path + ".tmp")
s.listen(4)
os.rename(path + ".tmp", path)
while True:
    c, _ = s.accept()
    if kind == "garbage":
        c.recv(64)
        c.send(b"HTTP/1.0 400 Bad Request\r\n\r\n")
    elif kind == "hangup":
        c.recv(64)
    c.close()
PY
	BG_PIDS="$BG_PIDS $!"
	wait_for "$2" 10
}
for kind in stream garbage hangup; do
	fake_server $kind "$WORK/$kind.sock"
	run 1 "fake-$kind" "$R" record --vm "$WORK/$kind.sock" -o "$WORK/x.data"
	expect_in "$WORK/fake-$kind.err" "is not a ringside VMM control socket"
	no_output_file "$WORK/x.data"
	run 1 "fake-snap-$kind" "$R" snapshot --vm "$WORK/$kind.sock" --stable \
		-o "$WORK/x.data"
	expect_in "$WORK/fake-snap-$kind.err" "is not a ringside VMM control socket"
done

note "a stale socket left by a VMM that was killed"
start_vm stale --records 10 --workload hang
kill -KILL "$VM_PID"; wait "$VM_PID" 2>/dev/null
BG_PIDS=${BG_PIDS/ $VM_PID/}
[ -S "$SOCK" ] || fail "no stale socket to test with"
run 1 stale "$R" snapshot --vm "$SOCK" -o "$WORK/x.data"
expect_in "$WORK/stale.err" "nothing listens on $SOCK"
no_output_file "$WORK/x.data"
echo "ok"
