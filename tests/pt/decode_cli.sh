#!/usr/bin/env bash
# ringside decode on captures written by ringside-pt-trace: a full trace,
# a wrapped snapshot-mode buffer (decoded from its last PSB) and a buffer
# cut by a ToPA STOP; each --check'ed against the single-step ground truth.
# Usage: decode_cli.sh RINGSIDE PT_TRACE PAYLOAD
set -euo pipefail
ringside=$1 pt_trace=$2 payload=$3
[ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo "SKIP: /dev/kvm not usable"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

"$pt_trace" --payload "$payload" --out "$dir/all.rspt" --workload all \
	--iterations 40 --irq-at 100 --perf-data "$dir/pt.data" >/dev/null
"$ringside" decode "$dir/all.rspt" --check >"$dir/all.txt" || fail "all: check"
grep -q '^\[enabled\]' "$dir/all.txt" || fail "all: no [enabled]"
grep -q '^\[interrupt ' "$dir/all.txt" || fail "all: no [interrupt]"
grep -q ', all of them$' "$dir/all.txt" || fail "all: not all instructions"
grep -Eq '^0000000000100[0-9a-f]{3}  call ' "$dir/all.txt" || fail "all: no call line"
# --events: the same events, each run of instructions as a count that
# adds up to the instructions the full decode printed
"$ringside" decode "$dir/all.rspt" --events >"$dir/events.txt" || fail "events"
grep -Eq '^[0-9a-f]{16}  ' "$dir/events.txt" && fail "events: instruction lines"
grep -q '^\[interrupt ' "$dir/events.txt" || fail "events: no [interrupt]"
[ "$(grep -c '^\[' "$dir/all.txt")" = \
  "$(grep '^\[' "$dir/events.txt" | grep -Evc '^\[[0-9]+ instructions\]$')" ] ||
	fail "events: not the same events as the full decode"
n_all=$(grep -Ec '^[0-9a-f]{16}  ' "$dir/all.txt")
n_ev=$(sed -n 's/^\[\([0-9]*\) instructions\]$/\1/p' "$dir/events.txt" | awk '{s += $1} END {print s + 0}')
[ "$n_all" = "$n_ev" ] && [ "$n_all" -gt 0 ] ||
	fail "events: $n_ev instructions in the counts, $n_all decoded"

"$pt_trace" --payload "$payload" --out "$dir/snap.rspt" --workload indirect \
	--iterations 900 --aux-pages 1 --snapshot >/dev/null
"$ringside" decode "$dir/snap.rspt" --check --quiet >"$dir/snap.txt" ||
	fail "snapshot: check"
grep -q ', snapshot$' "$dir/snap.txt" || fail "snapshot: not flagged"
grep -q ' 0 errors' "$dir/snap.txt" || fail "snapshot: errors"
grep -q ', its end$' "$dir/snap.txt" || fail "snapshot: not a suffix"

"$pt_trace" --payload "$payload" --out "$dir/stop.rspt" --workload indirect \
	--iterations 900 --aux-pages 1 --no-drain >/dev/null
"$ringside" decode "$dir/stop.rspt" --check --quiet >"$dir/stop.txt" ||
	fail "stop: check"
grep -q ', truncated$' "$dir/stop.txt" || fail "stop: not flagged truncated"
grep -q ' 0 errors' "$dir/stop.txt" || fail "stop: errors"

# perf's own intel_pt decoder on the same trace (perf.data with
# AUXTRACE_INFO of type intel_pt): the same instructions, in order.
if command -v perf >/dev/null; then
	grep -E '^[0-9a-f]{16}  ' "$dir/all.txt" | awk '{print $1}' |
		sed 's/^0*//' >"$dir/ours.ips"
	perf script -i "$dir/pt.data" --itrace=i0ns -F ip 2>"$dir/perf.err" |
		awk '{print $1}' >"$dir/perf.ips" || fail "perf script: $(cat "$dir/perf.err")"
	[ -s "$dir/perf.ips" ] || fail "perf decoded nothing: $(cat "$dir/perf.err")"
	cmp -s "$dir/ours.ips" "$dir/perf.ips" ||
		fail "perf and libipt disagree ($(wc -l <"$dir/perf.ips") vs $(wc -l <"$dir/ours.ips"))"
fi

# Hostile input: not a capture.
head -c 100 /dev/urandom >"$dir/bad.rspt"
if "$ringside" decode "$dir/bad.rspt" 2>/dev/null; then fail "bad file accepted"; fi
"$ringside" decode 2>/dev/null && fail "no FILE accepted"
echo "ok"
