/* SPDX-License-Identifier: MIT */
/*
 * Target: the guest's process table from the region to the file, as a
 * snapshot or a recording files it: the guest publishes a table in the
 * sideband (rs_pstate_publish), the host copies and checks it
 * (gi_pstate_read, introspect/src/gi_pstate.c), files its COMM and MMAP2
 * records (cap_pstate_file, capture/src/cap_pstate.c, through
 * pdf_writer_add_state) and reads the file back as report does.  The
 * input: the processes and mappings the copy's head claims (two bytes
 * each), then the copy's entries.  Aborts when the file does not read
 * back, when a record the checks kept is refused by the writer (the two
 * rules differ), or when a name perf must not read reaches the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "fuzz_input.h"
#include "ringside/capture.h"

#define TYPE (RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID | RS_PERF_SAMPLE_TIME)
#define TABLE (64u * 1024)        /* two copies of 32 KiB */

static char path[256];

/* The file's directory, once per process: private, removed at exit
 * (left behind if the process dies, like libFuzzer's own files). */
static char dir[64];

static void dir_remove(void)
{
	rmdir(dir);
}

static int dir_make(void)
{
	const char *t = getenv("TMPDIR");

	if (dir[0])
		return 0;
	/* memory, where it can: the writer syncs each file */
	if (!t || strlen(t) >= 32)
		t = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	snprintf(dir, sizeof(dir), "%s/rs-fuzz-pstate.XXXXXX", t);
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/out.data", dir);
	atexit(dir_remove);
	return 0;
}

/* The MMAP2 records of the file: each name one the table's checks and
 * perf both take. */
static void check_mmap2(const struct rs_perf_header *rec)
{
	const char *name = (const char *)(rec + 1) + sizeof(struct rs_perf_mmap2_body);
	size_t room = rec->size - sizeof(*rec) - sizeof(struct rs_perf_mmap2_body);
	size_t n;

	if (rec->size < sizeof(*rec) + sizeof(struct rs_perf_mmap2_body) + 8)
		abort();
	n = strnlen(name, room);
	if (n == room || !pdf_rrec_mmap2_name_ok(name, n) ||
	    (name[0] != '/' && strcmp(name, "[vdso]")))
		abort();
}

static void read_back(const struct cap_pstate_filed *c)
{
	struct pdf_reader *r = NULL;
	struct pdf_event ev;
	struct cap_tally t;
	uint64_t comms = 0, mmaps = 0, at;
	int n;

	if (pdf_reader_open(&r, path))
		abort();
	while ((n = pdf_reader_next(r, &ev)) == 1) {
		if (!ev.state)
			abort();            /* no ring record was written */
		if (ev.rec->type == PERF_RECORD_COMM) {
			comms++;
		} else if (ev.rec->type == PERF_RECORD_MMAP2) {
			check_mmap2(ev.rec);
			mmaps++;
		} else {
			abort();
		}
	}
	if (n != 0 || comms != c->comms || mmaps != c->mmaps)
		abort();
	pdf_reader_close(r);
	/* as snapshot and record read their file back for the summary */
	if (cap_tally_file(path, &t, NULL, &at))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t entries[TABLE / 2] __attribute__((aligned(8)));
	static char a0[] = "ringside", a1[] = "snapshot";
	static char *argv[] = { a0, a1, NULL };
	struct pdf_writer_params wp = {
		.size = sizeof(wp), .nr_rings = 1, .sample_type = TYPE,
		.argc = 2, .argv = argv,
	};
	struct rs_pstate_copy head = { 0 };
	struct cap_pstate_filed c = { 0 };
	struct rs_region_params p;
	struct rs_pstate_writer pw;
	struct pdf_writer *w;
	struct rs_region reg;
	struct gi_pstate g;
	struct fz_in in;
	uint64_t rsize, named = 0;
	uint8_t *mem;
	size_t len;

	if (dir_make())
		return 0;
	fz_in_init(&in, data, size);
	head.nr_procs = fz_u16(&in);
	head.nr_maps = fz_u16(&in);
	len = fz_take(&in, entries, in.left < sizeof(entries) - sizeof(head) ?
		      in.left : sizeof(entries) - sizeof(head));
	head.length = (uint32_t)(len & ~(size_t)7);

	rs_region_params_init(&p, 1, 1, 0, RS_MODE_OVERWRITE, RS_MODE_NORMAL);
	p.sample_type = TYPE;
	p.sideband_pages = TABLE / RS_PAGE_SIZE;
	if (rs_region_size(&p, &rsize) < 0 ||
	    !(mem = aligned_alloc(RS_PAGE_SIZE, rsize)))
		return 0;
	if (rs_region_layout(mem, rsize, &p) < 0 ||
	    rs_region_open(&reg, mem, rsize) < 0 ||
	    rs_pstate_begin(&reg, &pw, 0, TABLE) < 0 ||
	    rs_pstate_publish(&pw, &head, entries) < 0)
		abort();

	memset(&g, 0, sizeof(g));
	if (gi_pstate_read(&g, &reg))
		goto out;
	if (pdf_writer_open(&w, path, &wp))
		goto out;
	if (cap_pstate_file(&g, w, 1, &c)) {
		pdf_writer_discard(w);
		goto out;
	}
	/* what the checks kept, the writer takes: the same rule (a COMM
	 * for each process with a name) */
	for (uint32_t i = 0; i < g.nr_procs; i++)
		named += !!g.procs[i].comm[0];
	if (c.refused || c.comms != named || c.mmaps != g.nr_maps)
		abort();
	if (pdf_writer_finish(w))
		goto out;
	read_back(&c);
	unlink(path);
out:
	gi_pstate_fini(&g);
	free(mem);
	return 0;
}
