// SPDX-License-Identifier: MIT
/*
 * A perf.data that perf's own intel_pt decoder accepts: one attr of the
 * intel_pt PMU type (sample_id_all: intel_pt wants ordered events), COMM
 * and MMAP of the guest code's ELF for a made-up thread, the
 * AUXTRACE_INFO of type intel_pt (its priv[] as tools/perf/util/intel-pt.h
 * numbers it), one AUXTRACE record carrying the PT bytes, and an EXIT
 * (perf sets its decoder queues up on the event after the data).
 * Timeless decoding: TSCEn's bit is given, cap_user_time_zero is not.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>

#include "pv_internal.h"

#define PT_PMU_TYPE 8u       /* any non-builtin type; perf matches priv[0] */
#define PID 4242u
#define AUXTRACE_INFO 70u
#define AUXTRACE 71u
#define AUXTRACE_INTEL_PT 1u

enum {                       /* tools/perf/util/intel-pt.h */
	IPT_PMU_TYPE, IPT_TIME_SHIFT, IPT_TIME_MULT, IPT_TIME_ZERO,
	IPT_CAP_USER_TIME_ZERO, IPT_TSC_BIT, IPT_NORETCOMP_BIT,
	IPT_HAVE_SCHED_SWITCH, IPT_SNAPSHOT_MODE, IPT_PER_CPU_MMAPS,
	IPT_MTC_BIT, IPT_MTC_FREQ_BITS, IPT_TSC_CTC_N, IPT_TSC_CTC_D,
	IPT_CYC_BIT, IPT_MAX_NONTURBO_RATIO, IPT_FILTER_STR_LEN, IPT_PRIV_MAX
};

struct section { uint64_t offset, size; };
struct file_header {
	uint64_t magic, size, attr_size;
	struct section attrs, data, event_types;
	uint64_t features[4];
};
/* sample_id_all trailer for IP|TID|TIME|CPU|IDENTIFIER */
struct sample_id { uint32_t pid, tid; uint64_t time; uint32_t cpu, res; uint64_t id; };

struct out {
	uint8_t *p;
	size_t len, cap;
};

static int put(struct out *o, const void *src, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = (o->len + n) * 2;
		uint8_t *p = realloc(o->p, cap);

		if (!p)
			return -pve_nomem;
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, src, n);
	o->len += n;
	return 0;
}

static int record(struct out *o, uint32_t type, uint16_t misc, const void *body,
		  size_t len, uint64_t time, bool sid)
{
	struct perf_event_header h = { type, misc, 0 };
	struct sample_id s = { PID, PID, time, 0, 0, 1 };
	static const uint8_t zero[8];
	size_t pad = (8 - len % 8) % 8;
	int ret;

	h.size = (uint16_t)(sizeof(h) + len + pad + (sid ? sizeof(s) : 0));
	if ((ret = put(o, &h, sizeof(h))) < 0 || (ret = put(o, body, len)) < 0 ||
	    (ret = put(o, zero, pad)) < 0)
		return ret;
	return sid ? put(o, &s, sizeof(s)) : 0;
}

static int events(struct out *o, const struct pv_capture *c,
		  const struct pv_perf_code *code)
{
	const struct pv_cap_sec *t = pv_cap_find(c, PV_CAP_TRACE);
	struct { uint32_t pid, tid; char comm[16]; } comm = { PID, PID, "guest" };
	struct mmap_body { uint32_t pid, tid; uint64_t addr, len, pgoff; char fn[4096]; } mm;
	struct { uint32_t type, reserved; uint64_t priv[IPT_PRIV_MAX]; } info;
	struct { uint64_t size, offset, reference; uint32_t idx, tid, cpu, res; } ax;
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } ex = {
		PID, PID, PID, PID, 3 };
	static const uint8_t zero[8];
	size_t fn_len;
	int ret;

	if (!t || !code || !code->elf || strlen(code->elf) >= sizeof(mm.fn))
		return -pve_invalid;
	memset(&mm, 0, sizeof(mm));
	mm.pid = mm.tid = PID;
	mm.addr = code->vaddr;
	mm.len = code->len;
	mm.pgoff = code->file_offset;
	fn_len = strlen(code->elf) + 1;
	memcpy(mm.fn, code->elf, fn_len);
	memset(&info, 0, sizeof(info));
	info.type = AUXTRACE_INTEL_PT;
	info.priv[IPT_PMU_TYPE] = PT_PMU_TYPE;
	info.priv[IPT_TIME_MULT] = 1;
	info.priv[IPT_TSC_BIT] = 10;          /* CTL bit positions */
	info.priv[IPT_NORETCOMP_BIT] = 11;
	info.priv[IPT_MTC_BIT] = 9;
	info.priv[IPT_MTC_FREQ_BITS] = 14;
	info.priv[IPT_TSC_CTC_N] = 1;
	info.priv[IPT_TSC_CTC_D] = 1;
	info.priv[IPT_CYC_BIT] = 1;
	memset(&ax, 0, sizeof(ax));
	ax.size = (t->len + 7) & ~7ull;       /* PAD bytes (0) fill up */
	ax.tid = PID;
	ax.cpu = UINT32_MAX;
	if ((ret = record(o, PERF_RECORD_COMM, 0, &comm, sizeof(comm), 1, true)) < 0 ||
	    (ret = record(o, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, &mm,
			  offsetof(struct mmap_body, fn) + fn_len, 2, true)) < 0 ||
	    (ret = record(o, AUXTRACE_INFO, 0, &info, sizeof(info), 0, false)) < 0 ||
	    (ret = record(o, AUXTRACE, 0, &ax, sizeof(ax), 0, false)) < 0 ||
	    (ret = put(o, t->data, t->len)) < 0 ||
	    (ret = put(o, zero, ax.size - t->len)) < 0)
		return ret;
	return record(o, PERF_RECORD_EXIT, 0, &ex, sizeof(ex), 3, true);
}

int pv_perf_write(const struct pv_capture *c, const struct pv_perf_code *code,
		  const char *path)
{
	struct perf_event_attr attr;
	struct file_header h;
	struct section ids;
	struct out o = { 0 };
	uint64_t id = 1;
	FILE *f;
	int ret, ok;

	if (!c || !path)
		return -pve_invalid;
	if ((ret = events(&o, c, code)) < 0)
		goto out;
	memset(&attr, 0, sizeof(attr));
	attr.type = PT_PMU_TYPE;
	attr.size = sizeof(attr);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	attr.sample_period = 1;
	attr.sample_id_all = 1;
	memset(&h, 0, sizeof(h));
	h.magic = 0x32454c4946524550ull;      /* "PERFILE2" */
	h.size = sizeof(h);
	h.attr_size = sizeof(attr) + sizeof(ids);
	ids.offset = sizeof(h);
	ids.size = sizeof(id);
	h.attrs.offset = sizeof(h) + sizeof(id);
	h.attrs.size = h.attr_size;
	h.data.offset = h.attrs.offset + h.attrs.size;
	h.data.size = o.len;
	f = fopen(path, "wb");
	if (!f) {
		ret = -pve_io;
		goto out;
	}
	ok = fwrite(&h, sizeof(h), 1, f) == 1 && fwrite(&id, sizeof(id), 1, f) == 1 &&
	     fwrite(&attr, sizeof(attr), 1, f) == 1 &&
	     fwrite(&ids, sizeof(ids), 1, f) == 1 && fwrite(o.p, o.len, 1, f) == 1;
	ret = (fclose(f) == 0 && ok) ? 0 : -pve_io;
out:
	free(o.p);
	return ret;
}
