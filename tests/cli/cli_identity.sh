#!/bin/bash
# Who the guest is: the identity a guest agent publishes in the region
# header (written here as the Linux agent writes it) is read by snapshot,
# record and stat, shown as the guest's claims, and names the machine in
# the file's header (perf report --header-only: the guest's hostname and
# os release, never the host's), whether the guest published it before
# the recording began or during it; a hostile one is cleaned, a missing
# one said.
. "$(dirname "$0")/lib.sh"
need_perf

R=$RINGSIDE
export HOME=$WORK/home
mkdir -p "$HOME"
REL=6.1.0-rs-test
HOSTNAME_HOST=$(uname -n)

# header_names FILE: perf's header of FILE names the guest, not the host
header_names() {
	"$PERF" report --header-only -i "$1" >"$WORK/hdr" 2>"$WORK/hdr.err" ||
		{ cat "$WORK/hdr.err" >&2; fail "$1: perf report --header-only"; }
	expect_in "$WORK/hdr" "# os release : $REL"
	expect_in "$WORK/hdr" "# hostname : rs-guest"
	grep "# hostname\|# os release" "$WORK/hdr"
}

note "snapshot: the identity into the summary and the file's header"
REG=$(region snap)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --overwrite || fail "create"
"$PRODUCER" identity "$REG" --release $REL || fail "identity"
"$PRODUCER" write "$REG" --records 100 --samples 20 >/dev/null || fail "producer"
run 0 snap "$R" snapshot "$REG" -o "$WORK/snap.data"
cat "$WORK/snap.out"
expect_in "$WORK/snap.out" "guest identity (guest claims): host \"rs-guest\", release \"$REL\", arch \"x86_64\", CPUs 2 online of 4, memory 1.9 GiB, CPU \"ringside test CPU\""
expect_in "$WORK/snap.out" "guest sampling (guest claims): cpu-clock, frequency 1000 Hz, user and kernel"
header_names "$WORK/snap.data"

note "stat says the same"
run 0 stat "$R" stat "$REG"
expect_in "$WORK/stat.out" "guest identity (guest claims): host \"rs-guest\", release \"$REL\""

note "record started before the guest said who it is: set late"
REG=$(region late)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 || fail "create"
"$R" record "$REG" -o "$WORK/late.data" --interval 1 >"$WORK/late.out" 2>"$WORK/late.err" &
REC=$!
BG_PIDS=$REC
wait_for_tmp "$WORK/late.data" 60
"$PRODUCER" write "$REG" --records 100 --samples 20 >/dev/null || fail "producer"
# record has drained every ring once before the identity exists
wait_rings "$R" "$REG" data_tail 60
"$PRODUCER" identity "$REG" --release $REL || fail "identity"
"$PRODUCER" write "$REG" --records 100 --samples 20 >/dev/null || fail "producer"
stop_record "$REC" "$WORK/late.data" || fail "record: $(cat "$WORK/late.err")"
BG_PIDS=""
cat "$WORK/late.out"
expect_in "$WORK/late.out" "guest identity (guest claims, published after the file was opened): host \"rs-guest\", release \"$REL\""
header_names "$WORK/late.data"

note "never published: said, and the file names no machine rather than the host"
REG=$(region none)
"$PRODUCER" create "$REG" --rings 1 --data-pages 16 --overwrite || fail "create"
"$PRODUCER" write "$REG" --records 50 --samples 10 >/dev/null || fail "producer"
run 0 none "$R" snapshot "$REG" -o "$WORK/none.data"
expect_in "$WORK/none.out" "guest identity: none (the guest agent has not published it"
"$PERF" report --header-only -i "$WORK/none.data" >"$WORK/none.hdr" 2>/dev/null ||
	fail "perf report --header-only of none.data"
! grep -q "# hostname : $HOSTNAME_HOST\$" "$WORK/none.hdr" ||
	fail "a file without the guest's identity names the host $HOSTNAME_HOST"

note "hostile: control bytes in the hostname are replaced and counted"
REG=$(region evil)
"$PRODUCER" create "$REG" --rings 1 --data-pages 16 --overwrite || fail "create"
"$PRODUCER" identity "$REG" --release $REL --host "$(printf 'evil\033[2J\001')" ||
	fail "identity"
run 0 evil "$R" stat "$REG"
expect_in "$WORK/evil.out" "host \"evil?[2J?\""
expect_in "$WORK/evil.out" "guest identity flagged: 0 implausible numbers left out, 2 bytes replaced by '?'"
! grep -q "$(printf '\033')" "$WORK/evil.out" || fail "stat printed the guest's escape byte"
echo "PASS"
