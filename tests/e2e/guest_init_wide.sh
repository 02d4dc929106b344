#!/bin/busybox sh
# shellcheck shell=dash
# /init of the many-vCPU e2e guest (e2e_libvirt_wide.sh, which
# bench/scale-bench.sh --guest runs too): the agent on an idle guest,
# then every online CPU busy, then the quiet the host's stable snapshot
# wants.  The harness reads the E2E-* lines on the serial console and
# answers with a key (virsh send-key):
#
#   E2E-BOOT cpus=N uptime=S
#   E2E-AGENT-START pid=P uptime=S
#   E2E-AGENT-ATTACHED uptime=S   once the agent said it attached
#   E2E-FOOT when=W VmHWM: K VmRSS: K    the agent's memory (kB), W:
#                                 attached, or steady (after the loops)
#   E2E-BUSY cpu=C pid=P          one per CPU: a busy loop pinned there
#   E2E-LOOPS n=N                 all of them started; a key ends them
#   E2E-QUIET                     the loops ended, the agent stopped
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run

n=$(nproc)
read -r up _ < /proc/uptime
echo "E2E-BOOT cpus=$n uptime=$up"

# foot WHEN: the agent's memory as /proc says it
foot() {
	echo "E2E-FOOT when=$1 $(awk '/^Vm(RSS|HWM):/ { printf "%s %s ", $1, $2 }' "/proc/$agent/status")"
}

# The agent's start-up on the idle guest, in the guest's clock: from
# here to its own "attached" line (polled every 10 ms; its messages go
# to a file, so that the console's lines stay whole)
read -r up _ < /proc/uptime
ringside-agent -t 100 2> /run/agent.log &
agent=$!
echo "E2E-AGENT-START pid=$agent uptime=$up"
i=0
while ! grep -q "attached to the region" /run/agent.log; do
	if ! kill -0 $agent 2>/dev/null || [ $i -ge 600000 ]; then
		echo "E2E-FAIL the agent did not attach:"
		cat /run/agent.log
		poweroff -f
	fi
	usleep 10000
	i=$((i + 1))
done
read -r up _ < /proc/uptime
echo "E2E-AGENT-ATTACHED uptime=$up"
cat /run/agent.log
foot attached

# A busy loop pinned to each CPU (its pid on the console): the harness
# finds its samples in ring C, and in no other.  This shell pins itself
# to CPU C before it forks the loop, so that the loop's pid runs nowhere
# else from its fork on.  The loops wait at a gate, a FIFO that this
# shell alone holds open for writing (fd 3, closed in each loop), until
# all are forked: spinning ones would slow the forks of the rest (TCG
# runs every vCPU on the host's few CPUs).  Each loop opens the gate,
# then says so with a file, then reads: the gate closes only once all
# have it open (a FIFO opened for reading with no writer would block).  Niced (busybox has renice,
# no nice): the agent and this shell run ahead of them where they need
# a CPU.  The test is a shell builtin: the loop forks nothing.
mkfifo /run/gate
exec 3<> /run/gate
i=0 busy=
while [ $i -lt "$n" ]; do
	taskset -p -c $i $$ > /dev/null
	# shellcheck disable=SC2016  # $$: the loop's shell's own pid
	sh -c 'renice -n 19 $$ > /dev/null
		{ : > /run/ready.$$; read -r _; } < /run/gate
		while [ ! -e /run/stop ]; do :; done' 3>&- &
	busy="$busy $!"
	echo "E2E-BUSY cpu=$i pid=$!"
	i=$((i + 1))
done
taskset -p -c 0-$((n - 1)) $$ > /dev/null
while set -- /run/ready.*; [ $# -lt "$n" ] || [ ! -e "$1" ]; do usleep 10000; done
exec 3>&-          # the gate opens: every loop's read sees its end
echo "E2E-LOOPS n=$n"

# until the harness has seen each ring hold its CPU's loop
read -r _ < /dev/tty1
touch /run/stop
# shellcheck disable=SC2086  # the pids are words
wait $busy
foot steady
# nothing in user mode but this shell, which the next line blocks in the
# kernel: every vCPU's stack is a kernel one for the host to name
kill -STOP $agent
echo "E2E-QUIET"
while :; do read -r _ < /dev/tty1; done
