#!/bin/busybox sh
# shellcheck shell=dash
# /init of the e2e guest (a busybox initramfs).  Kernel parameter
# rs_e2e=normal|panic|panickey|hang|watchdog|ptrec|flight picks the run; the harness reads the E2E-* lines on
# the serial console.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

mode=normal
read -r cmdline < /proc/cmdline
for a in $cmdline; do
	case "$a" in rs_e2e=*) mode=${a#rs_e2e=} ;; esac
done
echo "E2E-BOOT mode=$mode"
# Kernel modules a harness put in the initramfs (e2e_libvirt_ptrun.sh:
# pvpanic), loaded in the order of their names; N-name.params beside
# N-name.ko holds the module's parameters (e2e_watchdog: heartbeat=2)
for m in /lib/modules/*.ko; do
	[ -e "$m" ] || continue
	p=
	[ -e "${m%.ko}.params" ] && read -r p < "${m%.ko}.params"
	# shellcheck disable=SC2086  # the parameters are words
	insmod "$m" $p
done

# Before a panic, a 10 ms tick: the crash path's samples (the sysrq
# message printed on the way to panic()) sit in this kernel's perf buffer
# until the agent copies them, and panic() stops the agent's CPU soon.
tick=100
{ [ "$mode" = panic ] || [ "$mode" = panickey ]; } && tick=10
ringside-agent -e sched:sched_switch -t $tick &
agent=$!
i=0
while [ ! -S /run/ringside/mark.sock ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -S /run/ringside/mark.sock ]; then
	echo "E2E-FAIL the agent did not start"
	poweroff -f
fi
# The kernel's symbols as this guest sees them, for the harness to judge
# perf's names by: captured here, apart from ringside (the agent has
# published its copy before it made the socket).
echo "E2E-KALLSYMS-BEGIN"
awk '$2 ~ /^[TtWw]$/ || $3 == "_text" || $3 == "_stext" || $3 == "_etext"' \
	/proc/kallsyms | gzip -c | base64
echo "E2E-KALLSYMS-END"

if [ "$mode" = ptrec ]; then
	# PT recorded by the host (e2e_libvirt_ptrun.sh, part C): the harness
	# sends a key once `ringside record` runs, then the crash comes from
	# a system call, with no interrupt handler on the way to panic()
	echo "E2E-PT-WAIT"
	read -r _ < /dev/tty1
	echo "E2E-PT-CRASH"
	echo c > /proc/sysrq-trigger
	echo "E2E-FAIL the guest survived its panic"
elif [ "$mode" = panic ] || [ "$mode" = panickey ]; then
	# panickey: every boot waits for the harness's key before its crash
	# (e2e_libvirt_crash.sh: one crash at a time, under on_crash restart)
	if [ "$mode" = panickey ]; then
		echo "E2E-WAIT-PANIC"
		read -r _ < /dev/tty1
	fi
	# the agent stopped before the crash: the crash path's samples stay
	# in this kernel's perf buffer, for the host to read from our memory
	rs-workload 20 --panic $agent
	echo "E2E-FAIL the guest survived its panic"
elif [ "$mode" = flight ]; then
	# A flight recorder under a workload that keeps running, and
	# processes that come and go: the harness takes live snapshots until
	# the ring has wrapped many times, then sends a key; the guest names
	# the processes alive and crashes with all of them running.  The ones
	# that come and go are short (each less than the agent's tick when
	# the guest runs at speed) and of three kinds: a busybox applet the
	# shell forks and never execs (awk: the shell's own binary, renamed),
	# one it execs again (gzip, head: busybox as /proc/self/exe, in a
	# pipe), and a static program of its own (one 50 ms step).
	rs-workload 1000000 > /dev/null &
	( while :; do
		awk 'BEGIN { for (i = 0; i < 3000; i++) s += i * i }'
		head -c 32768 /bin/busybox | gzip -c > /dev/null
		rs-workload 1 > /dev/null
		true; /bin/busybox true
		sleep 0.2
	done ) &
	echo "E2E-FLIGHT-WAIT"
	read -r _ < /dev/tty1
	# the shell's own glob and builtins: no process of the listing's
	# own, born in the last tick, to be counted among those alive
	cd /proc && set -- [0-9]* && cd /
	# through the kernel's log (level 2: printed however quiet), never
	# the tty: the serial port sends a tty's bytes from its interrupts,
	# which may wait for a vCPU the host has not run while this one
	# panics, and panic() stops that vCPU and never sends them; a
	# printk reaches the console before panic() returns (it flushes them)
	echo "<2>E2E-ALIVE $*" > /dev/kmsg
	echo c > /proc/sysrq-trigger
	echo "E2E-FAIL the guest survived its panic"
elif [ "$mode" = hang ]; then
	# the agent stops for good after the workload: its heartbeat with it
	# (e2e_libvirt_crash.sh: the host service takes that for a hang)
	rs-workload 20 && echo "E2E-WORKLOAD-OK"
	kill -STOP $agent
	echo "E2E-AGENT-STOPPED"
elif [ "$mode" = watchdog ]; then
	# a guest that hangs after the workload: the agent stops (as in a
	# hang: the flight recorder holds still, and an overwrite ring is not
	# wrapped by the idle guest's samples before the capture), and the
	# watchdog is armed and never fed: /dev/watchdog held open, nothing
	# written (no keep-alive, no magic 'V' that would let a close stop
	# it); its device (i6300esb) tells QEMU, and libvirt says so
	# (e2e_libvirt_crash.sh: the host service captures it)
	rs-workload 20 && echo "E2E-WORKLOAD-OK"
	kill -STOP $agent
	if [ -c /dev/watchdog ] && exec 3> /dev/watchdog; then
		echo "E2E-WATCHDOG-ARMED"
	else
		echo "E2E-FAIL no /dev/watchdog to arm"
	fi
else
	rs-workload 20 && echo "E2E-WORKLOAD-OK"
	ringside-mark 9 "from the shell"
	# Host-correlated time: the harness notes its clock, sends a key
	# (virsh send-key), and notes its clock again once this line says the
	# marker is in the ring (--sync: written before ringside-mark returns).
	echo "E2E-KEY-WAIT"
	if read -r -t 60 _ < /dev/tty1; then
		ringside-mark --sync 10 "key seen" && echo "E2E-KEY-MARKED"
	fi
	sleep 4   # the harness looks at the attached agent meanwhile
	kill -TERM $agent
	wait $agent
	echo "E2E-AGENT-EXIT rc=$?"
fi
echo "E2E-DONE"
while :; do sleep 1000; done
