#!/usr/bin/env bash
# Set everything up and run every test: the development build (warnings are
# errors) with all suites; then, under ASan+UBSan, every suite but the
# QEMU/libvirt one; then the unit programs under valgrind; then every fuzz
# target for a bounded number of runs (clang, libFuzzer).  Ends with one
# line "N passed, N failed, N skipped" over all runs.  Nothing skips for
# want of /dev/kvm: see tests/nested/kvm-run.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

bash scripts/setup.sh || exit 1

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
run build-asan asan --suite ring --suite perfdata --suite cli --suite install --suite pt \
	--suite fuzz-replay
# the VMM's Check programs; its command-line scripts run in build/ only
run build-asan asan-vmm test_vmm_bad test_vmm_deliver test_vmm_snapshot \
	test_vmm_control test_vmm_cpuid
run build-asan asan-domain domain domain_pt agent_mmaps

# Unit programs: each tests one library alone (no KVM, no QEMU).  meson
# intersects names with --suite, so suites and names run separately.
run build valgrind-ring --setup valgrind --suite ring
run build valgrind-units --setup valgrind pdf_codec pdf_file pdf_ksyms topa msr out gen domain domain_pt opt gkcode \
	agent_mmaps vcpu_stack gkbuf recorder
run build valgrind-fuzz --setup valgrind --suite fuzz-replay

# Fuzzing, bounded: each target of tests/fuzz for a fixed number of
# executions (30 s at most) under ASan+UBSan; scripts/fuzz.sh runs
# them for longer.  The fuzz build has its own warnings policy (fuzz.sh).
CC=clang bash scripts/build.sh build-fuzz -Dfuzz=true -Dtests=disabled -Dwerror=false \
	-Db_sanitize=address,undefined -Db_lundef=false || exit 1
run build-fuzz fuzz --suite fuzz

python3 scripts/test-summary.py "${logs[@]}"
exit $status
