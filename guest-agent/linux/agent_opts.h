/* SPDX-License-Identifier: MIT */
/* The agent's command line. */
#ifndef RINGSIDE_LINUX_AGENT_OPTS_H
#define RINGSIDE_LINUX_AGENT_OPTS_H

#include <stdint.h>

#include "agent.h"

/* perf sample fields this agent can ask for, and its default layout (the
 * same as `ringside enable` configures). */
#define AGENT_SAMPLE_KNOWN (RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID | \
			    RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_ADDR | \
			    RS_PERF_SAMPLE_CPU | RS_PERF_SAMPLE_PERIOD | \
			    RS_PERF_SAMPLE_CALLCHAIN | RS_PERF_SAMPLE_RAW)
#define AGENT_SAMPLE_DEFAULT (RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID | \
			      RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_CPU | \
			      RS_PERF_SAMPLE_PERIOD | RS_PERF_SAMPLE_CALLCHAIN | \
			      RS_PERF_SAMPLE_RAW)

struct agent_opts {
	const char *device;       /* BDF, or NULL to search */
	const char *sysfs;        /* /sys/bus/pci/devices */
	const char *mark_socket;
	const char *tp[AGENT_MAX_TPS];
	uint32_t nr_tps;
	uint32_t freq;            /* 0: the host's */
	uint32_t buf_pages;       /* kernel buffer pages per CPU */
	uint32_t tick_ms;         /* 0: agent_opts_beat_ms's */
	uint32_t nr_cpus;         /* CPUs of this guest, at most AGENT_MAX_CPUS */
	int quiet;
	int follow;               /* wait for the device, follow it */
	int no_symbols;           /* publish no kernel symbols */
	uint32_t usyms_kib;       /* user symbol table bound, KiB (0: none) */
	uint32_t pstate_kib;      /* process state table bound, KiB (0: none) */
	int probe;                /* only say whether a region is there */
	struct agent_ksyms_paths ksyms;
};

/* 0 to run, -1 after --help, 2 on bad usage (printed). */
int agent_opts_parse(struct agent_opts *o, int argc, char **argv);

/* The kernel's perf buffers of all CPUs together, at most (the default
 * pages per CPU above 128 CPUs), unless --buffer-pages says otherwise. */
#define AGENT_BUFFERS_BYTES (64ull << 20)

/* The default kernel buffer pages per CPU for @nr_cpus CPUs: 128 while
 * they fit AGENT_BUFFERS_BYTES, else halved to fit, at least 16. */
uint32_t agent_opts_buffer_pages(uint32_t nr_cpus);

/* The beat of a region whose rings are in @data_mode (RS_MODE_*), in ms:
 * --tick, else AGENT_BEAT_MS for a flight recorder (overwrite mode: what
 * the beat has not forwarded at a crash is not in the region the host
 * captures) and AGENT_BEAT_NORMAL_MS for rings a consumer drains (normal
 * mode: the beat bounds how late a sample reaches it, as perf's watermark
 * does perf record's, and each beat is a wake of the guest). */
#define AGENT_BEAT_MS        1000u
#define AGENT_BEAT_NORMAL_MS 2000u
uint32_t agent_opts_beat_ms(const struct agent_opts *o, uint32_t data_mode);

/* The frequency to sample at: the option, else the host's @host_freq,
 * capped by the kernel's perf_event_max_sample_rate. */
uint64_t agent_opts_freq(const struct agent_opts *o, uint64_t host_freq);

#endif /* RINGSIDE_LINUX_AGENT_OPTS_H */
