#!/bin/sh
# A bounded libFuzzer run for the test suite: TARGET RUNS CORPUS...
# New inputs go to a scratch directory (the committed corpora stay as they
# are); CORPUS directories that do not exist are left out.  Passes when
# libFuzzer finds nothing within RUNS executions (or its time ceiling,
# which only ends the run early: it does not fail it).  A finding's input
# is left in the working directory as TARGET-crash-..., -leak-... or
# -timeout-... (the fuzz build's tests/fuzz folder).
set -u
exe=$1 runs=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/ringside-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
set -- "$work" $(for d in "$@"; do [ -d "$d" ] && echo "$d"; done)
# libFuzzer exits 77 on a finding by default, which meson counts as a
# skipped test: a finding is a failure here
"$exe" -runs="$runs" -max_total_time=30 -timeout=30 -print_final_stats=1 \
	-error_exitcode=1 -timeout_exitcode=1 \
	-artifact_prefix="$PWD/$(basename "$exe")-" "$@"
