/* SPDX-License-Identifier: MIT */
/*
 * The program ringside-agent's own: its state (main.c runs it) and what
 * it publishes into the region's sideband once per session (publish.c).
 */
#ifndef RS_AGENT_MAIN_H
#define RS_AGENT_MAIN_H

#include "agent.h"
#include "agent_opts.h"

struct agent {
	struct agent_opts opts;
	struct agent_dev dev;
	struct rs_config cfg;        /* the host's, as last read */
	struct agent_events ev;
	struct agent_markers mk;
	struct agent_tsync ts;
	uint32_t nr_rings;            /* rings used */
	uint32_t nr_cpus;             /* CPUs sampled (kbuf[0..nr_cpus)) */
	uint64_t sideband_room;       /* for the symbols: the kbuf table follows */
	uint64_t ksyms_end;           /* bytes of kallsyms text at its start */
	uint64_t pstate_start;        /* the process state table's, 0: none */
	uint32_t beat_ms;             /* the beat (agent_opts_beat_ms) */
	int sigfd;
	int sampling;                 /* events enabled right now */
	int on_since_census;          /* the kernel's events on since before
				       * the census: the model missed nothing
				       * when sampling is said to start */
	uint64_t confirmed;           /* records written when the device was
				       * last seen present */
	uint64_t look_at;             /* when the device's sysfs entry is
				       * looked at next (agent_markers_now) */
	int gone_how;                 /* AGENT_DEV_* once a look saw it gone */
	struct {                      /* the loop's wakes, by what woke it */
		uint64_t data;        /* a kernel buffer's watermark */
		uint64_t markers;     /* the marker socket, no buffer */
		uint64_t beat;        /* the beat's time alone */
		uint64_t beats;       /* beats, with a wake of their own or not */
	} wakes;
	struct agent_ring ring[RS_MAX_RINGS];
	uint64_t epoch_mark[RS_MAX_RINGS]; /* each ring's agent_ring_mark
					    * when the last epoch began */
	struct kbuf *kbuf[AGENT_MAX_CPUS];
};

/* A line on stderr, "ringside-agent: " first, unless --quiet. */
void agent_main_say(const struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define say agent_main_say

void agent_publish_kbufs(struct agent *a);
void agent_publish_symbols(struct agent *a);
void agent_publish_pstate(struct agent *a);
void agent_publish_usyms(struct agent *a);
void agent_publish_identity(struct agent *a);
void agent_publish_pstate_summary(const struct agent *a);
void agent_publish_usyms_summary(const struct agent *a);

#endif
