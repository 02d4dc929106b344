#!/bin/bash
# The host service's recording: its CPU and memory with N domains
# recorded at once (docs/benchmarks.md, "The host service").  Each domain
# is a region file in /dev/shm that a host producer (the cli suite's)
# writes, recorded by svc-rec-multi: the recorders the service runs
# (svc_rec_*, one thread per domain, a pass every 100 ms as the service's
# default, longer while a domain's rings are idle), without libvirt.  Per N: an idle run (no producer: what
# watching N domains costs) and a loaded one (every domain's producer at
# RATE records/s per ring), one JSON line each; then one line of a
# domain flooding its rings beside a modest one ("svc-flood").
#   bench/svc-bench.sh [BUILD] [--domains "1 10 50 100"] [--seconds S]
#                      [--rate R] [--rings K] [--freq F] [--pprof] [--service]
# --freq: the regions' sampling frequency (1000 Hz by default, a domain's),
# which bounds how long an idle domain's recorder may sleep (0: no bound
# said, no backoff).
# --service: ringside-service itself records the regions (its
# configuration's record-region; libvirt's test driver for its events,
# no metrics endpoint, no control socket), its CPU read from /proc just
# before SIGTERM; "bench":"svc-service" lines, no flood line.
# BUILD (default build) must hold tests/service/svc-rec-multi and
# tests/cli/cli-producer.  pprof profiles are off unless --pprof (the
# service makes one per completed file; a run this short completes its
# files only at the end).  Recordings go to a temporary directory under
# TMPDIR (default /tmp), removed at the end.
set -euo pipefail

BUILD=build
DOMAINS="1 10 50 100"
SECONDS_RUN=10
RATE=1000
RINGS=2
FREQ=1000
PPROF=--no-pprof
SERVICE=
while (($#)); do
	case $1 in
	--domains) DOMAINS=$2; shift 2 ;;
	--seconds) SECONDS_RUN=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--rings) RINGS=$2; shift 2 ;;
	--freq) FREQ=$2; shift 2 ;;
	--pprof) PPROF=; shift ;;
	--service) SERVICE=1; shift ;;
	-*) echo "svc-bench: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done
MULTI=$BUILD/tests/service/svc-rec-multi
SVC_EXE=$BUILD/service/ringside-service
PRODUCER=$BUILD/tests/cli/cli-producer
[ -x "$MULTI" ] && [ -x "$PRODUCER" ] ||
	{ echo "svc-bench: no $MULTI or $PRODUCER: build $BUILD first" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/svc-bench.XXXXXX")
SHM=/dev/shm/svc-bench-$$
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$WORK"
	rm -f "$SHM"-*
}
trap cleanup EXIT

field() {
	awk -v f="$2" '{ for (i = 1; i < NF; i += 2) if ($i == f) print $(i + 1) }' "$1"
}

# svc_start DIR NAME=REGION...: ringside-service recording them; its pid
# in SVC_PID
svc_start() {
	local dir=$1 a
	shift
	{
		echo "uri = test:///default"
		echo "socket = none"
		echo "metrics = none"
		if [ -n "$PPROF" ]; then echo "pprof = no"; else echo "pprof = yes"; fi
		echo "record-dir = $dir"
		for a in "$@"; do
			echo "record-region = ${a%%=*} ${a#*=}"
		done
	} >"$WORK/service.conf"
	"$SVC_EXE" --config "$WORK/service.conf" --capture-dir "$WORK/cap" \
		>"$WORK/multi.out" 2>"$WORK/multi.err" &
	SVC_PID=$!
	SVC_T0=$(date +%s.%N)
}

# svc_steady: the service's CPU ticks and the time now, every domain
# being recorded (the start of the steady window)
svc_steady() {
	read -r SVC_UT0 SVC_ST0 < <(awk '{ print $14, $15 }' "/proc/$SVC_PID/stat")
	SVC_TS=$(date +%s.%N)
}

# svc_stop: its CPU, wall time and peak memory as svc-rec-multi's line
# gives them (into multi.out), and its CPU over the steady window alone
# (the start-up left out), then SIGTERM
svc_stop() {
	local tck t1 ut st hwm recs
	tck=$(getconf CLK_TCK)
	t1=$(date +%s.%N)
	read -r ut st < <(awk '{ print $14, $15 }' "/proc/$SVC_PID/stat")
	hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$SVC_PID/status")
	kill -TERM "$SVC_PID"
	wait "$SVC_PID"
	recs=$(sed -n 's/.*recordings: .* files (.* rotations), \([0-9]*\) records.*/\1/p' "$WORK/multi.err")
	awk -v ut="$ut" -v st="$st" -v tck="$tck" -v t0="$SVC_T0" -v t1="$t1" \
	    -v hwm="$hwm" -v recs="${recs:-0}" -v ut0="$SVC_UT0" \
	    -v st0="$SVC_ST0" -v ts="$SVC_TS" 'BEGIN {
		printf "records %d cpu_s %.3f maxrss_kb %d wall_s %.3f ",
			recs, (ut + st) / tck, hwm, t1 - t0
		printf "steady_cpu_s %.3f steady_s %.3f\n",
			(ut + st - ut0 - st0) / tck, t1 - ts }' >"$WORK/multi.out"
}

# run N LOADED: one JSON line
run() {
	local n=$1 loaded=$2 i args=() records=$((RATE * SECONDS_RUN)) attempted=0 lost=0 r
	rm -rf "$WORK/rec" "$WORK/until" "$WORK"/p-*.out
	for i in $(seq 1 "$n"); do
		"$PRODUCER" create "$SHM-$i" --rings "$RINGS" --data-pages 64 \
			--freq "$FREQ"
		args+=("dom$i=$SHM-$i")
	done
	local drv
	if [ -n "$SERVICE" ]; then
		svc_start "$WORK/rec" "${args[@]}"
		drv=$SVC_PID
	else
		"$MULTI" $PPROF --interval-ms 100 --until "$WORK/until" \
			"$WORK/rec" "${args[@]}" >"$WORK/multi.out" 2>"$WORK/multi.err" &
		drv=$!
	fi
	PIDS=$drv
	while [ "$(ls "$WORK/rec" 2>/dev/null | wc -l)" -lt "$n" ]; do
		kill -0 "$drv" 2>/dev/null || { cat "$WORK/multi.err" >&2; exit 1; }
		sleep 0.05
	done
	[ -z "$SERVICE" ] || svc_steady
	if [ "$loaded" = 1 ]; then
		local pp=()
		for i in $(seq 1 "$n"); do
			"$PRODUCER" write "$SHM-$i" --records "$records" --burst 10 \
				--rate "$RATE" >"$WORK/p-$i.out" 2>/dev/null &
			pp+=($!)
		done
		PIDS="$drv ${pp[*]}"
		wait "${pp[@]}"
	else
		sleep "$SECONDS_RUN"
	fi
	if [ -n "$SERVICE" ]; then
		svc_stop
	else
		touch "$WORK/until"
		wait "$drv"
	fi
	PIDS=""
	if [ "$loaded" = 1 ]; then
		for i in $(seq 1 "$n"); do
			for r in $(seq 0 $((RINGS - 1))); do
				attempted=$((attempted + $(awk -v r="$r" '$1 == "ring" && $2 == r { for (i = 3; i < NF; i += 2) if ($i == "attempted") print $(i + 1) }' "$WORK/p-$i.out")))
				lost=$((lost + $(awk -v r="$r" '$1 == "ring" && $2 == r { for (i = 3; i < NF; i += 2) if ($i == "lost") print $(i + 1) }' "$WORK/p-$i.out")))
			done
		done
	fi
	rm -f "$SHM"-*
	local cpu wall rss recs scpu swall
	cpu=$(field "$WORK/multi.out" cpu_s)
	scpu=$(field "$WORK/multi.out" steady_cpu_s)
	swall=$(field "$WORK/multi.out" steady_s)
	wall=$(field "$WORK/multi.out" wall_s)
	rss=$(field "$WORK/multi.out" maxrss_kb)
	recs=$(field "$WORK/multi.out" records)
	awk -v n="$n" -v loaded="$loaded" -v rate="$RATE" -v rings="$RINGS" \
	    -v cpu="$cpu" -v wall="$wall" -v rss="$rss" -v recs="$recs" \
	    -v att="$attempted" -v lost="$lost" -v pprof="${PPROF:+no}" \
	    -v scpu="$scpu" -v swall="$swall" \
	    -v what="${SERVICE:+svc-service}" 'BEGIN {
		printf "{\"bench\":\"%s\",\"domains\":%d,\"loaded\":%s,", what ? what : "svc", n, loaded ? "true" : "false"
		printf "\"rings_per_domain\":%d,\"rate_per_ring\":%d,", rings, loaded ? rate : 0
		printf "\"pprof\":%s,\"wall_s\":%.3f,\"cpu_s\":%.3f,", pprof == "no" ? "false" : "true", wall, cpu
		printf "\"cpu_pct\":%.3f,\"cpu_pct_per_domain\":%.4f,", 100 * cpu / wall, 100 * cpu / wall / n
		printf "\"records\":%d,\"attempted\":%d,\"lost\":%d,", recs, att, lost
		printf "\"cpu_s_per_million_records\":%s,", recs ? sprintf("%.3f", cpu / recs * 1e6) : "null"
		if (swall > 0) {
			printf "\"steady_s\":%.3f,\"steady_cpu_pct\":%.3f,", swall, 100 * scpu / swall
			printf "\"steady_cpu_s_per_million_records\":%s,", recs ? sprintf("%.3f", scpu / recs * 1e6) : "null"
		}
		printf "\"maxrss_kb\":%d,\"maxrss_kb_per_domain\":%.1f}\n", rss, rss / n
	}'
}

# A flooding domain beside a modest one: the flood's producer writes 4
# rings of 256 KiB as fast as it can, again and again, for the whole run;
# the modest one RATE records/s into 1 ring.  One JSON line: the
# recorders' CPU, what each domain attempted, delivered and lost.
flood() {
	local records=$((RATE * SECONDS_RUN)) fatt=0 flost=0 r
	rm -rf "$WORK/rec" "$WORK/until" "$WORK"/f-*.out "$WORK/calm.out"
	"$PRODUCER" create "$SHM-flood" --rings 4 --data-pages 64
	"$PRODUCER" create "$SHM-calm" --rings 1 --data-pages 256
	"$MULTI" $PPROF --interval-ms 100 --until "$WORK/until" "$WORK/rec" \
		flood="$SHM-flood" calm="$SHM-calm" >"$WORK/multi.out" 2>"$WORK/multi.err" &
	local drv=$!
	PIDS=$drv
	while [ "$(ls "$WORK/rec" 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.05; done
	"$PRODUCER" write "$SHM-calm" --records "$records" --burst 10 --rate "$RATE" \
		>"$WORK/calm.out" 2>/dev/null &
	local pc=$! i=0
	PIDS="$drv $pc"
	while kill -0 "$pc" 2>/dev/null; do
		i=$((i + 1))
		"$PRODUCER" write "$SHM-flood" --records 1000000 --rate 0 \
			>"$WORK/f-$i.out" 2>/dev/null
	done
	wait "$pc"
	touch "$WORK/until"
	wait "$drv"
	PIDS=""
	for f in "$WORK"/f-*.out; do
		for r in 0 1 2 3; do
			fatt=$((fatt + $(awk -v r="$r" '$1 == "ring" && $2 == r { for (i = 3; i < NF; i += 2) if ($i == "attempted") print $(i + 1) }' "$f")))
			flost=$((flost + $(awk -v r="$r" '$1 == "ring" && $2 == r { for (i = 3; i < NF; i += 2) if ($i == "lost") print $(i + 1) }' "$f")))
		done
	done
	rm -f "$SHM"-*
	local catt clost cpu wall recs rss
	catt=$(awk '$1 == "ring" && $2 == 0 { for (i = 3; i < NF; i += 2) if ($i == "attempted") print $(i + 1) }' "$WORK/calm.out")
	clost=$(awk '$1 == "ring" && $2 == 0 { for (i = 3; i < NF; i += 2) if ($i == "lost") print $(i + 1) }' "$WORK/calm.out")
	cpu=$(field "$WORK/multi.out" cpu_s)
	wall=$(field "$WORK/multi.out" wall_s)
	recs=$(field "$WORK/multi.out" records)
	rss=$(field "$WORK/multi.out" maxrss_kb)
	awk -v cpu="$cpu" -v wall="$wall" -v recs="$recs" -v fatt="$fatt" \
	    -v flost="$flost" -v catt="$catt" -v clost="$clost" -v rss="$rss" \
	    -v rate="$RATE" 'BEGIN {
		printf "{\"bench\":\"svc-flood\",\"wall_s\":%.3f,\"cpu_s\":%.3f,", wall, cpu
		printf "\"cpu_pct\":%.3f,\"records\":%d,", 100 * cpu / wall, recs
		printf "\"flood_rings\":4,\"flood_attempted\":%d,\"flood_lost\":%d,", fatt, flost
		printf "\"calm_rate\":%d,\"calm_attempted\":%d,\"calm_lost\":%d,", rate, catt, clost
		printf "\"maxrss_kb\":%d}\n", rss
	}'
}

for n in $DOMAINS; do
	run "$n" 0
	run "$n" 1
done
[ -n "$SERVICE" ] || flood
