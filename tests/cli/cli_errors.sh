#!/bin/bash
# Runtime failures exit 1 with a message that names the problem, and never
# leave an output file behind.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
OUT=$WORK/out.data

note "a region that does not exist"
for c in record snapshot; do
	run 1 "missing-$c" "$R" "$c" "$(region none)" -o "$OUT"
	expect_in "$WORK/missing-$c.err" "does not exist"
	no_output_file "$OUT"
done
run 1 missing-stat "$R" stat "$(region none)"
expect_in "$WORK/missing-stat.err" "does not exist"

note "a file that is not a ringside region"
head -c 1048576 /dev/zero >"$WORK/zeros"
for c in record snapshot; do
	run 1 "notregion-$c" "$R" "$c" "$WORK/zeros" -o "$OUT"
	expect_in "$WORK/notregion-$c.err" "is not a ringside trace region"
	no_output_file "$OUT"
done
run 1 notregion-stat "$R" stat "$WORK/zeros"
echo hello >"$WORK/small"
run 1 small "$R" snapshot "$WORK/small" -o "$OUT"
expect_in "$WORK/small.err" "too small to be a ringside region"
# a file of the current directory named like a domain shadows the domain
# shellcheck disable=SC2016 # expanded by the inner shell
run 1 shadow bash -c 'cd "$1" && exec "$0" stat small' "$R" "$WORK"
expect_in "$WORK/shadow.err" "is read before a domain of that name"
run 1 dir "$R" stat "$WORK"
expect_in "$WORK/dir.err" "not a region file"

note "a region of another ABI version"
REG=$(region abi)
"$PRODUCER" create "$REG" --rings 1 --data-pages 1 || fail "producer create"
"$PRODUCER" poke "$REG" --abi-version 7 || fail "producer poke"
for c in record snapshot; do
	run 1 "abi-$c" "$R" "$c" "$REG" -o "$OUT"
	expect_in "$WORK/abi-$c.err" "ABI version 7"
	no_output_file "$OUT"
done

note "--vm SOCKET where no ringside VMM serves"
run 1 stat-nosock "$R" stat --vm "$WORK/nothing.sock"
expect_in "$WORK/stat-nosock.err" "no control socket $WORK/nothing.sock"
run 1 stat-notsock "$R" stat --vm "$WORK/zeros"
expect_in "$WORK/stat-notsock.err" "nothing listens on $WORK/zeros"

note "regions handed over as fd:N"
REG=$(region fd)
"$PRODUCER" create "$REG" --rings 2 --data-pages 1 || fail "producer create"
run 0 fd-stat "$R" stat fd:7 7<"$REG"
expect_in "$WORK/fd-stat.out" "2 rings"
run 1 fd-ro "$R" record fd:7 -o "$OUT" --duration 0.1 7<"$REG"
expect_in "$WORK/fd-ro.err" "read-write"
no_output_file "$OUT"
run 0 fd-rw "$R" record fd:7 -o "$OUT" --duration 0.1 7<>"$REG"
[ -s "$OUT" ] || fail "record from fd:7 wrote nothing"
rm -f "$OUT"
run 1 fd-closed "$R" stat fd:99
expect_in "$WORK/fd-closed.err" "not an open file descriptor"
run 1 fd-bad "$R" stat fd:x

note "an output path that cannot be written"
run 1 nodir "$R" snapshot "$REG" -o "$WORK/no/such/dir/out.data"
expect_in "$WORK/nodir.err" "cannot create"
expect_in "$WORK/nodir.err" "No such file or directory"
no_output_file "$WORK/no/such/dir/out.data"
run 1 notdir "$R" record "$REG" -o "$WORK/small/out.data" --duration 0.1
expect_in "$WORK/notdir.err" "Not a directory"

note "--stable needs writers that can be stopped: not a path or fd:N"
run 2 stable-path "$R" snapshot "$REG" --stable -o "$OUT"
expect_in "$WORK/stable-path.err" "(--vm SOCKET or a libvirt DOMAIN)"
no_output_file "$OUT"
run 2 stable-fd "$R" snapshot fd:7 --stable -o "$OUT" 7<"$REG"
no_output_file "$OUT"

note "the output must not replace the region"
run 1 self "$R" snapshot "$REG" -o "$REG"
expect_in "$WORK/self.err" "is the region itself"
no_tmp_file "$REG"
run 0 self-ok "$R" stat "$REG"

note "a write that fails half way leaves nothing"
REG=$(region big)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --overwrite || fail "create"
"$PRODUCER" write "$REG" --records 5000 >/dev/null || fail "producer write"
run 0 big-stat "$R" stat "$REG"
expect_in "$WORK/big-stat.out" "so the head counts down from 0"
# shellcheck disable=SC2016 # expanded by the inner shell
run 1 efbig bash -c 'ulimit -f 16; exec "$0" snapshot "$1" -o "$2"' "$R" "$REG" "$OUT"
expect_in "$WORK/efbig.err" "File too large"
expect_in "$WORK/efbig.err" "nothing was kept"
no_output_file "$OUT"

note "record refuses overwrite rings"
run 1 overwrite "$R" record "$REG" -o "$OUT" --duration 0.1
expect_in "$WORK/overwrite.err" "ringside snapshot"
expect_in "$WORK/overwrite.err" "ringside enable DOMAIN --live --mode normal"
no_output_file "$OUT"

note "files that are not ringside perf.data"
run 1 rep-missing "$R" report "$WORK/none.data"
expect_in "$WORK/rep-missing.err" "does not exist"
run 1 rep-zeros "$R" report "$WORK/zeros"
expect_in "$WORK/rep-zeros.err" "not a perf.data file"
run 1 dump-small "$R" dump "$WORK/small"
run 0 snap "$R" snapshot "$REG" -o "$OUT"
head -c 2000 "$OUT" >"$WORK/cut.data"
run 1 rep-cut "$R" report "$WORK/cut.data"
expect_in "$WORK/rep-cut.err" "truncated"
if command -v perf >/dev/null && perf version >/dev/null 2>&1; then
	perf record -q -e dummy -o "$WORK/perf.data" -- true >/dev/null 2>&1 &&
	run 1 rep-perf "$R" report "$WORK/perf.data" &&
	expect_in "$WORK/rep-perf.err" "without ringside's events"
fi
echo "ok"
