#!/bin/bash
# ringside archive FILE: the build-id cache entries a file names, in one
# tar that a reader unpacks into a cache beside the file (what perf
# archive does, but never into perf's own ~/.debug): perf names the guest
# kernel's samples on "another machine" (a fresh HOME, another directory)
# with it and `perf --buildid-dir`, and names none without it (never
# after the reading host's own kernel).  Entries missing from the cache,
# files without build ids, names from the file that would leave the
# cache, and files that are no perf.data, each said.
. "$(dirname "$0")/lib.sh"
need_perf

R=$RINGSIDE
export HOME=$WORK/home       # perf's cache: a fresh one, left empty
mkdir -p "$HOME"
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

# snap NAME [SIDEBAND ARGS]: a snapshot of a region with kernel samples
snap() {
	local name=$1 reg
	shift
	reg=$(region "$name")
	"$PRODUCER" create "$reg" --rings 1 --data-pages 16 --overwrite \
		--sideband-pages 4 || fail "create $name"
	if [ $# -gt 0 ]; then
		"$PRODUCER" sideband "$reg" "$@" >/dev/null || fail "sideband $name"
	fi
	"$PRODUCER" write "$reg" --records 50 --samples 20 \
		--kernel-ip 0xffffffff81002010 >/dev/null || fail "write $name"
	run 0 "$name" "$R" snapshot "$reg" -o "$WORK/$name.data"
}

# names HOME DIR FILE: perf script's symbols of FILE's kernel samples,
# read in DIR with HOME and the cache beside FILE, one line each
names() {
	(cd "$2" && HOME=$1 "$PERF" --buildid-dir .ringside-debug script -i "$3" \
		-F event,ip,sym 2>/dev/null) |
		awk '$1 == "ringside:sample:" && $2 ~ /^ffffffff/ { print $3 }'
}

note "a file and its archive on another machine: perf names the guest's kernel"
snap good --kallsyms "$WORK/kallsyms"
run 0 arch "$R" archive "$WORK/good.data"
cat "$WORK/arch.out"
expect_in "$WORK/arch.out" "ringside archive: 1 of 1 build ids archived (1 files"
expect_in "$WORK/arch.out" "in $WORK/good.data.tar"
expect_in "$WORK/arch.out" "[kernel.kallsyms]: archived"
expect_in "$WORK/arch.out" "on the reading machine, in the directory of good.data: mkdir -p .ringside-debug && tar xf good.data.tar -C .ringside-debug; then perf --buildid-dir .ringside-debug report -i good.data"
CID=$("$PERF" buildid-list -i "$WORK/good.data" 2>/dev/null |
	awk '$2 == "[kernel.kallsyms]" { print $1 }')
[ ${#CID} = 40 ] || fail "no kernel build id in the file: '$CID'"
tar tvf "$WORK/good.data.tar" >"$WORK/list" || fail "tar cannot read the archive"
cat "$WORK/list"
expect_eq "members" "$(awk '{ print $6 }' "$WORK/list" | sort | xargs)" \
	".build-id/${CID:0:2}/${CID:2} [kernel.kallsyms]/$CID/kallsyms"
expect_in "$WORK/list" ".build-id/${CID:0:2}/${CID:2} -> ../../[kernel.kallsyms]/$CID"
cmp -s <(tar xOf "$WORK/good.data.tar" "[kernel.kallsyms]/$CID/kallsyms") \
	"$(cache_of "$WORK/good.data")/[kernel.kallsyms]/$CID/kallsyms" ||
	fail "the archived kallsyms differs"
[ ! -e "$HOME/.debug" ] || fail "the guest's symbols went to perf's own cache"
python3 -c 'import sys, tarfile
t = tarfile.open(sys.argv[1])
assert all(m.name.count("..") == 0 or m.issym() for m in t.getmembers())
sys.exit(0 if t.getmembers() else 1)' "$WORK/good.data.tar" ||
	fail "python's tarfile does not read the archive"

mkdir -p "$WORK/far/home" "$WORK/far/dir/.ringside-debug" "$WORK/bare/home" \
	"$WORK/bare/dir"
cp "$WORK/good.data" "$WORK/far/dir/"
cp "$WORK/good.data" "$WORK/bare/dir/"
tar xf "$WORK/good.data.tar" -C "$WORK/far/dir/.ringside-debug" ||
	fail "the archive does not unpack"
names "$WORK/far/home" "$WORK/far/dir" good.data | sort | uniq -c >"$WORK/far.names"
cat "$WORK/far.names"
expect_eq "with the archive: kernel samples perf names otherwise than rs_func_two" \
	"$(grep -vc ' rs_func_two$' "$WORK/far.names")" 0
grep -q ' rs_func_two$' "$WORK/far.names" || fail "with the archive: perf names nothing"
names "$WORK/bare/home" "$WORK/bare/dir" good.data | sort | uniq -c >"$WORK/bare.names"
cat "$WORK/bare.names"
expect_eq "without the archive: kernel samples perf names at all" \
	"$(grep -vc ' \[unknown\]$' "$WORK/bare.names")" 0

note "the unpacked cache is found by ringside archive there too"
run 0 fararch "$R" archive "$WORK/far/dir/good.data" -o "$WORK/far.tar"
expect_in "$WORK/fararch.out" "1 of 1 build ids archived"

note "-o, --buildid-dir, -q"
run 0 archo "$R" archive "$WORK/good.data" -o "$WORK/other.tar" -q
[ -s "$WORK/other.tar" ] || fail "-o: no archive"
cmp -s "$WORK/other.tar" "$WORK/good.data.tar" || fail "-o: another archive of the same file"
expect_eq "-q: lines" "$(grep -c archived "$WORK/archo.out")" 1
mkdir -p "$WORK/empty"
run 1 missing "$R" archive "$WORK/good.data" -o "$WORK/missing.tar" --buildid-dir "$WORK/empty"
expect_in "$WORK/missing.out" "$CID [kernel.kallsyms]: not in the build-id cache"
expect_in "$WORK/missing.out" "0 of 1 build ids archived"
expect_eq "missing: members" "$(tar tf "$WORK/missing.tar" | wc -l)" 0
run 1 nocache "$R" archive "$WORK/good.data" -o "$WORK/nocache.tar" --buildid-dir "$WORK/nowhere"
expect_in "$WORK/nocache.out" "0 of 1 build ids archived"

note "a file without kernel symbols names no build id"
snap none
run 0 none-arch "$R" archive "$WORK/none.data"
expect_in "$WORK/none-arch.out" "names no build id"
expect_eq "none: members" "$(tar tf "$WORK/none.data.tar" | wc -l)" 0

note "a name in the file that would leave the cache is refused"
python3 - "$WORK/good.data" "$WORK/evil.data" <<'EOF' || fail "no entry to rename"
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.rfind(b'[kernel.kallsyms]\0')
if i < 0:
    sys.exit(1)
d[i:i + 17] = b'../../../../etc/x'
open(sys.argv[2], 'wb').write(d)
EOF
run 1 evil "$R" archive "$WORK/evil.data"
expect_in "$WORK/evil.out" "../../../../etc/x: refused"
expect_eq "evil: members" "$(tar tf "$WORK/evil.data.tar" | wc -l)" 0

note "a file cut short: sections past its end are refused"
head -c 1000 "$WORK/good.data" >"$WORK/cut.data"
run 1 cut "$R" archive "$WORK/cut.data"
expect_in "$WORK/cut.err" "perf.data file is truncated"
no_output_file "$WORK/cut.data.tar"

note "not a perf.data file, no file, no operand"
printf 'not a perf.data file at all, but long enough to hold a header....\n%.0s' 1 2 \
	>"$WORK/text"
run 1 text "$R" archive "$WORK/text" -o "$WORK/text.tar"
expect_in "$WORK/text.err" "not a perf.data file"
no_output_file "$WORK/text.tar"
run 1 nofile "$R" archive "$WORK/nothing.data"
expect_in "$WORK/nofile.err" "No such file"
run 2 noarg "$R" archive
expect_in "$WORK/noarg.err" "which file"
echo "ok"
