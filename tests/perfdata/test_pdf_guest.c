/* SPDX-License-Identifier: MIT */
/*
 * A guest recording read as other readers read it: every event's
 * sample-id fields the same (a trailer read by the first event's layout
 * gives whole names), attrs and identity features of the guest, first and
 * last sample times of samples, markers back byte for byte, call chains
 * cut of their guessed frames and counted; files of the layout before
 * still read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <check.h>

#include "pdf_codec.h"
#include "pdf_guest_file.h"
#include "pdf_trim.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rs-test-pdf-guest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/guest.data", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

static uint8_t *slurp(size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void attr_at(const uint8_t *file, unsigned k, struct perf_event_attr *a)
{
	const struct pdf_file_header *h = (const void *)file;

	memset(a, 0, sizeof(*a));
	memcpy(a, file + h->attrs.offset + k * h->attr_size,
	       h->attr_size - sizeof(struct pdf_section));
}

/* The trailer of a record by the first attr's layout, as hotspot's
 * perfparser reads every one: its size from the sample-id fields. */
static size_t first_attr_trailer(const uint8_t *file)
{
	struct perf_event_attr a;

	attr_at(file, 0, &a);
	return 8u * (size_t)__builtin_popcountll(a.sample_type &
						 PDF_SAMPLE_ID_ALL);
}

START_TEST(every_event_one_sample_id_layout)
{
	const struct pdf_file_header *h;
	unsigned k, nr, comms = 0, mmaps = 0;
	struct perf_event_attr a, first;
	uint64_t at, end;
	uint8_t *file;
	size_t len, tr;

	g_write(path, &g_facts, 0, NULL);
	file = slurp(&len);
	h = (const void *)file;
	nr = (unsigned)(h->attrs.size / h->attr_size);
	ck_assert_uint_eq(nr, PDF_KIND_MAX);
	attr_at(file, 0, &first);
	ck_assert_uint_eq(first.sample_type & PDF_SAMPLE_ID_ALL, PDF_SAMPLE_BASE);
	for (k = 0; k < nr; k++) {
		attr_at(file, k, &a);
		ck_assert_uint_eq(a.sample_id_all, 1);
		ck_assert_uint_eq(a.sample_type & PDF_SAMPLE_ID_ALL,
				  first.sample_type & PDF_SAMPLE_ID_ALL);
		/* IDENTIFIER first and last, so perf finds the id anywhere */
		ck_assert(a.sample_type & PERF_SAMPLE_IDENTIFIER);
	}
	/* every COMM and MMAP2 read with the first attr's trailer: whole
	 * names, the record's own pid and tid in the trailer */
	tr = first_attr_trailer(file);
	ck_assert_uint_eq(tr, 32);
	at = h->data.offset;
	end = h->data.offset + h->data.size;
	while (at < end) {
		const struct rs_perf_header *r = (const void *)(file + at);
		const char *name = NULL;
		uint32_t pid[2];

		if (r->type == PERF_RECORD_COMM)
			name = (const char *)(r + 1) + 8;
		else if (r->type == PERF_RECORD_MMAP2)
			name = (const char *)(r + 1) + sizeof(struct rs_perf_mmap2_body);
		if (name) {
			size_t room = r->size - tr - (size_t)(name - (const char *)r);

			ck_assert_uint_lt(strnlen(name, room), room);
			memcpy(pid, (const uint8_t *)r + r->size - tr, 8);
			ck_assert_mem_eq(pid, r + 1, 8);
			if (r->type == PERF_RECORD_COMM) {
				ck_assert(!strcmp(name, "rs-workload") ||
					  !strcmp(name, "sh"));
				comms++;
			} else {
				ck_assert_str_eq(name, "/usr/bin/rs-workload");
				mmaps++;
			}
		}
		at += r->size;
	}
	ck_assert_uint_eq(comms, 2);
	ck_assert_uint_eq(mmaps, 1);
	free(file);
}
END_TEST

START_TEST(attrs_say_the_guest_event)
{
	struct perf_event_attr a;
	struct pdf_guest_facts f = g_facts;
	uint8_t *file;
	size_t len;

	g_write(path, &g_facts, 0, NULL);
	file = slurp(&len);
	attr_at(file, PDF_KIND_SAMPLE, &a);
	ck_assert_uint_eq(a.type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(a.config, PERF_COUNT_SW_CPU_CLOCK);
	ck_assert_uint_eq(a.freq, 1);
	ck_assert_uint_eq(a.sample_freq, 997);
	ck_assert_uint_eq(a.exclude_kernel, 0);
	ck_assert_uint_eq(a.exclude_user, 0);
	ck_assert_uint_eq(a.config1, G_TYPE);   /* the reader's */
	free(file);

	/* a period, a hardware event, user mode only */
	f.sample_flags = RS_SAMPLE_EXCLUDE_KERNEL;
	f.sample_type_id = PERF_TYPE_HARDWARE;
	f.sample_config = PERF_COUNT_HW_CPU_CYCLES;
	f.sample_period = 100000;
	g_write(path, &f, 0, NULL);
	file = slurp(&len);
	attr_at(file, PDF_KIND_SAMPLE, &a);
	ck_assert_uint_eq(a.type, PERF_TYPE_HARDWARE);
	ck_assert_uint_eq(a.freq, 0);
	ck_assert_uint_eq(a.sample_period, 100000);
	ck_assert_uint_eq(a.exclude_kernel, 1);
	free(file);

	/* unknown: cpu-clock, and kernel samples not denied */
	g_write(path, NULL, 0, NULL);
	file = slurp(&len);
	attr_at(file, PDF_KIND_SAMPLE, &a);
	ck_assert_uint_eq(a.type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(a.config, PERF_COUNT_SW_CPU_CLOCK);
	ck_assert_uint_eq(a.exclude_kernel, 0);
	free(file);
}
END_TEST

/* The guest spoke after the file was opened: the attrs are rewritten. */
START_TEST(guest_set_late)
{
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 1, .sample_type = G_TYPE,
	};
	_Alignas(8) uint8_t buf[256];
	const struct pdf_info *info;
	struct perf_event_attr a;
	struct pdf_writer *w;
	struct pdf_reader *r;
	uint8_t *file;
	size_t len;

	ck_assert_int_eq(pdf_writer_open(&w, path, &p), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, 10, g_sample(buf, 2, 10)), 0);
	ck_assert_int_eq(pdf_writer_set_guest(NULL, &g_facts), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_set_guest(w, &g_facts), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	file = slurp(&len);
	attr_at(file, PDF_KIND_SAMPLE, &a);
	ck_assert_uint_eq(a.freq, 1);
	ck_assert_uint_eq(a.sample_freq, 997);
	free(file);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	info = pdf_reader_info(r);
	ck_assert_str_eq(info->hostname, "guest-vm");
	ck_assert_str_eq(info->os_release, "6.1.0-27-amd64");
	pdf_reader_close(r);
}
END_TEST

START_TEST(header_describes_the_guest)
{
	const struct pdf_info *info;
	struct pdf_reader *r;
	struct utsname uts;

	ck_assert_int_eq(uname(&uts), 0);
	g_write(path, &g_facts, 0, NULL);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	info = pdf_reader_info(r);
	ck_assert_str_eq(info->hostname, "guest-vm");
	ck_assert_str_eq(info->os_release, "6.1.0-27-amd64");
	ck_assert_str_eq(info->reader_host, uts.nodename);
	ck_assert_str_eq(info->reader_release, uts.release);
	ck_assert_uint_eq(info->nr_rings, 2);   /* not NRCPUS' 4 */
	/* the samples' times, not the COMM's 3 s before */
	ck_assert_int_eq(info->have_time, 1);
	ck_assert_uint_eq(info->first_time, G_FIRST_TIME);
	ck_assert_uint_eq(info->last_time,
			  G_FIRST_TIME + (G_NR_SAMPLES - 1) * 1000000ull);
	pdf_reader_close(r);

	/* unknown: no hostname or os release, never the host's */
	g_write(path, NULL, 0, NULL);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	info = pdf_reader_info(r);
	ck_assert_str_eq(info->hostname, "");
	ck_assert_str_eq(info->os_release, "");
	ck_assert_str_eq(info->reader_host, uts.nodename);
	ck_assert_uint_eq(info->nr_rings, 2);
	pdf_reader_close(r);
}
END_TEST

/* Every record back as written, but the call chains cut; in the current
 * layout and in the one before. */
static void read_back(int v1)
{
	_Alignas(8) uint8_t buf[256];
	struct pdf_writer_stats st;
	const struct pdf_info *info;
	struct pdf_reader *r;
	struct pdf_event ev;
	unsigned n, i = 0, samples = 0, markers = 0;

	n = g_write(path, &g_facts, v1, &st);
	ck_assert_uint_eq(st.frames_trimmed, G_NR_SAMPLES / 4);
	ck_assert_uint_eq(st.chains_trimmed, G_NR_SAMPLES / 4);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	info = pdf_reader_info(r);
	ck_assert_uint_eq(info->sample_type, G_TYPE);
	ck_assert_uint_eq(info->host.ring[0].frames_trimmed, G_NR_SAMPLES / 4);
	ck_assert_uint_eq(info->host.ring[1].frames_trimmed, 0);
	while (pdf_reader_next(r, &ev) == 1) {
		const struct rs_perf_header *h = ev.rec;

		i++;
		if (h->type == RS_RECORD_MARKER) {
			const struct rs_rec_marker *m = (const void *)h;

			if (m->pid == G_PID) {
				ck_assert_mem_eq(h, g_marker(buf, G_MARKER, G_PID,
							     ev.time), h->size);
				markers++;
			}
		} else if (h->type == PERF_RECORD_SAMPLE) {
			unsigned k = samples++;
			struct rs_perf_header *want = g_sample(buf, k, ev.time);
			uint64_t nr;

			ck_assert_uint_eq(ev.time, G_FIRST_TIME + k * 1000000ull);
			if (k % 4 == 0) {   /* the last frame cut */
				memcpy(&nr, (uint8_t *)(want + 1) + 32, 8);
				nr--;
				memcpy((uint8_t *)(want + 1) + 32, &nr, 8);
				want->size -= 8;
			}
			ck_assert_uint_eq(h->size, want->size);
			ck_assert_mem_eq(h, want, h->size);
		}
	}
	ck_assert_uint_eq(i, n);
	ck_assert_uint_eq(samples, G_NR_SAMPLES);
	ck_assert_uint_eq(markers, 4);
	pdf_reader_close(r);
}

START_TEST(records_back)
{
	read_back(0);
}
END_TEST

START_TEST(records_back_from_the_layout_before)
{
	struct perf_event_attr a;
	uint8_t *file;
	size_t len;

	read_back(1);
	file = slurp(&len);
	attr_at(file, PDF_KIND_RING, &a);
	ck_assert_uint_eq(a.sample_type, PDF_SAMPLE_BASE_V1 | PERF_SAMPLE_RAW);
	attr_at(file, PDF_KIND_SAMPLE, &a);
	ck_assert_uint_eq(a.sample_type, PDF_SAMPLE_BASE_V1 | G_TYPE);
	free(file);
}
END_TEST

/* A marker's text alone in RAW, NUL-padded; its fields elsewhere. */
START_TEST(marker_text_in_raw)
{
	_Alignas(8) uint8_t buf[256], enc[PDF_REC_MAX + 1], dec[512];
	const struct rs_perf_header *e = (const void *)enc;
	struct pdf_layout lay;
	struct pdf_sample s;
	uint64_t t;
	uint32_t ring;
	int n;

	pdf_layout_init(&lay, G_TYPE);
	n = pdf_codec_encode(&lay, 1, 99, g_marker(buf, G_MARKER, G_PID, 1234),
		       enc, sizeof(enc));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(pdf_sample_parse(lay.sample_type[PDF_KIND_MARKER],
					  e + 1, e->size - 8u, &s), 0);
	ck_assert_uint_eq(s.raw_size, 28);   /* 24 of the record, 4 zeros */
	ck_assert_str_eq((const char *)s.raw, G_MARKER);
	ck_assert_uint_eq(s.pid, G_PID);
	ck_assert_uint_eq(s.tid, G_PID);
	ck_assert_uint_eq(s.addr, 1234);
	ck_assert_uint_eq(s.cpu, 1);
	ck_assert_uint_eq(s.cpu_res, 7);        /* the id */
	ck_assert_uint_eq(s.period, 1);         /* one marker, its length
						 * the text's */
	ck_assert_uint_eq(s.time, 99);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &ring, &t),
			 32 + 24);
	ck_assert_mem_eq(dec, buf, 56);
	/* a length past the text is no marker */
	s.period = 2 + 25;
	memcpy(enc + n - 28 - 4 - 8, &s.period, 8);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &ring, &t),
			 PDF_ERR(pdfe_format));
	/* a length that is not the text's up to a NUL, bytes after the
	 * text: the length in PERIOD, still back byte for byte */
	g_marker(buf, G_MARKER, G_PID, 1234);
	((struct rs_rec_marker *)(void *)buf)->len = 5;
	buf[32 + 22] = 0x7f;
	n = pdf_codec_encode(&lay, 1, 99, (const void *)buf, enc, sizeof(enc));
	ck_assert_int_eq(pdf_sample_parse(lay.sample_type[PDF_KIND_MARKER],
					  e + 1, e->size - 8u, &s), 0);
	ck_assert_uint_eq(s.period, 2 + 5);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &ring, &t), 56);
	ck_assert_mem_eq(dec, buf, 56);
}
END_TEST

/* The frames pdf_trim_sample cuts, -1 when it rewrote the sample but cut
 * no frame (a marker alone at the end). */
static int cut(const struct pdf_trim *t, const struct rs_perf_header *h,
	       uint8_t *out)
{
	uint32_t frames = 99;
	int n = pdf_trim_sample(t, G_TYPE, h, out, 256, &frames);

	ck_assert_int_ge(n, 0);
	if (!n) {
		ck_assert_uint_eq(frames, 0);
		return 0;
	}
	ck_assert_uint_lt(((const struct rs_perf_header *)(const void *)out)->size,
			  h->size);
	return frames ? (int)frames : -1;
}

/* Only trailing frames that cannot be real go. */
START_TEST(trim_rules)
{
	static struct pdf_trim t;
	_Alignas(8) uint8_t in[256], out[256], buf[128];
	struct rs_perf_header *h = (void *)in;
	uint64_t *b = (uint64_t *)(h + 1);
	struct pdf_sample s;
	uint64_t cc[8];

	memset(&t, 0, sizeof(t));
	pdf_trim_mmap2(&t, g_mmap2(buf));
	g_sample(in, 1, 5);
	/* the kernel part, then user frames ending in one in the map */
	ck_assert_int_eq(cut(&t, h, out), 0);
	/* a bad frame in the middle stays; trailing 0 and an unmapped
	 * one go, and the USER marker left alone at the end with them */
	b[4] = 7;
	cc[0] = PERF_CONTEXT_KERNEL;
	cc[1] = G_KADDR;
	cc[2] = 0x1234;                     /* kernel context, user address */
	cc[3] = G_KADDR + 8;
	cc[4] = PERF_CONTEXT_USER;
	cc[5] = 0;
	cc[6] = 0x7f0000000000ull;          /* under no map of pid 77 */
	memcpy(&b[5], cc, 7 * 8);
	h->size = 8 + 8 * (5 + 7);
	ck_assert_int_eq(cut(&t, h, out), 2);
	ck_assert_int_eq(pdf_sample_parse(G_TYPE, out + 8,
		((struct rs_perf_header *)(void *)out)->size - 8u, &s), 0);
	ck_assert_uint_eq(s.callchain_nr, 4);
	ck_assert_mem_eq(s.callchain, cc, 4 * 8);
	/* a kernel-context frame outside the kernel half, non-canonical */
	cc[4] = 0x8000000000000000ull;
	memcpy(&b[5], cc, 5 * 8);
	b[4] = 5;
	h->size = 8 + 8 * (5 + 5);
	ck_assert_int_eq(cut(&t, h, out), 1);
	cc[4] = 0x1000;
	memcpy(&b[5], cc, 5 * 8);
	ck_assert_int_eq(cut(&t, h, out), 1);
	/* a pid without maps: its user frames are not judged by maps */
	b[1] = 9ull << 32 | 9;
	cc[3] = PERF_CONTEXT_USER;
	cc[4] = 0x7f0000000000ull;
	memcpy(&b[5], cc, 5 * 8);
	ck_assert_int_eq(cut(&t, h, out), 0);
	/* pid 77: the unmapped frame goes, and so does the kernel-context
	 * 0x1234 then last; not when the table lost maps */
	b[1] = (uint64_t)G_PID << 32 | G_PID;
	ck_assert_int_eq(cut(&t, h, out), 2);
	t.full = 1;
	ck_assert_int_eq(cut(&t, h, out), 0);
	/* a value in the markers' range that is no marker: cut, counted */
	t.full = 0;
	cc[2] = G_KADDR + 4;
	cc[4] = (uint64_t)-1;
	memcpy(&b[5], cc, 5 * 8);
	ck_assert_int_eq(cut(&t, h, out), 1);
	/* a known marker alone at the end: dropped, no frame counted */
	cc[4] = PERF_CONTEXT_USER;
	memcpy(&b[5], cc, 5 * 8);
	ck_assert_int_eq(cut(&t, h, out), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pdf_guest");
	TCase *tc = tcase_create("guest");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_event_one_sample_id_layout);
	tcase_add_test(tc, attrs_say_the_guest_event);
	tcase_add_test(tc, guest_set_late);
	tcase_add_test(tc, header_describes_the_guest);
	tcase_add_test(tc, records_back);
	tcase_add_test(tc, records_back_from_the_layout_before);
	tcase_add_test(tc, marker_text_in_raw);
	tcase_add_test(tc, trim_rules);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
