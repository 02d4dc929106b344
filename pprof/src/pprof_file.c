/* SPDX-License-Identifier: MIT */
/* A ringside perf.data file as a pprof profile: its records in file order
 * (COMM and MMAP2 records keep each thread's name and each process's
 * mappings up to date; each guest sample becomes one profile sample),
 * then the profile encoded, gzipped, written aside and renamed. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "ringside/io.h"

#include "pprof_int.h"

#define MAX_MAPS  65536u          /* user mappings kept, all processes */
#define MAX_BINS  4096u           /* distinct mapped files */
#define MAX_COMMS 65536u          /* threads named */
#define NAME_MAX_BYTES 512u       /* of a string taken from the guest */
/* Keeping the mappings sorted moves entries: a file may move up to
 * MOVES_FIRST, plus MOVES_PER_RECORD for each record read, so that a
 * hostile order of MMAP2 records costs time in proportion to the file
 * (what is over is dropped and counted). */
#define MOVES_FIRST      (1ull << 24)
#define MOVES_PER_RECORD 64u

/* What is kept of a mapped file: its name (printable, as the guest's
 * MMAP2 said) and build id are in conv.maps.files, by the same index. */
struct bin {
	int state;                /* 0 not tried, 1 loaded, -1 none */
	struct pprof_uelf *elf;
};

struct comm {
	uint32_t tid;             /* + 1; 0: an empty slot */
	uint32_t pid;
	char name[64];
};

/* A host preemption of a vCPU thread: when it ran again, how long. */
struct steal {
	uint32_t lane;
	uint32_t reserved;
	uint64_t end, ns;
};

#define AFTER_STEAL_NS 10000000ull  /* the window without an interval */

struct conv {
	const struct pprof_params *params;
	const char *dir;          /* the build-id cache (NULL: none) */
	char domain[NAME_MAX_BYTES]; /* params->domain, cleaned */
	struct pprof *p;
	struct pprof_stats *st;
	struct pdf_ksyms *ksyms;
	int64_t kmap;             /* the kernel's mapping */
	struct bin *bins;
	/* each mapping's file a bin, its mapping the profile's (0: not
	 * made yet) */
	struct pdf_umaps maps;
	struct comm *comms;       /* open addressing by tid, MAX_COMMS * 2 */
	uint32_t nr_comms;
	uint64_t frames[PPROF_MAX_FRAMES];
	uint64_t locs[PPROF_MAX_FRAMES];
	struct steal *steals;     /* by lane, then end */
	uint32_t nr_steals;
};

/* A guest's string as the profile takes it: printable ASCII (other bytes
 * '?', so that it is valid UTF-8 for every reader), at most @size - 1. */
static void clean(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] <= 0x7e ? src[i] : '?';
	dst[i] = 0;
}

/* ---- threads' names ------------------------------------------------------ */

static struct comm *comm_slot(struct conv *c, uint32_t tid)
{
	uint32_t at = (uint32_t)((tid * 0x9e3779b1u) % (MAX_COMMS * 2)), n;

	for (n = 0; n < MAX_COMMS * 2; n++, at = (at + 1) % (MAX_COMMS * 2))
		if (!c->comms[at].tid || c->comms[at].tid == tid + 1)
			return &c->comms[at];
	return NULL;
}

static void add_comm(struct conv *c, const struct rs_perf_header *rec)
{
	struct rs_perf_comm_body b;
	struct comm *e;

	memcpy(&b, rec + 1, sizeof(b));
	if (b.tid == UINT32_MAX)
		return;
	e = comm_slot(c, b.tid);
	if (!e || (!e->tid && c->nr_comms == MAX_COMMS)) {
		c->st->comms_dropped++;
		return;
	}
	if (!e->tid)
		c->nr_comms++;
	e->tid = b.tid + 1;
	e->pid = b.pid;
	/* classified COMM: NUL-terminated inside the record */
	clean(e->name, sizeof(e->name),
	      (const char *)(rec + 1) + sizeof(struct rs_perf_comm_body));
}

/* The thread's name, else its process's main thread's. */
static const char *comm_of(struct conv *c, uint32_t pid, uint32_t tid)
{
	struct comm *e = tid == UINT32_MAX ? NULL : comm_slot(c, tid);

	if (e && e->tid)
		return e->name;
	e = pid == UINT32_MAX ? NULL : comm_slot(c, pid);
	return e && e->tid && e->pid == pid ? e->name : NULL;
}

/* ---- processes' mappings ------------------------------------------------- */

/* The bin of mapped file @name (cleaned) of @m, added when new. */
static int bin_of(struct conv *c, const char *name, const struct rs_perf_mmap2_body *m,
		  uint16_t misc, uint32_t *idx)
{
	char clean_name[NAME_MAX_BYTES];

	clean(clean_name, sizeof(clean_name), name);
	return pdf_umaps_file(&c->maps, clean_name, m, misc, idx);
}

/* A newer mapping takes the place of those it overlaps, as in the
 * process. */
static void add_map(struct conv *c, const struct rs_perf_header *rec)
{
	struct rs_perf_mmap2_body m;
	const char *name = pdf_umaps_mmap2(rec, &m);
	uint32_t bin;

	if (name && (bin_of(c, name, &m, rec->misc, &bin) ||
		     pdf_umaps_add(&c->maps, &m, bin)))
		c->st->maps_dropped++;
}

/* ---- frames -------------------------------------------------------------- */

static int64_t kernel_location(struct conv *c, uint64_t addr)
{
	struct pdf_ksym sym;
	char module[PDF_KSYMS_MODULE_MAX + 3];
	int64_t fn = 0;

	c->st->kernel_frames++;
	if (c->ksyms && pdf_ksyms_find(c->ksyms, addr, &sym) == 1) {
		if (sym.module)
			snprintf(module, sizeof(module), "[%s]", sym.module);
		/* kallsyms names are checked printable, no brackets */
		fn = pprof_profile_function(c->p, sym.name, sym.module ? module :
				    "[kernel.kallsyms]");
		if (fn < 0)
			return fn;
	} else {
		c->st->kernel_unnamed++;
	}
	return pprof_profile_location(c->p, (uint64_t)c->kmap, addr, (uint64_t)fn);
}

static const char *user_name(struct conv *c, struct bin *b,
			     const struct pdf_ufile *f, uint64_t off)
{
	if (!b->state) {
		b->state = pprof_uelf_load(&b->elf, c->dir, f->id, f->id_len) ? -1 : 1;
		if (b->state > 0)
			c->st->ubins++;
		else
			c->st->ubins_missing++;
	}
	return b->state > 0 ? pprof_uelf_find(b->elf, off) : NULL;
}

static int64_t user_location(struct conv *c, uint32_t pid, uint64_t addr)
{
	char hex[2 * PDF_BUILD_ID_SIZE + 1], name[NAME_MAX_BYTES];
	struct pdf_umap *m = pdf_umaps_find(&c->maps, pid, addr);
	const struct pdf_ufile *f;
	const char *sym;
	struct bin *b;
	int64_t fn = 0;

	c->st->user_frames++;
	if (!m) {
		c->st->user_unmapped++;
		return pprof_profile_location(c->p, 0, addr, 0);
	}
	b = &c->bins[m->file];
	f = &c->maps.files.files[m->file];
	sym = user_name(c, b, f, addr - m->start + m->pgoff);
	if (!m->mapping) {
		pprof_names_hex(hex, f->id, f->id_len);
		/* named here, or left to pprof's own symbolization, which
		 * takes a local file only with the same build id: without
		 * one, none (a host file of the guest's path is no guest
		 * binary) */
		m->mapping = pprof_profile_mapping(c->p, m->start, m->end, m->pgoff,
					   f->name, f->id_len ? hex : NULL,
					   b->state > 0 || !f->id_len);
		if (m->mapping < 0) {
			int64_t err = m->mapping;

			m->mapping = 0;
			return err;
		}
	}
	if (sym) {
		clean(name, sizeof(name), sym);
		fn = pprof_profile_function(c->p, name, f->name);
		if (fn < 0)
			return fn;
	} else {
		c->st->user_unnamed++;
	}
	return pprof_profile_location(c->p, (uint64_t)m->mapping, addr, (uint64_t)fn);
}

/* ---- samples ------------------------------------------------------------- */

/* The preemption of @lane's thread that ended last at or before @t and
 * within the window, or NULL. */
static const struct steal *steal_before(const struct conv *c, uint32_t lane,
					uint64_t t)
{
	uint64_t win = c->params->interval_ns ? c->params->interval_ns :
						AFTER_STEAL_NS;
	uint32_t lo = 0, hi = c->nr_steals;
	const struct steal *s;

	while (lo < hi) {      /* the first past (lane, t) */
		uint32_t mid = lo + (hi - lo) / 2;

		s = &c->steals[mid];
		if (s->lane < lane || (s->lane == lane && s->end <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &c->steals[lo - 1];
	return s->lane == lane && t - s->end <= win ? s : NULL;
}

static int add_sample(struct conv *c, uint32_t ring, uint64_t time,
		      const struct rs_perf_header *rec, uint64_t type)
{
	const struct steal *after;
	char steal_ms[24];
	struct pprof_label lab[PPROF_MAX_LABELS];
	struct pdf_sample s;
	const char *comm;
	char num[3][12];
	int64_t values[2];
	size_t nr = 0, nl = 0, i;
	int first = 1, err;
	uint64_t k;

	if (pdf_sample_parse(type, rec + 1, rec->size - sizeof(*rec), &s)) {
		c->st->bad_samples++;
		return 0;
	}
	if (type & PERF_SAMPLE_IP)
		c->frames[nr++] = s.ip;
	for (k = 0; k < s.callchain_nr; k++) {
		uint64_t a;

		memcpy(&a, (const uint8_t *)s.callchain + k * 8, 8);
		if (a >= (uint64_t)PERF_CONTEXT_MAX)
			continue;       /* a context marker */
		/* the chain's first frame is the sample's ip: once */
		if (first && (type & PERF_SAMPLE_IP) && a == s.ip) {
			first = 0;
			continue;
		}
		first = 0;
		if (nr == PPROF_MAX_FRAMES) {
			c->st->frames_cut++;
			continue;
		}
		c->frames[nr++] = a;
	}
	for (i = 0; i < nr; i++) {
		int64_t loc = c->frames[i] >= PDF_KSYMS_MIN_ADDR ?
			      kernel_location(c, c->frames[i]) :
			      user_location(c, s.pid, c->frames[i]);

		if (loc < 0)
			return (int)loc;
		c->locs[i] = (uint64_t)loc;
	}
	c->st->frames += nr;
	values[0] = 1;
	values[1] = (type & PERF_SAMPLE_PERIOD) && s.period ?
		    (int64_t)(s.period & INT64_MAX) :
		    (int64_t)(c->params->interval_ns & INT64_MAX);
	/* strings all: pprof drops a number label of 0 (vCPU 0, pid 0),
	 * and Pyroscope keeps string labels alone */
	if (c->params->domain)
		lab[nl++] = (struct pprof_label){ .key = "domain",
						  .str = c->domain };
	snprintf(num[0], sizeof(num[0]), "%" PRIu32, ring);
	lab[nl++] = (struct pprof_label){ .key = "vcpu", .str = num[0] };
	if (type & PERF_SAMPLE_TID) {
		snprintf(num[1], sizeof(num[1]), "%" PRIu32, s.pid);
		snprintf(num[2], sizeof(num[2]), "%" PRIu32, s.tid);
		lab[nl++] = (struct pprof_label){ .key = "pid", .str = num[1] };
		lab[nl++] = (struct pprof_label){ .key = "tid", .str = num[2] };
		comm = comm_of(c, s.pid, s.tid);
		if (comm)
			lab[nl++] = (struct pprof_label){ .key = "comm", .str = comm };
	}
	after = steal_before(c, ring, time);
	if (after) {
		snprintf(steal_ms, sizeof(steal_ms), "%" PRIu64,
			 after->ns / 1000000u);
		lab[nl++] = (struct pprof_label){ .key = "after_steal_ms",
						  .str = steal_ms };
		c->st->after_steal++;
	}
	err = pprof_profile_sample(c->p, c->locs, nr, values, 2, lab, nl);
	if (err)
		return err;
	c->st->samples++;
	return 0;
}

/* ---- the whole file ------------------------------------------------------ */

static int walk(struct conv *c, struct pdf_reader *r)
{
	uint64_t type = pdf_reader_info(r)->sample_type;
	struct pdf_event ev;
	int n, err;

	while ((n = pdf_reader_next(r, &ev)) == 1) {
		if (c->maps.moves < MOVES_FIRST * 64)
			c->maps.moves += MOVES_PER_RECORD;
		switch (pdf_rrec_classify(ev.rec, type)) {
		case PDF_RREC_COMM:
			add_comm(c, ev.rec);
			break;
		case PDF_RREC_MMAP2:
			add_map(c, ev.rec);
			break;
		case PDF_RREC_SAMPLE:
			err = add_sample(c, ev.ring, ev.time, ev.rec, type);
			if (err)
				return err;
			break;
		default:
			break;
		}
	}
	return n;
}

static int steal_cmp(const void *a, const void *b)
{
	const struct steal *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The host's preemptions of the vCPU threads in @path, a walk of their
 * own: the file holds them after the guest's records of the same
 * moments.  0 (a file without them, or one that reads badly: what was
 * read), -ENOMEM. */
static int read_steals(struct conv *c, const char *path)
{
	uint64_t out[RS_MAX_RINGS] = { 0 };
	struct pdf_reader *r;
	struct pdf_event ev;

	if (pdf_reader_open(&r, path))
		return 0;
	if (!pdf_reader_has_host(r)) {
		pdf_reader_close(r);
		return 0;
	}
	pdf_reader_want_host(r, 1);
	c->steals = calloc(PPROF_MAX_STEALS, sizeof(*c->steals));
	while (c->steals && pdf_reader_next(r, &ev) == 1) {
		if (!ev.host || ev.rec->type != PERF_RECORD_SWITCH)
			continue;
		if (ev.rec->misc & PERF_RECORD_MISC_SWITCH_OUT) {
			/* 0: not preempted (blocked, stopped) */
			out[ev.ring] = ev.rec->misc &
				       PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ?
				       ev.time + 1 : 0;
			continue;
		}
		if (out[ev.ring] && ev.time + 1 >= out[ev.ring] &&
		    ev.time + 1 - out[ev.ring] >= PPROF_STEAL_MIN_NS) {
			if (c->nr_steals == PPROF_MAX_STEALS) {
				c->st->steals_dropped++;
			} else {
				c->steals[c->nr_steals++] = (struct steal){
					.lane = ev.ring, .end = ev.time,
					.ns = ev.time + 1 - out[ev.ring] };
				c->st->steals++;
			}
		}
		out[ev.ring] = 0;
	}
	pdf_reader_close(r);
	if (!c->steals)
		return -ENOMEM;
	qsort(c->steals, c->nr_steals, sizeof(*c->steals), steal_cmp);
	return 0;
}

/* Start (UTC) and duration: the file's first and last times, in host
 * CLOCK_MONOTONIC when it says so, put on the wall clock by the pair
 * HEADER_CLOCK_DATA read together. */
static void set_time(struct pprof *p, const struct pdf_info *in)
{
	int64_t start = 0, dur = 0;

	if (!in->have_time || in->last_time < in->first_time)
		return;
	dur = (int64_t)((in->last_time - in->first_time) & INT64_MAX);
	if (in->have_clock_data && in->clockid == CLOCK_MONOTONIC &&
	    in->clock.wall_ns && in->first_time)
		start = (int64_t)in->clock.wall_ns +
			((int64_t)in->first_time - (int64_t)in->clock.mono_ns);
	pprof_profile_set_time(p, start > 0 ? start : 0, dur);
}

static int setup(struct conv *c, const struct pdf_info *in)
{
	char hex[2 * PDF_BUILD_ID_SIZE + 1];
	int err;

	err = pprof_profile_sample_type(c->p, "samples", "count");
	if (!err)
		err = pprof_profile_sample_type(c->p, "cpu", "nanoseconds");
	if (!err)
		err = pprof_profile_set_period(c->p, "cpu", "nanoseconds",
				       (int64_t)(c->params->interval_ns & INT64_MAX));
	if (err)
		return err;
	set_time(c->p, in);
	/* the kernel: the file's build id, its table in the cache, or none */
	c->st->ksyms_err = pprof_names_ksyms(&c->ksyms, c->dir, in->build_id,
					     in->build_id_len);
	pprof_names_hex(hex, in->build_id, in->build_id_len);
	c->kmap = pprof_profile_mapping(c->p, PDF_KSYMS_MIN_ADDR, UINT64_MAX, 0,
				"[kernel.kallsyms]", in->build_id_len ? hex : NULL, 1);
	if (c->kmap < 0)
		return (int)c->kmap;
	c->bins = calloc(MAX_BINS, sizeof(*c->bins));
	c->comms = calloc(MAX_COMMS * 2, sizeof(*c->comms));
	if (pdf_umaps_init(&c->maps, MAX_MAPS, MAX_BINS, MOVES_FIRST))
		return -ENOMEM;
	return c->bins && c->comms ? 0 : -ENOMEM;
}

static void fini(struct conv *c)
{
	uint32_t i;

	for (i = 0; c->bins && i < c->maps.files.nr; i++)
		pprof_uelf_free(c->bins[i].elf);
	free(c->bins);
	pdf_umaps_fini(&c->maps);
	free(c->comms);
	free(c->steals);
	pdf_ksyms_free(c->ksyms);
	pprof_profile_free(c->p);
}

static int write_out(const struct pprof *p, const char *out, uint64_t *bytes)
{
	struct pdf_buf raw, gz;
	char tmp[PATH_MAX];
	int fd, err;

	pdf_buf_init(&raw);
	pdf_buf_init(&gz);
	err = pprof_profile_encode(p, &raw);
	if (!err)
		err = pprof_gzip(raw.data, raw.len, &gz);
	pdf_buf_fini(&raw);
	if (err) {
		pdf_buf_fini(&gz);
		return err;
	}
	/* the guest's samples: 0600, aside under a name nobody planted */
	fd = pdf_aside_open(out, tmp, sizeof(tmp));
	if (fd < 0) {
		pdf_buf_fini(&gz);
		return fd;
	}
	err = rs_io_write_all(fd, gz.data, gz.len);
	if (err)
		pdf_aside_discard(fd, tmp);
	else
		err = pdf_aside_commit(fd, tmp, out);
	*bytes = gz.len;
	pdf_buf_fini(&gz);
	return err;
}

int pprof_file_write(const char *perf_data, const char *out,
		const struct pprof_params *params, struct pprof_stats *st)
{
	static const struct pprof_params none = { .size = sizeof(none) };
	char own_dir[PATH_MAX];
	struct pprof_stats own;
	struct pprof_profile_counts cnt;
	struct pdf_reader *r;
	struct conv c;
	int err;

	if (!perf_data || !out || (params && params->size < sizeof(*params)))
		return PDF_ERR(pdfe_invalid);
	if (!st)
		st = &own;
	memset(st, 0, sizeof(*st));
	memset(&c, 0, sizeof(c));
	c.params = params ? params : &none;
	c.dir = c.params->buildid_dir;
	if (!c.dir && !pdf_cache_dir_of(perf_data, own_dir, sizeof(own_dir)))
		c.dir = own_dir;
	if (c.params->domain)
		clean(c.domain, sizeof(c.domain), c.params->domain);
	c.st = st;
	err = pdf_reader_open(&r, perf_data);
	if (err)
		return err;
	err = pprof_profile_new(&c.p);
	if (!err)
		err = setup(&c, pdf_reader_info(r));
	if (!err)
		err = read_steals(&c, perf_data);
	if (!err)
		err = walk(&c, r);
	pdf_reader_close(r);
	if (!err)
		err = write_out(c.p, out, &st->bytes);
	if (c.p) {
		pprof_profile_counts(c.p, &cnt);
		st->functions = cnt.functions;
		st->locations = cnt.locations;
		st->mappings = cnt.mappings;
	}
	fini(&c);
	return err;
}
