/* SPDX-License-Identifier: MIT */
/*
 * e2e-check FILE --pid P --comm NAME --steps N [--panic] [--tracepoint]
 *                 [--shell-marker] [--min-named PCT]
 *
 * Judges a perf.data file that ringside wrote from a Linux guest running
 * tests/e2e/workload.c under the Linux agent:
 *  - samples: some carry pid P, and P's name (from the PERF_RECORD_COMM
 *    records the agent wrote) is NAME; nearly every sample's thread is named;
 *  - markers: the workload's "step K" markers come from pid P, in order,
 *    without a gap, times never going back; all N and "done" (or, with
 *    --panic, the newest steps up to N-1, then "done" and "panic" last);
 *  - named: PCT% of the samples have a COMM for their thread (default 99,
 *    90 with --panic: a thread that forks and exits within one agent tick
 *    leaves no name);
 *  - with --tracepoint: the agent announced sched:sched_switch and samples
 *    of it (RAW data whose common_type is its id) are there;
 *  - with --shell-marker: `ringside-mark 9 "from the shell"` arrived.
 * Prints what it found; exit 0 all good, 1 a check failed, 2 bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ringside/perfdata.h"

#define MAX_TIDS 4096
#define MARK_AGENT_TRACEPOINT 0xffff0002u

struct name {
	uint32_t tid;
	uint32_t pid;
	uint64_t time;            /* of its newest COMM */
	char comm[16];
};

struct check {
	uint32_t pid, steps;
	const char *comm;
	int panic, tracepoint, shell;
	uint32_t min_named;
	/* what the file holds */
	struct name names[MAX_TIDS];
	uint32_t nr_names;
	uint64_t samples, samples_pid, tp_samples;
	uint64_t tp_id;
	int have_tp_id;
	long last_step, first_step;
	uint64_t last_mark_time;
	int done, panicked, after_done, bad_order, bad_pid;
	uint64_t markers;
	int shell_seen;
	int failed;
};

static void fail(struct check *c, const char *what)
{
	printf("FAIL: %s\n", what);
	c->failed = 1;
}

static struct name *lookup(struct check *c, uint32_t tid)
{
	uint32_t i;

	for (i = 0; i < c->nr_names; i++)
		if (c->names[i].tid == tid)
			return &c->names[i];
	return NULL;
}

/* A COMM at @time: the newest by time wins, as perf has it after sorting
 * the file's records (the rings' records come ring by ring, and an
 * agent's name of a thread sampled before its exec may follow the exec's
 * COMM in the file while it is older). */
static void on_comm(struct check *c, const struct rs_perf_header *rec,
		    uint64_t time)
{
	struct { uint32_t pid, tid; char comm[16]; } b;
	struct name *n;
	size_t len = rec->size - sizeof(*rec);

	memset(&b, 0, sizeof(b));
	memcpy(&b, rec + 1, len < sizeof(b) ? len : sizeof(b));
	b.comm[15] = '\0';
	n = lookup(c, b.tid);
	if (!n && c->nr_names < MAX_TIDS)
		n = &c->names[c->nr_names++];
	if (!n || (n->tid == b.tid && time < n->time))
		return;
	n->tid = b.tid;
	n->pid = b.pid;
	n->time = time;
	memcpy(n->comm, b.comm, sizeof(n->comm));   /* the newest name wins */
}

static void on_marker(struct check *c, const struct rs_perf_header *rec)
{
	const struct rs_rec_marker *m = (const void *)rec;
	char text[64];
	size_t n = m->len < sizeof(text) - 1 ? m->len : sizeof(text) - 1;
	long k;

	memcpy(text, m + 1, n);
	text[n] = '\0';
	if (m->id == MARK_AGENT_TRACEPOINT && !strncmp(text, "sched:sched_switch id=", 22)) {
		c->tp_id = strtoull(text + 22, NULL, 10);
		c->have_tp_id = 1;
		return;
	}
	if (m->id == 9 && !strcmp(text, "from the shell"))
		c->shell_seen = 1;
	if (m->id < 1 || m->id > 3)
		return;
	c->markers++;
	if (m->pid != c->pid)
		c->bad_pid++;
	if (m->time < c->last_mark_time)
		c->bad_order++;
	c->last_mark_time = m->time;
	if (c->done && m->id != 3)
		c->after_done++;
	if (m->id == 2) {
		c->done = 1;
	} else if (m->id == 3) {
		c->panicked = 1;
	} else if (sscanf(text, "step %ld", &k) == 1) {
		if (c->first_step < 0)
			c->first_step = k;
		else if (k != c->last_step + 1)
			c->bad_order++;
		c->last_step = k;
	}
}

static void on_sample(struct check *c, const struct rs_perf_header *rec,
		      uint64_t type)
{
	struct pdf_sample s;
	uint16_t common_type;

	if (pdf_sample_parse(type, rec + 1, rec->size - sizeof(*rec), &s))
		return;
	c->samples++;
	if (s.pid == c->pid)
		c->samples_pid++;
	if (s.raw_size > 4) {
		memcpy(&common_type, (const uint8_t *)(rec + 1) + s.raw_offset,
		       sizeof(common_type));
		if (c->have_tp_id && common_type == c->tp_id)
			c->tp_samples++;
	}
}

/* Second pass: which samples have a name. */
static void count_named(struct check *c, struct pdf_reader *r, uint64_t type,
			uint64_t *named)
{
	struct pdf_event ev;
	struct pdf_sample s;

	*named = 0;
	while (pdf_reader_next(r, &ev) == 1) {
		if (ev.rec->type != PERF_RECORD_SAMPLE ||
		    pdf_sample_parse(type, ev.rec + 1, ev.rec->size - sizeof(*ev.rec), &s))
			continue;
		if (lookup(c, s.tid))
			(*named)++;
	}
}

static int parse(struct check *c, int argc, char **argv)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->last_step = c->first_step = -1;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--pid") && i + 1 < argc)
			c->pid = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--comm") && i + 1 < argc)
			c->comm = argv[++i];
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			c->steps = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--panic"))
			c->panic = 1;
		else if (!strcmp(argv[i], "--tracepoint"))
			c->tracepoint = 1;
		else if (!strcmp(argv[i], "--shell-marker"))
			c->shell = 1;
		else if (!strcmp(argv[i], "--min-named") && i + 1 < argc)
			c->min_named = (uint32_t)strtoul(argv[++i], NULL, 10);
		else
			return -1;
	}
	if (!c->min_named)
		c->min_named = c->panic ? 90 : 99;
	return argc < 2 || !c->pid || !c->comm || !c->steps ? -1 : 0;
}

static void judge(struct check *c, uint64_t named)
{
	const struct name *n;
	uint32_t i;

	printf("samples %" PRIu64 " (of pid %u: %" PRIu64 ", named: %" PRIu64
	       ", sched_switch: %" PRIu64 "), names %u, markers %" PRIu64
	       " (steps %ld..%ld, done %d, panic %d)\n", c->samples, c->pid,
	       c->samples_pid, named, c->tp_samples, c->nr_names, c->markers,
	       c->first_step, c->last_step, c->done, c->panicked);
	if (c->samples_pid < 5)
		fail(c, "fewer than 5 samples of the workload's pid");
	for (i = 0, n = NULL; i < c->nr_names; i++)
		if (c->names[i].pid == c->pid && c->names[i].tid == c->pid)
			n = &c->names[i];
	if (!n)
		fail(c, "no COMM record for the workload's pid");
	else if (strcmp(n->comm, c->comm))
		printf("FAIL: the workload's pid is named '%s', not '%s'\n",
		       n->comm, c->comm), c->failed = 1;
	if (named * 100 < c->samples * c->min_named)
		fail(c, "too many samples without a COMM for their thread");
	if (c->bad_pid)
		fail(c, "workload markers from another pid");
	if (c->bad_order)
		fail(c, "workload markers out of order, or a step missing");
	if ((long)c->steps - 1 != c->last_step || !c->done)
		fail(c, "the last step or \"done\" is missing");
	if (!c->panic && c->first_step != 0)
		fail(c, "the first steps are missing");
	if (c->panic && !c->panicked)
		fail(c, "the \"panic\" marker is missing");
	if (c->after_done)
		fail(c, "a step after \"done\"");
	if (c->tracepoint && (!c->have_tp_id || !c->tp_samples))
		fail(c, "no sched:sched_switch samples");
	if (c->shell && !c->shell_seen)
		fail(c, "no marker from ringside-mark");
}

int main(int argc, char **argv)
{
	struct pdf_reader *r = NULL;
	struct pdf_event ev;
	uint64_t type, named;
	struct check *c = malloc(sizeof(*c));
	int err;

	if (!c || parse(c, argc, argv)) {
		fprintf(stderr, "usage: e2e-check FILE --pid P --comm NAME --steps N "
			"[--panic] [--tracepoint] [--shell-marker] [--min-named PCT]\n");
		return 2;
	}
	err = pdf_reader_open(&r, argv[1]);
	if (err) {
		printf("FAIL: %s: %s\n", argv[1], pdf_error_str(err));
		return 1;
	}
	type = pdf_reader_info(r)->sample_type;
	while ((err = pdf_reader_next(r, &ev)) == 1) {
		if (ev.rec->type == PERF_RECORD_COMM)
			on_comm(c, ev.rec, ev.time);
		else if (ev.rec->type == RS_RECORD_MARKER &&
			 ev.rec->size >= sizeof(struct rs_rec_marker))
			on_marker(c, ev.rec);
		else if (ev.rec->type == PERF_RECORD_SAMPLE)
			on_sample(c, ev.rec, type);
	}
	pdf_reader_close(r);
	if (err < 0) {
		printf("FAIL: reading %s: %s\n", argv[1], pdf_error_str(err));
		return 1;
	}
	/* names may come after their samples: count them once all are known */
	if (pdf_reader_open(&r, argv[1]))
		return 1;
	count_named(c, r, type, &named);
	pdf_reader_close(r);
	judge(c, named);
	err = c->failed;
	free(c);
	return err;
}
