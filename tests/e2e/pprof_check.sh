# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
# Sourced by e2e_libvirt.sh: a real guest's file as a pprof profile
# (`ringside report FILE --pprof OUT`, docs/pprof.md) read by `go tool
# pprof -top`, against `perf report` of the same file: the ten kernel
# functions with the most self samples of ringside:sample in perf's
# report are in pprof's top with the same sample counts.
# Needs from the caller: ok, bad, note (e2e_lib.sh, rs_cache), $W,
# $RINGSIDE.  Both read the names from ringside's build-id cache beside
# the file: `report --pprof` finds it by itself, perf is given it.

# pprof_judge FILE WHAT
pprof_judge() {
	local file=$1 what=$2 out=$W/$2.pb.gz n
	if ! command -v go > /dev/null; then
		bad "$what: no go tool pprof (scripts/setup.sh installs golang-go)"
		return
	fi
	if "$RINGSIDE" report "$file" --pprof "$out" > "$W/$what.pprof" 2>&1; then
		ok "$what: ringside report --pprof: $(cat "$W/$what.pprof")"
	else
		bad "$what: ringside report --pprof: $(cat "$W/$what.pprof")"
		return
	fi
	# perf: "  1.23%  37  [k] name" rows of the ringside:sample section
	perf --buildid-dir "$(rs_cache "$file")" report -i "$file" --stdio -n \
		--no-children -g none --sort sym 2>/dev/null | awk '
		/^# Samples:/ { ev = $NF; gsub("\047", "", ev); next }
		/^#/ { next }
		ev == "ringside:sample" && $3 == "[k]" && $4 !~ /^0x/ { print $4, $2 }' |
		sort -k2,2nr -k1,1 > "$W/$what.perf-k"
	# pprof: "  37  1.23%  1.23%  74  2.47%  name" (flat first)
	go tool pprof -top -sample_index=samples -nodecount=1000000 \
		-nodefraction=0 "$out" 2>/dev/null |
		awk 'NF >= 6 && $2 ~ /%$/ && $6 !~ /^0x/ { print $6, $1 }' > "$W/$what.pprof-top"
	n=$(wc -l < "$W/$what.perf-k")
	if [ "$n" -lt 10 ]; then
		bad "$what: perf report lists $n named kernel functions, fewer than ten"
		return
	fi
	head -n 10 "$W/$what.perf-k" | while read -r name count; do
		got=$(awk -v f="$name" '$1 == f { print $2; exit }' "$W/$what.pprof-top")
		[ "$got" = "$count" ] ||
			echo "$name: perf report $count, go tool pprof ${got:-none}"
	done > "$W/$what.pprof-diff"
	if [ ! -s "$W/$what.pprof-diff" ]; then
		ok "$what: go tool pprof -top has perf report's top ten kernel functions with their counts ($(head -n 3 "$W/$what.perf-k" | tr '\n' ' ' | sed 's/ $//'), ...)"
	else
		bad "$what: go tool pprof -top differs from perf report: $(tr '\n' ';' < "$W/$what.pprof-diff")"
	fi
}
