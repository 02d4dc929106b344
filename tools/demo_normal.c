/* SPDX-License-Identifier: MIT */
/*
 * Normal mode: a forward ring with a consumer-owned tail.  The producer
 * writes RS_RECORD_SEQ bursts and a few AUX outputs; the consumer wakes on
 * an eventfd doorbell (standing in for KVM_IOEVENTFD) and stalls once, so
 * the ring overruns and the drop accounting can be checked end to end.
 *
 * Phases, so the AUX checks are exact:
 *   1  producer: three AUX outputs into an empty AUX area, the third larger
 *      than what is left (TRUNCATED); then the consumer starts
 *   -  SEQ bursts for BURST_MS; the consumer stalls STALL_MS once
 *   2  producer: flushed the LOST count, waits until the consumer drained
 *   3  producer: two more AUX outputs, then done
 */
#include "demo.h"
#include "host_util.h"
#include "ringside/shared.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define DATA_PAGES  4u
#define AUX_PAGES   4u
#define BURST       24u
#define BURST_MS    400u
#define STALL_AT_MS 100u
#define STALL_MS    30u
#define MAX_AUX     8u

/* A decoded record kept for the report. */
struct seen {
	uint32_t type;
	uint32_t size;
	uint64_t seq;        /* SEQ; LOST: the count */
	uint32_t producer;
	int ok;              /* rs_seq_check */
};

enum { SEEN_FIRST, SEEN_BEFORE, SEEN_LOST, SEEN_AFTER, SEEN_LAST, SEEN_N };

struct normal_shared {
	_Alignas(64) uint32_t phase;
	_Alignas(64) uint32_t ack;
	_Alignas(64) uint32_t done;
	_Alignas(64) struct {
		uint64_t seq_attempted;
		uint64_t seq_dropped;      /* -rse_no_space */
		uint64_t lost_total;       /* rs_producer_lost */
		uint64_t aux_outputs;
		uint64_t aux_written;
		uint64_t aux_truncated;    /* outputs that did not fit */
		uint64_t doorbells;        /* commit / aux_end returned 1 */
		int err;
	} prod;
	_Alignas(64) struct {
		uint64_t seq_delivered;
		uint64_t seq_gaps;
		uint64_t seq_backwards;
		uint64_t bad_checksum;
		uint64_t other;
		uint64_t doorbells;        /* eventfd counts read */
		uint64_t aux_bad_bytes;    /* AUX bytes not matching the pattern */
		struct rs_cons_stats stats;
		struct rs_ring_state state;  /* control page at the end */
		struct seen seen[SEEN_N];
		struct rs_perf_aux aux[MAX_AUX];
		uint32_t naux;
		uint32_t stall_ms;
		int err;
	} cons;
};

struct normal_ctx {
	struct host_region hr;
	struct normal_shared *sh;
	int efd;
};

/* The AUX byte at AUX position @pos; the consumer checks it. */
static uint8_t aux_byte(uint64_t pos)
{
	return (uint8_t)(pos * 31 + (pos >> 9));
}

static void ring_doorbell(struct normal_ctx *x)
{
	uint64_t one = 1;

	x->sh->prod.doorbells++;
	if (write(x->efd, &one, sizeof(one)) != sizeof(one))
		x->sh->prod.err = -EIO;
}

static int aux_output(struct normal_ctx *x, struct rs_producer *p,
		      uint64_t *aux_pos, uint32_t len)
{
	uint8_t buf[8192];
	struct rs_aux_handle h;
	int64_t room, n;
	uint32_t i;
	int rc;

	if (len > sizeof(buf))
		return -EINVAL;
	room = rs_aux_begin(p, &h, len);
	if (room < 0)
		return (int)room;
	for (i = 0; i < len; i++)
		buf[i] = aux_byte(*aux_pos + i);
	n = rs_aux_write(p, &h, buf, len);
	if (n < 0)
		return (int)n;
	*aux_pos += (uint64_t)n;
	x->sh->prod.aux_outputs++;
	x->sh->prod.aux_written += (uint64_t)n;
	if ((uint64_t)n < len)
		x->sh->prod.aux_truncated++;
	rc = rs_aux_end(p, &h, 0);
	if (rc > 0)
		ring_doorbell(x);
	return rc < 0 ? rc : 0;
}

static int seq_output(struct normal_ctx *x, struct rs_producer *p, uint64_t seq)
{
	_Alignas(8) uint8_t buf[512];
	struct rs_handle h;
	int size, rc;

	/* 40 .. 256 bytes, varied so records straddle the wrap. */
	size = rs_seq_build(buf, seq, host_now_ns(), 0, (uint32_t)(seq * 37 % 217));
	if (size < 0)
		return size;
	x->sh->prod.seq_attempted++;
	rc = rs_producer_reserve(p, &h, (uint32_t)size);
	if (rc == -rse_no_space) {
		x->sh->prod.seq_dropped++;
		return 0;
	}
	if (rc < 0)
		return rc;
	rc = rs_producer_write(p, &h, buf, (uint32_t)size);
	if (rc < 0)
		return rc;
	rc = rs_producer_commit(p, &h);
	if (rc > 0)
		ring_doorbell(x);
	return rc < 0 ? rc : 0;
}

static int producer_main(void *arg)
{
	struct normal_ctx *x = arg;
	struct normal_shared *sh = x->sh;
	struct rs_region region;
	struct rs_producer p;
	uint64_t seq = 0, aux_pos = 0, end;
	uint32_t i;
	int rc;

	rc = rs_region_open(&region, x->hr.mem, x->hr.size);
	if (!rc)
		rc = rs_producer_init(&p, &region, 0);
	/* 6 + 6 KiB fill 12 of 16 KiB; the third output gets 4 of 8 KiB. */
	if (!rc)
		rc = aux_output(x, &p, &aux_pos, 6144);
	if (!rc)
		rc = aux_output(x, &p, &aux_pos, 6144);
	if (!rc)
		rc = aux_output(x, &p, &aux_pos, 8192);
	rs_shared_store32(&sh->phase, 1);

	end = host_now_ns() + BURST_MS * 1000000ull;
	while (!rc && host_now_ns() < end) {
		for (i = 0; i < BURST && !rc; i++)
			rc = seq_output(x, &p, seq++);
		demo_sleep_us(200);
	}
	/* The count of the last drops must reach the consumer too. */
	if (!rc) {
		while ((rc = rs_producer_flush_lost(&p)) == -rse_no_space)
			demo_sleep_us(100);
		if (rc == 2)
			ring_doorbell(x);
		if (rc > 0)
			rc = 0;
	}
	rs_shared_store32(&sh->phase, 2);
	while (rs_shared_load32(&sh->ack) < 2)
		demo_sleep_us(100);
	if (!rc)
		rc = aux_output(x, &p, &aux_pos, 2048);
	if (!rc)
		rc = aux_output(x, &p, &aux_pos, 2048);
	sh->prod.lost_total = rs_producer_lost(&p);
	if (!sh->prod.err)
		sh->prod.err = rc;
	rs_shared_store32(&sh->done, 1);
	return sh->prod.err ? 1 : 0;
}

static void keep(struct seen *s, const struct rs_perf_header *h, uint64_t value)
{
	const struct rs_rec_seq *r = (const struct rs_rec_seq *)h;

	s->type = h->type;
	s->size = h->size;
	s->seq = value;
	s->producer = h->type == RS_RECORD_SEQ ? r->producer : 0;
	s->ok = h->type == RS_RECORD_SEQ ? rs_seq_check(h) : 1;
}

/* @h is the consumer's private copy; the union of fields read here is
 * bounded by the size checks the consumer did (min size per type). */
static int on_record(const struct rs_perf_header *h, void *arg)
{
	struct normal_shared *sh = arg;
	struct seen *seen = sh->cons.seen;
	const struct rs_rec_seq *r = (const struct rs_rec_seq *)h;

	if (h->type == RS_RECORD_SEQ) {
		if (!rs_seq_check(h))
			sh->cons.bad_checksum++;
		if (r->seq < sh->cons.seq_delivered + sh->cons.seq_gaps)
			sh->cons.seq_backwards++;
		else
			sh->cons.seq_gaps += r->seq -
				(sh->cons.seq_delivered + sh->cons.seq_gaps);
		if (!sh->cons.seq_delivered)
			keep(&seen[SEEN_FIRST], h, r->seq);
		if (!seen[SEEN_LOST].type)
			keep(&seen[SEEN_BEFORE], h, r->seq);
		else if (!seen[SEEN_AFTER].type)
			keep(&seen[SEEN_AFTER], h, r->seq);
		keep(&seen[SEEN_LAST], h, r->seq);
		sh->cons.seq_delivered++;
	} else if (h->type == RS_PERF_RECORD_LOST) {
		if (!seen[SEEN_LOST].type)
			keep(&seen[SEEN_LOST], h,
			     ((const struct rs_perf_lost *)h)->lost);
	} else if (h->type == RS_PERF_RECORD_AUX) {
		if (sh->cons.naux < MAX_AUX)
			memcpy(&sh->cons.aux[sh->cons.naux++], h,
			       sizeof(struct rs_perf_aux));
	} else {
		sh->cons.other++;
	}
	return 0;
}

/* AUX chunks point into the shared area: copy, then check. */
static int on_aux(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	struct normal_shared *sh = arg;
	uint8_t buf[4096];
	uint64_t off, n, i;

	for (off = 0; off < len; off += n) {
		n = len - off < sizeof(buf) ? len - off : sizeof(buf);
		memcpy(buf, (const uint8_t *)chunk + off, n);
		for (i = 0; i < n; i++)
			if (buf[i] != aux_byte(pos + off + i))
				sh->cons.aux_bad_bytes++;
	}
	return 0;
}

/* Drain data and AUX until both are empty. */
static int drain_all(struct rs_consumer *c, struct normal_shared *sh)
{
	int n, more;
	int64_t a;

	do {
		n = rs_consumer_drain(c, on_record, sh);
		a = rs_consumer_drain_aux(c, on_aux, sh);
		if (n < 0 || a < 0)
			return n < 0 ? n : (int)a;
		more = n > 0 || a > 0;
	} while (more);
	return 0;
}

static void read_doorbells(struct normal_ctx *x)
{
	uint64_t v;

	while (read(x->efd, &v, sizeof(v)) == sizeof(v))
		x->sh->cons.doorbells += v;
}

static int consumer_main(void *arg)
{
	struct normal_ctx *x = arg;
	struct normal_shared *sh = x->sh;
	struct pollfd pfd = { .fd = x->efd, .events = POLLIN };
	struct rs_consumer *c = NULL;
	struct rs_region region;
	struct rs_ring ring;
	uint64_t start, now;
	int rc = rs_region_open(&region, x->hr.mem, x->hr.size);

	if (!rc && !(c = rs_consumer_alloc(&region, 0)))
		rc = -ENOMEM;
	while (!rc && rs_shared_load32(&sh->phase) < 1)
		demo_sleep_us(100);
	start = host_now_ns();
	while (!rc) {
		/* Wake on a doorbell, or every 2 ms regardless. */
		if (poll(&pfd, 1, 2) > 0)
			read_doorbells(x);
		rc = drain_all(c, sh);
		now = host_now_ns();
		if (!sh->cons.stall_ms && now - start > STALL_AT_MS * 1000000ull) {
			/* A host consumer that falls behind. */
			demo_sleep_us(STALL_MS * 1000u);
			sh->cons.stall_ms = STALL_MS;
		}
		if (rs_shared_load32(&sh->phase) == 2 &&
		    rs_shared_load32(&sh->ack) < 2) {
			rc = drain_all(c, sh);
			rs_shared_store32(&sh->ack, 2);
		}
		if (rs_shared_load32(&sh->done)) {
			rc = rc ? rc : drain_all(c, sh);
			read_doorbells(x);
			break;
		}
	}
	if (c)
		sh->cons.stats = *rs_consumer_stats(c);
	if (!rc && !rs_region_ring(&region, 0, &ring))
		rc = rs_ring_state_read(&ring, &sh->cons.state);
	rs_consumer_free(c);
	sh->cons.err = rc;
	return rc ? 1 : 0;
}

static const char *type_name(uint32_t type)
{
	switch (type) {
	case RS_RECORD_SEQ:
		return "SEQ";
	case RS_PERF_RECORD_LOST:
		return "LOST";
	case RS_PERF_RECORD_AUX:
		return "AUX";
	default:
		return "?";
	}
}

static void aux_flags(uint64_t flags, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", flags ? "" : "-",
		 flags & RS_PERF_AUX_FLAG_TRUNCATED ? "TRUNCATED" : "",
		 flags & RS_PERF_AUX_FLAG_PARTIAL ? " PARTIAL" : "");
}

static int report(const struct normal_shared *sh)
{
	static const char *const where[SEEN_N] = {
		"first", "before overrun", "overrun", "after overrun", "last",
	};
	const struct rs_cons_stats *st = &sh->cons.stats;
	uint64_t produced = sh->prod.seq_attempted;
	/* records dropped after the last one delivered leave no gap before
	 * a later record: they are the sequence numbers never reached */
	uint64_t reached = sh->cons.seq_delivered + sh->cons.seq_gaps;
	uint64_t tail = produced > reached ? produced - reached : 0;
	uint64_t gaps = sh->cons.seq_gaps + tail;
	char flags[40];
	uint32_t i;
	int ok = 1;

	printf("  records produced   %10llu  RS_RECORD_SEQ, 40..256 bytes\n",
	       (unsigned long long)produced);
	printf("  records delivered  %10llu\n",
	       (unsigned long long)sh->cons.seq_delivered);
	printf("  records lost       %10llu  from %llu LOST record(s); "
	       "producer dropped %llu\n", (unsigned long long)st->lost,
	       (unsigned long long)st->lost_records,
	       (unsigned long long)sh->prod.seq_dropped);
	printf("  delivered + lost   %10llu  %s produced\n",
	       (unsigned long long)(sh->cons.seq_delivered + st->lost),
	       sh->cons.seq_delivered + st->lost == produced ? "==" : "!=");
	printf("  sequence gaps      %10llu  %s lost (%llu after the last "
	       "record delivered)\n", (unsigned long long)gaps,
	       gaps == st->lost ? "==" : "!=", (unsigned long long)tail);
	printf("  bad checksums      %10llu\n  corrupt            %10llu\n",
	       (unsigned long long)sh->cons.bad_checksum,
	       (unsigned long long)st->corrupt);
	printf("  AUX records        %10llu  of %llu outputs\n",
	       (unsigned long long)st->aux_records,
	       (unsigned long long)sh->prod.aux_outputs);
	printf("  AUX bytes          %10llu  of %llu written, %llu bad\n",
	       (unsigned long long)st->aux_bytes,
	       (unsigned long long)sh->prod.aux_written,
	       (unsigned long long)sh->cons.aux_bad_bytes);
	printf("  AUX truncated      %10llu  producer saw %llu\n",
	       (unsigned long long)st->aux_truncated,
	       (unsigned long long)sh->prod.aux_truncated);
	printf("  doorbells asked    %10llu  received %llu (eventfd)\n",
	       (unsigned long long)sh->prod.doorbells,
	       (unsigned long long)sh->cons.doorbells);
	printf("  control page       data_head %llu, data_tail %llu\n"
	       "  guest's hints      %llu committed, %llu lost, %llu data "
	       "doorbells,\n                     %llu AUX truncated\n",
	       (unsigned long long)sh->cons.state.data_head,
	       (unsigned long long)sh->cons.state.data_tail,
	       (unsigned long long)sh->cons.state.produced,
	       (unsigned long long)sh->cons.state.lost,
	       (unsigned long long)sh->cons.state.doorbells,
	       (unsigned long long)sh->cons.state.aux_truncated);

	printf("\n  records (decoded from the consumer's copies):\n");
	printf("    %-15s %-5s %5s %10s %9s  %s\n", "where", "type", "size",
	       "seq", "producer", "checksum");
	for (i = 0; i < SEEN_N; i++) {
		const struct seen *s = &sh->cons.seen[i];

		if (!s->type)
			printf("    %-15s (none)\n", where[i]);
		else if (s->type == RS_PERF_RECORD_LOST)
			printf("    %-15s %-5s %5u %10s %9s  lost=%llu\n", where[i],
			       type_name(s->type), s->size, "-", "-",
			       (unsigned long long)s->seq);
		else
			printf("    %-15s %-5s %5u %10llu %9u  %s\n", where[i],
			       type_name(s->type), s->size,
			       (unsigned long long)s->seq, s->producer,
			       s->ok ? "ok" : "BAD");
	}
	printf("\n  AUX records:\n    %10s %9s  %s\n", "aux_offset", "aux_size",
	       "flags");
	for (i = 0; i < sh->cons.naux; i++) {
		aux_flags(sh->cons.aux[i].flags, flags, sizeof(flags));
		printf("    %10llu %9llu  %s\n",
		       (unsigned long long)sh->cons.aux[i].aux_offset,
		       (unsigned long long)sh->cons.aux[i].aux_size, flags);
	}
	printf("\n");

	ok &= demo_check("producer and consumer ran cleanly",
			 !sh->prod.err && !sh->cons.err);
	ok &= demo_check("the ring overran at least once", st->lost > 0);
	ok &= demo_check("delivered + lost == produced",
			 sh->cons.seq_delivered + st->lost == produced);
	ok &= demo_check("lost == producer's drops == sequence gaps",
			 st->lost == sh->prod.seq_dropped &&
			 st->lost == sh->prod.lost_total &&
			 gaps == st->lost &&
			 !sh->cons.seq_backwards);
	ok &= demo_check("every record intact",
			 !sh->cons.bad_checksum && !st->corrupt &&
			 !sh->cons.other);
	ok &= demo_check("every AUX output delivered, bytes intact",
			 st->aux_records == sh->prod.aux_outputs &&
			 st->aux_bytes == sh->prod.aux_written &&
			 !sh->cons.aux_bad_bytes && !st->aux_corrupt);
	ok &= demo_check("TRUNCATED seen as produced",
			 st->aux_truncated == sh->prod.aux_truncated &&
			 st->aux_truncated > 0);
	ok &= demo_check("every doorbell asked for arrived",
			 sh->prod.doorbells == sh->cons.doorbells &&
			 sh->prod.doorbells > 0);
	return ok;
}

int demo_normal(const struct demo_env *env)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_pages = DATA_PAGES,
		.aux_pages = AUX_PAGES,
		.data_mode = RS_MODE_NORMAL,
		.aux_mode = RS_MODE_NORMAL,
		.data_watermark = 4096,
		.aux_watermark = 8192,
		.trace_mask = RS_TRACE_TEST | RS_TRACE_AUX,
	};
	struct normal_ctx x = { .efd = -1 };
	int rc, ok;

	printf("== normal mode: forward ring, the consumer owns the tail ==\n");
	x.sh = demo_setup(&x.hr, "ringside-demo-normal", &params,
			  sizeof(*x.sh));
	if (!x.sh)
		return -1;
	x.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (x.efd < 0) {
		printf("  setup: %s\n", strerror(errno));
		rc = -1;
		goto out;
	}
	printf("  %u KiB data + %u KiB AUX ring in a memfd.  The producer writes "
	       "bursts of %u\n  records for %u ms; the consumer waits on an "
	       "eventfd doorbell and stalls\n  once for %u ms to force an "
	       "overrun.\n", DATA_PAGES * 4, AUX_PAGES * 4, BURST, BURST_MS,
	       STALL_MS);
	rc = demo_pair(env, producer_main, consumer_main, &x, "consumer");
	ok = report(x.sh) && !rc;
	printf("  normal mode: %s\n\n", ok ? "PASS" : "FAIL");
	rc = ok ? 0 : 1;
out:
	if (x.efd >= 0)
		close(x.efd);
	host_shared_free(x.sh, sizeof(*x.sh));
	host_region_destroy(&x.hr);
	return rc;
}
