#!/usr/bin/env bash
# spin_check.sh MODEL [CC...]: verify the Promela model MODEL with spin in every
# interleaving (pan, safety: assertions and invalid end states), and each
# of its broken variants, which must fail: a check that cannot fail proves
# nothing.  Without spin it fails: scripts/setup.sh installs it.
set -euo pipefail
model=$1
shift
# the build's C compiler, every word of it (ccache cc, or cc alone)
cc=("$@")
[ ${#cc[@]} -gt 0 ] || cc=(cc)
if ! command -v spin >/dev/null; then
	echo "spin_check: spin is not installed: run scripts/setup.sh (Debian's spin)"
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$model" "$work/model.pml"
cd "$work"

# verify [-DNAME]: the number of errors pan found; its report on stdout
verify() {
	rm -f pan pan.* model.pml.trail
	spin -a "$@" model.pml >spin.log 2>&1 ||
		{ cat spin.log; echo "spin_check: spin -a $* failed"; exit 1; }
	"${cc[@]}" -O2 -DSAFETY -DNOCLAIM -o pan pan.c >cc.log 2>&1 ||
		{ cat cc.log; echo "spin_check: cc pan.c ($*) failed"; exit 1; }
	./pan -m100000 >pan.log 2>&1 || true
	grep -E '^State-vector .* errors: [0-9]+' pan.log | sed 's/.*errors: //'
}

fail=0
# the model's own watermark (2 of 4 records), and every publication due
for shape in "" "-DN=3 -DW=1"; do
	# shellcheck disable=SC2086 # two words, or none
	errors=$(verify $shape)
	echo "model ${shape:-(N=4 W=2)}: errors $errors (want 0)"
	grep -E 'states, stored' pan.log
	if [ "$errors" != 0 ]; then
		cat pan.log
		spin -t -p model.pml 2>&1 | tail -40 || true
		fail=1
	fi
	grep -q 'invalid end states	+' pan.log ||
		{ echo "spin_check: pan did not check invalid end states"; fail=1; }
done
for variant in NO_RECHECK NO_PRODUCER_FENCE NO_CONSUMER_FENCE; do
	errors=$(verify "-D$variant")
	echo "model -D$variant: errors $errors (want > 0)"
	if [ -z "$errors" ] || [ "$errors" = 0 ]; then
		cat pan.log
		fail=1
	elif ! grep -q 'invalid end state' pan.log; then
		echo "spin_check: -D$variant failed, but not by a consumer asleep for good"
		cat pan.log
		fail=1
	fi
done
exit $fail
