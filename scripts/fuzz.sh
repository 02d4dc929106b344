#!/usr/bin/env bash
# Run the libFuzzer targets of tests/fuzz for as long as you like
# (docs/testing.md, "Fuzzing").
#   scripts/fuzz.sh TARGET|all [SECONDS] [libFuzzer options...]
#   scripts/fuzz.sh --list
# Builds build-fuzz (clang, ASan+UBSan, -Dfuzz=true) first.  Each target
# runs SECONDS (default 600) over a working corpus in fuzz-work/TARGET
# (seeded from tests/fuzz/corpus/TARGET and regression/TARGET, which are
# only read); all runs them one after the other.  Findings land in
# fuzz-work/TARGET/findings/; keep each, once fixed, in
# tests/fuzz/regression/TARGET/.  The working corpus grows across runs;
# to fold what it found back into the seeds, minimized:
#   build-fuzz/tests/fuzz/fuzz_TARGET -merge=1 tests/fuzz/corpus/TARGET fuzz-work/TARGET
# Runs under nice; FUZZ_JOBS=N runs N processes per target (default 1).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
dir=build-fuzz
targets=$(sed -n "s/^  '\([a-z_]*\)': \[.*/\1/p" tests/fuzz/meson.build)

if [ "${1:-}" = --list ] || [ $# -lt 1 ]; then
	echo "targets:" $targets
	[ $# -ge 1 ] || { echo "usage: $0 TARGET|all [SECONDS] [libFuzzer options...]" >&2; exit 2; }
	exit 0
fi
what=$1 secs=${2:-600}
shift $(($# >= 2 ? 2 : 1))
[ "$what" = all ] && what=$targets
for t in $what; do
	case " $(echo $targets) " in *" $t "*) ;; *) echo "$0: no target $t (--list)" >&2; exit 2;; esac
done

# Warnings stay warnings here: the gcc build is where they are errors,
# and clang warns of things gcc does not (GNU extensions the VMM uses).
CC=clang bash scripts/build.sh "$dir" -Dfuzz=true -Dtests=disabled -Dwerror=false \
	-Db_sanitize=address,undefined -Db_lundef=false
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

status=0
for t in $what; do
	work=fuzz-work/$t
	mkdir -p "$work/corpus" "$work/findings"
	seeds=()
	for d in tests/fuzz/corpus/$t tests/fuzz/regression/$t; do
		[ -d "$d" ] && seeds+=("$d")
	done
	jobs=()
	[ "${FUZZ_JOBS:-1}" -gt 1 ] && jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
	echo "== fuzz_$t for ${secs}s (corpus $work/corpus, findings $work/findings, log $work/last.log)"
	rc=0
	nice -n 10 "$dir/tests/fuzz/fuzz_$t" -max_total_time="$secs" \
		-timeout=30 -print_final_stats=1 "${jobs[@]}" \
		-artifact_prefix="$work/findings/" "$@" "$work/corpus" \
		"${seeds[@]}" >"$work/last.log" 2>&1 || rc=$?
	grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::(number_of_executed_units|new_units_added)|SUMMARY|Test unit written)' \
		"$work/last.log" || true
	[ $rc -eq 0 ] || { status=1; echo "fuzz_$t: FINDING (exit $rc, see $work/last.log)"; }
done
exit $status
