/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_opts.h"
#include "mark.h"

#define DEFAULT_FREQ 1000u

static void help(void)
{
	printf("usage: ringside-agent [-e SYSTEM:TRACEPOINT]... [--freq HZ]\n"
	       "                      [--device BDF] [--mark-socket PATH] [--quiet]\n\n"
	       "The ringside guest agent: forwards this guest's perf samples and its\n"
	       "programs' markers into the trace region the host shares through an\n"
	       "ivshmem-plain PCI device.  Runs until SIGTERM or SIGINT.  Needs root.\n\n"
	       "  -e, --event SYS:NAME     also record this tracepoint (up to %u),\n"
	       "                           e.g. sched:sched_switch\n"
	       "  -F, --freq HZ            samples per second and CPU (default: the host's)\n"
	       "  -d, --device BDF         the PCI device (default: the first ivshmem\n"
	       "                           device holding a ringside region)\n"
	       "  -m, --mark-socket PATH   the marker socket (default " RS_MARK_SOCKET ")\n"
	       "  -b, --buffer-pages N     kernel perf buffer pages per CPU, a power of\n"
	       "                           two (default 64)\n"
	       "  -t, --tick MS            heartbeat and name period (default 100)\n"
	       "      --sysfs DIR          where PCI devices are (default\n"
	       "                           /sys/bus/pci/devices; for tests)\n"
	       "  -q, --quiet              no messages but errors\n"
	       "  -h, --help               this text\n\n"
	       "Exit status: 0 detached cleanly, 1 failure (no device, no region,\n"
	       "no perf events), 2 bad usage.\n", AGENT_MAX_TPS);
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ringside-agent: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ringside-agent --help'.\n");
	return 2;
}

static int num(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int agent_opts_parse(struct agent_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event",        required_argument, NULL, 'e' },
		{ "freq",         required_argument, NULL, 'F' },
		{ "device",       required_argument, NULL, 'd' },
		{ "mark-socket",  required_argument, NULL, 'm' },
		{ "buffer-pages", required_argument, NULL, 'b' },
		{ "tick",         required_argument, NULL, 't' },
		{ "sysfs",        required_argument, NULL, 'S' },
		{ "quiet",        no_argument,       NULL, 'q' },
		{ "help",         no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long cpus;
	int c;

	memset(o, 0, sizeof(*o));
	o->sysfs = "/sys/bus/pci/devices";
	o->mark_socket = RS_MARK_SOCKET;
	o->buf_pages = 64;
	o->tick_ms = 100;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:F:d:m:b:t:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (o->nr_tps == AGENT_MAX_TPS)
				return bad("-e %s: too many tracepoints", optarg);
			o->tp[o->nr_tps++] = optarg;
			break;
		case 'F':
			if (num(optarg, 1, 1000000, &o->freq))
				return bad("--freq wants 1..1000000 samples per second, "
					   "not '%s'", optarg);
			break;
		case 'd':
			o->device = optarg;
			break;
		case 'm':
			o->mark_socket = optarg;
			break;
		case 'b':
			if (num(optarg, 1, 1u << 16, &o->buf_pages) ||
			    (o->buf_pages & (o->buf_pages - 1)))
				return bad("--buffer-pages wants a power of two, not '%s'",
					   optarg);
			break;
		case 't':
			if (num(optarg, 10, 10000, &o->tick_ms))
				return bad("--tick wants 10..10000 ms, not '%s'", optarg);
			break;
		case 'S':
			o->sysfs = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			help();
			return -1;
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("'%s' is extra", argv[optind]);
	cpus = sysconf(_SC_NPROCESSORS_CONF);
	o->nr_cpus = cpus < 1 ? 1 : cpus > AGENT_MAX_CPUS ? AGENT_MAX_CPUS :
		     (uint32_t)cpus;
	return 0;
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
