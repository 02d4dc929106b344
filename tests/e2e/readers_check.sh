# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
# Sourced by e2e_libvirt.sh: a guest's file as other perf.data readers
# read it, on "another machine" (a fresh HOME, another directory), with
# what ringside says must go with it (`ringside archive FILE`, unpacked
# into the cache beside the file there, .ringside-debug, which perf reads
# with --buildid-dir and hotspot's parser with --debug, as hotspot's
# --debugPaths gives it; never into that HOME's ~/.debug) and without it:
#   hotspot's parser (hotspot-perfparser) names every process and binary
#     whole and reports no error but missing ELF files of programs whose
#     symbols the guest did not send; with the archive, its kernel names
#     are the guest's; without it, what it names is said (it reads the
#     reading host's /proc/kallsyms then: docs/perfdata.md)
#   perf report/script with the archive name the guest kernel's samples
#     as the guest's kallsyms says; without it, no kernel sample has a
#     name (addresses only: never a host symbol)
#   perf script prints the markers' text; perf report --header-only shows
#     the guest's os release and the first and last samples' times (of
#     ringside:sample, as perf script prints them)
# Needs from the caller: ok, bad, note (e2e_lib.sh), $W, $RINGSIDE, $KCHECK,
# $LG_KERNEL (the guest's kernel, /boot/vmlinuz-RELEASE); the file's cache
# beside it, where record and snapshot put the guest's names.

RC_DIR=$(dirname "${BASH_SOURCE[0]}")
PPCHECK=$RC_DIR/perfparser_check.py
PERFPARSER=${RS_PERFPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}

# readers_check FILE WHAT CONSOLE
readers_check() {
	local file=$1 what=$2 console=$3 d=$W/readers-$2 f rel
	rm -rf "$d"
	mkdir -p "$d/home-arch" "$d/home-none" "$d/arch/.ringside-debug" "$d/none"
	f=$(basename "$file")
	# what ringside says goes with the file
	if "$RINGSIDE" archive "$file" -o "$d/$f.tar" > "$d/archive.out" 2>&1; then
		ok "$what: $(grep -m 1 '^ringside archive:' "$d/archive.out")"
	else
		bad "$what: ringside archive: $(tr '\n' ' ' < "$d/archive.out")"
	fi
	cp "$file" "$d/arch/$f"
	cp "$file" "$d/none/$f"
	tar xf "$d/$f.tar" -C "$d/arch/.ringside-debug" ||
		bad "$what: the archive does not unpack"

	rc_perfparser "$d" "$f" "$what" "$console"
	rc_perf_ksyms "$d" "$f" "$what" "$console"
	rc_markers "$file" "$what"
	rc_header "$file" "$what"
}

# perf's own reading of the file: process names, mapped paths, build ids
rc_perf_facts() {
	local d=$1 f=$2
	(cd "$d/arch" && HOME=$d/home-arch perf --buildid-dir .ringside-debug \
		script -i "$f" --show-task-events --show-mmap-events -F comm,tid \
		2>/dev/null) > "$d/perf.events"
	{
		awk '/PERF_RECORD_/ { next } { sub(/^ +/, ""); sub(/ +-?[0-9]+ *$/, ""); print }' \
			"$d/perf.events"
		sed -nE 's/.*PERF_RECORD_COMM( exec)?: (.*):-?[0-9]+\/-?[0-9]+$/\2/p' \
			"$d/perf.events"
	} | sort -u > "$d/perf.comms"
	sed -nE 's/.*PERF_RECORD_MMAP2? .*\]: [^ ]+ (.*)$/\1/p' "$d/perf.events" |
		sort -u > "$d/perf.mmaps"
	(cd "$d/arch" && HOME=$d/home-arch perf --buildid-dir .ringside-debug \
		buildid-list -i "$f" 2>/dev/null) |
		while read -r id path; do
			[ -e "$d/arch/.ringside-debug/.build-id/${id:0:2}/${id:2}" ] &&
				echo "$id $path"
		done > "$d/perf.buildids"
}

rc_perfparser() {
	local d=$1 f=$2 what=$3 console=$4 out
	if [ ! -x "$PERFPARSER" ]; then
		bad "$what: no $PERFPARSER (scripts/setup.sh installs hotspot)"
		return
	fi
	rc_perf_facts "$d" "$f"
	(cd "$d/arch" && HOME=$d/home-arch timeout 300 "$PERFPARSER" --input "$f" \
		--debug "$d/arch/.ringside-debug" --output "$d/pp-arch.stream" \
		2> "$d/pp-arch.err") ||
		bad "$what: hotspot-perfparser failed: $(tail -n 1 "$d/pp-arch.err")"
	out=$(python3 "$PPCHECK" names "$d/pp-arch.stream" "$d/perf.comms" \
		"$d/perf.mmaps" "$d/perf.buildids")
	# shellcheck disable=SC2181
	[ $? = 0 ] && ok "$what: hotspot-perfparser names whole: ${out%%$'\n'*}" ||
		{ bad "$what: hotspot-perfparser: ${out%%$'\n'*}"; echo "$out" | tail -n +2; }
	out=$(python3 "$PPCHECK" kernel "$d/pp-arch.stream" "$console" /proc/kallsyms guest)
	# shellcheck disable=SC2181
	[ $? = 0 ] && ok "$what: hotspot-perfparser with the archive: $out" ||
		bad "$what: hotspot-perfparser with the archive: $out"
	(cd "$d/none" && HOME=$d/home-none timeout 300 "$PERFPARSER" --input "$f" \
		--output "$d/pp-none.stream" 2> "$d/pp-none.err")
	note "$what: hotspot-perfparser without the archive (it falls back to this host's /proc/kallsyms): $(python3 "$PPCHECK" kernel "$d/pp-none.stream" "$console" /proc/kallsyms measure)"
}

rc_perf_ksyms() {
	local d=$1 f=$2 what=$3 console=$4 out
	(cd "$d/arch" && HOME=$d/home-arch perf --buildid-dir .ringside-debug \
		script -i "$f" -F event,ip,sym -G 2>/dev/null) > "$d/arch.script"
	out=$(python3 "$KCHECK" names "$console" "$d/arch.script" 95)
	# shellcheck disable=SC2181
	[ $? = 0 ] && ok "$what: elsewhere with the archive: perf script: ${out%%$'\n'*}" ||
		{ bad "$what: elsewhere with the archive: perf script: ${out%%$'\n'*}"; echo "$out" | tail -n +2; }
	(cd "$d/arch" && HOME=$d/home-arch perf --buildid-dir .ringside-debug \
		report -i "$f" --stdio --sort sym -g none --no-children \
		2>/dev/null) > "$d/arch.report"
	out=$(python3 "$KCHECK" report "$d/arch.report" 95)
	# shellcheck disable=SC2181
	[ $? = 0 ] && ok "$what: elsewhere with the archive: $out" ||
		bad "$what: elsewhere with the archive: $out"

	(cd "$d/none" && HOME=$d/home-none perf script -i "$f" -F event,ip,sym -G \
		2>/dev/null) > "$d/none.script"
	out=$(python3 "$KCHECK" names "$console" "$d/none.script" 0)
	echo "$out" | grep -q ", 0 named otherwise\$" &&
		ok "$what: elsewhere without the archive: perf script: ${out%%$'\n'*}" ||
		{ bad "$what: elsewhere without the archive: perf script: ${out%%$'\n'*}"; echo "$out" | tail -n +2; }
	(cd "$d/none" && HOME=$d/home-none perf report -i "$f" --stdio --sort sym \
		-g none --no-children 2>/dev/null) > "$d/none.report"
	out=$(python3 "$KCHECK" report "$d/none.report" 0)
	echo "$out" | grep -q "(0.00% of all samples named" &&
		ok "$what: elsewhere without the archive: $out" ||
		bad "$what: elsewhere without the archive, a kernel sample has a name: $out"
}

# every marker's text as `ringside dump` prints it, in `perf script`
rc_markers() {
	local file=$1 what=$2 all=0 found=0 t
	# not from the bytes perf dumps in hex and ASCII ("  0020: 73 74 ...
	# step 1"), nor from the functions of call chains ("  ffff... panic")
	perf script -i "$file" 2>/dev/null |
		grep -aEv '^[[:space:]]+[0-9a-f]{4}:( [0-9a-f]{2})+|^[[:space:]]+[0-9a-f]+ ' \
		> "$W/$what.rc-script"
	while IFS= read -r t; do
		all=$((all + 1))
		grep -aqF -- "$t" "$W/$what.rc-script" && found=$((found + 1))
	done < <("$RINGSIDE" dump "$file" 2>/dev/null |
		sed -nE 's/^.* marker +id=.* "(.+)"$/\1/p' | sort -u)
	[ "$all" -gt 0 ] && [ "$found" = "$all" ] &&
		ok "$what: perf script prints the text of all $all markers" ||
		bad "$what: perf script prints the text of $found of $all markers"
}

# the guest's os release; the first and last samples' times
rc_header() {
	local file=$1 what=$2 rel hdr first last smin smax
	rel=${LG_KERNEL##*/vmlinuz-}
	perf report -i "$file" --header-only 2>/dev/null > "$W/$what.rc-header"
	hdr=$(sed -n 's/^# os release : //p' "$W/$what.rc-header")
	[ "$hdr" = "$rel" ] && ok "$what: perf report --header: os release $hdr (the guest's)" ||
		bad "$what: perf report --header: os release '$hdr', the guest runs $rel"
	first=$(sed -n 's/^# time of first sample : //p' "$W/$what.rc-header")
	last=$(sed -n 's/^# time of last sample : //p' "$W/$what.rc-header")
	# the span of the guest's samples (the agent's COMM and MMAP2 records
	# at attach and its markers do not stretch it: docs/cli.md)
	read -r smin smax < <(perf script -i "$file" -F time,event 2>/dev/null |
		awk '$2 == "ringside:sample:" { sub(/:$/, "", $1); print $1 }' |
		sort -n | sed -n '1p;$p' | tr '\n' ' ')
	if awk -v a="$first" -v b="$last" -v c="$smin" -v e="$smax" 'BEGIN {
		exit !(a != "" && c != "" && a - c < 2e-6 && c - a < 2e-6 &&
		       b - e < 2e-6 && e - b < 2e-6) }'; then
		ok "$what: perf report --header: samples from $first to $last s, as perf script's ringside:sample"
	else
		bad "$what: perf report --header: samples from '$first' to '$last' s; perf script's ringside:sample from $smin to $smax"
	fi
}
