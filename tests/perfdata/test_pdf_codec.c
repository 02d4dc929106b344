/* SPDX-License-Identifier: MIT */
/* The perf.data mapping of one record: pdf_sample.c and pdf_codec.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

#include "pdf_codec.h"
#include "pdf_sample.h"

#define GUEST_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		    PERF_SAMPLE_PERIOD)
#define FORMAT  PDF_ERR(pdfe_format)
#define TOO_BIG PDF_ERR(pdfe_too_big)
#define INVALID PDF_ERR(pdfe_invalid)
/* the sample_id trailer of the layout under test */
#define TRAILER pdf_layout_trailer_size(&lay)

static _Alignas(8) uint8_t in[PDF_CODEC_BUF];
static _Alignas(8) uint8_t enc[PDF_CODEC_BUF];
static _Alignas(8) uint8_t dec[PDF_CODEC_BUF];
static struct pdf_layout lay;

static void setup(void)
{
	pdf_layout_init(&lay, GUEST_TYPE);
	memset(in, 0, sizeof(in));
}

static struct rs_perf_header *rec_init(uint32_t type, uint16_t size)
{
	struct rs_perf_header *h = (struct rs_perf_header *)in;

	h->type = type;
	h->misc = 0;
	h->size = size;
	return h;
}

/* Encode @rec, decode it back, compare; returns the encoded header. */
static const struct rs_perf_header *roundtrip(const struct rs_perf_header *rec,
					      uint32_t ring, uint64_t time)
{
	const struct rs_perf_header *e = (const void *)enc;
	uint64_t t = 0;
	uint32_t r = 99;
	int n, m;

	n = pdf_codec_encode(&lay, ring, time, rec, enc, sizeof(enc));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(n, e->size);
	ck_assert_int_eq(n % 8, 0);
	m = pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t);
	ck_assert_int_eq(m, rec->size);
	ck_assert_uint_eq(r, ring);
	ck_assert_uint_eq(t, time);
	return e;
}

START_TEST(pdf_encode_seq)
{
	const struct rs_perf_header *e;
	int size = rs_seq_build(in, 41, 123456789, 3, 17);

	ck_assert_int_gt(size, 0);
	e = roundtrip((const void *)in, 3, 123456789);
	ck_assert_uint_eq(e->type, PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(e->size, size + 56); /* IDENTIFIER IP TID TIME CPU, RAW */
	ck_assert_mem_eq(dec, in, (size_t)size);
	ck_assert_int_eq(rs_seq_check((const void *)dec), 1);
}
END_TEST

START_TEST(pdf_encode_marker)
{
	struct rs_rec_marker *m = (void *)rec_init(RS_RECORD_MARKER, 48);

	m->time = 5;
	m->len = 11;
	memcpy(m + 1, "hello world", 11);
	roundtrip(&m->header, 0, 5);
	ck_assert_mem_eq(dec, in, 48);
	ck_assert_int_eq(pdf_rrec_classify((const void *)dec, GUEST_TYPE), PDF_RREC_MARKER);
}
END_TEST

START_TEST(pdf_encode_sample)
{
	struct rs_perf_header *h = rec_init(PERF_RECORD_SAMPLE, 40);
	uint64_t *b = (uint64_t *)(h + 1);
	const struct rs_perf_header *e;
	struct pdf_sample s;

	h->misc = PERF_RECORD_MISC_USER;
	b[0] = 0x401000;
	b[1] = 7 | (uint64_t)8 << 32;
	b[2] = 1000;
	b[3] = 1;
	e = roundtrip(h, 5, 1000);
	ck_assert_uint_eq(e->type, PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(e->misc, PERF_RECORD_MISC_USER);
	ck_assert_int_eq(pdf_sample_parse(lay.sample_type[PDF_KIND_SAMPLE], e + 1,
					  e->size - 8u, &s), 0);
	ck_assert_uint_eq(s.identifier, lay.id[PDF_KIND_SAMPLE]);
	ck_assert_uint_eq(s.ip, 0x401000);
	ck_assert_uint_eq(s.pid, 7);
	ck_assert_uint_eq(s.tid, 8);
	ck_assert_uint_eq(s.time, 1000);
	ck_assert_uint_eq(s.cpu, 5);
	ck_assert_uint_eq(s.period, 1);
	ck_assert_mem_eq(dec, in, 40);
}
END_TEST

/* Which records carry a time of their own (a span is theirs): SEQ,
 * markers, samples with TIME in a layout ringside checks; COMM, MMAP2,
 * LOST are filed under a neighbour's. */
START_TEST(pdf_rrec_timed_records)
{
	struct rs_perf_header *h = rec_init(PERF_RECORD_SAMPLE, 40);
	struct rs_perf_lost *l;

	ck_assert_int_eq(pdf_rrec_timed(h, GUEST_TYPE), 1);
	ck_assert_int_eq(pdf_rrec_timed(h, GUEST_TYPE & ~(uint64_t)PERF_SAMPLE_TIME), 0);
	ck_assert_int_eq(pdf_rrec_timed(h, GUEST_TYPE | (1ull << 62)), 0);
	h = rec_init(RS_RECORD_SEQ, sizeof(struct rs_rec_seq));
	ck_assert_int_eq(pdf_rrec_timed(h, GUEST_TYPE), 1);
	h = rec_init(RS_RECORD_MARKER, sizeof(struct rs_rec_marker));
	ck_assert_int_eq(pdf_rrec_timed(h, GUEST_TYPE), 1);
	h = rec_init(PERF_RECORD_COMM, 24);
	memcpy(h + 1, "\1\0\0\0\1\0\0\0gzip", 12);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_COMM);
	ck_assert_int_eq(pdf_rrec_timed(h, GUEST_TYPE), 0);
	l = (struct rs_perf_lost *)(void *)rec_init(RS_PERF_RECORD_LOST,
						   sizeof(*l));
	ck_assert_int_eq(pdf_rrec_timed(&l->header, GUEST_TYPE), 0);
}
END_TEST

/* Ring records are 8-aligned (RS_RECORD_ALIGN) and so is every record
 * perf writes: a file that says otherwise is malformed, whichever way the
 * record is carried (found by tests/fuzz/fuzz_perfdata). */
START_TEST(pdf_decode_unaligned)
{
	struct rs_perf_header *e = (void *)enc;
	struct rs_perf_header *h;
	uint64_t *b, t;
	uint32_t r, raw;
	uint16_t size;

	/* carried: the raw record inside a well-formed sample says 12 bytes
	 * less (and the raw field 12 less), leaving 4 past a multiple of 8 */
	ck_assert_int_gt(rs_seq_build(in, 1, 2, 0, 16), 0);
	ck_assert_int_gt(pdf_codec_encode(&lay, 0, 1, (const void *)in, enc, sizeof(enc)), 0);
	ck_assert_int_gt(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), 0);
	memcpy(&raw, enc + 48, 4);    /* after IDENTIFIER IP TID TIME CPU */
	memcpy(&size, enc + 52 + 6, 2);
	raw -= 12;
	size -= 12;
	memcpy(enc + 48, &raw, 4);
	memcpy(enc + 52 + 6, &size, 2);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);

	/* native sample: 4 bytes more than its fields, carried along */
	h = rec_init(PERF_RECORD_SAMPLE, 40);
	b = (uint64_t *)(h + 1);
	b[0] = 0x401000;
	b[2] = 1000;
	memset(enc, 0, sizeof(enc));
	ck_assert_int_gt(pdf_codec_encode(&lay, 0, 1000, h, enc, sizeof(enc)), 0);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), 40);
	e->size += 4;
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
}
END_TEST

START_TEST(pdf_encode_native_types)
{
	struct rs_perf_lost *l = (void *)rec_init(PERF_RECORD_LOST, 24);
	const struct rs_perf_header *e;

	l->id = 1234;
	l->lost = 77;
	e = roundtrip(&l->header, 1, 9);
	ck_assert_uint_eq(e->type, PERF_RECORD_LOST);
	ck_assert_uint_eq(e->size, 24 + TRAILER);
	ck_assert_uint_eq(((const struct rs_perf_lost *)(const void *)dec)->lost, 77);
	ck_assert_uint_eq(((const struct rs_perf_lost *)(const void *)dec)->id,
			  lay.id[PDF_KIND_RING]);

	{
		struct rs_perf_aux *a = (void *)rec_init(PERF_RECORD_AUX, 32);

		a->aux_offset = 4096;
		a->aux_size = 512;
		a->flags = RS_PERF_AUX_FLAG_TRUNCATED;
		e = roundtrip(&a->header, 2, 10);
		ck_assert_uint_eq(e->type, PERF_RECORD_AUX);
		ck_assert_mem_eq(dec, in, 32);
	}
	{
		struct rs_perf_itrace_start *it = (void *)rec_init(PERF_RECORD_ITRACE_START, 16);

		it->pid = 1;
		it->tid = 2;
		roundtrip(&it->header, 0, 11);
		ck_assert_mem_eq(dec, in, 16);
	}
	{
		struct rs_perf_lost_samples *ls = (void *)rec_init(PERF_RECORD_LOST_SAMPLES, 16);

		ls->lost = 3;
		roundtrip(&ls->header, 0, 12);
		ck_assert_mem_eq(dec, in, 16);
	}
}
END_TEST

/* A COMM of pid 7, tid 8 named @name, @pad bytes after the padded name
 * (a guest's own sample_id trailer). */
static struct rs_perf_header *comm_init(const char *name, uint16_t misc,
					uint16_t pad)
{
	size_t n = strlen(name);
	struct rs_perf_header *h = rec_init(PERF_RECORD_COMM,
		(uint16_t)(16 + ((n + 1 + 7) & ~(size_t)7) + pad));
	uint32_t ids[2] = { 7, 8 };

	memset(h + 1, 0, h->size - sizeof(*h));
	h->misc = misc;
	memcpy(h + 1, ids, sizeof(ids));
	memcpy((uint8_t *)(h + 1) + 8, name, n);
	return h;
}

START_TEST(pdf_encode_comm)
{
	struct rs_perf_header *h = comm_init("rs-workload", PERF_RECORD_MISC_COMM_EXEC |
					     PERF_RECORD_MISC_GUEST_USER, 0);
	const struct rs_perf_header *e;
	uint64_t id;

	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_COMM);
	ck_assert_uint_eq(pdf_rrec_perf_body(h), 8 + 16);
	e = roundtrip(h, 3, 77);
	ck_assert_uint_eq(e->type, PERF_RECORD_COMM);
	ck_assert_uint_eq(e->misc, PERF_RECORD_MISC_COMM_EXEC | PERF_RECORD_MISC_GUEST_USER);
	ck_assert_uint_eq(e->size, 32 + TRAILER);
	ck_assert_mem_eq(e + 1, h + 1, 24);            /* perf reads the body as is */
	memcpy(&id, enc + e->size - 8, 8);             /* the trailer ends in the id */
	ck_assert_uint_eq(id, lay.id[PDF_KIND_RING]);
	ck_assert_mem_eq(dec, in, 32);
	ck_assert_int_eq(pdf_rrec_classify((const void *)dec, GUEST_TYPE), PDF_RREC_COMM);
}
END_TEST

START_TEST(pdf_encode_comm_misc)
{
	/* only the CPU mode and COMM_EXEC reach perf */
	struct rs_perf_header *h = comm_init("sh", 0xffff, 0);

	pdf_codec_encode(&lay, 0, 0, h, enc, sizeof(enc));
	ck_assert_uint_eq(((const struct rs_perf_header *)(const void *)enc)->misc,
			  PERF_RECORD_MISC_CPUMODE_MASK | PERF_RECORD_MISC_COMM_EXEC);
}
END_TEST

START_TEST(pdf_encode_comm_trailer_dropped)
{
	struct rs_perf_header *h = comm_init("swapper", 0, 24);
	uint64_t t;
	uint32_t r;

	ck_assert_uint_eq(pdf_rrec_perf_body(h), 16);
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 1, h, enc, sizeof(enc)),
			 8 + 16 + TRAILER);
	ck_assert_int_eq(pdf_codec_decode(&lay, (const void *)enc, dec, sizeof(dec), &r, &t), 24);
	ck_assert_str_eq((const char *)dec + 16, "swapper");
}
END_TEST

START_TEST(pdf_encode_comm_malformed)
{
	struct rs_perf_header *h;

	/* a name without its NUL: carried whole, as an unknown record */
	h = comm_init("12345678", 0, 0);
	h->size = 24;
	ck_assert_uint_eq(pdf_rrec_perf_body(h), 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	roundtrip(h, 0, 1);
	ck_assert_mem_eq(enc + 8, &lay.id[PDF_KIND_RING], 8);
	ck_assert_uint_eq(((const struct rs_perf_header *)(const void *)enc)->type,
			  PERF_RECORD_SAMPLE);
	ck_assert_mem_eq(dec, in, 24);
	/* no name at all */
	h = rec_init(PERF_RECORD_COMM, 16);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	/* a name whose padding would run past the record */
	h = comm_init("abcd", 0, 0);
	h->size = 21;
	ck_assert_uint_eq(pdf_rrec_perf_body(h), 0);
}
END_TEST

START_TEST(pdf_decode_comm_rejects)
{
	struct rs_perf_header *e = (void *)enc;
	uint64_t t;
	uint32_t r;
	int n;

	n = pdf_codec_encode(&lay, 0, 0, comm_init("rs-workload", 0, 0), enc, sizeof(enc));
	ck_assert_int_eq(n, 32 + (int)TRAILER);
	/* the name's NUL overwritten: no longer a COMM perf could read */
	memset(enc + 16, 'x', 16);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
	/* more body than the name needs: not what ringside writes */
	pdf_codec_encode(&lay, 0, 0, comm_init("sh", 0, 8), enc, sizeof(enc));
	memmove(enc + 24 + 8, enc + 24, TRAILER);
	memset(enc + 24, 0, 8);
	e->size += 8;
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
	/* a trailer of another event */
	e->size -= 8;
	memmove(enc + 24, enc + 32, TRAILER);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), 24);
	memset(enc + 24 + TRAILER - 8, 0xee, 8);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
}
END_TEST

/* An MMAP2 of pid 7, tid 8 for @name, with a build id of @bid_size bytes
 * (misc MMAP_BUILD_ID) or a device and inode (@bid_size 0), @pad bytes
 * after the padded name (a guest's own sample_id trailer). */
static struct rs_perf_header *mmap2_init(const char *name, uint16_t misc,
					 uint8_t bid_size, uint16_t pad)
{
	size_t n = strlen(name);
	struct rs_perf_header *h = rec_init(PERF_RECORD_MMAP2,
		(uint16_t)(8 + 64 + ((n + 1 + 7) & ~(size_t)7) + pad));
	struct rs_perf_mmap2_body m;

	memset(&m, 0, sizeof(m));
	m.pid = 7;
	m.tid = 8;
	m.addr = 0x401000;
	m.len = 0x2000;
	m.pgoff = 0x1000;
	m.prot = 5;
	m.flags = 2;
	if (bid_size) {
		m.u.build_id.size = bid_size;
		memset(m.u.build_id.id, 0xab, sizeof(m.u.build_id.id));
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	} else {
		m.u.file.maj = 8;
		m.u.file.ino = 1234;
	}
	memset(h + 1, 0, h->size - sizeof(*h));
	h->misc = misc;
	memcpy(h + 1, &m, sizeof(m));
	memcpy((uint8_t *)(h + 1) + sizeof(m), name, n);
	return h;
}

START_TEST(pdf_encode_mmap2)
{
	struct rs_perf_header *h = mmap2_init("/bin/rs-workload",
					      PERF_RECORD_MISC_USER, 20, 0);
	const struct rs_perf_header *e;
	uint64_t id;

	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_MMAP2);
	ck_assert_str_eq(pdf_rrec_class_key(PDF_RREC_MMAP2), "mmap2");
	ck_assert_uint_eq(pdf_rrec_perf_body(h), 64 + 24);
	e = roundtrip(h, 1, 55);
	ck_assert_uint_eq(e->type, PERF_RECORD_MMAP2);
	ck_assert_uint_eq(e->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	ck_assert_uint_eq(e->size, 8 + 88 + TRAILER);
	ck_assert_mem_eq(e + 1, h + 1, 88);            /* perf reads the body as is */
	memcpy(&id, enc + e->size - 8, 8);
	ck_assert_uint_eq(id, lay.id[PDF_KIND_RING]);
	ck_assert_mem_eq(dec, in, 96);
	ck_assert_int_eq(pdf_rrec_classify((const void *)dec, GUEST_TYPE), PDF_RREC_MMAP2);
	/* without a build id: device and inode */
	h = mmap2_init("/lib/x86_64-linux-gnu/libc.so.6", PERF_RECORD_MISC_USER, 0, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_MMAP2);
	roundtrip(h, 0, 1);
	ck_assert_mem_eq(dec, in, h->size);
}
END_TEST

START_TEST(pdf_encode_mmap2_misc)
{
	/* the CPU mode, MMAP_DATA and MMAP_BUILD_ID reach perf, nothing else */
	struct rs_perf_header *h = mmap2_init("x", 0xffff, 20, 0);

	pdf_codec_encode(&lay, 0, 0, h, enc, sizeof(enc));
	ck_assert_uint_eq(((const struct rs_perf_header *)(const void *)enc)->misc,
			  PERF_RECORD_MISC_CPUMODE_MASK | PERF_RECORD_MISC_MMAP_DATA |
			  PERF_RECORD_MISC_MMAP_BUILD_ID);
}
END_TEST

START_TEST(pdf_encode_mmap2_trailer_dropped)
{
	struct rs_perf_header *h = mmap2_init("/bin/sh", PERF_RECORD_MISC_USER, 20, 40);
	uint64_t t;
	uint32_t r;

	ck_assert_uint_eq(pdf_rrec_perf_body(h), 64 + 8);
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 1, h, enc, sizeof(enc)),
			 8 + 72 + TRAILER);
	ck_assert_int_eq(pdf_codec_decode(&lay, (const void *)enc, dec, sizeof(dec), &r, &t), 80);
	ck_assert_str_eq((const char *)dec + 72, "/bin/sh");
}
END_TEST

START_TEST(pdf_encode_mmap2_malformed)
{
	static char longname[PDF_MMAP2_NAME_MAX + 1];
	struct rs_perf_header *h;

	/* a build id bigger than perf's array: carried whole */
	h = mmap2_init("/bin/sh", PERF_RECORD_MISC_USER, 21, 0);
	ck_assert_uint_eq(pdf_rrec_perf_body(h), 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	roundtrip(h, 0, 1);
	ck_assert_uint_eq(((const struct rs_perf_header *)(const void *)enc)->type,
			  PERF_RECORD_SAMPLE);
	ck_assert_mem_eq(enc + 8, &lay.id[PDF_KIND_RING], 8);
	ck_assert_mem_eq(dec, in, h->size);
	/* the same bytes without the build-id bit are a device and inode */
	h->misc = PERF_RECORD_MISC_USER;
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_MMAP2);
	/* a name without its NUL */
	h = mmap2_init("12345678", 0, 20, 0);
	h->size = 8 + 64 + 8;
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	/* no name, an empty name, padding past the record */
	h = rec_init(PERF_RECORD_MMAP2, 8 + 64);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	h = mmap2_init("", 0, 20, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	h = mmap2_init("abcd", 0, 20, 0);
	h->size = 8 + 64 + 5;
	ck_assert_uint_eq(pdf_rrec_perf_body(h), 0);
	/* a name of perf's PATH_MAX or more: refused; one byte less: kept */
	memset(longname, 'a', PDF_MMAP2_NAME_MAX);
	h = mmap2_init(longname, 0, 20, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	longname[PDF_MMAP2_NAME_MAX - 1] = '\0';
	h = mmap2_init(longname, 0, 20, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_MMAP2);
	roundtrip(h, 0, 1);
	/* ".." components: refused; dots in names: kept */
	h = mmap2_init("/../etc/shadow", 0, 20, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	h = mmap2_init("../x", 0, 20, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	h = mmap2_init("/usr/lib/..", 0, 20, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	h = mmap2_init("/opt/a..b/lib.so..1", 0, 20, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_MMAP2);
	h = mmap2_init("/opt/..a/...", 0, 20, 0);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_MMAP2);
	/* a ring's MMAP (type 1) is carried whole */
	h = rec_init(PERF_RECORD_MMAP, 8 + 32 + 8);
	ck_assert_int_eq(pdf_rrec_classify(h, GUEST_TYPE), PDF_RREC_OTHER);
	roundtrip(h, 0, 1);
	ck_assert_uint_eq(((const struct rs_perf_header *)(const void *)enc)->type,
			  PERF_RECORD_SAMPLE);
}
END_TEST

/* The host's process-table records (pdf_codec_encode_state) under the same
 * rule as a ring's: an MMAP2 perf could not take is refused, never
 * written as a header without its body (perf would read the missing
 * fields, the file name among them, from the next record). */
START_TEST(pdf_encode_state_refuses)
{
	static const char *const bad[] = {
		"/../../../../etc/passwd", "/usr/..", "", "..",
	};
	struct rs_perf_header *h;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h = mmap2_init(bad[i], PERF_RECORD_MISC_USER, 20, 0);
		memset(enc, 0x5a, 64);
		ck_assert_int_eq(pdf_codec_encode_state(&lay, 0, 1, h, enc, sizeof(enc)),
				 FORMAT);
		ck_assert_uint_eq(enc[0], 0x5a);           /* nothing written */
	}
	/* a name without its NUL in the record, a build id too big */
	h = mmap2_init("12345678", 0, 20, 0);
	h->size = 8 + 64 + 8;
	ck_assert_int_eq(pdf_codec_encode_state(&lay, 0, 1, h, enc, sizeof(enc)), FORMAT);
	h = mmap2_init("/bin/sh", PERF_RECORD_MISC_USER, 21, 0);
	ck_assert_int_eq(pdf_codec_encode_state(&lay, 0, 1, h, enc, sizeof(enc)), FORMAT);
	/* a COMM without its NUL */
	h = rec_init(PERF_RECORD_COMM, 8 + 16);
	memset(h + 1, 'a', 16);
	ck_assert_int_eq(pdf_codec_encode_state(&lay, 0, 1, h, enc, sizeof(enc)), FORMAT);
	/* the same checks pass a good one, whole */
	h = mmap2_init("/usr/lib/..so", PERF_RECORD_MISC_USER, 20, 0);
	ck_assert_int_eq(pdf_codec_encode_state(&lay, 0, 1, h, enc, sizeof(enc)),
			 8 + 64 + 16 + (int)TRAILER);
}
END_TEST

/* pdf_rrec_mmap2_name_ok, by length: the rule gpstate shares. */
START_TEST(pdf_mmap2_name_rule)
{
	static char longname[PDF_MMAP2_NAME_MAX];

	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("/bin/sh", 7), 1);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("/bin/sh/..", 7), 1);  /* by length */
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("/bin/sh/..", 10), 0);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("..", 2), 0);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("../a", 4), 0);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("a//../b", 7), 0);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("/...", 4), 1);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("/.", 2), 1);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("/a\0b", 4), 0);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok("", 0), 0);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok(NULL, 3), 0);
	memset(longname, 'a', sizeof(longname));
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok(longname, PDF_MMAP2_NAME_MAX - 1), 1);
	ck_assert_int_eq(pdf_rrec_mmap2_name_ok(longname, PDF_MMAP2_NAME_MAX), 0);
}
END_TEST

START_TEST(pdf_encode_guest_trailer_dropped)
{
	struct rs_perf_lost *l = (void *)rec_init(PERF_RECORD_LOST, 48);
	uint64_t t;
	uint32_t r;
	int n;

	l->lost = 5;
	n = pdf_codec_encode(&lay, 0, 1, &l->header, enc, sizeof(enc));
	ck_assert_int_eq(n, 24 + TRAILER);
	ck_assert_int_eq(pdf_codec_decode(&lay, (const void *)enc, dec, sizeof(dec), &r, &t), 24);
	ck_assert_uint_eq(((const struct rs_perf_lost *)(const void *)dec)->lost, 5);
}
END_TEST

START_TEST(pdf_encode_other)
{
	struct rs_perf_header *h;

	/* an unknown type, a LOST too short for its body, a bad marker */
	h = rec_init(77, 16);
	roundtrip(h, 0, 1);
	ck_assert_mem_eq(dec, in, 16);
	h = rec_init(PERF_RECORD_LOST, 16);
	roundtrip(h, 0, 1);
	ck_assert_int_eq(pdf_rrec_classify((const void *)dec, GUEST_TYPE), PDF_RREC_OTHER);
	h = rec_init(RS_RECORD_MARKER, 32);
	((struct rs_rec_marker *)(void *)h)->len = 1;
	roundtrip(h, 0, 1);
	ck_assert_int_eq(pdf_rrec_classify((const void *)dec, GUEST_TYPE), PDF_RREC_OTHER);
	/* a sample that does not parse against the layout */
	h = rec_init(PERF_RECORD_SAMPLE, 16);
	roundtrip(h, 0, 1);
	ck_assert_int_eq(pdf_rrec_classify((const void *)dec, GUEST_TYPE), PDF_RREC_OTHER);
}
END_TEST

START_TEST(pdf_encode_too_big)
{
	/* carried whole: 56 bytes more (header, IP and 4 sample-id words,
	 * raw size and its 4 zeros); a marker: 40 more (its text alone in
	 * RAW, its fields in TID, ADDR and PERIOD) */
	struct rs_perf_header *h = rec_init(77, 65472);

	ck_assert_int_gt(pdf_codec_encode(&lay, 0, 0, h, enc, sizeof(enc)), 0);
	h->size = 65480;
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 0, h, enc, sizeof(enc)), TOO_BIG);
	h = rec_init(RS_RECORD_MARKER, 65488);
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 0, h, enc, sizeof(enc)), 65528);
	h->size = 65496;
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 0, h, enc, sizeof(enc)), TOO_BIG);
	h->size = 64;
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 0, h, enc, 16), TOO_BIG);
}
END_TEST

START_TEST(pdf_encode_null)
{
	struct rs_perf_header *h = rec_init(64, 8);
	uint64_t t;
	uint32_t r;

	ck_assert_int_eq(pdf_codec_encode(NULL, 0, 0, h, enc, sizeof(enc)), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 0, NULL, enc, sizeof(enc)), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 0, h, NULL, sizeof(enc)), PDF_ERR(pdfe_invalid));
	h->size = 4;
	ck_assert_int_eq(pdf_codec_encode(&lay, 0, 0, h, enc, sizeof(enc)), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_codec_decode(NULL, h, dec, sizeof(dec), &r, &t), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_codec_decode(&lay, NULL, dec, sizeof(dec), &r, &t), PDF_ERR(pdfe_invalid));
}
END_TEST

START_TEST(pdf_decode_rejects)
{
	struct rs_perf_header *e = (void *)enc;
	uint64_t t;
	uint32_t r;
	int n;

	n = pdf_codec_encode(&lay, 0, 0, rec_init(77, 16), enc, sizeof(enc));
	ck_assert_int_gt(n, 0);
	/* an id no event has */
	memset(enc + 8, 0xee, 8);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
	/* a seq event whose payload is not a seq record */
	memcpy(enc + 8, &lay.id[PDF_KIND_SEQ], 8);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
	/* raw size that disagrees with the carried record */
	memcpy(enc + 8, &lay.id[PDF_KIND_RING], 8);
	enc[52 + 6] = 24; /* IDENTIFIER IP TID TIME CPU, the raw size */
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
	/* perf's own records are not ring records */
	e->type = 68;
	e->size = 8;
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), 0);
	/* a LOST record without ringside's trailer */
	e->type = PERF_RECORD_LOST;
	e->size = 24;
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
	/* a type ringside does not carry as itself, with ringside's trailer */
	e->type = PERF_RECORD_THROTTLE;
	e->size = 8 + TRAILER;
	memcpy(enc + TRAILER, &lay.id[PDF_KIND_RING], 8);
	ck_assert_int_eq(pdf_codec_decode(&lay, e, dec, sizeof(dec), &r, &t), FORMAT);
}
END_TEST

/* Guest layouts with and without the fields ringside adds. */
START_TEST(pdf_sample_widen_narrow)
{
	static const uint64_t types[] = {
		0,
		PERF_SAMPLE_IP,
		PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_CPU,
		PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct rs_perf_header *h = rec_init(PERF_RECORD_SAMPLE, 8);
		uint8_t *p = (uint8_t *)(h + 1);
		uint64_t t = types[i], v, outt = 0, file_type;
		uint32_t ring = 0, raw = 12;
		struct pdf_sample s;
		int n, m, k;

		for (k = 0; k < 7; k++) {
			static const uint64_t fixed[] = {
				PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
				PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
				PERF_SAMPLE_STREAM_ID };

			if (t & fixed[k]) {
				v = 0x1000 + (uint64_t)k;
				memcpy(p, &v, 8);
				p += 8;
			}
		}
		if (t & PERF_SAMPLE_CPU) {
			uint32_t cpu[2] = { 33, 44 };

			memcpy(p, cpu, 8);
			p += 8;
		}
		if (t & PERF_SAMPLE_PERIOD) {
			v = 9;
			memcpy(p, &v, 8);
			p += 8;
		}
		if (t & PERF_SAMPLE_CALLCHAIN) {
			v = 2;
			memcpy(p, &v, 8);
			p += 24;
		}
		if (t & PERF_SAMPLE_RAW) {
			memcpy(p, &raw, 4);
			memset(p + 4, 0xab, raw);
			p += 4 + raw;
		}
		h->size = (uint16_t)(p - in);
		pdf_layout_init(&lay, t);
		file_type = lay.sample_type[PDF_KIND_SAMPLE];
		n = pdf_sample_widen(t, lay.id_fields, 77, 6, 555, h, enc, sizeof(enc));
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(pdf_sample_parse(file_type, enc + 8, (size_t)n - 8, &s), 0);
		ck_assert_uint_eq(s.identifier, 77);
		ck_assert_uint_eq(s.cpu, 6);
		/* TIME is the time the record is filed under, which the caller
		 * derived from the guest's own (converted to ns where it can) */
		ck_assert_uint_eq(s.time, 555);
		ck_assert_uint_eq(s.len, (size_t)n - 8);
		m = pdf_sample_narrow(t, lay.id_fields, file_type, (const void *)enc, dec,
				      &ring, &outt);
		ck_assert_int_eq(m, h->size);
		ck_assert_uint_eq(ring, 6);
		/* the guest's CPU (33) is replaced by the ring, res (44) kept */
		if (t & PERF_SAMPLE_CPU) {
			uint32_t cpu[2] = { 6, 44 };
			size_t at = 8 + 8 * (size_t)__builtin_popcountll(t &
				(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
				 PERF_SAMPLE_STREAM_ID));

			ck_assert_mem_eq(dec + at, cpu, 8);
			memcpy(in + at, cpu, 8);
		}
		if (t & PERF_SAMPLE_IDENTIFIER)
			memcpy(in + 8, dec + 8, 8); /* replaced by the event's id */
		if (t & PERF_SAMPLE_TIME) {
			size_t at = 8 + 8 * (size_t)__builtin_popcountll(t &
				(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID));

			ck_assert_uint_eq(outt, 555);
			memcpy(in + at, &outt, 8);
		}
		ck_assert_mem_eq(dec, in, h->size);
	}
}
END_TEST

START_TEST(pdf_sample_parse_rejects)
{
	uint64_t body[4] = { 0 };
	struct pdf_sample s;
	uint32_t raw;

	/* bits ringside does not lay out */
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_READ, body, 32, &s), FORMAT);
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_BRANCH_STACK, body, 32, &s), FORMAT);
	/* fields past the end */
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_IP | PERF_SAMPLE_TIME, body, 8, &s), FORMAT);
	/* a callchain longer than the record */
	body[0] = 4;
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_CALLCHAIN, body, 32, &s), FORMAT);
	body[0] = UINT64_MAX / 4;
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_CALLCHAIN, body, 32, &s), FORMAT);
	body[0] = 3;
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_CALLCHAIN, body, 32, &s), 0);
	/* raw data past the end, or breaking the 8-byte alignment */
	raw = 100;
	memcpy(body, &raw, 4);
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_RAW, body, 32, &s), FORMAT);
	raw = 8;
	memcpy(body, &raw, 4);
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_RAW, body, 32, &s), FORMAT);
	raw = 12;
	memcpy(body, &raw, 4);
	ck_assert_int_eq(pdf_sample_parse(PERF_SAMPLE_RAW, body, 32, &s), 0);
	ck_assert_uint_eq(s.raw_offset, 4);
}
END_TEST

/* Fields with distinct values; the callchain and raw bytes are static. */
static struct pdf_sample sample_values(void)
{
	static const uint64_t chain[] = { PERF_CONTEXT_KERNEL,
		0xffffffff81000010ull, 0xffffffff81000020ull };
	static const uint8_t raw[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	struct pdf_sample s;

	memset(&s, 0, sizeof(s));
	s.identifier = 0x1001;
	s.ip = 0xffffffff81234567ull;
	s.pid = 41;
	s.tid = 42;
	s.time = 0x1003;
	s.addr = 0x1004;
	s.id = 0x1005;
	s.stream_id = 0x1006;
	s.cpu = 7;
	s.cpu_res = 8;
	s.period = 0x1009;
	s.callchain_nr = 3;
	s.callchain = chain;
	s.raw_size = sizeof(raw);
	s.raw = raw;
	return s;
}

/* Build @vals for @type into @b (emptied first), check the header, parse the
 * body back into @out. */
static void build_parse(uint64_t type, const struct pdf_sample *vals,
			struct pdf_buf *b, struct pdf_sample *out)
{
	struct rs_perf_header h;

	b->len = 0;
	ck_assert_int_eq(pdf_sample_build(type, PERF_RECORD_MISC_USER, vals, b), 0);
	ck_assert_uint_ge(b->len, sizeof(h));
	memcpy(&h, b->data, sizeof(h));
	ck_assert_uint_eq(h.type, PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(h.misc, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(h.size, b->len);
	ck_assert_uint_eq(h.size % 8, 0);
	ck_assert_int_eq(pdf_sample_parse(type, b->data + 8, b->len - 8, out), 0);
	ck_assert_uint_eq(out->len, b->len - 8);
}

START_TEST(pdf_sample_build_roundtrip)
{
	static const uint64_t types[] = {
		0,
		PERF_SAMPLE_IP,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
		PERF_SAMPLE_CALLCHAIN,
		PERF_SAMPLE_RAW,
		PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
		PDF_SAMPLE_KNOWN,
	};
	const struct pdf_sample vals = sample_values();
	struct pdf_sample out, again;
	struct pdf_buf b, b2;
	size_t i;

	pdf_buf_init(&b);
	pdf_buf_init(&b2);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		uint64_t t = types[i];

		build_parse(t, &vals, &b, &out);
#define SAME(bit, f) ck_assert_uint_eq(out.f, (t & (bit)) ? vals.f : 0)
		SAME(PERF_SAMPLE_IDENTIFIER, identifier);
		SAME(PERF_SAMPLE_IP, ip);
		SAME(PERF_SAMPLE_TID, pid);
		SAME(PERF_SAMPLE_TID, tid);
		SAME(PERF_SAMPLE_TIME, time);
		SAME(PERF_SAMPLE_ADDR, addr);
		SAME(PERF_SAMPLE_ID, id);
		SAME(PERF_SAMPLE_STREAM_ID, stream_id);
		SAME(PERF_SAMPLE_CPU, cpu);
		SAME(PERF_SAMPLE_CPU, cpu_res);
		SAME(PERF_SAMPLE_PERIOD, period);
		SAME(PERF_SAMPLE_CALLCHAIN, callchain_nr);
		SAME(PERF_SAMPLE_RAW, raw_size);
#undef SAME
		if (t & PERF_SAMPLE_CALLCHAIN)
			ck_assert_mem_eq(out.callchain, vals.callchain, 8 * vals.callchain_nr);
		else
			ck_assert_ptr_null(out.callchain);
		if (t & PERF_SAMPLE_RAW)
			ck_assert_mem_eq(out.raw, vals.raw, vals.raw_size);
		else
			ck_assert_ptr_null(out.raw);
		/* what the parser gives builds the same record again */
		build_parse(t, &out, &b2, &again);
		ck_assert_uint_eq(b2.len, b.len);
		ck_assert_mem_eq(b2.data, b.data, b.len);
	}
	pdf_buf_fini(&b);
	pdf_buf_fini(&b2);
}
END_TEST

/* Every field, laid out by hand vals perf's order, against the builder;
 * appended after what the buffer holds already. */
START_TEST(pdf_sample_build_layout)
{
	const struct pdf_sample vals = sample_values();
	uint8_t want[8 + 8 * 9 + 8 + 24 + 4 + 12], *p = want;
	struct rs_perf_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
				    sizeof(want) };
	uint32_t u32[2];
	struct pdf_buf b;

	ck_assert_uint_eq(sizeof(want), 128);
	memcpy(p, &h, 8);
	p += 8;
#define PUT64(v) do { uint64_t v_ = (v); memcpy(p, &v_, 8); p += 8; } while (0)
#define PUT32X2(a, c) do { u32[0] = (a); u32[1] = (c); memcpy(p, u32, 8); \
			   p += 8; } while (0)
	PUT64(vals.identifier);
	PUT64(vals.ip);
	PUT32X2(vals.pid, vals.tid);
	PUT64(vals.time);
	PUT64(vals.addr);
	PUT64(vals.id);
	PUT64(vals.stream_id);
	PUT32X2(vals.cpu, vals.cpu_res);
	PUT64(vals.period);
	PUT64(vals.callchain_nr);
#undef PUT64
#undef PUT32X2
	memcpy(p, vals.callchain, 24);
	p += 24;
	memcpy(p, &vals.raw_size, 4);
	memcpy(p + 4, vals.raw, 12);
	p += 16;
	ck_assert_uint_eq((size_t)(p - want), sizeof(want));

	pdf_buf_init(&b);
	pdf_buf_add(&b, "prefix!!", 8);
	ck_assert_int_eq(pdf_sample_build(PDF_SAMPLE_KNOWN, PERF_RECORD_MISC_KERNEL,
					  &vals, &b), 0);
	ck_assert_uint_eq(b.len, 8 + sizeof(want));
	ck_assert_mem_eq(b.data, "prefix!!", 8);
	ck_assert_mem_eq(b.data + 8, want, sizeof(want));
	pdf_buf_fini(&b);
}
END_TEST

START_TEST(pdf_sample_build_refuses)
{
	static const uint64_t chain[8190];
	struct pdf_sample s = sample_values();
	struct pdf_buf b;

	pdf_buf_init(&b);
	pdf_buf_add(&b, "x", 1);
	/* bits ringside does not lay out */
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_READ, 0, &s, &b), INVALID);
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK,
					  0, &s, &b), INVALID);
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_REGS_USER, 0, &s, &b), INVALID);
	/* raw bytes that break perf's alignment, or are not there */
	s.raw_size = 8;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_RAW, 0, &s, &b), INVALID);
	s.raw_size = 0;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_RAW, 0, &s, &b), INVALID);
	s.raw_size = 4;
	s.raw = NULL;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_RAW, 0, &s, &b), INVALID);
	/* ... which matters only when RAW is asked for */
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_IP, 0, &s, &b), 0);
	b.len = 1;
	/* callchain entries that are not there */
	s.callchain = NULL;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_CALLCHAIN, 0, &s, &b), INVALID);
	s.callchain_nr = 0;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_CALLCHAIN, 0, &s, &b), 0);
	b.len = 1;
	/* the largest record perf's u16 size holds, and one entry more */
	s.callchain = chain;
	s.callchain_nr = 8189;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_CALLCHAIN, 0, &s, &b), 0);
	ck_assert_uint_eq(b.len, 1 + 65528);
	b.len = 1;
	s.callchain_nr = 8190;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_CALLCHAIN, 0, &s, &b), TOO_BIG);
	s.callchain_nr = UINT64_MAX;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_CALLCHAIN, 0, &s, &b), TOO_BIG);
	/* nothing was appended by a refusal */
	ck_assert_uint_eq(b.len, 1);
	ck_assert_int_eq(b.err, 0);
	/* a buffer that failed already */
	b.err = -ENOMEM;
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_IP, 0, &s, &b), -ENOMEM);
	ck_assert_uint_eq(b.len, 1);
	b.err = 0;
	pdf_buf_fini(&b);
}
END_TEST

START_TEST(pdf_sample_build_null)
{
	struct pdf_sample s = sample_values();
	struct pdf_buf b;

	pdf_buf_init(&b);
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_IP, 0, NULL, &b), INVALID);
	ck_assert_int_eq(pdf_sample_build(PERF_SAMPLE_IP, 0, &s, NULL), INVALID);
	ck_assert_uint_eq(b.len, 0);
	pdf_buf_fini(&b);
}
END_TEST

/* pdf_sample_put (into a record buffer, RAW possibly inside it) writes
 * what pdf_sample_build appends, byte for byte. */
START_TEST(pdf_sample_put_as_build)
{
	const uint64_t type = PDF_SAMPLE_KNOWN & ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	struct pdf_sample s = sample_values();
	_Alignas(8) uint8_t rec[128];
	struct pdf_buf b;
	int n;

	pdf_buf_init(&b);
	ck_assert_int_eq(pdf_sample_build(type, PERF_RECORD_MISC_USER, &s, &b), 0);
	n = pdf_sample_put(type, PERF_RECORD_MISC_USER, &s, rec, sizeof(rec));
	ck_assert_int_eq(n, (int)b.len);
	ck_assert_mem_eq(rec, b.data, b.len);
	/* the RAW bytes already where they go, as the codec puts them */
	memset(rec, 0, sizeof(rec));
	memcpy(rec + b.len - s.raw_size, s.raw, s.raw_size);
	s.raw = rec + b.len - s.raw_size;
	ck_assert_int_eq(pdf_sample_put(type, PERF_RECORD_MISC_USER, &s, rec,
					sizeof(rec)), n);
	ck_assert_mem_eq(rec, b.data, b.len);
	/* one byte short */
	ck_assert_int_eq(pdf_sample_put(type, 0, &s, rec, b.len - 1), TOO_BIG);
	/* no call chain in a record buffer */
	ck_assert_int_eq(pdf_sample_put(PDF_SAMPLE_KNOWN, 0, &s, rec, sizeof(rec)),
			 INVALID);
	pdf_buf_fini(&b);
}
END_TEST

/* Room appended for the caller to write, and none once a buffer failed. */
START_TEST(pdf_buf_extend_room)
{
	struct pdf_buf b;
	uint8_t *p;

	pdf_buf_init(&b);
	pdf_buf_add(&b, "ab", 2);
	p = pdf_buf_extend(&b, 3);
	ck_assert_ptr_eq(p, b.data + 2);
	ck_assert_uint_eq(b.len, 5);
	memcpy(p, "cde", 3);
	ck_assert_mem_eq(b.data, "abcde", 5);
	/* a large one moves the bytes: they stay */
	ck_assert_ptr_nonnull(pdf_buf_extend(&b, 1u << 20));
	ck_assert_mem_eq(b.data, "abcde", 5);
	b.len = 5;
	b.err = -ENOMEM;
	ck_assert_ptr_null(pdf_buf_extend(&b, 1));
	ck_assert_uint_eq(b.len, 5);
	b.err = 0;
	ck_assert_ptr_null(pdf_buf_extend(&b, SIZE_MAX));
	ck_assert_int_eq(b.err, -ENOMEM);
	ck_assert_uint_eq(b.len, 5);
	pdf_buf_fini(&b);
}
END_TEST

START_TEST(pdf_layout_unknown_bits)
{
	struct rs_perf_header *h;

	pdf_layout_init(&lay, GUEST_TYPE | PERF_SAMPLE_READ);
	ck_assert_int_eq(lay.native_samples, 0);
	ck_assert_uint_eq(lay.sample_type[PDF_KIND_SAMPLE],
			  PDF_SAMPLE_BASE | PERF_SAMPLE_IP);
	/* such samples travel whole in ringside:ring */
	h = rec_init(PERF_RECORD_SAMPLE, 48);
	roundtrip(h, 0, 3);
	ck_assert_mem_eq(enc + 8, &lay.id[PDF_KIND_RING], 8);
	ck_assert_mem_eq(dec, in, 48);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pdf_codec");
	TCase *tc = tcase_create("codec");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, pdf_encode_seq);
	tcase_add_test(tc, pdf_encode_marker);
	tcase_add_test(tc, pdf_encode_sample);
	tcase_add_test(tc, pdf_encode_native_types);
	tcase_add_test(tc, pdf_encode_comm);
	tcase_add_test(tc, pdf_encode_comm_misc);
	tcase_add_test(tc, pdf_encode_comm_trailer_dropped);
	tcase_add_test(tc, pdf_encode_comm_malformed);
	tcase_add_test(tc, pdf_decode_comm_rejects);
	tcase_add_test(tc, pdf_decode_unaligned);
	tcase_add_test(tc, pdf_encode_mmap2);
	tcase_add_test(tc, pdf_encode_mmap2_misc);
	tcase_add_test(tc, pdf_encode_mmap2_trailer_dropped);
	tcase_add_test(tc, pdf_encode_mmap2_malformed);
	tcase_add_test(tc, pdf_encode_state_refuses);
	tcase_add_test(tc, pdf_mmap2_name_rule);
	tcase_add_test(tc, pdf_encode_guest_trailer_dropped);
	tcase_add_test(tc, pdf_encode_other);
	tcase_add_test(tc, pdf_encode_too_big);
	tcase_add_test(tc, pdf_encode_null);
	tcase_add_test(tc, pdf_decode_rejects);
	tcase_add_test(tc, pdf_sample_widen_narrow);
	tcase_add_test(tc, pdf_sample_parse_rejects);
	tcase_add_test(tc, pdf_sample_build_roundtrip);
	tcase_add_test(tc, pdf_sample_build_layout);
	tcase_add_test(tc, pdf_sample_build_refuses);
	tcase_add_test(tc, pdf_sample_build_null);
	tcase_add_test(tc, pdf_sample_put_as_build);
	tcase_add_test(tc, pdf_buf_extend_room);
	tcase_add_test(tc, pdf_layout_unknown_bits);
	tcase_add_test(tc, pdf_rrec_timed_records);
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
