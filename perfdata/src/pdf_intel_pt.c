/* SPDX-License-Identifier: MIT */
/*
 * A perf.data that perf's own intel_pt decoder accepts: one attr of the
 * intel_pt PMU type (sample_id_all: intel_pt wants ordered events), COMM
 * and MMAP of the guest code's ELF for a made-up thread, the
 * AUXTRACE_INFO of type intel_pt (its priv[] as tools/perf/util/intel-pt.h
 * numbers it), one AUXTRACE record carrying the PT bytes, and an EXIT
 * (perf sets its decoder queues up on the event after the data).
 * Timeless decoding: TSCEn's bit is given, cap_user_time_zero is not.
 *
 * File layout: header | the attr's id | attr + ids section | data; no
 * features.  The whole file is built in memory, then written.
 */
#include <string.h>

#include "ringside/perfdata.h"

#include "pdf_auxtrace.h"
#include "pdf_format.h"
#include "pdf_io.h"

#define PT_PMU_TYPE 8u       /* any non-builtin type; perf matches priv[0] */
#define PID 4242u
#define ATTR_ID 1u
#define FN_MAX 4096u         /* perf's MMAP filename, NUL included */

/* The sample_id_all trailer of the attr (TID, TIME, CPU, IDENTIFIER). */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};
_Static_assert(sizeof(struct sample_id) == 32, "sample_id trailer");

/* The bodies of COMM and MMAP with room for their names
 * (ringside/perf_format.h). */
struct comm_body {
	struct rs_perf_comm_body b;
	char comm[16];
};

struct mmap_body {
	struct rs_perf_mmap_body b;
	char fn[FN_MAX];
};

/* A record: header, @len bytes of body padded to 8, and the sample_id
 * trailer at @time when @sid is set. */
static void add_record(struct pdf_buf *b, uint32_t type, uint16_t misc,
		       const void *body, size_t len, uint64_t time, int sid)
{
	static const uint8_t zero[8];
	struct sample_id s = { PID, PID, time, 0, 0, ATTR_ID };
	size_t pad = (8 - len % 8) % 8;
	struct rs_perf_header h = {
		type, misc,
		(uint16_t)(sizeof(h) + len + pad + (sid ? sizeof(s) : 0)) };

	pdf_buf_add(b, &h, sizeof(h));
	pdf_buf_add(b, body, len);
	pdf_buf_add(b, zero, pad);
	if (sid)
		pdf_buf_add(b, &s, sizeof(s));
}

static void add_attr(struct pdf_buf *b)
{
	struct perf_event_attr attr;
	uint64_t id = ATTR_ID;
	/* ids first, then the attr, both right after the header */
	struct pdf_section ids = { sizeof(struct pdf_file_header), sizeof(id) };

	memset(&attr, 0, sizeof(attr));
	attr.type = PT_PMU_TYPE;
	attr.size = sizeof(attr);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	attr.sample_period = 1;
	attr.sample_id_all = 1;
	pdf_buf_add(b, &id, sizeof(id));
	pdf_buf_add(b, &attr, sizeof(attr));
	pdf_buf_add(b, &ids, sizeof(ids));
}

static void add_events(struct pdf_buf *b, const struct pdf_intel_pt_params *p)
{
	static const uint8_t zero[8];
	struct comm_body comm = { { PID, PID }, "guest" };
	struct rs_perf_task_body ex = { PID, PID, PID, PID, 3 };
	struct pdf_auxtrace_ipt_info info;
	struct pdf_auxtrace ax;
	struct mmap_body mm;
	size_t fn_len = strlen(p->elf) + 1;

	memset(&mm, 0, sizeof(mm));
	mm.b.pid = mm.b.tid = PID;
	mm.b.addr = p->code_vaddr;
	mm.b.len = p->code_len;
	mm.b.pgoff = p->code_offset;
	memcpy(mm.fn, p->elf, fn_len);
	pdf_auxtrace_ipt_info(&info, PT_PMU_TYPE);
	memset(&ax, 0, sizeof(ax));
	ax.size = (p->trace_len + 7) & ~7ull; /* PAD bytes (0) fill up */
	ax.tid = PID;
	ax.cpu = UINT32_MAX;

	add_record(b, PERF_RECORD_COMM, 0, &comm, sizeof(comm), 1, 1);
	add_record(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, &mm,
		   offsetof(struct mmap_body, fn) + fn_len, 2, 1);
	add_record(b, PDF_RECORD_AUXTRACE_INFO, 0, &info, sizeof(info), 0, 0);
	add_record(b, PDF_RECORD_AUXTRACE, 0, &ax, sizeof(ax), 0, 0);
	pdf_buf_add(b, p->trace, p->trace_len);
	pdf_buf_add(b, zero, ax.size - p->trace_len);
	add_record(b, PERF_RECORD_EXIT, 0, &ex, sizeof(ex), 3, 1);
}

int pdf_intel_pt_write(const char *path, const struct pdf_intel_pt_params *p)
{
	struct pdf_file_header h;
	struct pdf_buf b;
	int err;

	if (!path || !p || p->size < sizeof(*p) || (!p->trace && p->trace_len) ||
	    !p->elf ||
	    strlen(p->elf) >= FN_MAX || p->trace_len > SIZE_MAX - 8)
		return PDF_ERR(pdfe_invalid);
	memset(&h, 0, sizeof(h));
	h.magic = PDF_MAGIC;
	h.size = sizeof(h);
	h.attr_size = sizeof(struct perf_event_attr) + sizeof(struct pdf_section);
	h.attrs.offset = sizeof(h) + sizeof(uint64_t);
	h.attrs.size = h.attr_size;
	h.data.offset = h.attrs.offset + h.attrs.size;

	pdf_buf_init(&b);
	pdf_buf_add(&b, &h, sizeof(h));   /* data.size filled in below */
	add_attr(&b);
	add_events(&b, p);
	err = b.err;
	if (!err) {
		h.data.size = b.len - h.data.offset;
		memcpy(b.data, &h, sizeof(h));
		err = pdf_aside_write(path, b.data, b.len);
	}
	pdf_buf_fini(&b);
	return err;
}
