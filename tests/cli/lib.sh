# Shared by the cli_*.sh tests.  Usage: . lib.sh RINGSIDE PRODUCER
# Every test works in its own temporary directory and /dev/shm names, and
# removes them on exit (RS_KEEP_WORK=1 keeps the directory).
set -u

# shellcheck disable=SC2034 # used by the scripts that source this
RINGSIDE=$1
# shellcheck disable=SC2034
PRODUCER=$2
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringside-$TEST_NAME.XXXXXX")
SHM_PREFIX=/dev/shm/rs-$TEST_NAME-$$
BG_PIDS=""

cleanup() {
	local pid
	for pid in $BG_PIDS; do
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	if [ -n "${RS_KEEP_WORK:-}" ]; then
		echo "kept $WORK" >&2
	else
		rm -rf "$WORK"
	fi
	rm -f "$SHM_PREFIX"-*
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

note() {
	echo "--- $*"
}

# A region path for @name.
region() {
	echo "$SHM_PREFIX-$1"
}

# run EXPECTED_RC NAME CMD...: run CMD, keep its output in $WORK/NAME.out
# and .err, and fail unless it exits with EXPECTED_RC.
run() {
	local want=$1 name=$2 rc
	shift 2
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "command: $*" >&2
		echo "stdout:" >&2; cat "$WORK/$name.out" >&2
		echo "stderr:" >&2; cat "$WORK/$name.err" >&2
		fail "$name: exit status $rc, expected $want"
	fi
}

# expect_in FILE TEXT: fail unless FILE contains TEXT.
expect_in() {
	grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "'$2' not in $(basename "$1")"; }
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# tmp_files PATH: the temporary files of PATH being written
# (PATH.tmp.XXXXXX, six random characters: pdf_aside_open), one a line.
tmp_files() {
	local f
	for f in "$1".tmp.??????; do
		[ -e "$f" ] && echo "$f"
	done
	return 0
}

# no_tmp_file PATH: no temporary file of PATH is left.
no_tmp_file() {
	[ -z "$(tmp_files "$1")" ] || fail "$(tmp_files "$1") left behind"
}

# no_output_file PATH: neither PATH nor a temporary file of it may exist.
no_output_file() {
	[ ! -e "$1" ] || fail "$1 exists after a failure"
	no_tmp_file "$1"
}

# json FILE QUERY: a value from a report --json output, "null" where it
# has none.  QUERY is jq's: ".total.records", ".rings[1].types | .seq +
# .aux", ".rings | length".  jq (scripts/setup.sh installs it) starts in a
# millisecond where python would take seconds in a nested guest.
command -v jq >/dev/null || fail "jq is missing (scripts/setup.sh installs it)"
json() {
	jq -r "$2" "$1" || fail "query '$2' on $1"
}

# wait_for FILE SECONDS: until FILE exists.
wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ "$i" -le $(($2 * 100)) ] || fail "timed out waiting for $1"
		sleep 0.01
	done
}

# wait_for_tmp PATH SECONDS: until a temporary file of PATH exists (the
# command writing PATH has opened it).
wait_for_tmp() {
	local i=0
	while [ -z "$(tmp_files "$1")" ]; do
		i=$((i + 1))
		[ "$i" -le $(($2 * 100)) ] || fail "timed out waiting for $1.tmp.XXXXXX"
		sleep 0.01
	done
}

# stat_col STAT_OUT RING COLUMN: ring RING's COLUMN (named as in the
# header line) of a `ringside stat` output.
stat_col() {
	awk -v r="$2" -v c="$3" '
		$1 == "ring" && $2 == "mode" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == r && (c in col) { print $(col[c]) }' "$1"
}

# wait_rings RINGSIDE REGION COLUMN SECONDS: until COLUMN of `ringside
# stat` is above 0 on every ring: data_tail (a consumer drained each ring
# at least once) or guest_produced (the producer says it wrote into each).
wait_rings() {
	local i=0 rc
	# awk: 0 while some ring has COLUMN 0, 1 once none has, 2 if stat
	# has no such column (a renamed one must not pass unnoticed)
	while :; do
		rc=0
		"$1" stat "$2" | awk -v c="$3" '
		$1 == "ring" && $2 == "mode" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 ~ /^[0-9]+$/ && $(col[c]) == 0 { n++ }
		END { if (!(c in col)) exit 2; exit !n }' || rc=$?
		[ "$rc" != 2 ] || fail "ringside stat has no column $3"
		[ "$rc" = 0 ] || return 0
		i=$((i + 1))
		[ "$i" -le $(($4 * 10)) ] || fail "no ring of $2 has $3 > 0 after $4 s"
		sleep 0.1
	done
}

# wait_polling PID SECONDS: until PID sleeps in poll(2), as `ringside
# record` does between passes, once its first pass is done.
wait_polling() {
	local i=0 nr
	while :; do
		read -r nr _ <"/proc/$1/syscall" 2>/dev/null || fail "process $1 is gone"
		# x86-64: 7 poll, 271 ppoll
		[ "$nr" = 7 ] || [ "$nr" = 271 ] && return 0
		i=$((i + 1))
		[ "$i" -le $(($2 * 100)) ] || fail "process $1 never waited in poll"
		sleep 0.01
	done
}

# stop_record PID OUT: SIGINT to a background `ringside record -o OUT`,
# then its exit status.  The signal goes only once record catches it: it
# creates OUT.tmp.XXXXXX after installing its handler, and a background job of a
# script starts with SIGINT ignored, so an earlier one would be lost.  Its
# last pass after the signal takes what it had not drained yet.
stop_record() {
	wait_for_tmp "$2" 60
	kill -INT "$1"
	wait "$1"
}

# producer_field STATS RING FIELD: a number from the producer's stats line.
producer_field() {
	awk -v r="$2" -v f="$3" '$1 == "ring" && $2 == r {
		for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }' "$1"
}

# check_balance STATS REPORT_JSON RINGS [seq-only]: per ring, everything the
# producer attempted is either in the file or counted in a LOST record, and
# the sequence numbers agree (exactly, when only sequence records were sent).
check_balance() {
	local stats=$1 rep=$2 rings=$3 exact=${4:-} r attempted lost seq got_lost delivered
	local gaps last tail
	for r in $(seq 0 $((rings - 1))); do
		attempted=$(producer_field "$stats" "$r" attempted)
		lost=$(producer_field "$stats" "$r" lost)
		seq=$(producer_field "$stats" "$r" seq)
		# the losses from before a recording are counted apart from
		# its LOST records (host facts), not in the file
		got_lost=$(json "$rep" ".rings[$r].lost + (.rings[$r].host.early_lost // 0)")
		delivered=$(json "$rep" ".rings[$r].types | .seq + .sample + .marker + .aux + .comm + .mmap2")
		expect_eq "ring $r: lost (file vs producer)" "$got_lost" "$lost"
		expect_eq "ring $r: delivered + lost" "$((delivered + got_lost))" "$attempted"
		expect_eq "ring $r: checksum errors" "$(json "$rep" ".rings[$r].seq_bad")" 0
		expect_eq "ring $r: out of order" "$(json "$rep" ".rings[$r].seq_out_of_order")" 0
		gaps=$(json "$rep" ".rings[$r].seq_gaps")
		last=$(json "$rep" ".rings[$r].seq_last")
		tail=$((seq - 1 - last))
		expect_eq "ring $r: first seq" "$(json "$rep" ".rings[$r].seq_first")" 0
		[ "$((gaps + tail))" -le "$lost" ] ||
			fail "ring $r: $gaps gaps + $tail missing at the end > $lost lost"
		[ -z "$exact" ] || expect_eq "ring $r: seq missing vs lost" \
			"$((gaps + tail))" "$lost"
	done
}

# cache_of FILE: ringside's build-id cache of a perf.data file it wrote,
# where the guest's names are (beside it; never perf's ~/.debug): what
# `perf --buildid-dir` is given to read them.
cache_of() {
	echo "$(dirname "$1")/.ringside-debug"
}

# Is a usable perf here?  Sets PERF or skips with the reason.
need_perf() {
	PERF=$(command -v perf) || skip "perf is not installed (apt-get install linux-perf)"
	"$PERF" version >/dev/null 2>&1 || skip "perf does not run here: $("$PERF" version 2>&1 | head -1)"
}
