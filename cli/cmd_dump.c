/* SPDX-License-Identifier: MIT */
/*
 * ringside dump FILE: one line per ring record, in file order:
 *
 *   [RING] SECONDS.NANOSECONDS TYPE fields...
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

#include "cli.h"
#include "file_cmd.h"
#include "print.h"

#define CMD "dump"
#define MARKER_TEXT_MAX 200

static int parse(int argc, char **argv, const char **path)
{
	return file_cmd_parse(CLI_PROG(CMD), "FILE",
			      "Print every record of a perf.data file written by "
			      "ringside, one line each, in file order:\n\n"
			      "  [RING] SECONDS.NANOSECONDS TYPE FIELDS...",
			      NULL, argc, argv, path);
}

static void print_marker(const struct rs_perf_header *rec)
{
	const struct rs_rec_marker *m = (const struct rs_rec_marker *)(const void *)rec;
	uint32_t n = m->len < MARKER_TEXT_MAX ? m->len : MARKER_TEXT_MAX;

	printf(" id=%u pid=%u tid=%u ", m->id, m->pid, m->tid);
	print_bytes(stdout, m + 1, n);
	printf("%s", n < m->len ? "..." : "");
}

/* pid, tid, the name (pdf_rrec_classify made sure it ends in a NUL). */
static void print_comm(const struct rs_perf_header *rec)
{
	const uint32_t *ids = (const uint32_t *)(const void *)(rec + 1);
	const char *name = (const char *)(ids + 2);

	printf(" pid=%u tid=%u comm=", ids[0], ids[1]);
	print_bytes(stdout, name, strlen(name));
	if (rec->misc & PERF_RECORD_MISC_COMM_EXEC)
		printf(" exec");
}

/* An MMAP2 (pdf_rrec_classify made sure its name ends in a NUL and its
 * build id fits). */
static void print_mmap2(const struct rs_perf_header *rec)
{
	struct rs_perf_mmap2_body m;
	const char *name = (const char *)(rec + 1) + sizeof(m);
	uint32_t i;

	memcpy(&m, rec + 1, sizeof(m));
	printf(" pid=%u tid=%u addr=%#" PRIx64 " len=%#" PRIx64 " pgoff=%#"
	       PRIx64 " prot=%#x flags=%#x", m.pid, m.tid, m.addr, m.len,
	       m.pgoff, m.prot, m.flags);
	if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		printf(" build_id=");
		for (i = 0; i < m.u.build_id.size; i++)
			printf("%02x", m.u.build_id.id[i]);
	} else {
		printf(" dev=%x:%x ino=%" PRIu64, m.u.file.maj, m.u.file.min,
		       m.u.file.ino);
	}
	printf(" file=");
	print_bytes(stdout, name, strlen(name));
	if (rec->misc & PERF_RECORD_MISC_MMAP_DATA)
		printf(" data");
}

static void print_sample(const struct rs_perf_header *rec, uint64_t type)
{
	struct pdf_sample s;

	if (pdf_sample_parse(type, rec + 1, rec->size - sizeof(*rec), &s)) {
		printf(" size=%u (layout not decoded)", rec->size);
		return;
	}
	if (type & PERF_SAMPLE_IP)
		printf(" ip=%#" PRIx64, s.ip);
	if (type & PERF_SAMPLE_TID)
		printf(" pid=%u tid=%u", s.pid, s.tid);
	if (type & PERF_SAMPLE_ADDR)
		printf(" addr=%#" PRIx64, s.addr);
	if (type & PERF_SAMPLE_PERIOD)
		printf(" period=%" PRIu64, s.period);
	if (type & PERF_SAMPLE_CALLCHAIN)
		printf(" callchain=%" PRIu64, s.callchain_nr);
	if (type & PERF_SAMPLE_RAW)
		printf(" raw=%u", s.raw_size);
}

static void print_record(const struct pdf_event *ev, uint64_t sample_type)
{
	const struct rs_perf_header *rec = ev->rec;
	enum pdf_rrec_class cls = pdf_rrec_classify(rec, sample_type);
	const void *body = rec;

	/* the host's records of the process table: in no ring */
	if (ev->state)
		printf("[host]");
	else
		printf("[%03u]", ev->ring);
	printf(" %" PRIu64 ".%09" PRIu64 " %-12s", ev->time / 1000000000,
	       ev->time % 1000000000, pdf_rrec_class_name(cls));
	switch (cls) {
	case PDF_RREC_SEQ: {
		const struct rs_rec_seq *s = body;

		printf(" seq=%" PRIu64 " producer=%u fill=%u %s", s->seq,
		       s->producer, s->fill, rs_seq_check(rec) ? "ok" : "BAD-CHECKSUM");
		break;
	}
	case PDF_RREC_MARKER:
		print_marker(rec);
		break;
	case PDF_RREC_SAMPLE:
		print_sample(rec, sample_type);
		break;
	case PDF_RREC_LOST:
		printf(" lost=%" PRIu64, ((const struct rs_perf_lost *)body)->lost);
		break;
	case PDF_RREC_AUX: {
		const struct rs_perf_aux *a = body;

		printf(" offset=%#" PRIx64 " size=%" PRIu64 " flags=%#" PRIx64 "%s%s%s",
		       a->aux_offset, a->aux_size, a->flags,
		       (a->flags & RS_PERF_AUX_FLAG_TRUNCATED) ? " truncated" : "",
		       (a->flags & RS_PERF_AUX_FLAG_PARTIAL) ? " partial" : "",
		       (a->flags & RS_PERF_AUX_FLAG_COLLISION) ? " collision" : "");
		break;
	}
	case PDF_RREC_ITRACE_START: {
		const struct rs_perf_itrace_start *it = body;

		printf(" pid=%u tid=%u", it->pid, it->tid);
		break;
	}
	case PDF_RREC_LOST_SAMPLES:
		printf(" lost=%" PRIu64,
		       ((const struct rs_perf_lost_samples *)body)->lost);
		break;
	case PDF_RREC_COMM:
		print_comm(rec);
		break;
	case PDF_RREC_MMAP2:
		print_mmap2(rec);
		break;
	default:
		printf(" type=%u misc=%#x size=%u", rec->type, rec->misc, rec->size);
		break;
	}
	putchar('\n');
}

int cmd_dump(int argc, char **argv)
{
	struct pdf_reader *r = NULL;
	struct pdf_event ev;
	const char *path;
	uint64_t type;
	int ret, n;

	ret = parse(argc, argv, &path);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	ret = file_cmd_open(CMD, path, &r);
	if (ret)
		return ret;
	type = pdf_reader_info(r)->sample_type;
	while ((n = pdf_reader_next(r, &ev)) == 1)
		print_record(&ev, type);
	ret = n < 0 ? file_cmd_read_error(CMD, path, &ev, n) : CLI_EXIT_OK;
	pdf_reader_close(r);
	if (fflush(stdout)) {
		cli_err(CMD, "writing the output failed");
		ret = CLI_EXIT_FAIL;
	}
	return ret;
}
