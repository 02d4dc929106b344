/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ringside/opt.h"

#include "agent_opts.h"
#include "ringside/mark_wire.h"

#define DEFAULT_FREQ 1000u

/* A perf event (and a kernel buffer) per CPU: 1024 CPUs pass the default
 * soft limit of 1024 descriptors.  Raised toward the hard limit; what
 * still does not fit fails where the events are opened, as before. */
static void raise_nofile(uint32_t nr_cpus)
{
	rlim_t need = 2 * (rlim_t)nr_cpus + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need ?
		      rl.rlim_max : need;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int agent_opts_parse(struct agent_opts *o, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_LIST('e', "event", o->tp, &o->nr_tps, AGENT_MAX_TPS, "SYS:NAME",
			 "also record this tracepoint (up to {max}), e.g. "
			 "sched:sched_switch"),
		OPT_U32('F', "freq", &o->freq, "HZ", 1, 1000000,
			"samples per second", "samples per second and CPU (default: "
			"the host's)"),
		OPT_STRING('d', "device", &o->device, "BDF", "the PCI device, "
			   "by address or by sysfs path (default: the first "
			   "ivshmem device holding a ringside region)"),
		OPT_STRING('m', "mark-socket", &o->mark_socket, "PATH", "the marker "
			   "socket (default " RS_MARK_SOCKET ")"),
		OPT_POW2('b', "buffer-pages", &o->buf_pages, "N", 1, 1u << 16,
			 "kernel perf buffer pages per CPU, a power of two (default "
			 "128, fewer above 128 CPUs: 64 MiB in all, at least 16 "
			 "a CPU)"),
		OPT_U32('t', "tick", &o->tick_ms, "MS", 10, 10000, "milliseconds",
			"the beat: heartbeat, process table, the host's "
			"switches, and the longest a sample waits in the "
			"kernel's buffer (default 1000 in overwrite mode, "
			"2000 in normal mode)"),
		OPT_STRING(0, "sysfs", &o->sysfs, "DIR", "where PCI devices are "
			   "(default /sys/bus/pci/devices; for tests)"),
		OPT_FLAG(0, "no-symbols", &o->no_symbols, "publish no kernel "
			 "symbols in the region's sideband"),
		OPT_U32(0, "user-symbols", &o->usyms_kib, "KIB", 0, 65536, "KiB",
			"bound of the user binaries' symbol tables published in "
			"the sideband (default 2048; 0: none)"),
		OPT_U32(0, "process-state", &o->pstate_kib, "KIB", 0, 2048, "KiB",
			"bound of the table of the processes (the live ones, "
			"and those that ended while the rings may hold their "
			"samples) and their mappings kept in the sideband, "
			"two copies (default 512; 0: none)"),
		OPT_STRING(0, "kallsyms", &o->ksyms.kallsyms, "PATH", "the kernel's "
			   "symbols (default /proc/kallsyms; for tests)"),
		OPT_STRING(0, "kernel-notes", &o->ksyms.notes, "PATH", "the "
			   "kernel's ELF notes, for its build id (default "
			   "/sys/kernel/notes; for tests)"),
		OPT_FLAG('w', "follow", &o->follow, "follow the device: wait for "
			 "one, attach, and when it goes away (hot-unplug) detach "
			 "and wait for the next; without it the agent ends when "
			 "there is no device or it goes"),
		OPT_FLAG('q', "quiet", &o->quiet, "no messages but errors"),
		OPT_FLAG(0, "probe", &o->probe, "only say, by the exit status and "
			 "silently, whether the device (or any) holds a ringside "
			 "region: 0 yes, 1 no (for udev rules)"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		.prog = "ringside-agent",
		.usage = "[-e SYS:NAME]... [--freq HZ] [--device BDF] "
			 "[--mark-socket PATH] [--follow] [--quiet] | "
			 "--probe [--device BDF]",
		.about = "The ringside guest agent: forwards this guest's perf "
			 "samples and its programs' markers into the trace region "
			 "the host shares through an ivshmem-plain PCI device.  Runs "
			 "until SIGTERM or SIGINT.  Needs root.",
		.opts = opts,
		.notes = "Exit status: 0 detached cleanly (on a signal, or when "
			 "the device went away), 1 failure (no device or region "
			 "without --follow, no perf events), 2 bad usage.  With "
			 "--probe: 0 a ringside region, 1 none.  Installed "
			 "from a package it is started by udev and systemd "
			 "(ringside-agent@.service) while the host's ringside "
			 "device is plugged in; see ringside-agent(8).",
	};
	long cpus;
	int ret;

	memset(o, 0, sizeof(*o));
	o->sysfs = "/sys/bus/pci/devices";
	o->mark_socket = RS_MARK_SOCKET;
	o->buf_pages = 0;         /* agent_opts_buffer_pages */
	o->tick_ms = 0;           /* agent_opts_beat_ms */
	o->usyms_kib = 2048;
	o->pstate_kib = 512;
	o->ksyms.kallsyms = "/proc/kallsyms";
	o->ksyms.notes = "/sys/kernel/notes";
	o->ksyms.kptr_restrict = "/proc/sys/kernel/kptr_restrict";
	o->ksyms.modules = "/proc/modules";
	o->ksyms.sys_module = "/sys/module";
	o->ksyms.retry_ms = 250;
	ret = opt_parse(&cmd, argc, argv, NULL);
	if (ret)
		return ret;
	/* a sysfs path (/sys/devices/pci0000:00/0000:00:05.0, what a
	 * systemd unit instantiated by udev knows) names its last part */
	if (o->device && strchr(o->device, '/')) {
		const char *b = strrchr(o->device, '/') + 1;

		if (!*b) {
			fprintf(stderr, "ringside-agent: --device %s: a PCI "
				"address or a device's sysfs path\n", o->device);
			return 2;
		}
		o->device = b;
	}
	cpus = sysconf(_SC_NPROCESSORS_CONF);
	o->nr_cpus = cpus < 1 ? 1 : cpus > AGENT_MAX_CPUS ? AGENT_MAX_CPUS :
		     (uint32_t)cpus;
	raise_nofile(o->nr_cpus);
	if (!o->buf_pages)
		o->buf_pages = agent_opts_buffer_pages(o->nr_cpus);
	return 0;
}

/* perf record's 128 pages a CPU up to 128 CPUs; above, halved until the
 * CPUs' buffers take 64 MiB of the guest's memory in all (512 MiB at 1024
 * CPUs otherwise), and never below 16 pages: a buffer still holds about a
 * quarter of a second of call chains at 1000 Hz. */
uint32_t agent_opts_buffer_pages(uint32_t nr_cpus)
{
	uint32_t pages = 128;

	while (pages > 16 && (uint64_t)nr_cpus * pages * RS_PAGE_SIZE >
	       AGENT_BUFFERS_BYTES)
		pages /= 2;
	return pages;
}

uint32_t agent_opts_beat_ms(const struct agent_opts *o, uint32_t data_mode)
{
	if (o->tick_ms)
		return o->tick_ms;
	return data_mode == RS_MODE_NORMAL ? AGENT_BEAT_NORMAL_MS : AGENT_BEAT_MS;
}

uint64_t agent_opts_freq(const struct agent_opts *o, uint64_t host_freq)
{
	uint64_t f = o->freq ? o->freq : host_freq ? host_freq : DEFAULT_FREQ;
	unsigned long long max;
	FILE *fp;

	fp = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	if (fp) {
		if (fscanf(fp, "%llu", &max) == 1 && max && f > max)
			f = max;
		fclose(fp);
	}
	return f;
}
