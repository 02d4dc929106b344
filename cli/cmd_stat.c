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

struct stat_opts {
	const char *region;
	const char *vm;        /* --vm SOCKET instead of REGION */
	double interval;       /* 0: once */
	uint32_t count;        /* 0: until interrupted */
};

static int parse(int argc, char **argv, struct stat_opts *o)
{
	const struct opt opts[] = {
		CLI_OPT_VM(&o->vm, ""),
		OPT_SECONDS('i', "interval", &o->interval, "S", 86400,
			    "repeat every S seconds (fractions allowed)"),
		OPT_U32('c', "count", &o->count, "N", 1, UINT32_MAX, NULL,
			"stop after N reports (with --interval)"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		.prog = CLI_PROG(CMD),
		.usage = "REGION|DOMAIN [--interval S [--count N]]\n"
			 "--vm SOCKET [--interval S [--count N]]",
		.about = "Show a trace region's rings right now: data and AUX heads "
			 "and tails, fill, mode, and the records the guest says "
			 "it produced and lost (guest_produced, guest_lost: its "
			 "claims).",
		.args = cli_region_args,
		.opts = opts,
		.notes = "Exit status: 0 success, 1 failure, 2 bad usage.",
		.max_args = OPT_ANY_ARGS,
	};
	int first, ret;

	memset(o, 0, sizeof(*o));
	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return ret;
	if (o->count && !o->interval)
		return cli_usage(CMD, "--count needs --interval");
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

static void show(const char *spec, const struct rmap *m)
{
	uint32_t nr = rinfo_count(&m->region), i;
	int backward = 0;
	struct rinfo_region rr;
	struct gsyms syms = { 0 };
	struct guest_facts facts;
	char size[32];

	rinfo_region_get(&m->region, &rr);
	printf("region %s: %u rings, %s, ABI %u, tracing %s, data %s, AUX %s\n",
	       spec, nr, print_size(size, sizeof(size), m->size), RS_ABI_VERSION,
	       rr.enabled ? "enabled" : "disabled", mode_name(rr.data_mode),
	       mode_name(rr.aux_mode));
	printf("guest: agent %s (kind %u, ABI %u, %u rings used), heartbeat %" PRIu64 "\n",
	       rr.attached ? "attached" : "not attached", rr.agent_kind,
	       rr.agent_abi, rr.rings_used, rr.heartbeat);
	if (gsyms_read(&syms, &m->region, 1) == 0)
		print_gsyms(stdout, &syms, NULL);
	gsyms_fini(&syms);
	guest_facts_read(&facts, &m->region);
	print_gfacts(stdout, &facts, 0);
	/* the guest's own counters last, under names that say whose they
	 * are, and a legend: claims are never shown as host facts (issue
	 * 13) */
	printf("%4s %-9s %12s %12s %10s %10s %6s %12s %12s %10s %14s %10s "
	       "%11s %13s %s\n",
	       "ring", "mode", "data_head", "data_tail", "fill", "size", "fill%",
	       "aux_head", "aux_tail", "aux_size", "guest_produced",
	       "guest_lost", "guest_bells", "guest_skipped", "consumer");
	for (i = 0; i < nr; i++) {
		struct rinfo ri;
		char head[24], state[16];
		uint64_t fill;

		if (rinfo_get(&m->region, i, &ri)) {
			if (rs_region_ring_skipped(&m->region, i))
				printf("%4u skipped: its control page does not "
				       "match the host's layout\n", i);
			continue;
		}
		fill = rinfo_fill(&ri);
		/* an overwrite ring is written backward: its head counts down */
		if (ri.data_mode == RS_MODE_OVERWRITE) {
			snprintf(head, sizeof(head), "%" PRId64, (int64_t)ri.data_head);
			backward = 1;
		}
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
	print_rmap_guard(stdout, m);
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
		printf("PT: unknown (%s)\n", dom_errstr(r));
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
	struct rmap m;
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

		show(o.region, &m);
		if (n == 1 && !o.vm && dom_region_is_domain(o.region))
			show_pt(o.region);
		if (!o.interval || (o.count && n >= o.count))
			break;
		ts.tv_sec = (time_t)o.interval;
		ts.tv_nsec = (long)((o.interval - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		putchar('\n');
	}
	ret = m.damaged ? CLI_EXIT_CORRUPT : CLI_EXIT_OK;
	rmap_close(&m);
	return ret;
}
