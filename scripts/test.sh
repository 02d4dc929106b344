#!/usr/bin/env bash
# Set everything up and run every test: the development build (warnings are
# errors) with all suites; then, under ASan+UBSan, every suite but the
# QEMU/libvirt one; then the unit programs under valgrind.  Ends with one line "N passed, N failed, N skipped".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/setup.sh || exit 1

status=0
run() {
	echo "== $*"
	"$@" || status=1
}

# The unit programs: each tests one library in isolation (no KVM, no QEMU).
unit_tests=(--suite ring pdf_codec pdf_file topa msr out gen domain)

bash scripts/build.sh build || exit 1
run meson test -C build --print-errorlogs --num-processes 2

bash scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false || exit 1
run env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --print-errorlogs --suite ring --suite cli --suite pt --suite vmm domain

run meson test -C build --setup valgrind --print-errorlogs "${unit_tests[@]}"

python3 scripts/test-summary.py build/meson-logs/testlog.json \
	build-asan/meson-logs/testlog.json build/meson-logs/testlog-valgrind.json
exit $status
