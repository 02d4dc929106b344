/* SPDX-License-Identifier: MIT */
/*
 * ringside stat REGION | --vm SOCKET: the rings as they are now.  Heads,
 * tails and the counters are what the guest last wrote: hints, shown as
 * read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/domain_virt.h"
#include "ringside/introspect.h"

#include "cli.h"
#include "print.h"

#define CMD "stat"

/* How long stat watches an attached agent's heartbeat for its age: the
 * Linux agent beats every second or two (docs/abi.md), three at most
 * while its kernel buffers' watermarks carry the beat, so four seconds
 * see a live one move. */
#define LOOK_S      4.0
#define LOOK_STEP_NS 20000000L

struct stat_opts {
	const char *region;
	const char *vm;        /* --vm SOCKET instead of REGION */
	double interval;       /* 0: once */
	uint32_t count;        /* 0: until interrupted */
	double look;           /* s to watch the heartbeat; 0: LOOK_S */
	int all;               /* --all: every ring's line */
};

/* More rings than this: a summary and the outliers, unless --all. */
#define STAT_ROWS_MAX 48u
/* Outliers shown of each kind. */
#define STAT_OUTLIERS 5u

/* What stat itself saw of the heartbeat, over its reports. */
struct beat_seen {
	int have;
	uint64_t value;        /* the heartbeat as last read */
	double since;          /* when stat first read it at that value */
};

static int parse(int argc, char **argv, struct stat_opts *o)
{
	const struct opt opts[] = {
		CLI_OPT_VM(&o->vm, ""),
		OPT_SECONDS('i', "interval", &o->interval, "S", 86400,
			    "repeat every S seconds (fractions allowed)"),
		OPT_U32('c', "count", &o->count, "N", 1, UINT32_MAX, NULL,
			"stop after N reports (with --interval)"),
		OPT_SECONDS(0, "look", &o->look, "S", 60, "watch an attached "
			    "agent's heartbeat for up to S seconds for its age "
			    "(4)"),
		OPT_FLAG('a', "all", &o->all, "a line for every ring (more "
			 "than 48: a summary and the outliers)"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_REGION_CMD,
		.usage = CLI_REGION_USAGE("[--interval S [--count N]] [--look S] [--all]"),
		.about = "Show a trace region's rings right now: data and AUX heads "
			 "and tails, fill, mode, and the records the guest says "
			 "it produced and lost (guest_produced, guest_lost: its "
			 "claims).  An attached agent's heartbeat is watched "
			 "until it moves (--look S at most) for its age, and "
			 "a status from before the guest's last reset is said "
			 "to be one.",
		.opts = opts,
		.notes = "Exit status: 0 success, 1 failure, 2 bad usage.",
	};
	int first, ret;

	memset(o, 0, sizeof(*o));
	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return ret;
	if (o->count && !o->interval)
		return cli_usage(CMD, "--count needs --interval");
	if (o->look <= 0)
		o->look = LOOK_S;
	return cli_region_operand(CMD, argc - first, argv + first, o->vm,
				  &o->region);
}

static const char *mode_name(uint32_t mode)
{
	return mode == RS_MODE_OVERWRITE ? "overwrite" : "normal";
}

/* The consumer's word, in guest-writable memory: any value. */
static const char *consumer_name(char *buf, size_t len, uint32_t word)
{
	if (word == RS_CONSUMER_WAKE)
		return "wake";
	if (word == RS_CONSUMER_POLLING)
		return "polling";
	snprintf(buf, len, "%" PRIu32 "?", word);
	return buf;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The heartbeat's age as stat measures it: an attached agent's heartbeat
 * read every 20 ms until it moves, @look s at most.  The host's own
 * observation of a guest claim: the value is the guest's, the times are
 * stat's.  A beat seen gives an age under a step; none, a lower bound
 * (since stat first read that value, over --interval's reports too).
 * @rr is read again at the end.
 */
static void look_at_beat(const struct cap_source *m, struct cap_rinfo_region *rr,
			 double look, struct beat_seen *b)
{
	const struct timespec step = { 0, LOOK_STEP_NS };
	double t0 = now_s(), t = t0;
	int moved = 0;

	if (rr->attached != 1) {
		b->have = 0;   /* no agent: nothing ages */
		return;
	}
	/* moved since the last report (or first read): from now on */
	if (!b->have || b->value != rr->heartbeat) {
		b->have = 1;
		b->value = rr->heartbeat;
		b->since = t0;
	}
	while (!moved && t - t0 < look) {
		nanosleep(&step, NULL);
		t = now_s();
		cap_rinfo_region_get(cap_source_region(m), rr);
		moved = rr->heartbeat != b->value;
		if (rr->attached != 1)
			break;
	}
	if (moved) {
		b->value = rr->heartbeat;
		b->since = t;
		printf("heartbeat: moved %.2f s into stat's look: age under "
		       "%.2f s\n", t - t0, (double)LOOK_STEP_NS / 1e9);
	} else if (rr->attached != 1) {
		b->have = 0;
		printf("heartbeat: the agent detached while stat looked\n");
		return;
	} else {
		printf("heartbeat: not moved in the %.1f s stat watched it: "
		       "age at least %.1f s (a live agent beats every second "
		       "or two)\n", t - t0, t - b->since);
	}
	if (cap_rinfo_claim_stale(rr) == 1)
		printf("heartbeat: the status of an agent from before the "
		       "guest's last reset (it read boot_gen %" PRIu64 ", the "
		       "host counts %" PRIu64 "): no agent of this boot has "
		       "attached yet\n", rr->agent_boot_gen, rr->boot_gen);
}

static void print_columns(void)
{
	printf("%4s %-9s %12s %12s %10s %10s %6s %12s %12s %10s %14s %10s "
	       "%11s %13s %s\n",
	       "ring", "mode", "data_head", "data_tail", "fill", "size", "fill%",
	       "aux_head", "aux_tail", "aux_size", "guest_produced",
	       "guest_lost", "guest_bells", "guest_skipped", "consumer");
}

/* One ring's line; 1 for an overwrite ring (its head counts down), 0
 * for another, -1 for a ring that could not be read. */
static int show_ring(const struct cap_source *m, uint32_t i)
{
	struct cap_rinfo ri;
	char head[24], state[16];
	uint64_t fill;

	if (cap_rinfo_get(cap_source_region(m), i, &ri)) {
		if (rs_region_ring_skipped(cap_source_region(m), i))
			printf("%4u skipped: its control page does not "
			       "match the host's layout\n", i);
		return -1;
	}
	fill = cap_rinfo_fill(&ri);
	/* an overwrite ring is written backward: its head counts down */
	if (ri.data_mode == RS_MODE_OVERWRITE)
		snprintf(head, sizeof(head), "%" PRId64, (int64_t)ri.data_head);
	else
		snprintf(head, sizeof(head), "%" PRIu64, ri.data_head);
	printf("%4u %-9s %12s %12" PRIu64 " %10" PRIu64 " %10" PRIu64
	       " %5.1f%% %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %14" PRIu64
	       " %10" PRIu64 " %11" PRIu64 " %13" PRIu64 " %s\n", i,
	       mode_name(ri.data_mode), head,
	       ri.data_tail, fill, ri.data_size,
	       ri.data_size ? 100.0 * (double)fill / (double)ri.data_size : 0.0,
	       ri.aux_head, ri.aux_tail, ri.aux_size, ri.produced, ri.lost,
	       ri.doorbells, ri.suppressed,
	       consumer_name(state, sizeof(state), ri.consumer));
	return ri.data_mode == RS_MODE_OVERWRITE;
}

struct ring_fill {
	uint32_t ring;
	uint32_t permille;     /* fill of the data area, 0..1000 */
};

static int by_fill(const void *a, const void *b)
{
	const struct ring_fill *x = a, *y = b;

	if (x->permille != y->permille)
		return x->permille < y->permille ? 1 : -1;
	return x->ring < y->ring ? -1 : x->ring > y->ring;
}

/*
 * Many rings: the fill of them all (least, median, most), how many the
 * host could not read and how many the guest says lost records, then the
 * lines of the outliers: the fullest rings, those with losses, and the
 * unreadable ones, STAT_OUTLIERS of each at most.  Returns as show_ring.
 */
static int show_summary(const struct cap_source *m, uint32_t nr)
{
	struct ring_fill *f = calloc(nr, sizeof(*f));
	uint32_t n = 0, lossy = 0, bad = 0, shown = 0, i;
	int backward = 0;

	if (!f) {
		printf("(no memory for the summary: 'stat --all')\n");
		return 0;
	}
	for (i = 0; i < nr; i++) {
		struct cap_rinfo ri;

		if (cap_rinfo_get(cap_source_region(m), i, &ri)) {
			if (bad++ < STAT_OUTLIERS)
				show_ring(m, i);
			continue;
		}
		f[n].ring = i;
		f[n++].permille = ri.data_size ? (uint32_t)(1000 *
			cap_rinfo_fill(&ri) / ri.data_size) : 0;
		if (ri.lost)
			lossy++;
	}
	qsort(f, n, sizeof(*f), by_fill);
	printf("%u rings, %u summarised ('stat --all': every line); %u "
	       "unreadable\n", nr, n, bad);
	if (n)
		printf("fill%%: most %.1f%% (ring %u), median %.1f%%, least %.1f%% "
		       "(ring %u); rings whose guest claims losses: %u\n",
		       f[0].permille / 10.0, f[0].ring, f[n / 2].permille / 10.0,
		       f[n - 1].permille / 10.0, f[n - 1].ring, lossy);
	printf("outliers: the %u fullest rings, and up to %u that claim "
	       "losses:\n", n < STAT_OUTLIERS ? n : STAT_OUTLIERS,
	       STAT_OUTLIERS);
	print_columns();
	for (i = 0; i < n && i < STAT_OUTLIERS; i++)
		backward |= show_ring(m, f[i].ring) == 1;
	for (i = 0; i < nr && lossy && shown < STAT_OUTLIERS; i++) {
		struct cap_rinfo ri;
		uint32_t j;

		if (cap_rinfo_get(cap_source_region(m), i, &ri) || !ri.lost)
			continue;
		for (j = 0; j < n && j < STAT_OUTLIERS && f[j].ring != i; j++)
			;
		if (j < n && j < STAT_OUTLIERS)
			continue;   /* shown already */
		backward |= show_ring(m, i) == 1;
		shown++;
	}
	free(f);
	return backward;
}

static void show(const char *spec, const struct cap_source *m, double look,
		 int all, struct beat_seen *beat)
{
	uint32_t nr = cap_rinfo_count(cap_source_region(m)), i;
	int backward = 0;
	struct cap_rinfo_region rr;
	struct gi_syms syms = { 0 };
	struct cap_guest_facts facts;
	char size[32];

	cap_rinfo_region_get(cap_source_region(m), &rr);
	printf("region %s: %u rings, %s, ABI %u, tracing %s, data %s, AUX %s\n",
	       spec, nr, print_size(size, sizeof(size), cap_source_size(m)), RS_ABI_VERSION,
	       rr.enabled ? "enabled" : "disabled", mode_name(rr.data_mode),
	       mode_name(rr.aux_mode));
	printf("guest: agent %s (kind %u, ABI %u, %u rings used), heartbeat %" PRIu64 "\n",
	       rr.attached ? "attached" : "not attached", rr.agent_kind,
	       rr.agent_abi, rr.rings_used, rr.heartbeat);
	look_at_beat(m, &rr, look, beat);
	if (gi_syms_read(&syms, cap_source_region(m), 1) == 0)
		print_gsyms(stdout, &syms, NULL);
	gi_syms_fini(&syms);
	cap_guest_facts_read(&facts, cap_source_region(m));
	print_gfacts(stdout, &facts, 0);
	/* the guest's own counters last, under names that say whose they
	 * are, and a legend: claims are never shown as host facts (issue
	 * 13) */
	if (nr > STAT_ROWS_MAX && !all) {
		backward = show_summary(m, nr);
	} else {
		print_columns();
		for (i = 0; i < nr; i++)
			backward |= show_ring(m, i) == 1;
	}
	printf("guest_produced, guest_lost: the guest's claims (its producer's "
	       "own counters), as read, never checked or summed\n");
	printf("guest_bells, guest_skipped: the guest's claims too (doorbells "
	       "its producer rang, and skipped while the consumer polled)\n");
	printf("consumer: what the ring's consumer last said (polling: "
	       "doorbells skipped; wake: rung), as read\n");
	if (backward)
		printf("data_head of an overwrite ring: its producer writes "
		       "backward (as perf's overwrite buffers do), so the head "
		       "counts down from 0; -data_head bytes were written\n");
	print_source_guard(stdout, m);
	fflush(stdout);
}

/* A domain's PT source: ringside's QEMU plugin on its command line. */
static void show_pt(const char *domain)
{
	char *arg = NULL;
	int r = dom_region_pt(domain, &arg);

	if (r > 0)
		printf("PT: QEMU TCG plugin -plugin %s\n", arg);
	else if (!r)
		printf("PT: none (no ringside QEMU plugin on the domain's command "
		       "line; 'ringside enable --trace pt')\n");
	else
		printf("PT: unknown (%s)\n", dom_error_str(r));
	free(arg);
}

/* A region the hook set aside when its domain stopped and its capture
 * could not be written (docs/operator-guide.md): said, whatever else. */
static void kept_note(const char *domain)
{
	char shm[DOM_SHM_NAME_MAX], path[sizeof(DOM_SHM_DIR) + DOM_SHM_NAME_MAX +
					   sizeof(DOM_SHM_KEPT)];

	if (!domain || dom_shm_name(domain, shm, sizeof(shm)))
		return;
	snprintf(path, sizeof(path), "%s/%s%s", DOM_SHM_DIR, shm, DOM_SHM_KEPT);
	if (!access(path, F_OK))
		cli_err(CMD, "%s: the flight recorder of an earlier stop is kept in "
			"%s (its capture could not be written); take it with "
			"'ringside snapshot %s -o FILE', then remove it", domain,
			path, path);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	struct beat_seen beat = { 0 };
	struct cap_source *m;
	uint32_t n;
	int ret;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (!o.vm)
		kept_note(o.region);
	if (cli_region_open(CMD, &m, o.vm, o.region, 0, NULL))
		return CLI_EXIT_FAIL;
	for (n = 1;; n++) {
		struct timespec ts;

		show(o.region, m, o.look, o.all, &beat);
		if (n == 1 && !o.vm && dom_region_is_domain(o.region))
			show_pt(o.region);
		if (!o.interval || (o.count && n >= o.count))
			break;
		ts.tv_sec = (time_t)o.interval;
		ts.tv_nsec = (long)((o.interval - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		putchar('\n');
	}
	ret = cap_source_damage(m) ? CLI_EXIT_CORRUPT : CLI_EXIT_OK;
	cap_source_free(m);
	return ret;
}
