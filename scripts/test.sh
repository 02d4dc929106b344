#!/usr/bin/env bash
# Set everything up and run every test: the development build (warnings are
# errors) with all suites; then, under ASan+UBSan, the unit programs and
# every suite but the QEMU/libvirt ones; then the unit programs under
# valgrind; then every fuzz target for a bounded number of runs (clang,
# libFuzzer).  The sanitizer and valgrind runs are chosen by suite tags
# ('unit', 'kvm-unit': tests/meson.build), never by test names.  Ends with one
# line "N passed, N failed, N skipped" over all runs.  Nothing skips for
# want of /dev/kvm: see tests/nested/kvm-run.
#   scripts/test.sh --repeat N [--build DIR] [--stop] [--keep] SUITE|TEST...
# builds DIR (default build/) and runs those N times instead, counting each
# test's failures (scripts/test-repeat.py; docs/testing.md, "Flakes").
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
[ "${1:-}" = --repeat ] && exec python3 scripts/test-repeat.py "${@:2}"

bash scripts/setup.sh --test || exit 1

status=0
logs=()
# run DIR LOGBASE [--setup NAME] [meson test args...]
run() {
	local dir=$1 base=$2 log
	shift 2
	log=$dir/meson-logs/$base
	# meson names a setup's log LOGBASE-SETUP
	[ "${1:-}" = --setup ] && log=$log-$2
	rm -f "$log.json"
	echo "== meson test -C $dir $*"
	meson test -C "$dir" --print-errorlogs --logbase "$base" "$@" || status=1
	logs+=("$log.json")
}

# The vmm and pt suites need KVM: they run natively where /dev/kvm opens,
# otherwise in the nested guest of tests/nested/kvm-run (booted on first
# use, shared by both builds, powered off here at the end).
echo "== KVM: $(tests/nested/kvm-run --status)"
trap 'tests/nested/kvm-run --stop' EXIT

bash scripts/build.sh build || exit 1
run build all --num-processes 2

bash scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false || exit 1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Every unit program (suite 'unit': one library alone; 'kvm-unit': the
# VMM's Check programs), the command's scripts, pprof (report --pprof
# judged by go tool pprof and perf), install, pt and the fuzz replays; the
# QEMU/libvirt suites run in build/ only.
run build-asan asan --suite unit --suite kvm-unit --suite cli --suite pprof \
	--suite install --suite pt --suite fuzz-replay

# The unit programs and the fuzz replays under valgrind (no KVM, no QEMU).
run build valgrind --setup valgrind --suite unit --suite fuzz-replay

# Fuzzing, bounded: each target of tests/fuzz for a fixed number of
# executions (30 s at most) under ASan+UBSan; scripts/fuzz.sh runs
# them for longer.  The fuzz build has its own warnings policy (fuzz.sh).
CC=clang bash scripts/build.sh build-fuzz -Dfuzz=true -Dtests=disabled -Dwerror=false \
	-Db_sanitize=address,undefined -Db_lundef=false || exit 1
run build-fuzz fuzz --suite fuzz

python3 scripts/test-summary.py "${logs[@]}"
exit $status
