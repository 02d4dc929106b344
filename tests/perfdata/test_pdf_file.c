/* SPDX-License-Identifier: MIT */
/* Whole files: pdf_writer.c, pdf_feature.c, pdf_reader.c and pdf_intel_pt.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

#include "pdf_format.h"
#include "pdf_host.h"
#include "pdf_io.h"

#define GUEST_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		    PERF_SAMPLE_PERIOD)

static char dir[64];
static char path[128];
static char *argv_[] = { (char[]){ "ringside" }, (char[]){ "test" }, NULL };
static struct pdf_writer_params params = {
	.size = sizeof(params), .nr_rings = 3, .sample_type = GUEST_TYPE,
	.argc = 2, .argv = argv_,
};

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rs-test-pdf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.data", dir);
}

/* Every name in dir, then dir. */
static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

static int exists(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

/* Temporary files of path (PATH.tmp.XXXXXX): how many. */
static int tmp_exists(void)
{
	const char *base = strrchr(path, '/') + 1;
	DIR *d = opendir(dir);
	struct dirent *e;
	char prefix[64];
	int n = 0;

	snprintf(prefix, sizeof(prefix), "%s.tmp.", base);
	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix)) &&
		     strlen(e->d_name) == strlen(prefix) + 6;
	if (d)
		closedir(d);
	return n;
}

/* Record @i of the test stream: a seq, a marker or a sample. */
static const struct rs_perf_header *make(unsigned i, uint8_t *buf)
{
	struct rs_perf_header *h = (void *)buf;

	memset(buf, 0, 256);
	switch (i % 3) {
	case 0:
		rs_seq_build(buf, i, 1000 + i, i % 3, i % 50);
		break;
	case 1: {
		struct rs_rec_marker *m = (void *)buf;

		h->type = RS_RECORD_MARKER;
		h->size = 48;
		m->time = 1000 + i;
		m->id = i;
		m->len = 5;
		memcpy(m + 1, "hello", 5);
		break;
	}
	default: {
		uint64_t *b = (uint64_t *)(h + 1);

		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = 40;
		b[0] = 0x400000 + i;
		b[1] = i;
		b[2] = 1000 + i;
		b[3] = 1;
		break;
	}
	}
	return h;
}

START_TEST(pdf_writer_roundtrip)
{
	_Alignas(8) uint8_t buf[256];
	const struct pdf_info *info;
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;
	unsigned i, n = 3000;

	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(tmp_exists(), 1);
	ck_assert_int_eq(exists(path), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(pdf_writer_add(w, i % 3, 1000 + i, make(i, buf)), 0);
	ck_assert_uint_eq(pdf_writer_stats(w)->records, n);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_int_eq(tmp_exists(), 0);

	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	info = pdf_reader_info(r);
	ck_assert_uint_eq(info->nr_rings, 3);
	ck_assert_uint_eq(info->sample_type, GUEST_TYPE);
	ck_assert_str_eq(info->cmdline, "ringside test");
	ck_assert_int_eq(strncmp(info->version, "ringside ", 9), 0);
	ck_assert_int_eq(info->have_time, 1);
	/* the guest's samples' times (every third record, from the third),
	 * not the other records' */
	ck_assert_uint_eq(info->first_time, 1002);
	ck_assert_uint_eq(info->last_time, 1000 + n - 1);
	for (i = 0; i < n; i++) {
		const struct rs_perf_header *want = make(i, buf);

		ck_assert_int_eq(pdf_reader_next(r, &ev), 1);
		ck_assert_uint_eq(ev.ring, i % 3);
		ck_assert_uint_eq(ev.time, 1000 + i);
		ck_assert_uint_eq(ev.rec->size, want->size);
		ck_assert_mem_eq(ev.rec, want, want->size);
	}
	ck_assert_int_eq(pdf_reader_next(r, &ev), 0);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 0);
	ck_assert_uint_eq(pdf_reader_skipped(r), 0);
	pdf_reader_close(r);
}
END_TEST

/* A directory every user may write (sticky, like /tmp): a link another
 * user planted at the old fixed temporary name (PATH.tmp) or at PATH
 * itself to a root-only file, and a 0666 file of theirs at PATH.tmp, are
 * never written through or used.  The file is 0600 whatever the umask. */
START_TEST(pdf_writer_planted_names)
{
	_Alignas(8) uint8_t buf[256];
	char victim[160], tmp[160], text[16];
	struct pdf_writer *w;
	struct stat st;
	mode_t mask;
	int fd;

	ck_assert_int_eq(chmod(dir, 01777), 0);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "secret", 6), 6);
	close(fd);
	ck_assert_int_eq(symlink(victim, tmp), 0);
	ck_assert_int_eq(symlink(victim, path), 0);
	mask = umask(0);
	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	umask(mask);
	ck_assert_int_eq(pdf_writer_add(w, 0, 1000, make(0, buf)), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	/* the victim as it was; PATH a file of its own, the owner's alone */
	fd = open(victim, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, text, sizeof(text)), 6);
	close(fd);
	ck_assert_int_eq(memcmp(text, "secret", 6), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_int_eq(S_ISREG(st.st_mode), 1);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(lstat(tmp, &st), 0);
	ck_assert_int_eq(S_ISLNK(st.st_mode), 1);       /* theirs, left */
	ck_assert_int_eq(tmp_exists(), 0);
	/* a 0666 file of uid 1001's at PATH.tmp: not ours, left empty */
	ck_assert_int_eq(unlink(tmp), 0);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0666), 0);
	if (geteuid() == 0)
		ck_assert_int_eq(fchown(fd, 1001, 1001), 0);
	close(fd);
	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, 1000, make(0, buf)), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_int_eq(stat(tmp, &st), 0);
	ck_assert_uint_eq(st.st_size, 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_gt(st.st_size, 0);
}
END_TEST

/* pdf_aside_*: random names, each new; nothing left on failure. */
START_TEST(pdf_aside_names)
{
	char a[160], b[160], longpath[300];
	int fa, fb;

	fa = pdf_aside_open(path, a, sizeof(a));
	fb = pdf_aside_open(path, b, sizeof(b));
	ck_assert_int_ge(fa, 0);
	ck_assert_int_ge(fb, 0);
	ck_assert_str_ne(a, b);
	ck_assert_uint_eq(strlen(a), strlen(path) + strlen(PDF_ASIDE_SUFFIX));
	ck_assert_int_eq(strncmp(a, path, strlen(path)), 0);
	ck_assert_int_eq(tmp_exists(), 2);
	pdf_aside_discard(fb, b);
	ck_assert_int_eq(rs_io_write_all(fa, "x", 1), 0);
	ck_assert_int_eq(pdf_aside_commit(fa, a, path), 0);
	ck_assert_int_eq(tmp_exists(), 0);
	ck_assert_int_eq(exists(path), 1);
	/* too small a buffer, no such directory: nothing made */
	ck_assert_int_eq(pdf_aside_open(path, a, strlen(path) + 4),
			 -ENAMETOOLONG);
	snprintf(longpath, sizeof(longpath), "%s/no/such", dir);
	ck_assert_int_eq(pdf_aside_open(longpath, a, sizeof(a)), -ENOENT);
	ck_assert_str_eq(a, "");
	/* a rename that fails (a directory at PATH) removes the file */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	fa = pdf_aside_open(path, a, sizeof(a));
	ck_assert_int_ge(fa, 0);
	ck_assert_int_lt(pdf_aside_commit(fa, a, path), 0);
	ck_assert_int_eq(tmp_exists(), 0);
	ck_assert_int_eq(rmdir(path), 0);
}
END_TEST

/* A host-written MMAP2 of @name (pdf_writer_add_state) into @buf. */
static const struct rs_perf_header *state_mmap2(uint8_t *buf, const char *name)
{
	struct rs_perf_header *h = (void *)buf;
	size_t n = strlen(name);
	struct rs_perf_mmap2_body m = { .pid = 7, .tid = 7, .addr = 0x400000,
			       .len = 0x1000 };

	memset(buf, 0, 256);
	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(8 + sizeof(m) + ((n + 1 + 7) & ~(size_t)7));
	memcpy(h + 1, &m, sizeof(m));
	memcpy((uint8_t *)(h + 1) + sizeof(m), name, n);
	return h;
}

/* A process-table record perf could not take is refused and counted by
 * the caller, never written as a header without its body: the file
 * reads back whole, every record where it was. */
START_TEST(pdf_writer_state_refused)
{
	_Alignas(8) uint8_t buf[256];
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;
	unsigned state = 0, rings = 0;
	int n;

	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(pdf_writer_add_state(w, 0, 999,
		state_mmap2(buf, "/../../../../etc/passwd")), PDF_ERR(pdfe_format));
	ck_assert_int_eq(pdf_writer_add_state(w, 0, 999,
		state_mmap2(buf, "/usr/bin/gzip")), 0);
	for (unsigned i = 0; i < 6; i++)
		ck_assert_int_eq(pdf_writer_add(w, i % 3, 1000 + i, make(i, buf)), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	while ((n = pdf_reader_next(r, &ev)) == 1) {
		if (ev.state) {
			ck_assert_str_eq((const char *)(ev.rec + 1) +
					 sizeof(struct rs_perf_mmap2_body), "/usr/bin/gzip");
			state++;
		} else {
			ck_assert_mem_eq(ev.rec, make(rings, buf), ev.rec->size);
			rings++;
		}
	}
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(state, 1);
	ck_assert_uint_eq(rings, 6);
	pdf_reader_close(r);
}
END_TEST

/* Offset of the test clock at guest time @g: 5 s, plus 300 ns over 3 ms. */
static uint64_t clock_host(uint64_t g)
{
	int64_t off = 5000000000ll + (int64_t)(g - 10000000000ull) * 300 / 3000000;

	return g - (uint64_t)off;
}

/* Guest times to host CLOCK_MONOTONIC: rewritten in place at finish,
 * across the writer's 1 MiB chunks, for every kind of record; the clock
 * features read back. */
START_TEST(pdf_writer_clock)
{
	const struct pdf_clock_sync cs = {
		.state = PDF_CLOCK_SYNCED, .nr = 2,
		.pt = { { 10000000000ull, 5000000000ll, 1000, 16, 0 },
			{ 10003000000ull, 5000000300ll, 2000, 16, 3 } },
		.wall_ns = 1700000000000000000ull, .mono_ns = 123,
	};
	struct pdf_clock_sync bad = cs;
	_Alignas(8) uint8_t buf[256];
	const struct pdf_info *info;
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;
	unsigned i, n = 40000;
	struct { struct rs_perf_header h; uint64_t id, lost; } lost = {
		{ PERF_RECORD_LOST, 0, 24 }, 0, 7 };

	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	for (i = 0; i < n; i++) {
		uint64_t g = 10000000000ull + (uint64_t)i * 75;

		if (i % 1000 == 999)
			ck_assert_int_eq(pdf_writer_add(w, 0, g, &lost.h), 0);
		else
			ck_assert_int_eq(pdf_writer_add(w, i % 3, g, make(i, buf)), 0);
	}
	bad.nr = 3;
	ck_assert_int_eq(pdf_writer_set_clock(w, &bad), PDF_ERR(pdfe_invalid));
	bad = cs;
	bad.nr = 0;
	ck_assert_int_eq(pdf_writer_set_clock(w, &bad), PDF_ERR(pdfe_invalid));
	bad.state = PDF_CLOCK_STATE_MAX;
	ck_assert_int_eq(pdf_writer_set_clock(w, &bad), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_set_clock(NULL, &cs), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_set_clock(w, &cs), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);

	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	info = pdf_reader_info(r);
	ck_assert_uint_eq(info->clock.state, PDF_CLOCK_SYNCED);
	ck_assert_uint_eq(info->clock.nr, 2);
	ck_assert_int_eq(info->clock.pt[1].offset_ns, 5000000300ll);
	ck_assert_uint_eq(info->clock.pt[1].bound_ns, 2000);
	ck_assert_uint_eq(info->clock.pt[1].refused, 3);
	ck_assert_int_eq(info->have_clock_data, 1);
	ck_assert_uint_eq(info->clockid, 1);
	ck_assert_uint_eq(info->first_time, clock_host(10000000000ull + 2 * 75));
	ck_assert_uint_eq(info->last_time,
			  clock_host(10000000000ull + (uint64_t)(n - 2) * 75));
	for (i = 0; i < n; i++) {
		uint64_t g = 10000000000ull + (uint64_t)i * 75;

		ck_assert_int_eq(pdf_reader_next(r, &ev), 1);
		if (ev.time != clock_host(g))
			ck_abort_msg("record %u: time %llu, want %llu", i,
				     (unsigned long long)ev.time,
				     (unsigned long long)clock_host(g));
	}
	ck_assert_int_eq(pdf_reader_next(r, &ev), 0);
	pdf_reader_close(r);
	ck_assert_uint_eq(pdf_clock_to_host(&cs, 10003000000ull),
			  10003000000ull - 5000000300ull);
	ck_assert_uint_eq(pdf_clock_to_host(NULL, 42), 42);
	/* a guest's times at either end saturate, never wrap (issue 13) */
	ck_assert_uint_eq(pdf_clock_to_host(&cs, 1), 0);
	ck_assert_uint_ge(pdf_clock_to_host(&cs, UINT64_MAX), 1ull << 63);
	bad = cs;
	bad.nr = 1;
	bad.pt[0].offset_ns = -5000000000ll;
	ck_assert_uint_eq(pdf_clock_to_host(&bad, UINT64_MAX - 7), UINT64_MAX);
	ck_assert_uint_eq(pdf_clock_to_host(&bad, 7), 5000000007ull);
	bad.pt[0].offset_ns = INT64_MIN;
	ck_assert_uint_eq(pdf_clock_to_host(&bad, 1ull << 63), UINT64_MAX);
	ck_assert_uint_eq(pdf_clock_to_host(&bad, (1ull << 63) - 1), UINT64_MAX);
}
END_TEST

/* A file whose sync failed keeps its times and says why. */
START_TEST(pdf_writer_clock_unsynced)
{
	const struct pdf_clock_sync cs = { .state = PDF_CLOCK_NO_ANSWER };
	_Alignas(8) uint8_t buf[256];
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;

	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, 4242, make(0, buf)), 0);
	ck_assert_int_eq(pdf_writer_set_clock(w, &cs), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	ck_assert_uint_eq(pdf_reader_info(r)->clock.state, PDF_CLOCK_NO_ANSWER);
	ck_assert_int_eq(pdf_reader_info(r)->have_clock_data, 0);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.time, 4242);
	pdf_reader_close(r);
	ck_assert_str_eq(pdf_clock_state_str(PDF_CLOCK_NO_ANSWER),
			 "no time sync: the guest did not answer");
}
END_TEST

/* AUX bytes as AUXTRACE records: stepped over by the reader (their bytes
 * are no records, even when they look like some) and by the clock's
 * rewrite, across its 1 MiB chunks; refused without an AUX format. */
START_TEST(pdf_writer_aux)
{
	const struct pdf_clock_sync cs = {
		.state = PDF_CLOCK_SYNCED, .nr = 1,
		.pt = { { 10000000000ull, 5000000000ll, 1000, 16, 0 } },
	};
	struct pdf_writer_params ap = params;
	_Alignas(8) uint8_t buf[256];
	static uint8_t aux[(3u << 20) + 5];
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;
	unsigned i;

	/* AUX bytes that read like records (size 8, type LOST) */
	for (i = 0; i + 8 <= sizeof(aux); i += 8) {
		struct rs_perf_header h = { PERF_RECORD_LOST, 0, 8 };

		memcpy(aux + i, &h, sizeof(h));
	}
	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(pdf_writer_add_aux(w, 0, 0, aux, 8), PDF_ERR(pdfe_invalid));
	pdf_writer_discard(w);
	ap.aux_format = PDF_AUX_FORMAT_MAX;
	ck_assert_int_eq(pdf_writer_open(&w, path, &ap), PDF_ERR(pdfe_invalid));
	ap.aux_format = PDF_AUX_OPAQUE;
	ck_assert_int_eq(pdf_writer_open(&w, path, &ap), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, 10000000000ull, make(0, buf)), 0);
	ck_assert_int_eq(pdf_writer_add_aux(w, 1, 4096, aux, sizeof(aux)), 0);
	ck_assert_int_eq(pdf_writer_add_aux(w, RS_MAX_RINGS, 0, aux, 8),
			 PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_add_aux(w, 0, 0, NULL, 8), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_add_aux(w, 0, 0, NULL, 0), 0);
	ck_assert_int_eq(pdf_writer_add(w, 2, 10000000100ull, make(1, buf)), 0);
	ck_assert_uint_eq(pdf_writer_stats(w)->aux_bytes, sizeof(aux));
	ck_assert_int_eq(pdf_writer_set_clock(w, &cs), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.ring, 0);
	ck_assert_uint_eq(ev.time, 5000000000ull);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.ring, 2);
	ck_assert_uint_eq(ev.time, 5000000100ull);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 0);
	ck_assert_uint_eq(pdf_reader_aux_bytes(r), (sizeof(aux) + 7) & ~7ul);
	pdf_reader_close(r);
}
END_TEST

START_TEST(pdf_writer_host_facts)
{
	static struct pdf_host_facts h, bad;
	_Alignas(8) uint8_t buf[256];
	const struct pdf_host_facts *got;
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_buf b;
	uint32_t i;

	memset(&h, 0, sizeof(h));
	h.kind = PDF_HOST_DRAIN;
	h.nr_rings = 2;
	h.start_ns = 1000;
	h.end_ns = 2000;
	for (i = 0; i < 2; i++) {
		h.ring[i].data_size = 4096u << i;
		h.ring[i].corrupt = 3 + i;
		h.ring[i].corrupt_bytes = UINT64_MAX - i;
		h.ring[i].not_written = 9;
		h.ring[i].early_records = 128 + i;
		h.ring[i].early_lost = 1175;
		h.ring[i].early_flagged_samples = 1;
	}
	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, 1500, make(0, buf)), 0);
	bad = h;
	bad.kind = PDF_HOST_KIND_MAX;
	ck_assert_int_eq(pdf_writer_set_host(w, &bad), PDF_ERR(pdfe_invalid));
	bad = h;
	bad.nr_rings = RS_MAX_RINGS + 1;
	ck_assert_int_eq(pdf_writer_set_host(w, &bad), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_set_host(NULL, &h), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_set_host(w, &h), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	got = &pdf_reader_info(r)->host;
	ck_assert_uint_eq(got->kind, PDF_HOST_DRAIN);
	ck_assert_uint_eq(got->nr_rings, 2);
	ck_assert_uint_eq(got->end_ns, 2000);
	ck_assert_int_eq(memcmp(got->ring, h.ring, 2 * sizeof(h.ring[0])), 0);
	pdf_reader_close(r);

	/* malformed sections say nothing, never more than they hold */
	pdf_buf_init(&b);
	pdf_host_add_feature(&b, &h);
	ck_assert_int_eq(pdf_host_parse(b.data, b.len, &bad), 0);
	ck_assert_uint_eq(bad.ring[1].corrupt, 4);
	ck_assert_int_eq(pdf_host_parse(b.data, b.len - 8, &bad), PDF_ERR(pdfe_format));
	ck_assert_uint_eq(bad.kind, PDF_HOST_NONE);
	ck_assert_int_eq(pdf_host_parse(b.data, 31, &bad), PDF_ERR(pdfe_format));
	put_u32(b.data + 8, RS_MAX_RINGS + 1);  /* rings */
	ck_assert_int_eq(pdf_host_parse(b.data, b.len, &bad), PDF_ERR(pdfe_format));
	put_u32(b.data + 8, 2);
	b.data[12] = 9;                         /* words per ring below 10 */
	ck_assert_int_eq(pdf_host_parse(b.data, b.len, &bad), PDF_ERR(pdfe_format));
	memset(b.data + 12, 0xff, 4);           /* words: 2^32-1 */
	ck_assert_int_eq(pdf_host_parse(b.data, b.len, &bad), PDF_ERR(pdfe_format));
	pdf_buf_fini(&b);
}
END_TEST

START_TEST(pdf_writer_empty)
{
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;

	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	ck_assert_int_eq(pdf_reader_info(r)->have_time, 0);
	ck_assert_uint_eq(pdf_reader_info(r)->host.kind, PDF_HOST_NONE);
	ck_assert_uint_eq(pdf_reader_info(r)->data_size, 8);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 0);
	ck_assert_uint_eq(pdf_reader_skipped(r), 1); /* the FINISHED_ROUND */
	pdf_reader_close(r);
}
END_TEST

START_TEST(pdf_writer_discard_leaves_nothing)
{
	_Alignas(8) uint8_t buf[256];
	struct pdf_writer *w;

	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, 1, make(0, buf)), 0);
	pdf_writer_discard(w);
	ck_assert_int_eq(tmp_exists(), 0);
	ck_assert_int_eq(exists(path), 0);
	pdf_writer_discard(NULL);
}
END_TEST

START_TEST(pdf_writer_open_fails)
{
	struct pdf_writer *w = (void *)1;
	char bad[160];

	snprintf(bad, sizeof(bad), "%s/no/dir/out.data", dir);
	ck_assert_int_eq(pdf_writer_open(&w, bad, &params), -ENOENT);
	ck_assert_ptr_null(w);
	ck_assert_int_eq(pdf_writer_open(NULL, path, &params), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_open(&w, path, NULL), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_add(NULL, 0, 0, NULL), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_finish(NULL), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(tmp_exists(), 0);
}
END_TEST

START_TEST(pdf_writer_too_big_skipped)
{
	static _Alignas(8) uint8_t big[RS_RECORD_MAX];
	struct rs_perf_header *h = (void *)big;
	_Alignas(8) uint8_t buf[256];
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;

	h->type = 90;
	h->size = RS_RECORD_MAX;
	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, 1, h), PDF_ERR(pdfe_too_big));
	ck_assert_int_eq(pdf_writer_add(w, 0, 2, make(0, buf)), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 1);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 0);
	pdf_reader_close(r);
}
END_TEST

/* The bytes of the file at @path (malloc'ed, 8-byte aligned). */
static uint8_t *slurp(size_t *len)
{
	uint8_t *data;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	*len = (size_t)st.st_size;
	data = malloc(*len);
	ck_assert_int_eq(read(fd, data, *len), (ssize_t)*len);
	close(fd);
	return data;
}

/* Write a small valid file and return its bytes. */
static uint8_t *valid_file(size_t *len)
{
	_Alignas(8) uint8_t buf[256];
	struct pdf_writer *w;
	unsigned i;

	ck_assert_int_eq(pdf_writer_open(&w, path, &params), 0);
	for (i = 0; i < 30; i++)
		ck_assert_int_eq(pdf_writer_add(w, i % 3, i, make(i, buf)), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	return slurp(len);
}

static int reopen_with(const uint8_t *data, size_t len)
{
	struct pdf_reader *r = NULL;
	FILE *f = fopen(path, "w");
	int err;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
	err = pdf_reader_open(&r, path);
	pdf_reader_close(r);
	return err;
}

START_TEST(pdf_reader_rejects)
{
	size_t len;
	uint8_t *data = valid_file(&len), *copy = malloc(len);
	struct pdf_reader *r = (void *)1;
	uint8_t *name;

	ck_assert_int_eq(reopen_with(data, len), 0);
	/* not a perf.data file */
	memset(copy, 0, len);
	ck_assert_int_eq(reopen_with(copy, len), PDF_ERR(pdfe_magic));
	ck_assert_int_eq(reopen_with(data, 50), PDF_ERR(pdfe_magic));
	/* cut in the data section */
	ck_assert_int_eq(reopen_with(data, 900), PDF_ERR(pdfe_truncated));
	/* an attr size nobody has */
	memcpy(copy, data, len);
	copy[16] = 7;
	ck_assert_int_eq(reopen_with(copy, len), PDF_ERR(pdfe_attr_size));
	/* a perf.data whose events are not ringside's */
	memcpy(copy, data, len);
	name = memmem(copy, len, "ringside:seq", 12);
	ck_assert_ptr_nonnull(name);
	name[9] = 'x';
	ck_assert_int_eq(reopen_with(copy, len), PDF_ERR(pdfe_not_ringside));
	unlink(path);
	ck_assert_int_eq(pdf_reader_open(&r, path), -ENOENT);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(pdf_reader_open(&r, dir), -EISDIR);
	ck_assert_int_eq(pdf_reader_open(NULL, path), PDF_ERR(pdfe_invalid));
	pdf_reader_close(NULL);
	free(copy);
	free(data);
}
END_TEST

START_TEST(pdf_reader_bad_record)
{
	size_t len;
	uint8_t *data = valid_file(&len);
	const struct pdf_file_header *h = (const void *)data;
	struct pdf_reader *r;
	struct pdf_event ev;
	uint16_t size = 4;
	int n, seen = 0;

	/* the third record claims 4 bytes */
	uint64_t at = h->data.offset, i;

	for (i = 0; i < 2; i++) {
		uint16_t s;

		memcpy(&s, data + at + 6, 2);
		at += s;
	}
	memcpy(data + at + 6, &size, 2);
	ck_assert_int_eq(reopen_with(data, len), 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	while ((n = pdf_reader_next(r, &ev)) == 1)
		seen++;
	ck_assert_int_eq(n, PDF_ERR(pdfe_format));
	ck_assert_int_eq(seen, 2);
	ck_assert_uint_eq(ev.offset, at);
	pdf_reader_close(r);
	free(data);
}
END_TEST

static const uint8_t pt_bytes[13] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x23, 0x99, 0, 0,
};

static struct pdf_intel_pt_params pt_params = {
	.size = sizeof(pt_params), .trace = pt_bytes, .trace_len = 13,
	.elf = "/ringside/payload", .code_vaddr = 0x100000, .code_len = 0x2000,
	.code_offset = 0x1000,
};

/* The next record of @data at *@at, checked against @type and @size. */
static const uint8_t *next_record(const uint8_t *data, uint64_t *at,
				  uint32_t type, uint16_t size)
{
	const struct rs_perf_header *h = (const void *)(data + *at);

	ck_assert_uint_eq(h->type, type);
	ck_assert_uint_eq(h->size, size);
	*at += size;
	return (const uint8_t *)(h + 1);
}

START_TEST(pdf_intel_pt_write_layout)
{
	size_t len;
	uint8_t *data;
	const struct pdf_file_header *h;
	const struct perf_event_attr *attr;
	const struct pdf_auxtrace *ax;
	const uint64_t *info;
	const uint8_t *body;
	uint64_t at, id;

	ck_assert_int_eq(pdf_intel_pt_write(path, &pt_params), 0);
	data = slurp(&len);
	h = (const void *)data;
	ck_assert_uint_eq(h->magic, PDF_MAGIC);
	ck_assert_uint_eq(h->attrs.size, h->attr_size);
	ck_assert_uint_eq(h->data.offset + h->data.size, len);
	memcpy(&id, data + sizeof(*h), sizeof(id));
	ck_assert_uint_eq(id, 1);
	attr = (const void *)(data + h->attrs.offset);
	ck_assert_uint_eq(attr->type, 8);
	ck_assert_uint_eq(attr->sample_id_all, 1);

	at = h->data.offset;
	body = next_record(data, &at, PERF_RECORD_COMM, 8 + 24 + 32);
	ck_assert_str_eq((const char *)body + 8, "guest");
	body = next_record(data, &at, PERF_RECORD_MMAP,
			   8 + 32 + 24 /* "/ringside/payload", padded */ + 32);
	ck_assert_str_eq((const char *)body + 32, pt_params.elf);
	info = (const void *)next_record(data, &at, PDF_RECORD_AUXTRACE_INFO,
					 8 + 8 + 17 * 8);
	ck_assert_uint_eq(info[0], PDF_AUXTRACE_INTEL_PT);
	ck_assert_uint_eq(info[1], 8);   /* priv[0]: the PMU type */
	ax = (const void *)next_record(data, &at, PDF_RECORD_AUXTRACE, 48);
	ck_assert_uint_eq(ax->size, 16); /* 13 bytes and 3 PAD */
	ck_assert_uint_eq(ax->cpu, UINT32_MAX);
	ck_assert_mem_eq(data + at, pt_bytes, sizeof(pt_bytes));
	at += ax->size;
	next_record(data, &at, PERF_RECORD_EXIT, 8 + 24 + 32);
	ck_assert_uint_eq(at, len);
	free(data);
}
END_TEST

START_TEST(pdf_intel_pt_write_null)
{
	struct pdf_intel_pt_params p = pt_params;
	char bad[160], long_elf[4097];

	ck_assert_int_eq(pdf_intel_pt_write(NULL, &p), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_intel_pt_write(path, NULL), PDF_ERR(pdfe_invalid));
	p.size = 4;
	ck_assert_int_eq(pdf_intel_pt_write(path, &p), PDF_ERR(pdfe_invalid));
	p = pt_params;
	p.elf = NULL;
	ck_assert_int_eq(pdf_intel_pt_write(path, &p), PDF_ERR(pdfe_invalid));
	memset(long_elf, 'a', sizeof(long_elf) - 1);
	long_elf[sizeof(long_elf) - 1] = 0;
	p.elf = long_elf;
	ck_assert_int_eq(pdf_intel_pt_write(path, &p), PDF_ERR(pdfe_invalid));
	p = pt_params;
	p.trace = NULL;
	ck_assert_int_eq(pdf_intel_pt_write(path, &p), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(exists(path), 0);
	p.trace_len = 0;                 /* an empty trace is a trace */
	ck_assert_int_eq(pdf_intel_pt_write(path, &p), 0);
	snprintf(bad, sizeof(bad), "%s/no/dir/pt.data", dir);
	ck_assert_int_eq(pdf_intel_pt_write(bad, &pt_params), -ENOENT);
}
END_TEST

START_TEST(pdf_errstr_names)
{
	ck_assert_str_eq(pdf_error_str(PDF_ERR(pdfe_magic)),
			 "not a perf.data file (no PERFILE2 magic)");
	ck_assert_str_eq(pdf_error_str(-ENOENT), strerror(ENOENT));
	ck_assert_str_eq(pdf_error_str(PDF_ERR(pdfe_max)), "unknown perf.data error");
	ck_assert_str_eq(pdf_error_str(0), "unknown perf.data error");
	ck_assert_str_eq(pdf_error_str(INT_MIN), "unknown perf.data error");
	ck_assert_str_eq(pdf_error_str(-PDF_ERR_BASE), "success");
	ck_assert_str_eq(pdf_error_str(PDF_ERR(pdfe_too_big)),
			 "record too big for a perf record");
}
END_TEST

START_TEST(pdf_buf_string_pads)
{
	struct pdf_buf b;
	uint32_t n;

	pdf_buf_init(&b);
	pdf_buf_add_string(&b, "ringside");
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_eq(b.len, 4 + PDF_NAME_ALIGN);
	memcpy(&n, b.data, 4);
	ck_assert_uint_eq(n, PDF_NAME_ALIGN);
	ck_assert_str_eq((const char *)b.data + 4, "ringside");
	pdf_buf_add(&b, NULL, 0);
	ck_assert_uint_eq(b.len, 4 + PDF_NAME_ALIGN);
	pdf_buf_fini(&b);
	ck_assert_ptr_null(b.data);
	pdf_buf_init(NULL);
	pdf_buf_fini(NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pdf_file");
	TCase *tc = tcase_create("file");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pdf_writer_roundtrip);
	tcase_add_test(tc, pdf_writer_clock);
	tcase_add_test(tc, pdf_writer_clock_unsynced);
	tcase_add_test(tc, pdf_writer_aux);
	tcase_add_test(tc, pdf_writer_host_facts);
	tcase_add_test(tc, pdf_writer_empty);
	tcase_add_test(tc, pdf_writer_discard_leaves_nothing);
	tcase_add_test(tc, pdf_writer_open_fails);
	tcase_add_test(tc, pdf_writer_too_big_skipped);
	tcase_add_test(tc, pdf_writer_state_refused);
	tcase_add_test(tc, pdf_writer_planted_names);
	tcase_add_test(tc, pdf_aside_names);
	tcase_add_test(tc, pdf_reader_rejects);
	tcase_add_test(tc, pdf_reader_bad_record);
	tcase_add_test(tc, pdf_intel_pt_write_layout);
	tcase_add_test(tc, pdf_intel_pt_write_null);
	tcase_add_test(tc, pdf_errstr_names);
	tcase_add_test(tc, pdf_buf_string_pads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
