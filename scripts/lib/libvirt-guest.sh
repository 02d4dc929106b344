# shellcheck shell=bash disable=SC2034  # LG_* are for the scripts that source it
# SPDX-License-Identifier: MIT
#
# A throwaway Linux guest under libvirt, shared by tests/e2e/e2e_libvirt.sh
# and scripts/demo-libvirt.sh:
#   lg_prereq                  what the host needs (QEMU, libvirt, kernel, busybox)
#   lg_workdir TEMPLATE        a work directory QEMU can read
#   lg_daemons_start DIR       virtlogd + libvirtd without systemd, where none runs
#   lg_daemons_stop            stop exactly those, by pid
#   lg_initramfs DIR AGENT MARK WORKLOAD INIT    DIR/initrd.gz and DIR/vmlinuz
#   lg_initramfs_pack DIR INIT                   the same from DIR/root alone
#   lg_domain_xml NAME TYPE DIR MODE             the domain booting them
#   lg_wait_console FILE PATTERN SECONDS         wait for the guest to say so
#   lg_kill_wait PID, lg_running NAME, vsh ARGS...
# Source it.  It sets no shell options and works with or without set -e;
# functions never exit: they return non-zero with the reason in LG_WHY.

LG_URI=${LG_URI:-qemu:///system}
LG_WHY=''
LG_KERNEL='' LG_BUSYBOX=''
LG_VIRTLOGD_PID='' LG_LIBVIRTD_PID=''

vsh() { virsh -q -c "$LG_URI" "$@"; }

# lg_running NAME: the pid of a running NAME, or nothing.  Not a zombie: a
# daemon stopped a moment ago waits for whoever is pid 1 to reap it.
lg_running() {
	{ ps -C "$1" -o pid=,stat= || true; } | awk '$2 !~ /^Z/ && !n++ { print $1 }'
}

# lg_prereq: sets LG_KERNEL (the newest /boot/vmlinuz-*) and LG_BUSYBOX
# (a static busybox: the initramfs has no libraries).
lg_prereq() {
	local p
	for p in qemu-system-x86_64 libvirtd virtlogd virsh busybox cpio gzip perf; do
		command -v $p >/dev/null ||
			{ LG_WHY="$p is missing (see scripts/setup.sh)"; return 1; }
	done
	LG_KERNEL=$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n 1)
	[ -n "$LG_KERNEL" ] ||
		{ LG_WHY="no kernel in /boot (install linux-image-amd64)"; return 1; }
	LG_BUSYBOX=$(command -v busybox)
	if ldd "$LG_BUSYBOX" >/dev/null 2>&1; then
		LG_WHY="$LG_BUSYBOX is dynamic: install busybox-static"
		return 1
	fi
	getent group libvirt-qemu >/dev/null ||
		{ LG_WHY="no libvirt-qemu group"; return 1; }
}

# lg_workdir TEMPLATE: make and print a directory for mktemp's TEMPLATE;
# mode 755 because QEMU (user libvirt-qemu) reads the kernel and initrd there.
lg_workdir() {
	local w
	w=$(mktemp -d "$1") && chmod 755 "$w" && echo "$w"
}

# lg_kill_wait PID: SIGTERM, then SIGKILL after 10 s.  A child of ours that
# died (a zombie until waited for) counts as gone.
lg_kill_wait() {
	local _
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || return 0
	for _ in $(seq 100); do
		kill -0 "$1" 2>/dev/null || return 0
		[ "$(ps -o stat= -p "$1" 2>/dev/null)" = Z ] && return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	return 0
}

# lg_daemons_start DIR: where no libvirtd runs, start virtlogd (unless one
# runs) and libvirtd, pid files in DIR, and wait until libvirtd answers.
# A libvirtd that runs already is used as it is.  LG_VIRTLOGD_PID and
# LG_LIBVIRTD_PID name what was started here, for lg_daemons_stop.
lg_daemons_start() {
	local _
	[ -z "$(lg_running libvirtd)" ] || return 0
	if [ -z "$(lg_running virtlogd)" ]; then
		virtlogd -d -p "$1/virtlogd.pid" || { LG_WHY="virtlogd -d"; return 1; }
		LG_VIRTLOGD_PID=$(cat "$1/virtlogd.pid")
	fi
	libvirtd -d -p "$1/libvirtd.pid" || { LG_WHY="libvirtd -d"; return 1; }
	LG_LIBVIRTD_PID=$(cat "$1/libvirtd.pid")
	for _ in $(seq 50); do
		vsh version >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	LG_WHY="libvirtd does not answer"
	return 1
}

# lg_daemons_stop: stop what lg_daemons_start started, libvirtd first.
lg_daemons_stop() {
	lg_kill_wait "$LG_LIBVIRTD_PID"
	lg_kill_wait "$LG_VIRTLOGD_PID"
	LG_LIBVIRTD_PID='' LG_VIRTLOGD_PID=''
}

# lg_initramfs DIR AGENT MARK WORKLOAD INIT: DIR/initrd.gz, a busybox
# initramfs with /init = INIT and ringside-agent, ringside-mark and
# rs-workload in /bin (static programs); DIR/vmlinuz, the host's kernel.
lg_initramfs() {
	local r=$1/root
	if ! { mkdir -p "$r/bin" &&
		cp "$2" "$r/bin/ringside-agent" &&
		cp "$3" "$r/bin/ringside-mark" &&
		cp "$4" "$r/bin/rs-workload"; }; then
		LG_WHY="building the initramfs"
		return 1
	fi
	lg_initramfs_pack "$1" "$5"
}

# lg_initramfs_pack DIR INIT: DIR/initrd.gz from the tree DIR/root (what
# the caller put in it) plus busybox and /init = INIT; DIR/vmlinuz, the
# host's kernel.  Needs LG_BUSYBOX and LG_KERNEL (lg_prereq sets them).
lg_initramfs_pack() {
	local r=$1/root
	if ! { mkdir -p "$r/bin" "$r/dev" "$r/proc" "$r/sys" "$r/run" "$r/tmp" &&
		cp "$LG_BUSYBOX" "$r/bin/busybox" &&
		cp "$2" "$r/init" && chmod 755 "$r/init" &&
		(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1 > "$1/initrd.gz") &&
		cp "$LG_KERNEL" "$1/vmlinuz"; }; then
		LG_WHY="building the initramfs"
		return 1
	fi
}

# lg_domain_xml NAME TYPE DIR MODE: a 2-vCPU domain of TYPE (qemu: TCG,
# kvm) booting DIR/vmlinuz and DIR/initrd.gz with rs_e2e=MODE for the
# guest's /init; serial console into DIR/console.log.  panic=0: a panicked
# guest stays up for the flight recorder's snapshot.
lg_domain_xml() {
	cat <<EOF
<domain type='$2'>
  <name>$1</name>
  <memory unit='MiB'>256</memory>
  <vcpu>2</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$3/vmlinuz</kernel>
    <initrd>$3/initrd.gz</initrd>
    <cmdline>console=ttyS0 panic=0 quiet rs_e2e=$4</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <serial type='file'><source path='$3/console.log'/></serial>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
}

# lg_console_line FILE: the console's last line, printable and short.
lg_console_line() {
	tail -n 1 "$1" 2>/dev/null | tr -d '\r' | tr -c '[:print:]\n' '?' | cut -c 1-96
}

# lg_wait_console FILE PATTERN SECONDS: wait until the serial console FILE
# shows PATTERN; give up early when the guest's /init says E2E-FAIL.  With
# LG_PROGRESS=N, print the elapsed time (since LG_SINCE, a `date +%s`, or
# the call) and the console's last line every N seconds.
lg_wait_console() {
	local i t0 every=$((${LG_PROGRESS:-0} * 5))
	t0=${LG_SINCE:-$(date +%s)}
	for i in $(seq $(($3 * 5))); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		grep -q "E2E-FAIL" "$1" 2>/dev/null && break
		if [ "$every" -gt 0 ] && [ $((i % every)) = 0 ]; then
			printf '   [%3d s] console: %s\n' $(($(date +%s) - t0)) \
				"$(lg_console_line "$1" | grep . || echo '(nothing yet: the kernel boots quietly)')"
		fi
		sleep 0.2
	done
	LG_WHY="no '$2' on the console within $3 s"
	return 1
}

# lg_console_tail FILE: the console's last 30 lines, indented.
lg_console_tail() {
	tail -n 30 "$1" 2>/dev/null | sed 's/^/     console: /'
}
