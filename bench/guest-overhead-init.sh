#!/bin/busybox sh
# shellcheck shell=dash
# /init of bench/guest-overhead.sh's guest (a busybox initramfs with the
# agent, guest-work, and perf with its libraries).  Kernel parameters:
# go_reps=R (repetitions of each mode), go_secs=S (the work's length, to
# calibrate rounds for), go_rounds=N (fixed rounds: no calibration),
# go_freq=HZ, go_mode=normal|overwrite (the region's mode: in overwrite
# mode nobody reads the rings during b, and the host takes a snapshot at
# its end, GO-SNAP).  It runs the same work (guest-work ROUNDS, one worker per
# vCPU) R times in each of four modes, interleaved, the untraced run first
# in each repetition and the three traced ones in turn after it (a b c d,
# a c d b, a d b c, a b c d ...: none of them always follows a):
#   a  untraced: no agent, no perf
#   b  ringside: the agent sampling at HZ with call chains; before each
#      one the guest waits for a key (GO-WAIT) while the host starts
#      `ringside record` (normal mode; in overwrite mode nothing), and it
#      says GO-RESULT when the host may stop it; in overwrite mode it
#      waits for a key after the work (GO-SNAP) while the host snapshots
#   c  perf record -F HZ -g -a -e cpu-clock into a file in the guest
#   d  the same with -k CLOCK_MONOTONIC: the clock the agent's samples
#      carry (perf's own default is the kernel's local clock)
# For b and c the tracer is started, waited for (the agent's marker
# socket: its kernel symbols are published; perf's control fifo: its
# events enabled), left 1 s, then the work runs.  The tracer's CPU
# (utime + stime of /proc/PID/stat, clock ticks) is read at the work's
# start and end (the window) and, from the parent's cutime + cstime after
# it exited, over its whole life (start and end included).  One line per
# run on the console:
#   GO-RESULT MODE REP rounds=N workers=W wall_ns=.. user_us=.. sys_us=..
#     check=.. [tr_win_ticks=.. tr_win_ns=.. tr_win_runs=.. tr_win_vol=..
#     tr_sys=.. tr_sys_ms=.. tr_all_ticks=.. hz=.. ...]
# (tr_sys: the tracer's system calls in tr_sys_ms after the window, while
# a quarter of the work runs again: sc_on, sc_window)
# shellcheck disable=SC2086,SC2012  # set -- $st splits /proc fields
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
# raw_syscalls:sys_enter by its name, for sys_window
mount -t tracefs tracefs /sys/kernel/tracing 2> /dev/null
mkdir -p /tmp/home
export HOME=/tmp/home PERF_CONFIG=/dev/null PATH=/bin:/usr/bin

reps=3 secs=10 rounds=0 freq=1000 gomode=normal prof=0 tick=''
# seconds a tracer is left after its start, and again after a short run
# of the work, before its measured window (settle_in): its steady state
# (the agent's first beats, and the time sync that `ringside record` asks
# at its start, answered at the agent's next wake); at least a beat and
# a second
settle=3
read -r cmdline < /proc/cmdline
for a in $cmdline; do
	case "$a" in
	go_reps=*) reps=${a#go_reps=} ;;
	go_secs=*) secs=${a#go_secs=} ;;
	go_rounds=*) rounds=${a#go_rounds=} ;;
	go_freq=*) freq=${a#go_freq=} ;;
	go_tick=*) tick=${a#go_tick=} ;;
	go_mode=*) gomode=${a#go_mode=} ;;
	go_profile=*) prof=${a#go_profile=} ;;
	esac
done
# a --tick longer than the default beat: a beat and a second
[ -n "$tick" ] && [ $((tick / 1000 + 2)) -gt "$settle" ] && settle=$((tick / 1000 + 2))
# USER_HZ, the unit of /proc/PID/stat's times (busybox has no getconf)
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
echo "GO-BOOT kernel=$(uname -r) vcpus=$(nproc) hz=$hz clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) pmu=[ $(ls /sys/bus/event_source/devices | tr '\n' ' ')]"
fail() { echo "GO-FAIL $*"; poweroff -f; }

# ticks PID: utime + stime of a running process, clock ticks
ticks() {
	local st
	read -r st < "/proc/$1/stat" || { echo 0; return; }
	# the comm field (2) has no blanks here: fields 14 and 15
	set -- $st
	echo $((${14} + ${15}))
}
# sched PID: "NS RUNS VOL": CPU time in ns and times scheduled in
# (/proc/PID/schedstat), voluntary context switches (/proc/PID/status)
sched() {
	local st v=0 k n
	read -r st < "/proc/$1/schedstat" || st="0 0 0"
	while read -r k n; do
		[ "$k" = voluntary_ctxt_switches: ] && v=$n
	done < "/proc/$1/status"
	set -- $st
	echo "$1 $3 $v"
}
# win A B: tr_win_ns=.. tr_win_runs=.. tr_win_vol=.. between two sched's
win() {
	set -- $1 $2
	echo "tr_win_ns=$(($4 - $1)) tr_win_runs=$(($5 - $2)) tr_win_vol=$(($6 - $3))"
}
# The tracer's system calls, counted while a quarter of the work runs
# again after its CPU window: sc_on PID before the window (perf stat on
# raw_syscalls:sys_enter, its events off, waited for until it answers on
# its control fifo), sc_window after it, which puts
# "tr_sys=N tr_sys_ms=MS" into /tmp/sys.kv (nothing where perf could not
# count).  Never inside the CPU window: while that tracepoint is on, every
# system call of the guest passes it.  Both from this shell, which reaps
# perf stat.
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
sc_on() {
	rm -f /tmp/sc /tmp/sys.kv /tmp/scctl /tmp/scack
	mkfifo /tmp/scctl /tmp/scack
	perf stat -x, -e raw_syscalls:sys_enter -p "$1" -D -1 -o /tmp/sc \
		--control fifo:/tmp/scctl,/tmp/scack 2> /dev/null &
	scpid=$!
	# its events are off already: the answer says it is up
	echo disable > /tmp/scctl
	read -r _ < /tmp/scack
}
sc_window() {
	local m0 m1
	echo enable > /tmp/scctl
	read -r _ < /tmp/scack
	m0=$(uptime_ms)
	guest-work $((rounds / 4 + 1)) > /dev/null  # not work(): no accounting
	m1=$(uptime_ms)
	echo disable > /tmp/scctl
	read -r _ < /tmp/scack
	kill -INT "$scpid"
	wait "$scpid"
	awk -F, -v ms=$((m1 - m0)) '$3 ~ /raw_syscalls:sys_enter/ && $1 ~ /^[0-9]+$/ {
		print "tr_sys=" $1 " tr_sys_ms=" ms }' /tmp/sc > /tmp/sys.kv
}
# pid_of FILE: the pid a tracer's subshell wrote, once it has
pid_of() {
	local i p
	for i in $(seq 100); do
		read -r p < "$1" 2>/dev/null && [ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.05
	done
	return 1
}
# A tracer's start, before its window: $settle s for it to sample (the
# agent turns its events on at its first beat), then the system call
# counter (sc_on: a process, perf's program and 30 libraries, born while
# the tracer samples: the agent meets it through the kernel's records,
# not at its first sample, which may come at any time, it sleeps), then
# settle_in: a short run of the work (a fortieth of it) and $settle s.
# What a tracer does once for a program it has not met (the agent
# publishes its symbols; perf reads its build id at its end, outside the
# window too) is behind the window; what it does for each new process
# (the window's work is one) is inside it.
settle_in() {
	guest-work $((rounds / 40 + 1)) > /dev/null
	sleep "$settle"
}
# work: the work itself, its GW line without the "GW "
# the work, MODE REP: bracketed on the console (GO-WORK, GO-WORKED) for
# the host's accounting of its own CPU meanwhile
work() {
	echo "GO-WORK $1 $2" > /dev/console
	guest-work "$rounds" | sed -n 's/^GW //p'
	echo "GO-WORKED $1 $2" > /dev/console
}

if [ "$rounds" = 0 ]; then
	rounds=$(guest-work --calibrate "$secs") || fail "calibration"
fi
echo "GO-ROUNDS $rounds"
# a run to warm the caches and the page cache, not reported
guest-work $((rounds / 4 + 1)) > /dev/null  # not work(): no accounting

rep=1
while [ $rep -le "$reps" ]; do
	case $((rep % 3)) in
	1) order='b c d' ;;
	2) order='c d b' ;;
	*) order='d b c' ;;
	esac
	for mode in a $order; do
		case $mode in
		a)
			echo "GO-RESULT a $rep $(work a "$rep")"
			;;
		b)
			if [ "$gomode" = normal ]; then
				echo "GO-WAIT b $rep"
				read -r _ < /dev/tty1
			fi
			rm -f /run/ringside/mark.sock
			# the subshell's cutime + cstime after the agent exits:
			# all of the agent's CPU, its start and its end included
			rm -f /tmp/agent.pid
			( ringside-agent -F "$freq" ${tick:+-t "$tick"} 2> /tmp/agent.log &
			  echo $! > /tmp/agent.pid
			  wait $!
			  echo "GO-AGENT-EXIT rc=$?"
			  read -r st < /proc/self/stat; set -- $st
			  echo "$((${16} + ${17}))" > /tmp/agent.all ) &
			sub=$!
			pid=$(pid_of /tmp/agent.pid) || fail "no agent process"
			i=0
			while [ ! -S /run/ringside/mark.sock ] && [ $i -lt 600 ]; do
				sleep 0.1
				i=$((i + 1))
			done
			[ -S /run/ringside/mark.sock ] || fail "the agent did not start"
			t_ready=$(ticks "$pid")
			sleep "$settle"
			sc_on "$pid"
			settle_in
			t0=$(ticks "$pid") s0=$(sched "$pid")
			if [ "$prof" = 1 ]; then
				# where the agent's CPU goes (its figures then
				# include what the profile costs it)
				perf record -q -F 2000 -g -p "$pid" -o /tmp/prof.data \
					2> /dev/null &
				ppid=$!
			fi
			r=$(work "$mode" "$rep")
			t1=$(ticks "$pid") s1=$(sched "$pid")
			sc_window
			if [ "$prof" = 1 ]; then
				kill -INT "$ppid"
				wait "$ppid"
				perf report -i /tmp/prof.data --no-children --stdio \
					--sort sym -g none 2> /dev/null |
					grep '%' | head -n 60 | sed "s/^/GO-PROF $rep /"
				rm -f /tmp/prof.data
			fi
			if [ "$gomode" = overwrite ]; then
				echo "GO-SNAP b $rep"
				read -r _ < /dev/tty1
			fi
			kill -TERM "$pid"
			wait $sub
			# what woke it, as it counted (its whole life)
			echo "GO-WAKES b $rep $(grep -o 'woke .*' /tmp/agent.log)"
			# and the rest of what it said at its end
			sed "s/^/GO-AGENT b $rep /" /tmp/agent.log
			echo "GO-RESULT b $rep $r tr_win_ticks=$((t1 - t0)) $(win "$s0" "$s1") $(cat /tmp/sys.kv) tr_start_ticks=$t_ready tr_all_ticks=$(cat /tmp/agent.all) hz=$hz"
			;;
		c|d)
			rm -f /tmp/perf.data /tmp/ctl /tmp/ack /tmp/perf.pid
			mkfifo /tmp/ctl /tmp/ack
			clk=
			[ $mode = d ] && clk="-k CLOCK_MONOTONIC"
			( perf record -F "$freq" -g -a -e cpu-clock $clk -D -1 \
				--control fifo:/tmp/ctl,/tmp/ack -o /tmp/perf.data \
				2> /tmp/perf.err &
			  echo $! > /tmp/perf.pid
			  wait $!
			  read -r st < /proc/self/stat; set -- $st
			  echo "$((${16} + ${17}))" > /tmp/perf.all ) &
			sub=$!
			pid=$(pid_of /tmp/perf.pid) || fail "no perf process"
			echo enable > /tmp/ctl
			read -r ack < /tmp/ack
			[ "$ack" = ack ] || fail "perf did not enable its events: '$ack' $(cat /tmp/perf.err)"
			t_ready=$(ticks "$pid")
			sleep "$settle"
			sc_on "$pid"
			settle_in
			t0=$(ticks "$pid") s0=$(sched "$pid")
			r=$(work "$mode" "$rep")
			t1=$(ticks "$pid") s1=$(sched "$pid")
			sc_window
			kill -INT "$pid"
			wait $sub
			# perf's own counts of what it wrote and lost
			perf report -i /tmp/perf.data --stats 2> /dev/null > /tmp/stats
			samples=$(awk '/^cpu-clock stats:/ { s = 1; next } /stats:$/ { s = 0 }
				s && /SAMPLE events:/ { print $NF }' /tmp/stats)
			lostsamples=$(awk '/^cpu-clock stats:/ { s = 1; next } /stats:$/ { s = 0 }
				s && /LOST_SAMPLES events:/ { print $NF }' /tmp/stats)
			lostrec=$(awk '/^Aggregated stats:/ { s = 1; next } /stats:$/ { s = 0 }
				s && $1 == "LOST" { print $NF }' /tmp/stats)
			echo "GO-RESULT $mode $rep $r tr_win_ticks=$((t1 - t0)) $(win "$s0" "$s1") $(cat /tmp/sys.kv) tr_start_ticks=$t_ready tr_all_ticks=$(cat /tmp/perf.all) hz=$hz perf_samples=${samples:-0} perf_lost_samples=${lostsamples:-0} perf_lost_records=${lostrec:-0} perf_bytes=$(stat -c %s /tmp/perf.data)"
			grep -v '^$' /tmp/perf.err | sed 's/^/GO-PERF-SAID /'
			rm -f /tmp/perf.data
			;;
		esac
	done
	rep=$((rep + 1))
done
echo "GO-END"
poweroff -f
