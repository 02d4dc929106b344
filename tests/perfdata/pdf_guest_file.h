/* SPDX-License-Identifier: MIT */
/*
 * A guest recording as the Linux agent makes one, for test_pdf_guest and
 * test_pdf_guest_perf: a COMM and an MMAP2 of pid 77 "rs-workload", a
 * COMM of pid 5 "sh", samples with call chains (some ending in frames the
 * guest's unwinder guessed), markers and sequence records.
 */
#ifndef RINGSIDE_TEST_PDF_GUEST_FILE_H
#define RINGSIDE_TEST_PDF_GUEST_FILE_H

#include <stdint.h>
#include <string.h>

#include <check.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

#include "pdf_format.h"

#define G_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define G_PID        77u
#define G_MAP_START  0x400000ull
#define G_MAP_LEN    0x10000ull
#define G_KADDR      0xffffffff81000100ull
#define G_NR_SAMPLES 40u      /* of them, every 4th ends in a bad frame */
#define G_FIRST_TIME 5000000000ull   /* the first sample's */
#define G_MARKER     "phase two: compress"

static const struct pdf_guest_facts g_facts = {
	.known = 1, .nr_cpus_online = 2, .nr_cpus_avail = 4,
	.sample_flags = RS_SAMPLE_FREQ,
	.mem_total_kib = 2035424, .sample_period = 997,
	.sample_type_id = PERF_TYPE_SOFTWARE,
	.sample_config = PERF_COUNT_SW_CPU_CLOCK,
	.hostname = "guest-vm", .os_release = "6.1.0-27-amd64",
	.arch = "x86_64", .cpu_desc = "QEMU Virtual CPU version 2.5+",
};

static inline struct rs_perf_header *g_comm(uint8_t *buf, uint32_t pid,
					    const char *name)
{
	struct rs_perf_header *h = (void *)buf;
	size_t n = strlen(name);
	uint32_t ids[2] = { pid, pid };

	memset(buf, 0, 128);
	h->type = PERF_RECORD_COMM;
	h->misc = PERF_RECORD_MISC_COMM_EXEC;
	h->size = (uint16_t)(16 + ((n + 1 + 7) & ~(size_t)7));
	memcpy(h + 1, ids, 8);
	memcpy((uint8_t *)(h + 1) + 8, name, n);
	return h;
}

static inline struct rs_perf_header *g_mmap2(uint8_t *buf)
{
	static const char name[] = "/usr/bin/rs-workload";
	struct rs_perf_header *h = (void *)buf;
	struct rs_perf_mmap2_body m;

	memset(buf, 0, 128);
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = G_PID;
	m.addr = G_MAP_START;
	m.len = G_MAP_LEN;
	m.prot = 5;
	m.flags = 2;
	m.u.file.ino = 42;
	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(8 + sizeof(m) + ((sizeof(name) + 7) & ~(size_t)7));
	memcpy(h + 1, &m, sizeof(m));
	memcpy((uint8_t *)(h + 1) + sizeof(m), name, sizeof(name));
	return h;
}

/* Sample @i: user mode, pid 77, a chain USER ip caller [bad]: every 4th
 * ends in 0 (i % 8 == 0) or an address under no map (i % 8 == 4), after
 * a kernel part for odd i. */
static inline struct rs_perf_header *g_sample(uint8_t *buf, unsigned i,
					      uint64_t time)
{
	struct rs_perf_header *h = (void *)buf;
	uint64_t *b = (uint64_t *)(h + 1), *cc;
	unsigned n = 0;

	memset(buf, 0, 256);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = i % 2 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	b[0] = i % 2 ? G_KADDR : G_MAP_START + 0x100 + i;
	b[1] = (uint64_t)G_PID << 32 | G_PID;
	b[2] = time;
	b[3] = 997;
	cc = &b[5];
	if (i % 2) {
		cc[n++] = PERF_CONTEXT_KERNEL;
		cc[n++] = G_KADDR;
		cc[n++] = G_KADDR + 0x40;
	}
	cc[n++] = PERF_CONTEXT_USER;
	cc[n++] = G_MAP_START + 0x100 + i;
	cc[n++] = G_MAP_START + 0x2000;
	if (i % 8 == 0)
		cc[n++] = 0;
	else if (i % 8 == 4)
		cc[n++] = 0x7f0000001000ull;
	b[4] = n;
	h->size = (uint16_t)(8 + 8 * (5 + n));
	return h;
}

static inline struct rs_perf_header *g_marker(uint8_t *buf, const char *text,
					      uint32_t pid, uint64_t time)
{
	struct rs_rec_marker *m = (void *)buf;
	size_t n = strlen(text);

	memset(buf, 0, 256);
	m->header.type = RS_RECORD_MARKER;
	m->header.size = (uint16_t)(sizeof(*m) + ((n + 7) & ~(size_t)7));
	m->time = time;
	m->pid = pid;
	m->tid = pid;
	m->id = 7;
	m->len = (uint32_t)n;
	memcpy(m + 1, text, n);
	return &m->header;
}

/* Write the recording to @path; @v1: in the layout of files before the
 * shared sample-id fields.  Returns the records written. */
static inline unsigned g_write(const char *path,
			       const struct pdf_guest_facts *facts, int v1,
			       struct pdf_writer_stats *st)
{
	static char arg0[] = "ringside";
	static char *argv[] = { arg0, NULL };
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 2, .sample_type = G_TYPE,
		.argc = 1, .argv = argv, .guest = facts,
	};
	struct pdf_host_facts host = { .kind = PDF_HOST_DRAIN, .nr_rings = 2 };
	_Alignas(8) uint8_t buf[256];
	struct pdf_writer *w;
	unsigned i, n = 0;
	uint64_t t = G_FIRST_TIME - 3000000000ull;   /* 3 s before */

	ck_assert_int_eq(pdf_writer_open(&w, path, &p), 0);
	if (v1)
		ck_assert_int_eq(pdf_writer_layout_v1(w), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, t, g_comm(buf, G_PID, "rs-workload")), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, t + 1, g_comm(buf, 5, "sh")), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, t + 2, g_mmap2(buf)), 0);
	ck_assert_int_eq(pdf_writer_add(w, 1, t + 3,
					g_marker(buf, "start", 5, t + 3)), 0);
	n = 4;
	for (i = 0; i < G_NR_SAMPLES; i++, n++) {
		t = G_FIRST_TIME + i * 1000000ull;
		ck_assert_int_eq(pdf_writer_add(w, i % 2, t, g_sample(buf, i, t)), 0);
		if (i % 10 == 5) {
			ck_assert_int_eq(pdf_writer_add(w, 1, t + 1,
					 g_marker(buf, G_MARKER, G_PID, t + 1)), 0);
			n++;
		}
	}
	rs_seq_build(buf, 0, t + 2, 0, 8);
	ck_assert_int_eq(pdf_writer_add(w, 0, t + 2, (const void *)buf), 0);
	n++;
	ck_assert_int_eq(pdf_writer_set_host(w, &host), 0);
	if (st)
		*st = *pdf_writer_stats(w);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	return n;
}

#endif /* RINGSIDE_TEST_PDF_GUEST_FILE_H */
