/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpora of tests/fuzz/corpus/ that the project's own
 * code produces: perf.data files from the perfdata writer, and inputs in
 * each target's own layout (fuzz_*.c says what its bytes mean).  Run once
 * by hand when a target's input layout changes (docs/testing.md):
 *   build/tests/fuzz/fuzz-gen-seeds tests/fuzz/corpus
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"
#include "ringside/vmm_control.h"

static const char *top;

static void put(const char *target, const char *name, const void *data,
		size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, target);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", top, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* ---- perf.data files ----------------------------------------------------- */

#define GUEST_TYPE (RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID | \
		    RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_PERIOD)

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T start_kernel\n"
	"ffffffff81002000 t do_idle\n"
	"ffffffffc0100000 t mod_a_fn\t[mod_a]\n";

/* One record of each kind the reader and report tell apart. */
static const struct rs_perf_header *record(unsigned i, uint8_t *buf)
{
	struct rs_perf_header *h = (void *)buf;
	uint64_t *b = (uint64_t *)(h + 1);

	memset(buf, 0, 256);
	switch (i % 6) {
	case 0:
		rs_seq_build(buf, i, 1000 + i, 0, 8);
		break;
	case 1: {
		struct rs_rec_marker *m = (void *)buf;

		m->header.type = RS_RECORD_MARKER;
		m->header.size = sizeof(*m) + 8;
		m->time = 1000 + i;
		m->id = 7;
		m->len = 5;
		memcpy(m + 1, "hello", 5);
		break;
	}
	case 2:
		h->type = RS_PERF_RECORD_SAMPLE;
		h->size = 40;
		b[0] = 0xffffffff81001010ull;
		b[1] = 42;
		b[2] = 1000 + i;
		b[3] = 1;
		break;
	case 3:
		h->type = RS_PERF_RECORD_LOST;
		h->size = sizeof(struct rs_perf_lost);
		b[0] = 1;
		b[1] = 3;
		break;
	case 4:
		h->type = RS_PERF_RECORD_AUX;
		h->size = sizeof(struct rs_perf_aux);
		b[0] = 0;
		b[1] = 4096;
		break;
	default:
		h->type = RS_RECORD_PAD;
		h->size = 16;
		break;
	}
	return h;
}

static void perfdata(const char *name, int with_ksyms, int synced)
{
	static char a0[] = "ringside", a1[] = "record";
	static char *argv[] = { a0, a1, NULL };
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 2, .sample_type = GUEST_TYPE,
		.argc = 2, .argv = argv,
	};
	char dir[] = "/tmp/ringside-seeds.XXXXXX", path[256], cmd[300];
	_Alignas(8) uint8_t buf[256];
	struct pdf_writer *w;
	FILE *f;
	long len;
	char *data;

	if (!mkdtemp(dir))
		exit(1);
	snprintf(path, sizeof(path), "%s/out.data", dir);
	if (with_ksyms) {
		p.guest_kallsyms = kallsyms;
		p.guest_kallsyms_len = sizeof(kallsyms) - 1;
		p.buildid_dir = dir;
	}
	if (pdf_writer_open(&w, path, &p) < 0)
		exit(1);
	for (unsigned i = 0; i < 12; i++)
		if (pdf_writer_add(w, i % 2, 1000 + i, record(i, buf)) < 0)
			exit(1);
	if (synced) {
		struct pdf_clock_sync cs = { .state = PDF_CLOCK_SYNCED, .nr = 1 };

		cs.wall_ns = 1700000000000000000ull;
		cs.mono_ns = 5000;
		pdf_writer_set_clock(w, &cs);
	}
	if (pdf_writer_finish(w) < 0)
		exit(1);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0)
		exit(1);
	rewind(f);
	data = malloc((size_t)len);
	if (!data || fread(data, 1, (size_t)len, f) != (size_t)len)
		exit(1);
	fclose(f);
	put("perfdata", name, data, (size_t)len);
	free(data);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		exit(1);
}

/* A file for `report --pprof` (fuzz_pprof.c): a COMM, an MMAP2 with a
 * build id, samples with call chains through kernel and user code. */
static void pprof_chains(void)
{
	static const uint64_t type = GUEST_TYPE | RS_PERF_SAMPLE_CALLCHAIN;
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 2, .sample_type = type,
	};
	char dir[] = "/tmp/ringside-seeds.XXXXXX", path[256], cmd[300];
	_Alignas(8) uint8_t buf[256];
	struct rs_perf_header *h = (void *)buf;
	uint8_t *b8 = (uint8_t *)(h + 1);
	uint64_t *b = (uint64_t *)(h + 1);
	uint64_t addr = 0x7f0000001000ull, len = 0x1000, pgoff = 0x1000;
	uint32_t pid = 7;
	struct pdf_writer *w;
	FILE *f;
	long flen;
	char *data;

	if (!mkdtemp(dir))
		exit(1);
	snprintf(path, sizeof(path), "%s/out.data", dir);
	if (pdf_writer_open(&w, path, &p) < 0)
		exit(1);
	memset(buf, 0, sizeof(buf));
	h->type = 3;                              /* PERF_RECORD_COMM */
	h->misc = 2;                              /* PERF_RECORD_MISC_USER */
	memcpy(b8, &pid, 4);
	memcpy(b8 + 4, &pid, 4);
	memcpy(b8 + 8, "app", 4);
	h->size = sizeof(*h) + 16;
	if (pdf_writer_add(w, 0, 1000, h) < 0)
		exit(1);
	memset(buf, 0, sizeof(buf));
	h->type = 10;                             /* PERF_RECORD_MMAP2 */
	h->misc = 2 | (1 << 14);                  /* USER, MMAP_BUILD_ID */
	memcpy(b8, &pid, 4);
	memcpy(b8 + 4, &pid, 4);
	memcpy(b8 + 8, &addr, 8);
	memcpy(b8 + 16, &len, 8);
	memcpy(b8 + 24, &pgoff, 8);
	b8[32] = 20;
	memset(b8 + 36, 0x77, 20);
	memcpy(b8 + 64, "/opt/app", 9);
	h->size = sizeof(*h) + 64 + 16;
	if (pdf_writer_add(w, 0, 1000, h) < 0)
		exit(1);
	for (unsigned i = 0; i < 4; i++) {
		int user = i % 2;

		memset(buf, 0, sizeof(buf));
		h->type = RS_PERF_RECORD_SAMPLE;
		h->misc = user ? 2 : 1;           /* USER, KERNEL */
		b[0] = user ? 0x7f0000001110ull + i : 0xffffffff81001010ull + i;
		b[1] = (uint64_t)pid << 32 | pid;
		b[2] = 5000 + i;
		b[3] = 100;
		b[4] = 4;                         /* the chain: */
		b[5] = user ? (uint64_t)-512 : (uint64_t)-128; /* its context */
		b[6] = b[0];
		b[7] = user ? 0x7f0000001200ull : 0xffffffff81001120ull;
		b[8] = 0x7f0000001230ull;
		h->size = sizeof(*h) + 9 * 8;
		if (pdf_writer_add(w, user, 5000 + i, h) < 0)
			exit(1);
	}
	if (pdf_writer_finish(w) < 0)
		exit(1);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (flen = ftell(f)) < 0)
		exit(1);
	rewind(f);
	data = malloc((size_t)flen);
	if (!data || fread(data, 1, (size_t)flen, f) != (size_t)flen)
		exit(1);
	fclose(f);
	put("pprof", "chains.data", data, (size_t)flen);
	free(data);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		exit(1);
}

/* ---- the other targets' layouts ------------------------------------------ */

static void ksyms(void)
{
	uint8_t buf[8 + sizeof(kallsyms)];
	uint64_t addr = 0xffffffff81001010ull;

	memcpy(buf, &addr, 8);
	memcpy(buf + 8, kallsyms, sizeof(kallsyms) - 1);
	put("ksyms", "small", buf, sizeof(buf) - 1);
}

/* fuzz_region.c: shape byte, then per ring a record count and records
 * (a kind byte and its bytes), then the sideband, then patches. */
static void rings(void)
{
	static const uint8_t seq_normal[] = {
		0x00, 6, 0x04, 1, 0, 0, 0, 0x08, 2, 0, 0, 0, 0x0c, 3, 0, 0, 0,
		0x10, 4, 0, 0, 0, 0x14, 5, 0, 0, 0, 0x18, 6, 0, 0, 0,
	};
	static const uint8_t seq_overwrite[] = {
		0x08, 6, 0x04, 1, 0, 0, 0, 0x08, 2, 0, 0, 0, 0x0c, 3, 0, 0, 0,
		0x10, 4, 0, 0, 0, 0x14, 5, 0, 0, 0, 0x18, 6, 0, 0, 0,
	};
	/* Two rings with AUX and a sideband; a sample (type 9, 32 bytes of
	 * body) and an AUX output of 16 bytes on the first. */
	static const uint8_t mixed[] = {
		0xa5, 3,
		0x82, 9, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0,
		0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
		0x03, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		0x04, 7, 0, 0, 0,
		1, 0x04, 9, 0, 0, 0,
		12, 'f', 'f', 'f', 'f', ' ', 'T', ' ', '_', 't', 'e', 'x', 't',
		1, 0,
	};
	/* As seq_normal, then patches of the header page and the control
	 * page: (offset u32, length byte, bytes). */
	static const uint8_t patched[] = {
		0x00, 2, 0x04, 1, 0, 0, 0, 0x08, 2, 0, 0, 0,
		0x01, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff,
		0x01, 0x20, 0, 0, 7, 0, 0, 0, 0, 0, 0, 1, 0,
	};

	for (unsigned i = 0; i < 4; i++) {
		const char *t = i == 0 ? "region_open" : i == 1 ? "consumer" :
				i == 2 ? "snapshot" : "region_table";

		put(t, "seq_normal", seq_normal, sizeof(seq_normal));
		put(t, "seq_overwrite", seq_overwrite, sizeof(seq_overwrite));
		put(t, "mixed", mixed, sizeof(mixed));
		put(t, "patched", patched, sizeof(patched));
	}
}

/* fuzz_ctl_server.c: packets, each a length byte and its bytes. */
static void ctl_server(void)
{
	uint8_t buf[5 * (1 + sizeof(struct rs_ctl_msg))];
	static const uint16_t ops[5] = {
		RS_CTL_HELLO, RS_CTL_PAUSE, RS_CTL_STATUS, RS_CTL_RESUME, 9,
	};

	for (unsigned i = 0; i < 5; i++) {
		struct rs_ctl_msg m = { RS_CTL_MAGIC, RS_CTL_VERSION, ops[i], 0, 0 };

		buf[i * (1 + sizeof(m))] = sizeof(m);
		memcpy(buf + i * (1 + sizeof(m)) + 1, &m, sizeof(m));
	}
	put("ctl_server", "session", buf, sizeof(buf));
	/* the doorbells in batches: BELLS from ring 0, 1 and past the end */
	for (unsigned i = 0; i < 3; i++) {
		struct rs_ctl_msg m = { RS_CTL_MAGIC, RS_CTL_VERSION,
					RS_CTL_BELLS, i ? 1u + (i - 1) * 4096u : 0, 0 };

		buf[i * (1 + sizeof(m))] = sizeof(m);
		memcpy(buf + i * (1 + sizeof(m)) + 1, &m, sizeof(m));
	}
	put("ctl_server", "bells", buf, 3 * (1 + sizeof(struct rs_ctl_msg)));
}

/* fuzz_ctl_client.c: replies, each a descriptor count, a u16 length and
 * the packet. */
static size_t reply(uint8_t *out, uint8_t nfds, uint16_t op, const void *payload,
		    uint32_t len)
{
	struct rs_ctl_reply rep = {
		RS_CTL_MAGIC, RS_CTL_VERSION, op, 0, len,
	};
	uint16_t total = (uint16_t)(sizeof(rep) + len);

	out[0] = nfds;
	memcpy(out + 1, &total, 2);
	memcpy(out + 3, &rep, sizeof(rep));
	memcpy(out + 3 + sizeof(rep), payload, len);
	return 3 + total;
}

static void ctl_client(void)
{
	static uint8_t buf[4096];
	struct rs_ctl_hello h = {
		.region_size = 1 << 16, .region_gpa = 1ull << 32,
		.nr_rings = 1, .nr_vcpus = 1, .nr_fds = 2, .tsc_khz = 1000000,
	};
	struct rs_vmm_vcpu_info info = { .state = RS_VCPU_HALTED };
	size_t n = 0;

	n += reply(buf + n, 2, RS_CTL_HELLO, &h, sizeof(h));
	put("ctl_client", "hello", buf, n);
	n += reply(buf + n, 0, RS_CTL_PAUSE, NULL, 0);
	n += reply(buf + n, 0, RS_CTL_STATUS, &info, sizeof(info));
	n += reply(buf + n, 0, RS_CTL_STATUS, &info, sizeof(info));
	n += reply(buf + n, 0, RS_CTL_RESUME, NULL, 0);
	put("ctl_client", "session", buf, n);
}

/* fuzz_topa.c: a 64-byte header, then memory from 0: a table at 0 with
 * two 4 KiB output regions and an END entry back to it. */
static void topa(void)
{
	uint64_t img[8 + 512 * 3];
	uint64_t ctl = (1ull << 13) | (1ull << 2) | (1ull << 3); /* BranchEn OS User */

	memset(img, 0, sizeof(img));
	img[0] = 0;                  /* OUTPUT_BASE */
	img[1] = 0x7f;               /* MASK_PTRS: entry 0, offset 0 */
	img[2] = ctl;
	img[3] = 8 | ((uint64_t)46 << 32);   /* flags, maxphyaddr 46 */
	img[4] = 64 | ((uint64_t)2048 << 32); /* max_entries, packet bytes */
	img[8 + 0] = 0x1000;                 /* region 4 KiB at 0x1000 */
	img[8 + 1] = 0x2000 | (1u << 2);     /* 4 KiB at 0x2000, INT */
	img[8 + 2] = 0x0 | 1u;               /* END: back to 0 */
	put("topa", "two_regions", img, sizeof(img));
}

/* fuzz_guest_kbuf.c: shape (two sideband pages, one CPU, one data page),
 * the row (control page 1, data page 2), the kallsyms, no patches, then
 * guest memory: a perf control page and two samples. */
static void guest_kbuf(void)
{
	static uint8_t buf[4 + sizeof(kallsyms) + 16 * 4096];
	struct rs_ctrl_page *ctrl;
	uint64_t *rec;
	size_t n = 0;

	buf[n++] = 0x01;
	buf[n++] = 1;
	buf[n++] = 2;
	buf[n++] = sizeof(kallsyms) - 1;
	memcpy(buf + n, kallsyms, sizeof(kallsyms) - 1);
	n += sizeof(kallsyms) - 1;
	buf[n++] = 0;
	ctrl = (void *)(buf + n + 4096);
	ctrl->data_head = 64;
	ctrl->data_tail = 0;
	ctrl->data_size = 4096;
	rec = (void *)(buf + n + 2 * 4096);
	for (unsigned i = 0; i < 2; i++, rec += 4) {
		struct rs_perf_header h = { RS_PERF_RECORD_SAMPLE, 0, 32 };

		memcpy(rec, &h, sizeof(h));
		rec[1] = 0xffffffff81001010ull;
		rec[2] = 1;
		rec[3] = 1000 + i;
	}
	put("guest_kbuf", "two_samples", buf, n + 3 * 4096);
}

/* fuzz_pstate_file.c: the head's claims (two processes, four mappings),
 * then the entries: two processes of two mappings, one named with ".."
 * components, one [vdso]. */
static uint32_t pstate_map(uint8_t *buf, uint64_t start, const char *name)
{
	struct rs_pstate_map m = { .start = start, .len = 0x2000, .prot = 5,
				   .flags = 2, .build_id_len = 20 };
	uint32_t n = (uint32_t)strlen(name);

	m.name_len = (uint16_t)n;
	memset(m.build_id, 0xab, sizeof(m.build_id));
	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), name, n);
	return (sizeof(m) + n + 7u) & ~7u;
}

static void seeds_pstate_file(void)
{
	static uint8_t buf[4 + 1024];
	static const char *const names[2][2] = {
		{ "/usr/bin/gzip", "/../../../../etc/passwd" },
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", "[vdso]" },
	};
	uint16_t claims[2] = { 2, 4 };
	size_t n = sizeof(claims);

	memcpy(buf, claims, sizeof(claims));
	for (uint32_t i = 0; i < 2; i++) {
		struct rs_pstate_proc pr = { .pid = 42 + i, .nr_maps = 2 };
		size_t at = n + sizeof(pr);

		memcpy(pr.comm, "gzip", 4);
		at += pstate_map(buf + at, 0x400000, names[i][0]);
		at += pstate_map(buf + at, 0x7fff0000, names[i][1]);
		pr.length = (uint32_t)(at - n);
		memcpy(buf + n, &pr, sizeof(pr));
		n = at;
	}
	put("pstate_file", "dotdot", buf, n);
}

/* fuzz_pstate_file.c: one process with a name of the longest length a
 * table may give (RS_PSTATE_NAME_MAX) and one a byte longer. */
static void pstate_file_long(void)
{
	static uint8_t buf[4 + 2 * 32 + 2 * (80 + 4104)];
	static char name[RS_PSTATE_NAME_MAX + 2];
	uint16_t claims[2] = { 2, 2 };
	size_t n = sizeof(claims);

	memcpy(buf, claims, sizeof(claims));
	memset(name, 'a', sizeof(name) - 1);
	name[0] = '/';
	for (uint32_t i = 0; i < 2; i++) {
		struct rs_pstate_proc pr = { .pid = 7 + i, .nr_maps = 1 };
		size_t at = n + sizeof(pr);

		name[RS_PSTATE_NAME_MAX + i] = '\0';
		at += pstate_map(buf + at, 0x400000, name);
		name[RS_PSTATE_NAME_MAX + i] = 'a';
		pr.length = (uint32_t)(at - n);
		memcpy(buf + n, &pr, sizeof(pr));
		n = at;
	}
	put("pstate_file", "longname", buf, n);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS-DIR\n", argv[0]);
		return 2;
	}
	top = argv[1];
	perfdata("plain.data", 0, 0);
	perfdata("synced.data", 0, 1);
	perfdata("ksyms.data", 1, 0);
	pprof_chains();
	ksyms();
	rings();
	ctl_server();
	ctl_client();
	topa();
	guest_kbuf();
	seeds_pstate_file();
	pstate_file_long();
	return 0;
}
