/* SPDX-License-Identifier: MIT */
/*
 * Overwrite mode: the ring as a flight recorder.  The producer writes
 * RS_RECORD_SEQ records backward without pause and never drops; the host
 * takes two live snapshots while it writes, then a stable one after it has
 * stopped (what pausing the vCPUs gives).  Sequence numbers make every
 * claim checkable: newest first, contiguous, intact, and the newest record
 * of a live snapshot is at least as new as the producer was when it began.
 */
#include "demo.h"
#include "host_util.h"
#include "ringside/shared.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_PAGES 4u
#define SHOW       5u
#define NSNAP      3u
#define WARMUP     2000u   /* records before the first snapshot: many wraps */

struct snap_report {
	struct rs_snap_stats stats;
	uint64_t producer_at;    /* records committed when the snapshot began */
	uint64_t newest;
	uint64_t oldest;
	uint64_t gaps;           /* neighbours whose seq does not differ by 1 */
	uint64_t bad_checksum;
	uint64_t other;          /* records that are not RS_RECORD_SEQ */
	struct {
		uint64_t seq;
		uint32_t size;
		int ok;
	} show[SHOW];
	uint32_t nshow;
	int stable;
	int err;
};

struct ow_shared {
	_Alignas(64) uint64_t written;   /* producer progress, a hint */
	_Alignas(64) uint32_t stop;
	_Alignas(64) uint32_t done;
	_Alignas(64) uint64_t last_seq;
	int prod_err;
	_Alignas(64) struct snap_report snap[NSNAP];
	int cons_err;
};

struct ow_ctx {
	struct host_region hr;
	struct ow_shared *sh;
	uint64_t data_size;
};

static int producer_main(void *arg)
{
	struct ow_ctx *x = arg;
	struct ow_shared *sh = x->sh;
	_Alignas(8) uint8_t buf[512];
	struct rs_region region;
	struct rs_producer p;
	uint64_t seq = 0;
	int rc, size, i;

	rc = rs_region_open(&region, x->hr.mem, x->hr.size);
	if (!rc)
		rc = rs_producer_init(&p, &region, 0);
	while (!rc && !rs_shared_load32(&sh->stop)) {
		for (i = 0; i < 64 && !rc; i++, seq++) {
			size = rs_seq_build(buf, seq, host_now_ns(), 0,
					    (uint32_t)(seq * 37 % 217));
			rc = size < 0 ? size :
				rs_producer_output(&p, RS_RECORD_SEQ, 0, buf + 8,
						   (uint32_t)size - 8);
		}
		rs_shared_store(&sh->written, seq);
	}
	sh->last_seq = seq - 1;
	sh->prod_err = rc < 0 ? rc : 0;
	rs_shared_store32(&sh->done, 1);
	return sh->prod_err ? 1 : 0;
}

static int take(struct rs_snapshot *s, const struct rs_region *region,
		void *buf, uint64_t size, struct snap_report *r)
{
	const struct rs_perf_header *h;
	const struct rs_rec_seq *rec;
	int rc, ok;

	rc = rs_snapshot_take(s, region, 0, buf, size);
	if (rc < 0)
		return rc;
	while ((rc = rs_snapshot_next(s, &h)) == 1) {
		if (h->type != RS_RECORD_SEQ) {
			r->other++;
			continue;
		}
		rec = (const struct rs_rec_seq *)h;
		ok = rs_seq_check(h);
		r->bad_checksum += !ok;
		if (!r->nshow)
			r->newest = rec->seq;
		else if (rec->seq + 1 != r->oldest)
			r->gaps++;
		r->oldest = rec->seq;
		if (r->nshow < SHOW) {
			r->show[r->nshow].seq = rec->seq;
			r->show[r->nshow].size = h->size;
			r->show[r->nshow].ok = ok;
		}
		r->nshow++;
	}
	if (r->nshow > SHOW)
		r->nshow = SHOW;
	r->stats = *rs_snapshot_stats(s);
	return rc;
}

static int consumer_main(void *arg)
{
	struct ow_ctx *x = arg;
	struct ow_shared *sh = x->sh;
	struct rs_snapshot *s = rs_snapshot_alloc();
	void *buf = malloc(x->data_size);
	struct rs_region region;
	uint32_t i;
	int rc = -ENOMEM;

	if (!s || !buf)
		goto out;
	/* Fault the copy buffer in now, not during the first live copy. */
	memset(buf, 0, x->data_size);
	rc = rs_region_open(&region, x->hr.mem, x->hr.size);
	while (!rc && rs_shared_load(&sh->written) < WARMUP)
		demo_sleep_us(100);
	for (i = 0; !rc && i < NSNAP; i++) {
		if (i == 1)
			demo_sleep_us(20000);
		if (i == NSNAP - 1) {
			/* Stop the writer: the stand-in for pausing vCPUs. */
			rs_shared_store32(&sh->stop, 1);
			while (!rs_shared_load32(&sh->done))
				demo_sleep_us(100);
			sh->snap[i].stable = 1;
		}
		sh->snap[i].producer_at = rs_shared_load(&sh->written);
		rc = take(s, &region, buf, x->data_size, &sh->snap[i]);
	}
	rs_shared_store32(&sh->stop, 1);
out:
	rs_snapshot_free(s);
	free(buf);
	sh->cons_err = rc;
	return rc ? 1 : 0;
}

static int report(const struct ow_shared *sh)
{
	const struct snap_report *r;
	uint32_t i, j;
	int ok = 1, intact;

	printf("  %-4s %-6s %7s %6s %5s %18s %8s %8s  %s\n", "snap", "kind",
	       "records", "bytes", "cut", "oldest_overwritten", "newest",
	       "oldest", "ok");
	for (i = 0; i < NSNAP; i++) {
		r = &sh->snap[i];
		intact = r->stats.records && !r->gaps && !r->bad_checksum &&
			 !r->other && !r->stats.corrupt;
		printf("  %-4u %-6s %7llu %6llu %5llu %18s %8llu %8llu  %s\n",
		       i + 1, r->stable ? "stable" : "live",
		       (unsigned long long)r->stats.records,
		       (unsigned long long)r->stats.bytes,
		       (unsigned long long)r->stats.cut_bytes,
		       r->stats.overwritten ? "yes" : "no",
		       (unsigned long long)r->newest,
		       (unsigned long long)r->oldest, intact ? "yes" : "NO");
		ok &= demo_check("snapshot records newest first, contiguous, "
				 "intact", intact);
		ok &= demo_check("snapshot at least as new as the producer "
				 "when it began",
				 r->newest + 1 >= r->producer_at);
	}
	for (i = 0; i < NSNAP; i++) {
		r = &sh->snap[i];
		printf("\n  snapshot %u, newest first:\n    %10s %5s  %s\n", i + 1,
		       "seq", "size", "checksum");
		for (j = 0; j < r->nshow; j++)
			printf("    %10llu %5u  %s\n",
			       (unsigned long long)r->show[j].seq,
			       r->show[j].size, r->show[j].ok ? "ok" : "BAD");
	}
	printf("\n  producer wrote %llu records; a %u KiB ring keeps the last "
	       "~%llu\n\n", (unsigned long long)sh->last_seq + 1, DATA_PAGES * 4,
	       (unsigned long long)sh->snap[NSNAP - 1].stats.records);
	ok &= demo_check("producer and snapshots ran cleanly",
			 !sh->prod_err && !sh->cons_err);
	ok &= demo_check("second live snapshot newer than the first",
			 sh->snap[1].newest > sh->snap[0].newest);
	ok &= demo_check("stable snapshot: nothing cut, ends at the last "
			 "record", !sh->snap[NSNAP - 1].stats.cut_bytes &&
			 sh->snap[NSNAP - 1].newest == sh->last_seq);
	return ok;
}

int demo_overwrite(const struct demo_env *env)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_pages = DATA_PAGES,
		.data_mode = RS_MODE_OVERWRITE,
		.trace_mask = RS_TRACE_TEST,
	};
	struct ow_ctx x = { .data_size = DATA_PAGES * RS_PAGE_SIZE };
	int rc, ok;

	printf("== overwrite mode: flight recorder, written backward ==\n");
	x.sh = demo_setup(&x.hr, "ringside-demo-overwrite", &params,
			  sizeof(*x.sh));
	if (!x.sh)
		return -1;
	printf("  %u KiB data ring in a memfd; the producer writes without pause "
	       "and never\n  drops.  Snapshots 1 and 2 are live: the writer runs "
	       "during the copy, and\n  what it may have overwritten is cut.  "
	       "Snapshot 3 is taken after it stopped\n  (what pausing the vCPUs "
	       "gives).  newest/oldest are sequence numbers; ok:\n  newest "
	       "first, contiguous, checksums intact.\n", DATA_PAGES * 4);
	rc = demo_pair(env, producer_main, consumer_main, &x,
		       "snapshot taker");
	ok = report(x.sh) && !rc;
	printf("  overwrite mode: %s\n\n", ok ? "PASS" : "FAIL");
	host_shared_free(x.sh, sizeof(*x.sh));
	host_region_destroy(&x.hr);
	return ok ? 0 : 1;
}
