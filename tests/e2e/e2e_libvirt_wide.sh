#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A Linux guest with many vCPUs (64; past the 48 rings a region's header
# holds, so through its ring table), a ring each, under QEMU TCG and
# libvirtd:
#
#   e2e_libvirt_wide.sh RINGSIDE AGENT MARK WORKLOAD HOOK
#
# The guest (guest_init_wide.sh) starts the agent, then pins a busy loop
# to each CPU.  Checks:
#   - `enable` lays out one ring per vCPU and says nothing of vCPUs
#     sharing rings;
#   - the agent attaches with one ring per vCPU (stat: "N rings used");
#   - each ring k holds samples of the loop pinned to CPU k, and none of
#     another CPU's loop (the harness waits for the first, with live
#     snapshots, however long the guest takes);
#   - then the loops end and the agent stops (SIGSTOP: nothing in user
#     mode), and `snapshot --stable` copies N rings: the same holds in it,
#     each ring's records are what its producer says it wrote, and its
#     LOST counts what it says it lost (delivered + lost == produced:
#     normal rings that nobody drained; the producer publishes its count
#     with its head, per batch, so the records the snapshot found past
#     data_head, its host facts' sealed_records, are not counted yet),
#     and "vCPU stacks" names a kernel
#     function at the top of each vCPU's stack, every vCPU once.
# Measured, not judged (`--` lines): the agent's start-up (from its start
# to its "attached", /proc/uptime in the guest), its VmRSS and VmHWM at
# attach and after the busy phase, and how long each stage took.
# RS_E2E_WIDE_VCPUS=N (default 64), RS_E2E_WIDE_MEM=MIB (the guest's
# memory, default 256) and RS_E2E_WIDE_PAGES=N (data pages a ring, default
# 256) change the guest (bench/scale-bench.sh --guest runs it at 64 and
# 255 vCPUs);
# RS_E2E_KEEP=1 keeps the work directory.  Every wait is bounded
# generously and a FAIL says where the guest stood; no speed is judged.
# Exit 77 when something it needs is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 HOOK_PROGRAM=$5
N=${RS_E2E_WIDE_VCPUS:-64}
MEM=${RS_E2E_WIDE_MEM:-256}
PAGES=${RS_E2E_WIDE_PAGES:-256}
DOM=rs-e2e-wide-$$
HOOK=/etc/libvirt/hooks/qemu.d/ringside
GUEST_INIT=$(dirname "${BASH_SOURCE[0]}")/guest_init_wide.sh
# bounds on the waits: a hung guest must not hang the suite; none is a
# judgement of speed (the boot of 64 vCPUs under TCG takes minutes here)
BOOT_S=1200 RINGS_S=600 QUIET_S=300

e2e_need_own_libvirt
W=$(lg_workdir /tmp/rs-e2e-wide.XXXXXX)
DEFINED='' HOOKED=''
trap e2e_teardown EXIT
trap 'exit 1' INT TERM

STAGE=preparing
# stood: where the guest stood when a wait ran out
stood() {
	echo "     stood at: $STAGE, $(($(date +%s) - T0)) s into the test"
	lg_console_tail "$W/console.log"
	"$RINGSIDE" stat "$DOM" --look 1 2>&1 | head -n 12 | sed 's/^/     stat: /'
}
# uptime_of PATTERN: the uptime= of the console's first line with PATTERN
uptime_of() { console_nth "$1" 1 | sed -n 's/.* uptime=\([0-9.]*\).*/\1/p'; }

e2e_prepare
lg_domain_xml "$DOM" qemu "$W" wide |
	sed "s|<vcpu>2</vcpu>|<vcpu>$N</vcpu>|; s|<memory unit='MiB'>256</memory>|<memory unit='MiB'>$MEM</memory>|; s|rs_e2e=wide|rs_e2e=wide ${RS_E2E_WIDE_CMDLINE-}|" \
	> "$W/domain.xml"
grep -q "<vcpu>$N</vcpu>" "$W/domain.xml" ||
	{ bad "the domain XML has no <vcpu>$N</vcpu>"; exit 1; }
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1

# ---- enable: a ring per vCPU --------------------------------------------------
# Normal rings that nobody drains keep every record from the agent's
# attach on, so a snapshot can be held against the producers' counts;
# 256 pages (1 MiB) a ring hold ~50 s of samples at 100 Hz (enable says
# so), the idle guest's few before the loops begin and theirs after.
"$RINGSIDE" enable "$DOM" --mode normal --data-pages "$PAGES" --freq 100 \
	> "$W/enable.out" 2> "$W/enable.err" ||
	{ bad "enable: $(cat "$W/enable.err")"; exit 1; }
line=$(grep -m 1 "^ringside enable: " "$W/enable.out")
[[ "$line" == *"($N rings x $PAGES data "* ]] &&
	ok "enable: ${line#ringside enable: }" ||
	{ bad "enable laid out no $N rings: '$line'"; cat "$W/enable.out"; }
grep -q "vCPUs share" "$W/enable.out" "$W/enable.err" &&
	bad "enable says vCPUs share rings: $(grep -h "vCPUs share" "$W/enable.out" "$W/enable.err")" ||
	ok "enable says nothing of vCPUs sharing rings"

# ---- boot until the agent attached ----------------------------------------------
STAGE="booting $N vCPUs (TCG) until the agent attached"
note "$STAGE"
vsh start "$DOM" >/dev/null || { bad "virsh start"; exit 1; }
TB=$(date +%s)
LG_PROGRESS=60 LG_SINCE=$TB lg_wait_console "$W/console.log" "E2E-AGENT-ATTACHED" $BOOT_S ||
	{ bad "$LG_WHY"; stood; exit 1; }
TA=$(date +%s)
note "booted and attached in $((TA - TB)) s (host)"
STAGE="starting a busy loop on each CPU"
lg_wait_console "$W/console.log" "E2E-LOOPS " $BOOT_S || { bad "$LG_WHY"; stood; exit 1; }
cpus=$(console_nth "E2E-BOOT " 1 | sed -n 's/.*cpus=\([0-9]*\).*/\1/p')
[ "${cpus:-0}" = "$N" ] && ok "the guest has $N CPUs online" ||
	bad "the guest says cpus=${cpus:-?}, not $N"
# the loop pinned to each CPU
declare -a BUSY
while read -r c p; do BUSY[c]=$p; done < <(tr -d '\r' < "$W/console.log" |
	sed -n 's/^E2E-BUSY cpu=\([0-9]*\) pid=\([0-9]*\)$/\1 \2/p')
[ "${#BUSY[@]}" = "$N" ] || { bad "${#BUSY[@]} busy loops on the console, not $N"; stood; exit 1; }
for c in "${!BUSY[@]}"; do echo "$c ${BUSY[c]}"; done > "$W/busy"

"$RINGSIDE" stat "$DOM" --all --look 1 > "$W/stat0" 2>&1
line=$(grep -m 1 "^guest: agent " "$W/stat0")
[[ "$line" == "guest: agent attached "*", $N rings used)"* ]] &&
	ok "stat: $line" || { bad "stat: '$line'"; cat "$W/stat0"; }

# ---- until each ring holds its CPU's loop --------------------------------------
# ring_owners FILE: per ring, "RING OWN FOREIGN": samples of the loop
# pinned to that ring's CPU, and of any other CPU's loop
ring_owners() {
	"$RINGSIDE" dump "$1" 2>/dev/null | awk -v n="$N" '
		FNR == NR { cpu[$2] = $1; next }
		$3 == "sample" {
			r = substr($1, 2, length($1) - 2) + 0; p = ""
			for (i = 4; i <= NF; i++) if ($i ~ /^pid=/) { p = substr($i, 5); break }
			if (!(p in cpu)) next
			if (cpu[p] == r) own[r]++; else foreign[r]++ }
		END { for (r = 0; r < n; r++) printf "%d %d %d\n", r, own[r], foreign[r] }' \
		"$W/busy" -
}
STAGE="waiting for each ring to hold its CPU's loop"
note "$STAGE (live snapshots)"
deadline=$(($(date +%s) + RINGS_S)) polls=0 have=0
while :; do
	polls=$((polls + 1))
	"$RINGSIDE" snapshot "$DOM" --no-vcpu-stacks --no-guest-buffers \
		--no-process-state -q -o "$W/live.data" > "$W/live.out" 2>&1 ||
		{ bad "live snapshot: $(cat "$W/live.out")"; stood; exit 1; }
	ring_owners "$W/live.data" > "$W/live.own"
	have=$(awk '$2 > 0' "$W/live.own" | wc -l)
	[ "$have" = "$N" ] && break
	if [ "$(date +%s)" -ge "$deadline" ]; then
		bad "after $RINGS_S s only $have of $N rings hold their CPU's loop; without: $(awk '$2 == 0 { printf "%s ", $1 }' "$W/live.own")"
		stood
		exit 1
	fi
	sleep 2
done
TR=$(date +%s)
ok "every one of the $N rings holds samples of the loop pinned to its CPU ($polls live snapshots, $((TR - TA)) s)"

# ---- the quiet guest, a stable snapshot ------------------------------------
STAGE="waiting for the guest to end its loops and stop its agent"
vsh send-key "$DOM" KEY_ENTER >/dev/null || bad "virsh send-key"
lg_wait_console "$W/console.log" "E2E-QUIET" $QUIET_S || { bad "$LG_WHY"; stood; exit 1; }
STAGE="stable snapshot"
TS0=$(date +%s)
"$RINGSIDE" snapshot "$DOM" --stable -o "$W/snap.data" > "$W/snap.out" 2>&1
rc=$?
TS1=$(date +%s)
line=$(head -n 1 "$W/snap.out")
[ $rc = 0 ] && [[ "$line" == "ringside snapshot: stable (vCPUs paused) copy of $N rings: "* ]] &&
	ok "${line#ringside snapshot: } ($((TS1 - TS0)) s)" ||
	{ bad "snapshot --stable: status $rc: $line"; cat "$W/snap.out"; }
note "$(grep -m 1 "paused the guest" "$W/snap.out" | sed 's/^ *//')"
# the same without what the host read apart from the rings (the guest
# kernel's perf buffers, the vCPUs' stacks): the rings alone, for the
# producers' counts
"$RINGSIDE" snapshot "$DOM" --stable --no-vcpu-stacks --no-guest-buffers \
	--no-process-state -q -o "$W/rings.data" > "$W/rings.out" 2>&1 ||
	{ bad "snapshot --stable of the rings alone: $(cat "$W/rings.out")"; }
TS2=$(date +%s)
"$RINGSIDE" stat "$DOM" --all --look 1 > "$W/stat1" 2>&1 || bad "stat: $(tail -n 3 "$W/stat1")"

# each ring: its CPU's loop, no other's
ring_owners "$W/snap.data" > "$W/snap.own"
own=$(awk '$2 > 0' "$W/snap.own" | wc -l)
foreign=$(awk '$3 > 0' "$W/snap.own" | wc -l)
rings=$(wc -l < "$W/snap.own")
[ "$own" = "$N" ] && [ "$foreign" = 0 ] && [ "$rings" = "$N" ] &&
	ok "snapshot: each of the $N rings holds samples of its own CPU's loop ($(awk '{ s += $2 } END { print s }' "$W/snap.own") in all, the fewest $(sort -k2,2n "$W/snap.own" | awk 'NR == 1 { print $2 " in ring " $1 }')), none of another CPU's" ||
	{ bad "snapshot: $own of $N rings hold their CPU's loop, $foreign hold another CPU's"; awk '$2 == 0 || $3 > 0' "$W/snap.own" | head -n 10 | sed 's/^/     ring own foreign: /'; }

# delivered + lost == produced, per ring: the records of each ring in the
# file against its producer's counts (the guest's claims, read by stat)
"$RINGSIDE" report "$W/rings.data" --json > "$W/rings.json" 2> "$W/rings.err" ||
	bad "report --json: $(cat "$W/rings.err")"
python3 "$(dirname "${BASH_SOURCE[0]}")/balance_check.py" --rings "$N" --lost-at-most \
	"$W/stat1" "$W/rings.json" > "$W/balance.txt"
[ $? = 0 ] && ok "delivered + lost == produced per ring: $(head -n 1 "$W/balance.txt")" ||
	{ bad "delivered + lost != produced: $(head -n 1 "$W/balance.txt")"; tail -n +2 "$W/balance.txt"; }

# every vCPU's kernel stack, its top frame named
sed -n '/^vCPU stacks: /,/^[^ ]/p' "$W/snap.out" | grep '^    vCPU ' > "$W/stacks"
python3 - "$W/stacks" "$N" > "$W/stacks.txt" <<'PY'
import re, sys
n = int(sys.argv[2])
seen, bad = {}, []
for line in open(sys.argv[1]):
    m = re.match(r"^    vCPU (\d+) \(([^)]*)\): (.*)$", line.rstrip("\n"))
    if not m:
        bad.append(line.strip()); continue
    cpu, mode, frames = int(m.group(1)), m.group(2), m.group(3)
    top = frames.split(" <- ")[0]
    seen[cpu] = seen.get(cpu, 0) + 1
    if not mode.startswith("kernel") or not re.match(r"^[A-Za-z_.$][\w.$]*\+(0|0x[0-9a-f]+)$", top):
        bad.append(line.strip())
tops = {}
for line in open(sys.argv[1]):
    m = re.match(r"^    vCPU \d+ \([^)]*\): ([^ +]+)", line)
    if m: tops[m.group(1)] = tops.get(m.group(1), 0) + 1
once = sorted(seen) == list(range(n)) and all(v == 1 for v in seen.values())
print(f"{len(seen)} vCPUs, each once: {once}; top frames: " +
      ", ".join(f"{k} x{v}" for k, v in sorted(tops.items(), key=lambda x: -x[1])[:4]))
for b in bad[:10]:
    print("  unnamed or not kernel: " + b)
sys.exit(0 if once and not bad else 1)
PY
[ $? = 0 ] && ok "vCPU stacks: $(head -n 1 "$W/stacks.txt")" ||
	{ bad "vCPU stacks: $(head -n 1 "$W/stacks.txt")"; tail -n +2 "$W/stacks.txt"; grep -m 1 "^vCPU stacks" "$W/snap.out"; }

# ---- measured, not judged ------------------------------------------------------
# the agent's start-up in the guest's own clock (/proc/uptime, 10 ms),
# from the shell's start of it to its "attached" line seen (polled every
# 10 ms); its memory as /proc/PID/status says it
t0=$(uptime_of "E2E-AGENT-START ") t1=$(uptime_of "E2E-AGENT-ATTACHED")
startup=$(awk -v a="$t0" -v b="$t1" 'BEGIN { if (a != "" && b != "") printf "%.2f", b - a }')
# foot WHEN: "VmRSS VmHWM" (kB) of the console's E2E-FOOT when=WHEN
foot() {
	console_nth "E2E-FOOT when=$1" 1 | awk '{ for (i = 2; i < NF; i++) v[$i] = $(i + 1) }
		END { print v["VmRSS:"], v["VmHWM:"] }'
}
read -r rss_a hwm_a < <(foot attached)
read -r rss_s hwm_s < <(foot steady)
note "agent start-up at $N vCPUs: ${startup:-?} s from its start to attached (guest uptime, the guest idle; its /init began at $(uptime_of "E2E-BOOT ") s)"
note "agent memory at $N vCPUs: attached VmRSS ${rss_a:-?} KiB, VmHWM ${hwm_a:-?} KiB; after the busy phase VmRSS ${rss_s:-?} KiB, VmHWM ${hwm_s:-?} KiB"
note "host seconds: boot to attached $((TA - TB)), to each ring its loop's $((TR - TA)), stable snapshot $((TS1 - TS0)) (of the rings alone $((TS2 - TS1))), the test $(($(date +%s) - T0))"
# one line for bench/scale-bench.sh --guest
note "MEASURE vcpus=$N boot_s=$((TA - TB)) startup_s=${startup:-null} rss_kb=${rss_a:-null} hwm_kb=${hwm_a:-null} rss_steady_kb=${rss_s:-null} hwm_steady_kb=${hwm_s:-null} rings_s=$((TR - TA)) snapshot_s=$((TS1 - TS0)) test_s=$(($(date +%s) - T0))"

note "done: $fails failed"
[ $fails = 0 ]
