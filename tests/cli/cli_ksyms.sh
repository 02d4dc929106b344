#!/bin/bash
# The guest kernel's symbols: a region's sideband (written here as the Linux
# agent writes it) read once by record, snapshot and stat, handed to the
# perf.data writer, so that perf names kernel samples; and every way the
# sideband can be missing, cut or hostile, said in one line, with the file
# written all the same.
. "$(dirname "$0")/lib.sh"
need_perf

R=$RINGSIDE
export HOME=$WORK/home       # perf's build-id cache: a fresh one, left empty
mkdir -p "$HOME"
ID=0123456789abcdef0123456789abcdef01234567
TAB=$(printf '\t')
cat >"$WORK/kallsyms" <<EOS
ffffffff81000000 T _text
ffffffff81000000 T _stext
ffffffff81001000 T rs_func_one
ffffffff81002000 t rs_func_two
ffffffff81003000 W rs_func_weak
ffffffff81004000 T _etext
ffffffffc0001000 t rs_mod_fn${TAB}[rsmod]
ffffffffc0002000 t rs_mod_end${TAB}[rsmod]
EOS

# sym_check FILE: every kernel sample named rs_func_two by perf script,
# from ringside's cache beside FILE
sym_check() {
	local n bad
	"$PERF" --buildid-dir "$(cache_of "$1")" script -i "$1" -F event,ip,sym \
		2>"$WORK/script.err" |
		awk '$1 == "ringside:sample:"' >"$WORK/syms"
	n=$(grep -c "ffffffff8100201[0-9a-f] rs_func_two" "$WORK/syms")
	[ "$n" -gt 0 ] || { head "$WORK/syms" "$WORK/script.err" >&2; fail "$1: perf names no sample rs_func_two"; }
	bad=$(grep -vc "rs_func_two" "$WORK/syms")
	expect_eq "$1: samples perf does not name rs_func_two" "$bad" 0
	echo "    perf script: $n kernel samples named rs_func_two"
}

note "snapshot: symbols and build id from the sideband into the file and ringside's cache"
REG=$(region snap)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --overwrite --sideband-pages 4 ||
	fail "create"
"$PRODUCER" sideband "$REG" --kallsyms "$WORK/kallsyms" --build-id $ID >/dev/null ||
	fail "sideband"
"$PRODUCER" write "$REG" --records 200 --samples 40 --kernel-ip 0xffffffff81002010 \
	>/dev/null || fail "producer"
run 0 snap "$R" snapshot "$REG" -o "$WORK/snap.data"
cat "$WORK/snap.out"
# the file names the table by its content, never by the guest's own id: a
# reader running the guest's kernel would take its own /proc/kallsyms
SAYS="guest kernel symbols: 8 functions (1 modules),"
CID=$(sed -n "s/.*$SAYS filed under build id \([0-9a-f]\{40\}\)\$/\1/p" "$WORK/snap.out")
[ -n "$CID" ] && [ "$CID" != "$ID" ] || fail "build id '$CID': not the table's"
CACHE=$(cache_of "$WORK/snap.data")
[ -s "$CACHE/[kernel.kallsyms]/$CID/kallsyms" ] ||
	fail "no build-id cache entry $CACHE/[kernel.kallsyms]/$CID/kallsyms"
[ ! -e "$CACHE/[kernel.kallsyms]/$ID" ] || fail "a cache entry under the guest's own id"
[ ! -e "$HOME/.debug" ] || fail "the guest's symbols went to perf's own cache $HOME/.debug"
"$PERF" buildid-list -i "$WORK/snap.data" 2>/dev/null | grep -q "^$CID \[kernel.kallsyms\]\$" ||
	fail "the file's HEADER_BUILD_ID is not $CID"
sym_check "$WORK/snap.data"

note "stat says the same"
run 0 stat "$R" stat "$REG"
expect_in "$WORK/stat.out" "$SAYS build id $ID"   # no file: the guest's own

note "record: the same for a drained region"
REG=$(region rec)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --sideband-pages 4 || fail "create"
"$PRODUCER" sideband "$REG" --kallsyms "$WORK/kallsyms" --build-id $ID >/dev/null ||
	fail "sideband"
"$R" record "$REG" -o "$WORK/rec.data" --interval 1 >"$WORK/rec.out" 2>"$WORK/rec.err" &
REC=$!
BG_PIDS=$REC
"$PRODUCER" write "$REG" --records 300 --samples 40 --kernel-ip 0xffffffff81002010 \
	>/dev/null || fail "producer"
stop_record "$REC" "$WORK/rec.data" || fail "record: $(cat "$WORK/rec.err")"
BG_PIDS=""
cat "$WORK/rec.out"
expect_in "$WORK/rec.out" "$SAYS filed under build id $CID"
sym_check "$WORK/rec.data"

note "record started before the guest published its symbols: they come in late"
REG=$(region late)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --sideband-pages 4 || fail "create"
"$R" record "$REG" -o "$WORK/late.data" --interval 1 >"$WORK/late.out" 2>"$WORK/late.err" &
REC=$!
BG_PIDS=$REC
wait_for_tmp "$WORK/late.data" 60
"$PRODUCER" write "$REG" --records 100 --samples 20 --kernel-ip 0xffffffff81002010 \
	>/dev/null || fail "producer"
# record has drained every ring once before the symbols exist
wait_rings "$R" "$REG" data_tail 60
"$PRODUCER" sideband "$REG" --kallsyms "$WORK/kallsyms" --build-id $ID >/dev/null ||
	fail "sideband"
"$PRODUCER" write "$REG" --records 100 --samples 20 --kernel-ip 0xffffffff81002010 \
	>/dev/null || fail "producer"
stop_record "$REC" "$WORK/late.data" || fail "record: $(cat "$WORK/late.err")"
BG_PIDS=""
cat "$WORK/late.out"
expect_in "$WORK/late.out" "$SAYS filed under build id $CID"
sym_check "$WORK/late.data"
expect_eq "late: kernel samples in perf script" "$(wc -l <"$WORK/syms")" 80

# snap_says NAME TEXT: a snapshot of region NAME writes its file and says TEXT
snap_says() {
	run 0 "$1" "$R" snapshot "$(region "$1")" -o "$WORK/$1.data"
	expect_in "$WORK/$1.out" "$2"
	[ -s "$WORK/$1.data" ] || fail "$1: no file written"
	"$PERF" script -i "$WORK/$1.data" -F ip >/dev/null 2>&1 || fail "$1: perf cannot read it"
	grep "guest kernel symbols" "$WORK/$1.out"
}

# mk NAME PAGES: an overwrite region with samples in it
mk() {
	"$PRODUCER" create "$(region "$1")" --rings 1 --data-pages 16 --overwrite \
		--sideband-pages "$2" || fail "create $1"
	"$PRODUCER" write "$(region "$1")" --records 50 --samples 10 \
		--kernel-ip 0xffffffff81002010 >/dev/null || fail "write $1"
}

note "truncated: what fits is used, and the loss is said"
mk trunc 1
for i in $(seq 1 200); do
	printf 'ffffffff81%06x T rs_filler_function_%04d\n' $((0x10000 + i * 16)) "$i"
done >"$WORK/big"
cat "$WORK/kallsyms" >>"$WORK/big"
"$PRODUCER" sideband "$(region trunc)" --kallsyms "$WORK/big" >"$WORK/trunc.p" ||
	fail "sideband"
read -r _ _ len _ wanted <"$WORK/trunc.p"
snap_says trunc "guest kernel symbols truncated: $len of $wanted bytes"
expect_eq "truncated: some written" "$([ "$len" -gt 0 ] && [ "$len" -lt "$wanted" ] && echo yes)" yes

note "no sideband area, nothing written yet, still being written"
mk none 0
snap_says none "guest kernel symbols: none (the region has no sideband area"
mk empty 2
snap_says empty "guest kernel symbols: none (the guest agent has not published them)"
# the guest's other tables in the sideband, in the same words
for t in "guest user symbols" "process state"; do
	expect_in "$WORK/none.out" "$t (guest claims): none (the region has no sideband area)"
	expect_in "$WORK/empty.out" "$t (guest claims): none (the guest agent has published no table)"
done
mk torn 2
"$PRODUCER" sideband "$(region torn)" --kallsyms "$WORK/kallsyms" --torn || fail "torn"
snap_says torn "guest kernel symbols: none (the guest was still writing them)"

note "hostile: a length beyond the area, text that is no kallsyms, hidden addresses"
mk lie 2
"$PRODUCER" sideband "$(region lie)" --kallsyms "$WORK/kallsyms" --lie-length 100000 \
	>/dev/null || fail "lie"
snap_says lie "guest kernel symbols: refused: the guest's sideband descriptor is implausible"
mk garbage 2
head -c 3000 /dev/urandom >"$WORK/garbage"
"$PRODUCER" sideband "$(region garbage)" --kallsyms "$WORK/garbage" >/dev/null ||
	fail "garbage"
snap_says garbage "guest kernel symbols: refused: "
printf 'ffffffff81000000 T _text\nffffffff81001000 T %0300d\nffffffff8100' 0 \
	>"$WORK/unterminated"
mk unterminated 2
"$PRODUCER" sideband "$(region unterminated)" --kallsyms "$WORK/unterminated" \
	>/dev/null || fail "unterminated"
snap_says unterminated "guest kernel symbols: refused: "
sed 's/^ffffffff[0-9a-f]*/0000000000000000/' "$WORK/kallsyms" >"$WORK/zeros"
mk zeros 2
"$PRODUCER" sideband "$(region zeros)" --kallsyms "$WORK/zeros" >/dev/null || fail "zeros"
snap_says zeros "guest kernel symbols: refused: "

note "a module amid another (.init text listed below it): that one refused, the rest named"
printf 'ffffffffc0000800 t rs_init_fn\t[rsinit]\nffffffffc0003000 t rs_init_core\t[rsinit]\n' |
	cat "$WORK/kallsyms" - >"$WORK/amid"
mk amid 2
"$PRODUCER" sideband "$(region amid)" --kallsyms "$WORK/amid" >/dev/null || fail "amid"
snap_says amid "guest kernel symbols: 8 functions (1 modules), 1 modules refused (2 functions: guest kallsyms: a module's symbols overlap another module or the kernel; their samples are not named),"
sym_check "$WORK/amid.data"
echo "ok"
