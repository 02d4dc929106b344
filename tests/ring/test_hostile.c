/* SPDX-License-Identifier: MIT */
/*
 * A guest that scribbles over its own region while the host drains and
 * snapshots it.  The region sits between PROT_NONE guard pages, so a read
 * or write outside it faults (and ASan, in the sanitized build, says where).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

/* Not scaled down for ASan: it is the build this test is for. */
static uint64_t scaled(uint64_t n)
{
	return getenv("RS_UNDER_VALGRIND") ? n / 10 : n;
}

/* Parent -> child, in a shared page of its own: records the host has
 * seen, and host rounds done, so that the two overlap however fast each is. */
struct hostile_ctl {
	uint64_t seen;
	uint64_t rounds;
};

static uint64_t ctl_get(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static void ctl_add(uint64_t *v, uint64_t n)
{
	__atomic_fetch_add(v, n, __ATOMIC_RELEASE);
}

/* ---- the guest -------------------------------------------------------- */

/* Addresses are resolved before the scribbling starts: the header they
 * come from is one of the things scribbled over. */
struct guest {
	struct fx_region *f;
	struct hostile_ctl *ctl;
	struct rs_ctrl_page *ctrl;
	uint8_t *data;
	uint8_t *aux;
	uint64_t dsize;
	uint64_t asize;
	struct rs_producer p;
	uint64_t state;
	uint64_t seq;
};

/* No ck_* in the guest: it runs in the child. */
static void legit_output(struct guest *g)
{
	static _Alignas(8) uint8_t rec[RS_RECORD_MAX];
	struct rs_aux_handle h;
	struct rs_handle rh;
	uint8_t aux[300];
	int size = rs_seq_build(rec, g->seq++, 0, 0,
				(uint32_t)(fx_rand(&g->state) % 200));

	if (size > 0 && rs_producer_reserve(&g->p, &rh, (uint32_t)size) == 0) {
		(void)rs_producer_write(&g->p, &rh, rec, (uint32_t)size);
		(void)rs_producer_commit(&g->p, &rh);
	}
	memset(aux, (int)g->seq, sizeof(aux));
	if (rs_aux_begin(&g->p, &h, sizeof(aux)) >= 0) {
		(void)rs_aux_write(&g->p, &h, aux, sizeof(aux));
		(void)rs_aux_end(&g->p, &h, 0);
	}
}

static void put_random(struct guest *g, uint8_t *at, size_t len)
{
	for (size_t i = 0; i < len; i++)
		at[i] = (uint8_t)fx_rand(&g->state);
}

static void scribble_once(struct guest *g)
{
	struct rs_ctrl_page *ctrl = g->ctrl;
	uint64_t dsize = g->dsize, asize = g->asize;
	uint8_t *data = g->data, *aux = g->aux;
	uint64_t r = fx_rand(&g->state), v = fx_rand(&g->state);
	struct rs_perf_header *hdr;

	switch (r % 14) {
	case 0: ctrl->data_head = v; break;
	case 1: ctrl->data_head = ctrl->data_tail + v % (2 * dsize); break;
	case 2: ctrl->data_tail = v; break;
	case 3: ctrl->aux_head = v; break;
	case 4: ctrl->aux_head = ctrl->aux_tail + v % (2 * asize); break;
	case 5: put_random(g, (uint8_t *)ctrl + (r >> 8) % (RS_PAGE_SIZE - 8), 8); break;
	case 6: put_random(g, data + (r >> 8) % (dsize - 64), 1 + v % 64); break;
	case 7:
		/* a header where a walker will look, with a size that may fit */
		hdr = (struct rs_perf_header *)(data + ((r >> 8) % dsize & ~7ull));
		hdr->size = (v & 1) ? (uint16_t)(v >> 8) : (uint16_t)((v >> 8) % 512 & ~7u);
		hdr->type = (uint32_t)(v >> 32) % 80;
		break;
	case 8: put_random(g, g->f->mem + (r >> 8) % (RS_PAGE_SIZE - 16), 1 + v % 16); break;
	case 9: ctrl->ext.write_head = (v & 1) ? v : ctrl->data_head - v % (2 * dsize); break;
	case 10: ctrl->ext.aux_write_limit = (v & 1) ? v : ctrl->aux_head + v % (2 * asize); break;
	case 11: put_random(g, aux + (r >> 8) % (asize - 64), 1 + v % 64); break;
	default: legit_output(g); break;
	}
}

static int guest_run(struct fx_region *f, struct hostile_ctl *ctl,
		     uint64_t iters, int normal)
{
	struct guest g;

	memset(&g, 0, sizeof(g));
	g.f = f;
	g.ctl = ctl;
	g.ctrl = fx_ctrl(f, 0);
	g.data = fx_data(f, 0);
	g.aux = fx_aux(f, 0);
	g.dsize = fx_data_size(f, 0);
	g.asize = fx_aux_size(f, 0);
	g.state = 0x600dcafe;
	if (rs_producer_init(&g.p, &f->region, 0))
		return 1;
	/* first an honest stream, until the host has seen some of it */
	while (ctl_get(&ctl->seen) < 64) {
		legit_output(&g);
		sched_yield();
	}
	for (uint64_t i = 0; i < iters; i++) {
		scribble_once(&g);
		/* a batch per host round */
		while (i % 64 == 63 && ctl_get(&ctl->rounds) < i / 64)
			sched_yield();
	}
	/*
	 * The last scribble is one the host must count however the rounds
	 * fell: an implausible head for a normal ring; for an overwrite ring
	 * (which has no tail to be implausible against) a malformed header
	 * right at data_head, with no writer in flight.
	 */
	g.ctrl->aux_head = g.ctrl->aux_tail - 1 - fx_rand(&g.state) % 4096;
	if (normal) {
		g.ctrl->data_head = g.ctrl->data_tail + (fx_rand(&g.state) | (1ull << 40));
	} else {
		uint64_t head = fx_rand(&g.state) & ~7ull;
		struct rs_perf_header *hdr = (void *)(g.data + head % g.dsize);

		hdr->type = RS_RECORD_SEQ;
		hdr->size = 12;
		g.ctrl->ext.write_head = head;
		g.ctrl->data_head = head;
	}
	return 0;
}

/* ---- the host ----------------------------------------------------------- */

static volatile uint64_t sink;

static int rec_fn(const struct rs_perf_header *rec, void *arg)
{
	uint64_t sum = 0, *count = arg;

	FX_CHECK(rec->size >= sizeof(*rec) && rec->size <= RS_RECORD_MAX &&
		 rec->size % RS_RECORD_ALIGN == 0, "record of size %u", rec->size);
	/* every byte of the copy must be readable */
	for (uint16_t i = 0; i < rec->size; i++)
		sum += ((const uint8_t *)rec)[i];
	sink += sum;
	(*count)++;
	return 0;
}

static int aux_fn(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	const uint64_t *aux_size = arg;
	uint64_t sum = 0;

	(void)pos;
	FX_CHECK(len > 0 && len <= *aux_size, "AUX chunk of %llu bytes",
		 (unsigned long long)len);
	for (uint64_t i = 0; i < len; i += 61)
		sum += ((const uint8_t *)chunk)[i];
	sink += sum + ((const uint8_t *)chunk)[len - 1];
	return 0;
}

struct host {
	struct fx_region *f;
	struct rs_consumer *c;
	struct rs_consumer *c2;
	struct rs_snapshot *s;
	uint8_t *buf;
	uint64_t data_size;     /* from before the guest ran */
	uint64_t aux_size;
	uint64_t records;
	uint64_t snap_corrupt;
	int normal;
};

static void host_round(struct host *h)
{
	const struct rs_perf_header *rec;
	struct rs_aux_snapshot a;
	struct rs_region r2;
	int n;

	if (h->normal) {
		n = rs_consumer_drain(h->c, rec_fn, &h->records);
		ck_assert_int_ge(n, 0);
		ck_assert_int_ge(rs_consumer_drain_aux(h->c, aux_fn, &h->aux_size), 0);
		ck_assert_uint_le(rs_consumer_pending(h->c), h->data_size);
	}
	ck_assert_int_eq(rs_snapshot_take(h->s, &h->f->region, 0, h->buf,
					  h->data_size), 0);
	for (uint64_t k = 0; rs_snapshot_next(h->s, &rec) == 1; k++) {
		uint64_t dummy = 0;

		FX_CHECK(k <= h->data_size / RS_RECORD_ALIGN, "endless snapshot");
		rec_fn(rec, &dummy);
		if (!h->normal)
			h->records++;
	}
	h->snap_corrupt += rs_snapshot_stats(h->s)->corrupt;
	ck_assert_uint_le(rs_snapshot_stats(h->s)->bytes, h->data_size);

	/* -rse_corrupt: an implausible aux_head (not in ring.h's list) */
	n = rs_snapshot_aux(&a, &h->f->region, 0, h->buf, h->aux_size);
	if (n == -rse_corrupt) {
		h->snap_corrupt++;
	} else {
		ck_assert_int_eq(n, 0);
		ck_assert_uint_le(a.len, h->aux_size);
		ck_assert_uint_eq(a.start + a.len, a.head);
		if (a.len)
			sink += h->buf[a.len - 1];
	}

	/* Whatever a scribbled header validates to stays inside the region.
	 * Read-only: a second consumer would steal records from the first. */
	if (rs_region_open(&r2, h->f->mem, h->f->size) == 0) {
		if (rs_consumer_init(h->c2, &r2, 0) == 0)
			(void)rs_consumer_pending(h->c2);
		if (rs_snapshot_take(h->s, &r2, 0, h->buf, h->data_size) == 0)
			while (rs_snapshot_next(h->s, &rec) == 1)
				rec_fn(rec, &(uint64_t){ 0 });
	}
}

START_TEST(hostile_guest)
{
	struct rs_region_params p;
	struct fx_region f;
	struct host h = { 0 };
	struct hostile_ctl *ctl;
	pid_t parent = getpid(), pid;
	int status = 0, done = 0;
	const uint64_t iters = scaled(300000);

	/* _i bit 0: mode; bit 1: which area has guarded padding after it
	 * (the larger area is placed first) */
	fx_params(&p, _i & 2 ? 1 : 2, _i & 2 ? 2 : 1);
	p.data_mode = _i & 1 ? RS_MODE_OVERWRITE : RS_MODE_NORMAL;
	p.aux_mode = _i & 1 ? RS_MODE_OVERWRITE : RS_MODE_NORMAL;
	fx_region_init(&f, &p, FX_GUARD);
	ctl = mmap(NULL, RS_PAGE_SIZE, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ctl, MAP_FAILED);

	h.f = &f;
	h.normal = !(_i & 1);
	h.data_size = fx_data_size(&f, 0);
	h.aux_size = fx_aux_size(&f, 0);
	/* fork before the host allocates: see test_twoproc.c's child_start */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(99);
		_exit(guest_run(&f, ctl, iters, h.normal));
	}
	h.c = rs_consumer_alloc(&f.region, 0);
	h.c2 = rs_consumer_alloc(&f.region, 0);
	h.s = rs_snapshot_alloc();
	h.buf = malloc(h.data_size > h.aux_size ? h.data_size : h.aux_size);
	ck_assert(h.c && h.c2 && h.s && h.buf);
	/* until the guest is gone, then a few more looks at what it left */
	for (int after = 0; after < 3; after += done) {
		uint64_t before = h.records;

		if (!done && waitpid(pid, &status, WNOHANG) == pid)
			done = 1;
		host_round(&h);
		ctl_add(&ctl->seen, h.records - before);
		ctl_add(&ctl->rounds, 1);
		if (!done && h.records == before)
			sched_yield();
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "guest died: status 0x%x", status);
	ck_assert_uint_ge(ctl_get(&ctl->seen), 64);
	ck_assert_uint_ge(ctl_get(&ctl->rounds), iters / 64);
	if (h.normal) {
		const struct rs_cons_stats *st = rs_consumer_stats(h.c);

		ck_assert_uint_gt(st->corrupt, 0);
		ck_assert_uint_gt(st->corrupt_bytes + st->corrupt, 0);
		ck_assert_uint_gt(st->aux_corrupt, 0);
	}
	ck_assert_uint_gt(h.snap_corrupt, 0);
	if (getenv("RS_TEST_VERBOSE"))
		fprintf(stderr, "hostile mode %d: rounds %llu records %llu corrupt %llu/%llu aux %llu snap %llu\n",
			_i, (unsigned long long)ctl->rounds,
			(unsigned long long)h.records,
			(unsigned long long)rs_consumer_stats(h.c)->corrupt,
			(unsigned long long)rs_consumer_stats(h.c)->corrupt_bytes,
			(unsigned long long)rs_consumer_stats(h.c)->aux_corrupt,
			(unsigned long long)h.snap_corrupt);

	free(h.buf);
	rs_snapshot_free(h.s);
	rs_consumer_free(h.c2);
	rs_consumer_free(h.c);
	munmap(ctl, RS_PAGE_SIZE);
	fx_region_fini(&f);
}
END_TEST

/* 1 if the kernel can read the byte at @p (write(2) answers EFAULT on a
 * guard: no signal, nothing for valgrind to report). */
static int readable(int fd, const uint8_t *p)
{
	errno = 0;
	if (write(fd, p, 1) == 1)
		return 1;
	ck_assert_int_eq(errno, EFAULT);
	return 0;
}

START_TEST(hostile_guard_pages)
{
	struct rs_region_params p;
	struct fx_region f;
	const uint8_t *data;
	int fds[2];

	/* The guards this suite relies on are there: both sides of the
	 * region, and the padding after the data area (data 1 page, aux 2
	 * pages: aux first, then data, then padding). */
	fx_params(&p, 1, 2);
	fx_region_init(&f, &p, FX_GUARD);
	data = fx_data(&f, 0);
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert(readable(fds[1], f.mem));
	ck_assert(readable(fds[1], data + fx_data_size(&f, 0) - 1));
	/* valgrind reports the probes themselves (and any stray access) */
	if (!getenv("RS_UNDER_VALGRIND")) {
		ck_assert(!readable(fds[1], data + fx_data_size(&f, 0)));
		ck_assert(!readable(fds[1], f.mem - 1));
		ck_assert(!readable(fds[1], f.mem + f.size));
	}
	close(fds[0]);
	close(fds[1]);
	fx_region_fini(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = fx_tcase(s, "hostile");

	tcase_add_loop_test(tc, hostile_guest, 0, 4);
	tcase_add_test(tc, hostile_guard_pages);
	return fx_run(s);
}
