#!/bin/bash
# ringside run: the guest agent on two vCPUs, its rings drained in the same
# process into a perf.data file that the real perf opens, every record
# accounted for, guest TSC converted to host time, doorbells without exits;
# a torn ring said on stderr with exit 3, as record and snapshot do.
. "$(dirname "$0")/vmm_lib.sh"
need_perf

note "two vCPUs, normal rings, recorded in-process"
# 2000 SEQ and 250 SAMPLE records (~122 KB) fit in 256 KiB: nothing can be
# lost however fast the guest runs, and it never waits, so its only exits
# are done and hlt.  A doorbell every 4 KiB.
t0=$(now_ns)
run 0 steady "$R" run "$PAYLOAD" --vcpus 2 --records 2000 --data-pages 64 \
	--watermark 4096 -o "$WORK/steady.data"
t1=$(now_ns)
cat "$WORK/steady.out"
expect_in "$WORK/steady.out" "balance: delivered + lost == produced on every ring"
[ ! -s "$WORK/steady.err" ] || { cat "$WORK/steady.err" >&2; fail "run wrote to stderr"; }
judge steady "$WORK/steady.data" guest >/dev/null
# the header names the guest as the payload says it is, not the host
"$PERF" report --header-only -i "$WORK/steady.data" >"$WORK/steady.hdr" 2>&1 ||
	fail "perf report --header-only: $(cat "$WORK/steady.hdr")"
expect_in "$WORK/steady.hdr" "# hostname : ringside-payload"
expect_in "$WORK/steady.hdr" "# os release : freestanding"
expect_in "$WORK/steady.hdr" "# nrcpus online : 2"
balance "$WORK/steady.out" "$WORK/steady.rep" 2
for r in 0 1; do
	expect_eq "ring $r: state" "$(ring_col "$WORK/steady.out" $r state)" halted
	expect_eq "ring $r: seq records" "$(json "$WORK/steady.rep" ".rings[$r].types.seq")" 2000
	expect_eq "ring $r: last seq" "$(json "$WORK/steady.rep" ".rings[$r].seq_last")" 1999
	# Doorbells: every one rung reaches the host.  How many are rung and
	# how many skipped depends on whether the recorder was mid-pass
	# (polling) when each fell due; their sum does not: one falls due at
	# each multiple of the watermark the head passes (every record is
	# far smaller than 4 KiB, none is lost, and the ring's bytes are the
	# file's), ~29 for ~122 KB.
	bells=$(ring_col "$WORK/steady.out" $r doorbells)
	rung=$(ring_col "$WORK/steady.out" $r guest-bells)
	skipped=$(ring_col "$WORK/steady.out" $r skipped)
	due=$(( $(json "$WORK/steady.rep" ".rings[$r].bytes") / 4096 ))
	expect_eq "ring $r: doorbells read == rung" "$bells" "$rung"
	expect_eq "ring $r: doorbells rung + skipped == due" "$((rung + skipped))" "$due"
	[ "$due" -gt 0 ] || fail "ring $r: no doorbell fell due"
	# a doorbell is an ioeventfd: no exit; the only exits are done and
	# hlt, and vCPU 0's word that the others may start
	expect_eq "ring $r: mmio exits" "$(ring_col "$WORK/steady.out" $r mmio)" 0
	expect_eq "ring $r: exits" "$(ring_col "$WORK/steady.out" $r exits)" \
		$((r == 0 ? 3 : 2))
	# guest TSC converted to host CLOCK_MONOTONIC: inside the run
	first=$(json "$WORK/steady.rep" ".rings[$r].first_time")
	last=$(json "$WORK/steady.rep" ".rings[$r].last_time")
	[ "$first" -ge "$t0" ] && [ "$last" -le "$t1" ] && [ "$first" -lt "$last" ] ||
		fail "ring $r: times $first..$last not within the run $t0..$t1"
done

note "AUX areas, and a one-page ring the guest overruns"
run 0 aux "$R" run "$PAYLOAD" --vcpus 2 --records 1500 --data-pages 1 \
	--aux-pages 2 --watermark 1024 -o "$WORK/aux.data"
expect_in "$WORK/aux.out" "balance: delivered + lost == produced on every ring"
judge aux "$WORK/aux.data" guest >/dev/null
balance "$WORK/aux.out" "$WORK/aux.rep" 2
[ "$(json "$WORK/aux.rep" .total.types.aux)" -gt 0 ] || fail "no AUX records"

note "overwrite rings: a stable snapshot once the vCPUs stopped"
run 0 ow "$R" run "$PAYLOAD" --vcpus 2 --records 1500 --mode overwrite \
	-o "$WORK/ow.data"
expect_in "$WORK/ow.out" "stable (vCPUs paused) copy of 2 rings"
judge ow "$WORK/ow.data" guest >/dev/null
for r in 0 1; do
	expect_eq "ring $r: newest seq" "$(json "$WORK/ow.rep" ".rings[$r].seq_last")" 1499
	expect_eq "ring $r: gaps" "$(json "$WORK/ow.rep" ".rings[$r].seq_gaps")" 0
	expect_eq "ring $r: order" "$(json "$WORK/ow.rep" ".rings[$r].seq_out_of_order")" 0
	expect_eq "ring $r: checksums" "$(json "$WORK/ow.rep" ".rings[$r].seq_bad")" 0
	held=$(json "$WORK/ow.rep" ".rings[$r].records")
	[ "$held" -gt 0 ] && [ "$held" -lt "$(ring_col "$WORK/ow.out" $r produced)" ] ||
		fail "ring $r: holds $held records: the flight recorder did not wrap"
done

note "a guest that tears its ring: said on stderr, --quiet too"
# The corrupt workload's last record says 12 bytes; its header is sealed
# at commit, so the host meets it torn whenever it drains.  The torn
# record is neither delivered nor lost: the balance fails, --quiet or
# not, and its status 1 wins over the corruption's 3; the warning stays.
run 1 corrupt-q "$R" run "$PAYLOAD" --records 200 --workload corrupt --quiet \
	-o "$WORK/corrupt.data"
[ ! -s "$WORK/corrupt-q.out" ] || { cat "$WORK/corrupt-q.out"; fail "--quiet printed"; }
expect_in "$WORK/corrupt-q.err" "ringside run: warning: the source was corrupt: 1 events (0 impossible heads)"
expect_in "$WORK/corrupt-q.err" "ringside run: delivered + lost != produced on 1 rings"
run 0 corrupt-rep "$R" report "$WORK/corrupt.data" --json
expect_eq "corrupt, as filed" "$(json "$WORK/corrupt-rep.out" .rings[0].host.corrupt)" 1
# Without --quiet the table says which ring.
run 1 corrupt "$R" run "$PAYLOAD" --records 200 --workload corrupt
expect_in "$WORK/corrupt.out" "balance: WRONG on 1 rings"
expect_in "$WORK/corrupt.err" "ringside run: warning: the source was corrupt: 1 events"

note "without -o: counted, no file"
ls "$WORK" >"$WORK/before.ls"
run 0 nofile "$R" run "$PAYLOAD" --records 200
expect_in "$WORK/nofile.out" "balance: delivered + lost == produced on every ring"
ls "$WORK" | grep -vxF -e nofile.out -e nofile.err | cmp -s - "$WORK/before.ls" ||
	fail "run without -o created a file"

note "--duration stops a guest that never ends"
run 0 hang "$R" run "$PAYLOAD" --vcpus 2 --records 300 --workload hang \
	--duration 2 -o "$WORK/hang.data"
expect_eq "hung vCPU stopped by run" "$(ring_col "$WORK/hang.out" 0 state)" stopped
# balanced, or (a guest too slow to finish its records in 2 s) not checked
grep -qE "^balance: (delivered \+ lost == produced on every ring|not checked)" \
	"$WORK/hang.out" || fail "hang: $(grep '^balance' "$WORK/hang.out")"

note "Ctrl-C ends run with a complete file"
# However far the guest got before the signal (run shows nothing until it
# ends), the file holds exactly what run says it delivered.
"$R" run "$PAYLOAD" --records 200 --workload hang -o "$WORK/int.data" \
	>"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
BG_PIDS="$BG_PIDS $pid"
# Only once run catches SIGINT (it creates FILE.tmp.XXXXXX after installing its
# handler): a background job of a script starts with SIGINT ignored, and
# nested, run can take longer than any fixed sleep to get there.
for _ in $(seq 6000); do
	[ -n "$(tmp_files "$WORK/int.data")" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
[ -n "$(tmp_files "$WORK/int.data")" ] || { cat "$WORK/int.err" >&2; fail "run never opened its output file"; }
kill -INT "$pid"
wait "$pid" || { cat "$WORK/int.err" >&2; fail "run after SIGINT exited $?"; }
BG_PIDS=${BG_PIDS/ $pid/}
run 0 int-rep "$R" report "$WORK/int.data" --json
no_tmp_file "$WORK/int.data"
expect_eq "records in the file == delivered by run" \
	"$(json "$WORK/int-rep.out" ".rings[0].types | .seq + .sample + .marker + .aux")" \
	"$(ring_col "$WORK/int.out" 0 delivered)"
expect_eq "LOST in the file == lost by run" "$(json "$WORK/int-rep.out" ".rings[0].lost")" \
	"$(ring_col "$WORK/int.out" 0 lost)"
echo "ok"
