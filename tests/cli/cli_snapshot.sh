#!/bin/bash
# snapshot: an overwrite ring gives its newest records, contiguous, oldest
# first in the file; a normal ring gives what is not consumed; a live
# snapshot under a running producer gives only intact records.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
OUT=$WORK/snap.data

note "overwrite ring after many wraps"
REG=$(region ow)
"$PRODUCER" create "$REG" --rings 2 --data-pages 2 --overwrite || fail "create"
"$PRODUCER" write "$REG" --records 5000 >"$WORK/p.out" || fail "producer"
run 0 snap "$R" snapshot "$REG" -o "$OUT"
cat "$WORK/snap.out"
expect_in "$WORK/snap.out" "live copy of 2 rings"
expect_in "$WORK/snap.out" "cut 0 bytes"
# a path has no guest memory to read the guest's perf buffers from
grep -q "guest perf buffers" "$WORK/snap.out" && fail "a path: guest perf buffers read"
run 0 rep "$R" report "$OUT" --json
for r in 0 1; do
	n=$(json "$WORK/rep.out" ".rings[$r].types.seq")
	if [ "$n" -lt 100 ] || [ "$n" -gt 128 ]; then
		fail "ring $r: $n records in 8 KiB"
	fi
	expect_eq "ring $r last seq" "$(json "$WORK/rep.out" ".rings[$r].seq_last")" 4999
	expect_eq "ring $r first seq" "$(json "$WORK/rep.out" ".rings[$r].seq_first")" $((5000 - n))
	expect_eq "ring $r gaps" "$(json "$WORK/rep.out" ".rings[$r].seq_gaps")" 0
	expect_eq "ring $r order" "$(json "$WORK/rep.out" ".rings[$r].seq_out_of_order")" 0
	expect_eq "ring $r bad" "$(json "$WORK/rep.out" ".rings[$r].seq_bad")" 0
	expect_eq "ring $r other" "$(json "$WORK/rep.out" ".rings[$r].types.other")" 0
done
run 0 dump "$R" dump "$OUT"
expect_eq "dump lines" "$(wc -l <"$WORK/dump.out")" "$(json "$WORK/rep.out" .total.records)"
note "a snapshot consumes nothing: a second one is the same"
run 0 snap2 "$R" snapshot "$REG" -o "$WORK/snap2.data" --quiet
run 0 dump2 "$R" dump "$WORK/snap2.data"
cmp -s "$WORK/dump.out" "$WORK/dump2.out" || fail "second snapshot differs"

note "no -o: a file named for the region and the time, in the current directory"
mkdir -p "$WORK/cwd"
( cd "$WORK/cwd" && "$R" snapshot "$REG" ) >"$WORK/snapdef.out" 2>"$WORK/snapdef.err" ||
	fail "snapshot without -o: $(cat "$WORK/snapdef.err")"
def=$(cd "$WORK/cwd" && ls)
case $def in
"$(basename "$REG")"-[0-9]*T[0-9]*Z.data) ;;
*) fail "snapshot without -o wrote '$def'" ;;
esac
expect_in "$WORK/snapdef.out" "written to $def"
run 0 dumpdef "$R" dump "$WORK/cwd/$def"
cmp -s "$WORK/dump.out" "$WORK/dumpdef.out" || fail "the default file differs"
# --quiet: the name is all it prints; a second one in the same second
# gets a name of its own
( cd "$WORK/cwd" && "$R" snapshot "$REG" --quiet && "$R" snapshot "$REG" --quiet ) \
	>"$WORK/snapq.out" 2>&1 || fail "snapshot --quiet without -o"
expect_eq "names printed" "$(wc -l <"$WORK/snapq.out")" 2
expect_eq "files" "$(ls "$WORK/cwd" | wc -l)" 3
while read -r f; do [ -f "$WORK/cwd/$f" ] || fail "printed '$f', no such file"; done <"$WORK/snapq.out"

note "normal ring: the records not yet consumed, oldest first"
REG=$(region nr)
"$PRODUCER" create "$REG" --rings 1 --data-pages 4 || fail "create"
"$PRODUCER" write "$REG" --records 50 --samples 5 --markers 5 >"$WORK/p.out" || fail "producer"
run 0 snapn "$R" snapshot "$REG" -o "$OUT"
run 0 repn "$R" report "$OUT" --json
expect_eq "seq" "$(json "$WORK/repn.out" .rings[0].types.seq)" 50
expect_eq "samples" "$(json "$WORK/repn.out" .rings[0].types.sample)" 5
expect_eq "markers" "$(json "$WORK/repn.out" .rings[0].types.marker)" 5
expect_eq "first" "$(json "$WORK/repn.out" .rings[0].seq_first)" 0
expect_eq "last" "$(json "$WORK/repn.out" .rings[0].seq_last)" 49
run 0 dumpn "$R" dump "$OUT"
expect_in "$WORK/dumpn.out" 'marker       id=0 pid=4242 tid=4243 "marker 0"'
expect_in "$WORK/dumpn.out" "sample       ip=0x401000 pid=4242 tid=4243 period=1"

note "live snapshots while the producer writes"
REG=$(region live)
"$PRODUCER" create "$REG" --rings 2 --data-pages 2 --overwrite || fail "create"
"$PRODUCER" write "$REG" --records 400000 --rate 200000 >/dev/null 2>&1 &
BG_PIDS=$!
wait_rings "$R" "$REG" guest_produced 60
for i in 1 2 3 4 5; do
	run 0 "live$i" "$R" snapshot "$REG" -o "$WORK/live$i.data"
	run 0 "liverep$i" "$R" report "$WORK/live$i.data" --json
	for r in 0 1; do
		q=".rings[$r]"
		expect_eq "live $i ring $r bad" "$(json "$WORK/liverep$i.out" "$q.seq_bad")" 0
		expect_eq "live $i ring $r gaps" "$(json "$WORK/liverep$i.out" "$q.seq_gaps")" 0
		expect_eq "live $i ring $r order" "$(json "$WORK/liverep$i.out" "$q.seq_out_of_order")" 0
		expect_eq "live $i ring $r other" "$(json "$WORK/liverep$i.out" "$q.types.other")" 0
	done
	grep -h "cut" "$WORK/live$i.out"
done
echo "ok"
