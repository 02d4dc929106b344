#!/bin/bash
# Guest claims cannot change what the host's own tools show for the host.
# A hostile guest's user symbol table claims a program of the host (this
# suite's cli-host-spin) by its path and its real build id, with one
# function, guest_owns_this, over all of its code.  After `ringside
# snapshot` of that region, the host's own `perf record` + `perf report`
# of the program name its functions exactly as before the snapshot;
# perf's build-id cache ($HOME/.debug, which a plain perf reads) holds
# nothing of the guest's; the guest's table is in ringside's own cache
# beside the file, which `perf --buildid-dir` reads for the guest's file.
# A cache directory planted as a link, or not ringside's user's, is
# refused, and nothing is written through it.
. "$(dirname "$0")/lib.sh"
need_perf
HOSTILE=$3
SPIN=$(readlink -f "$4")   # perf 6.1 record aborts on some relative paths
R=$RINGSIDE
BAD=guest_owns_this
SPIN_DSO=$(basename "$SPIN")
# perf's build-id cache is $HOME/.debug alone: no perfconfig elsewhere
export PERF_CONFIG=/dev/null

# host_profile HOME: the host's own profile of SPIN by the host's perf,
# with HOME's cache; the names perf gives SPIN's samples, sorted, one a
# line, in HOME/names; of them, those SPIN's own symbol table has not
# (nm), in HOME/foreign, and its two busy functions found, in HOME/busy
# (which other of its functions get a sample is chance: main's few
# instructions, say)
host_profile() {
	local h=$1 try
	# perf 6.1's record has been seen to abort now and then in its
	# build-id step ("assertion failed at util/build-id.c:1010") while
	# other tests load kernel modules: up to three tries
	for try in 1 2 3; do
		HOME=$h "$PERF" record -q -o "$h/spin.data" -- "$SPIN" \
			>/dev/null 2>"$h/record.err" && break
		[ "$try" != 3 ] || fail "perf record of $SPIN: $(tail -n 1 "$h/record.err")"
	done
	HOME=$h "$PERF" report -i "$h/spin.data" --stdio --no-children \
		--sort dso,sym 2>"$h/report.err" >"$h/report" ||
		fail "perf report: $(tail -n 1 "$h/report.err")"
	awk -v d="$SPIN_DSO" '$1 ~ /%$/ && $2 == d && $3 == "[.]" { print $4 }' \
		"$h/report" | sort -u >"$h/names"
	# (an address, 0x...: a sample perf could not name, a PLT stub's)
	grep -v '^0x' "$h/names" | comm -23 - "$WORK/own" >"$h/foreign"
	grep -x 'rs_host_spin_alpha\|rs_host_spin_beta' "$h/names" >"$h/busy"
}

nm --defined-only "$SPIN" | awk '{ print $3 }' | sort -u >"$WORK/own"
grep -qx rs_host_spin_alpha "$WORK/own" || fail "nm does not list $SPIN's functions"

note "the host's own profile of $SPIN_DSO, before any guest"
mkdir -p "$WORK/before"
host_profile "$WORK/before"
[ "$(wc -l <"$WORK/before/busy")" = 2 ] && [ ! -s "$WORK/before/foreign" ] ||
	{ cat "$WORK/before/report" >&2; fail "perf does not name $SPIN_DSO's functions before the guest's snapshot"; }
echo "    perf report: $(tr '\n' ' ' <"$WORK/before/names")"

note "a guest's table claims $SPIN by its real build id"
REG=$(region hostile)
"$PRODUCER" create "$REG" --rings 1 --data-pages 16 --overwrite \
	--sideband-pages 128 >/dev/null || fail "create"
"$PRODUCER" write "$REG" --records 20 >/dev/null || fail "producer"
ID=$("$HOSTILE" "$REG" "$SPIN" "$BAD") || fail "cli-hostile-usyms"
[ "${#ID}" = 40 ] || fail "build id '$ID'"
HOST=$WORK/host
GUEST=$WORK/guest
mkdir -p "$HOST" "$GUEST"
HOME=$HOST run 0 snap "$R" snapshot "$REG" -o "$GUEST/g.data"
expect_in "$WORK/snap.out" "1 binaries (1 functions) in the build-id cache"

note "the host's own profile of $SPIN_DSO after the guest's snapshot"
host_profile "$HOST"
if grep -q "$BAD" "$HOST/report"; then
	grep "$BAD" "$HOST/report" >&2
	fail "the host's own perf report names the host's $SPIN_DSO after the guest: $BAD"
fi
[ ! -s "$HOST/foreign" ] ||
	{ cat "$HOST/report" >&2; fail "perf names $SPIN_DSO's samples after functions it does not have: $(tr '\n' ' ' <"$HOST/foreign")"; }
cmp -s "$WORK/before/busy" "$HOST/busy" ||
	{ diff "$WORK/before/busy" "$HOST/busy" >&2; fail "perf names $SPIN_DSO otherwise after the guest's snapshot"; }
echo "    perf report: $(tr '\n' ' ' <"$HOST/names")(as before)"

note "perf's own cache holds the host's program, nothing of the guest's"
if grep -rqa "$BAD" "$HOST/.debug"; then
	grep -rla "$BAD" "$HOST/.debug" >&2
	fail "the guest's names are in perf's build-id cache $HOST/.debug"
fi
PERF_ENTRY=$HOST/.debug/.build-id/${ID:0:2}/${ID:2}/elf
cmp -s "$PERF_ENTRY" "$SPIN" || fail "$PERF_ENTRY is not the host's $SPIN_DSO"
echo "    $PERF_ENTRY: the host's own $SPIN_DSO (perf record put it there)"

note "the guest's table is in ringside's own cache, beside its file"
CACHE=$GUEST/.ringside-debug
expect_in "$WORK/snap.out" "guest names: in $CACHE (ringside's build-id cache, not perf's): perf --buildid-dir $CACHE report -i $GUEST/g.data"
ENTRY=$CACHE/.build-id/${ID:0:2}/${ID:2}
[ -s "$ENTRY/elf" ] || fail "no $ENTRY/elf in ringside's cache"
[ "$(readlink "$ENTRY")" = "../..$SPIN/$ID" ] || fail "$ENTRY -> $(readlink "$ENTRY")"
HOME=$HOST "$PERF" --buildid-dir "$CACHE" buildid-list -i "$GUEST/g.data" \
	2>/dev/null | grep -qx "$ID $SPIN" || fail "the file does not name $ID $SPIN"
echo "    the guest's table: $ENTRY, named by the file"

note "a cache planted as a link is refused, nothing written through it"
mkdir -p "$WORK/planted" "$WORK/target"
ln -s "$WORK/target" "$WORK/planted/.ringside-debug"
HOME=$HOST run 0 planted "$R" snapshot "$REG" -o "$WORK/planted/p.data"
expect_in "$WORK/planted.out" "1 not cached: build-id cache refused"
[ -z "$(ls -A "$WORK/target")" ] || { find "$WORK/target" >&2; fail "written through the planted link"; }
[ -s "$WORK/planted/p.data" ] || fail "no file written beside the planted link"

note "a cache of another user, or one others can write, is refused"
mkdir -p "$WORK/other/.ringside-debug" "$WORK/open/.ringside-debug"
chmod 0777 "$WORK/open/.ringside-debug"
if [ "$(id -u)" = 0 ]; then
	chown 65534:65534 "$WORK/other/.ringside-debug" || fail "chown"
else
	chmod 0775 "$WORK/other/.ringside-debug"   # no other user to give it
fi
for d in other open; do
	HOME=$HOST run 0 "$d" "$R" snapshot "$REG" -o "$WORK/$d/$d.data"
	expect_in "$WORK/$d.out" "1 not cached: build-id cache refused"
	[ -z "$(ls -A "$WORK/$d/.ringside-debug")" ] ||
		fail "written into the cache of $d"
done
echo "    all refused; the files written all the same"
