# Shared by the scripts that let the real perf judge ringside's perf.data
# files (cli_perf.sh, the vmm suite).  Source after lib.sh, call need_perf,
# set R to the ringside command.

# perf_stat STATS_OUT TYPE: the aggregated count of TYPE events (0 if absent).
perf_stat() {
	awk -v t="$2" '/Aggregated stats:/ { a = 1; next }
		/ stats:$/ { a = 0 }
		a && $1 == t && $2 == "events:" { n = $3 }
		END { print n + 0 }' "$1"
}

# perf_event_samples STATS_OUT EVENT: SAMPLE events of one event.
perf_event_samples() {
	awk -v e="$2" '$1 == e && $2 == "stats:" { f = 1; next }
		f && $1 == "SAMPLE" { print $3; exit }
		f && / stats:$/ { exit }' "$1" | { read -r n; echo "${n:-0}"; }
}

# quiet_or_lost NAME ERRFILE REPORT [AUX_EVENTS]: perf said nothing on
# stderr; or only the notices perf script prints for the losses the file
# records, with ringside's counts in them:
# - LOST records: "Processed N events and lost M chunks!", N the records
#   (plus the AUXTRACE_INFO and AUXTRACE records holding AUX data, and the
#   error events perf makes for lost AUX data, which perf counts too), M
#   the LOST records;
# - AUX records flagged TRUNCATED (a full AUX area; how many depends on how
#   the consumer kept up): "AUX data lost T times out of A!" and
#   "T instruction trace errors", T those records, A all AUX records.
# Blank lines between perf's notices are not compared.
quiet_or_lost() {
	local name=$1 err=$2 rep=$3 aux=${4:-0} lost_recs trunc total
	# the host's view of the vCPU threads, where the file has it
	lost_recs=$(json "$rep" '.total.types.lost + (.host.lost_records // 0)')
	trunc=$(json "$rep" .total.aux_truncated)
	total=$(($(json "$rep" '.total.records + (.host.records // 0)') + aux + trunc))
	if [ "$lost_recs" = 0 ] && [ "$trunc" = 0 ]; then
		[ ! -s "$err" ] || { cat "$err" >&2; fail "$name: perf wrote to stderr"; }
		return
	fi
	{
		[ "$lost_recs" = 0 ] ||
			printf 'Warning:\nProcessed %s events and lost %s chunks!\nCheck IO/CPU overload!\n' \
				"$total" "$lost_recs"
		[ "$trunc" = 0 ] ||
			printf 'Warning:\nAUX data lost %s times out of %s!\nWarning:\n%s instruction trace errors\n' \
				"$trunc" "$(json "$rep" .total.types.aux)" "$trunc"
	} >"$err.want"
	grep -v '^$' "$err" | cmp -s - "$err.want" || {
		echo "perf said:" >&2; cat "$err" >&2
		echo "expected only:" >&2; cat "$err.want" >&2
		fail "$name: perf's stderr is more than its notice of $lost_recs LOST records and $trunc truncated AUX records"
	}
}

# guest_samples FILE RING: ringside:sample events of RING (a CPU to perf)
# that `perf kvm --guest report` counts.
guest_samples() {
	"$PERF" kvm --guest report -i "$1" --stdio -n --sort cpu 2>/dev/null |
		awk -v cpu="$(printf %03d "$2")" '
			/^# Samples:/ { ev = $NF; gsub("\047", "", ev); next }
			/^#/ || NF != 3 { next }
			ev == "ringside:sample" && $3 == cpu { n += $2 }
			END { print n + 0 }'
}

# judge NAME FILE [guest]: perf opens FILE without a word on stderr (but
# perf script's loss notice), and its counts are ringside's.  "guest": the
# samples are the guest's own (misc GUEST_KERNEL, as the ringside guest
# agent writes them), which `perf script` leaves out, as it does for any
# host recording of a guest, and `perf kvm --guest report` counts.
judge() {
	local name=$1 file=$2 guest=${3:-} rep=$WORK/$1.rep st=$WORK/$1.stats n want ring
	local shown=".seq + .marker + .sample + .other"
	note "perf judges $name"
	"$R" report "$file" --json >"$rep" || fail "$name: ringside report failed"

	"$PERF" report -i "$file" --stats >"$st" 2>"$WORK/$name.stats.err" ||
		fail "$name: perf report --stats exited $?: $(cat "$WORK/$name.stats.err")"
	[ ! -s "$WORK/$name.stats.err" ] ||
		{ cat "$WORK/$name.stats.err" >&2; fail "$name: perf report --stats wrote to stderr"; }
	cat "$st"
	"$PERF" script -i "$file" >"$WORK/$name.script" 2>"$WORK/$name.script.err" ||
		fail "$name: perf script exited $?: $(cat "$WORK/$name.script.err")"
	quiet_or_lost "$name: perf script" "$WORK/$name.script.err" "$rep" \
		$(($(perf_stat "$st" AUXTRACE_INFO) + $(perf_stat "$st" AUXTRACE)))

	# the host's exits are samples of ringside:host, its losses LOST
	want=$(json "$rep" '(.total.types | .seq + .marker + .sample + .other) + (.host.exits // 0)')
	expect_eq "$name: perf SAMPLE events" "$(perf_stat "$st" SAMPLE)" "$want"
	expect_eq "$name: perf LOST events" "$(perf_stat "$st" LOST)" \
		"$(json "$rep" '.total.types.lost + (.host.lost_records // 0)')"
	expect_eq "$name: perf AUX events" "$(perf_stat "$st" AUX)" \
		"$(json "$rep" .total.types.aux)"
	# perf counts the host's records (the process table) among them
	expect_eq "$name: perf COMM events" "$(perf_stat "$st" COMM)" \
		"$(json "$rep" '.total.types.comm + .state.comm')"
	expect_eq "$name: perf MMAP2 events" "$(perf_stat "$st" MMAP2)" \
		"$(json "$rep" '.total.types.mmap2 + .state.mmap2')"
	expect_eq "$name: ringside:seq samples" \
		"$(perf_event_samples "$st" ringside:seq)" "$(json "$rep" .total.types.seq)"
	expect_eq "$name: ringside:marker samples" \
		"$(perf_event_samples "$st" ringside:marker)" "$(json "$rep" .total.types.marker)"
	expect_eq "$name: ringside:sample samples" \
		"$(perf_event_samples "$st" ringside:sample)" "$(json "$rep" .total.types.sample)"

	# one line per sample, tagged with its ring as the CPU
	[ -z "$guest" ] || shown=".seq + .marker + .other"
	# (the host's exits, ringside:host, on the same CPUs, left out)
	"$PERF" script -i "$file" -F cpu,event 2>/dev/null |
		grep -v ' ringside:host: *$' >"$WORK/$name.lines"
	expect_eq "$name: perf script lines" "$(wc -l <"$WORK/$name.lines")" \
		"$(json "$rep" ".total.types | $shown")"
	for ring in $(seq 0 $(($(json "$rep" '.rings | length') - 1))); do
		n=$(grep -c "^\[$(printf %03d "$ring")\]" "$WORK/$name.lines")
		expect_eq "$name: ring $ring samples in perf" "$n" \
			"$(json "$rep" ".rings[$ring].types | $shown")"
		[ -z "$guest" ] || expect_eq "$name: ring $ring guest samples in perf kvm" \
			"$(guest_samples "$file" "$ring")" "$(json "$rep" ".rings[$ring].types.sample")"
	done
	# the LOST records carry ringside's counts; shown inline, perf is quiet
	n=$("$PERF" script -i "$file" --show-lost-events -F cpu,event 2>"$WORK/$name.lost.err" |
		awk '/PERF_RECORD_LOST/ { s += $NF } END { print s + 0 }')
	expect_eq "$name: records lost per perf" "$n" "$(json "$rep" '.total.lost + (.host.lost // 0)')"
	[ ! -s "$WORK/$name.lost.err" ] ||
		{ cat "$WORK/$name.lost.err" >&2; fail "$name: perf script --show-lost-events wrote to stderr"; }
}
