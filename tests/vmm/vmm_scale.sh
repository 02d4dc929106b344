#!/bin/bash
# A guest of 1024 vCPUs (KVM's maximum on x86), each writing its own ring
# (a region with a ring table): a stable snapshot pauses them all and holds
# every ring's records; `ringside record --vm` (its doorbells in batches
# over the control socket) accounts for every record of every ring.
# The guest's work is tiny (5 records a vCPU): guest code is slow here.
. "$(dirname "$0")/vmm_lib.sh"

N=1024
note "$N vCPUs, a ring each"
start_vm scale --vcpus $N --records 4 --data-pages 1
wait_attempted $N 5

# rings_json REPORT: one line per ring, "ring seq delivered lost gaps bad".
rings_json() {
	jq -r '.rings | to_entries[] | .value as $r | [.key, $r.types.seq,
		$r.types.seq + $r.types.sample + $r.types.marker + $r.types.aux,
		$r.lost + ($r.host.early_lost // 0), $r.seq_gaps, $r.seq_bad] |
		map(tostring) | join(" ")' \
		"$1" || fail "jq on $1"
}

run 0 stable "$R" snapshot --vm "$SOCK" --stable -o "$WORK/stable.data"
head -3 "$WORK/stable.out"
expect_in "$WORK/stable.out" "stable (vCPUs paused) copy of $N rings"
expect_in "$WORK/stable.out" "paused the guest"
expect_eq "vCPUs in the snapshot" \
	"$(grep -c '^  vCPU [0-9]*: halted, 5 records attempted' "$WORK/stable.out")" $N
run 0 stable-rep "$R" report "$WORK/stable.data" --json
rings_json "$WORK/stable-rep.out" >"$WORK/stable.rings"
expect_eq "rings in the snapshot" "$(wc -l <"$WORK/stable.rings")" $N
# each ring holds its own vCPU's 4 SEQ records, whole and in order
awk '$2 != 4 || $5 != 0 || $6 != 0 { bad++; if (bad < 5) print "ring " $0 }
	END { exit bad > 0 }' "$WORK/stable.rings" ||
	fail "stable snapshot: rings without their 4 intact records"

# stat: a summary and the outliers, not 1024 lines; --all has them all
run 0 stat "$R" stat --vm "$SOCK" --look 0.1
expect_in "$WORK/stat.out" "$N rings, $N summarised ('stat --all': every line); 0 unreadable"
expect_in "$WORK/stat.out" "rings whose guest claims losses: 0"
expect_eq "stat: ring lines" "$(grep -c ' normal  ' "$WORK/stat.out")" 5
run 0 stat-all "$R" stat --vm "$SOCK" --look 0.1 --all
expect_eq "stat --all: ring lines" "$(grep -c ' normal  ' "$WORK/stat-all.out")" $N

run 0 rec "$R" record --vm "$SOCK" -o "$WORK/rec.data"
expect_in "$WORK/rec.out" "(the VM ended)"
stop_vm
run 0 rec-rep "$R" report "$WORK/rec.data" --json
rings_json "$WORK/rec-rep.out" >"$WORK/rec.rings"
expect_eq "rings recorded" "$(wc -l <"$WORK/rec.rings")" $N
# run's table: ring, state, produced; every ring halted, delivered + lost
# == produced on each (one awk: 1024 rings)
awk 'NR == FNR { if ($1 ~ /^[0-9]+$/ && $2 == "halted") p[$1] = $3; next }
	{ if (!($1 in p) || $3 + $4 != p[$1] || p[$1] == 0 || $6 != 0) {
		bad++; if (bad < 5) print "ring " $1 ": produced " p[$1] \
			", delivered " $3 " + lost " $4 }
	  seen++ }
	END { exit bad > 0 || seen != '$N' }' "$WORK/scale.out" "$WORK/rec.rings" ||
	fail "delivered + lost != produced on some ring"
expect_eq "rings halted in run's table" \
	"$(awk '$1 ~ /^[0-9]+$/ && $2 == "halted"' "$WORK/scale.out" | wc -l)" $N
echo "ok"
