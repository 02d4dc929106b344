#!/bin/bash
# A region header scribbled over (docs/cli.md, "A damaged region header"):
# a source whose host knows the layout (--vm, here a fake VMM serving a
# region file; a libvirt DOMAIN in tests/e2e) is read by that layout, and
# every ring's newest records come back, the damage is named field by
# field and the exit status is 3; a plain path still refuses.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE
[ -x "${FAKE_VMM:-}" ] || fail "FAKE_VMM is not set (meson sets it)"

# poke FILE OFFSET HEXBYTES: overwrite bytes in place, as a guest would.
poke() {
	local hex=$3 bytes=""
	while [ -n "$hex" ]; do
		bytes="$bytes\\x${hex:0:2}"
		hex=${hex:2}
	done
	printf '%b' "$bytes" |
		dd of="$1" bs=1 seek="$(($2))" conv=notrunc status=none ||
		fail "poke $2"
}

# newest RUN: every ring's last seq in the report of $WORK/RUN.data is 4999.
newest() {
	run 0 "$1-rep" "$R" report "$WORK/$1.data" --json
	for r in 0 1; do
		expect_eq "$1: ring $r last seq" \
			"$(json "$WORK/$1-rep.out" ".rings[$r].seq_last")" 4999
		expect_eq "$1: ring $r bad" \
			"$(json "$WORK/$1-rep.out" ".rings[$r].seq_bad")" 0
	done
}

REG=$(region vm)
SOCK=$WORK/vm.sock
"$PRODUCER" create "$REG" --rings 2 --data-pages 2 --overwrite || fail "create"
"$PRODUCER" write "$REG" --records 5000 >"$WORK/p.out" || fail "producer"
"$FAKE_VMM" "$SOCK" "$REG" &
BG_PIDS=$!
wait_for "$SOCK" 30

note "a whole header: nothing to say, exit 0"
run 0 whole "$R" snapshot --vm "$SOCK" -o "$WORK/whole.data"
expect_in "$WORK/whole.out" "header page: read-only to the guest; 0 guest writes to host fields refused"
[ -s "$WORK/whole.err" ] && { cat "$WORK/whole.err"; fail "whole: stderr not empty"; }
newest whole

note "magic and nr_rings zeroed, a descriptor moved"
poke "$REG" 0 0000000000000000                 # magic
poke "$REG" 28 00000000                        # nr_rings
poke "$REG" $((1024 + 64 + 8)) 0010000000000000  # rings[1].data_offset
run 1 plain "$R" snapshot "$REG" -o "$WORK/plain.data"
expect_in "$WORK/plain.err" "is not a ringside trace region"
no_output_file "$WORK/plain.data"

run 3 dmg "$R" snapshot --vm "$SOCK" -o "$WORK/dmg.data"
cat "$WORK/dmg.err"
expect_in "$WORK/dmg.err" "$SOCK: header damaged: magic (guest says 0, host laid out 0x"
expect_in "$WORK/dmg.err" "nr_rings (guest says 0, host laid out 2)"
expect_in "$WORK/dmg.err" "rings[1].data_offset (guest says 0x1000, host laid out 0x"
newest dmg
note "--quiet still says it"
run 3 dmgq "$R" snapshot --vm "$SOCK" -o "$WORK/dmgq.data" --quiet
expect_in "$WORK/dmgq.err" "header damaged: magic"

run 3 stat "$R" stat --vm "$SOCK"
expect_in "$WORK/stat.err" "header damaged: magic"
expect_in "$WORK/stat.out" "2 rings"
[ "$(grep -cE '^ +[01] overwrite' "$WORK/stat.out")" = 2 ] ||
	{ cat "$WORK/stat.out"; fail "stat: not both rings"; }

note "ring 1's control page damaged too: ring 1 skipped, ring 0 kept"
poke "$REG" $((0x2000 + 1048)) ffff000000000000   # ring 1 ctrl data_size
run 3 skip "$R" snapshot --vm "$SOCK" -o "$WORK/skip.data"
expect_in "$WORK/skip.err" "ring 1 skipped: its control page does not match the host's layout"
run 0 skip-rep "$R" report "$WORK/skip.data" --json
expect_eq "skip: ring 0 last seq" "$(json "$WORK/skip-rep.out" ".rings[0].seq_last")" 4999
expect_eq "skip: only ring 0's records" \
	"$(json "$WORK/skip-rep.out" ".total.records")" \
	"$(json "$WORK/skip-rep.out" ".rings[0].records")"
run 3 stat2 "$R" stat --vm "$SOCK"
expect_in "$WORK/stat2.out" "   1 skipped: its control page does not match"

note "the header guard's refusals reach stderr"
kill "$BG_PIDS"; wait "$BG_PIDS" 2>/dev/null
REG2=$(region vm2)
SOCK2=$WORK/vm2.sock
"$PRODUCER" create "$REG2" --rings 2 --data-pages 2 --overwrite || fail "create"
"$PRODUCER" write "$REG2" --records 5000 >"$WORK/p2.out" || fail "producer"
"$FAKE_VMM" "$SOCK2" "$REG2" --refused 5 &
BG_PIDS=$!
wait_for "$SOCK2" 30
run 0 guard "$R" snapshot --vm "$SOCK2" -o "$WORK/guard.data"
expect_in "$WORK/guard.err" "the guest tried 5 writes to the host's part of the region header; the VMM refused them"
expect_in "$WORK/guard.out" "5 guest writes to host fields refused"
echo "PASS"
