// SPDX-License-Identifier: MIT
/*
 * ringside-pt-trace: boot the PT payload in the ringside VMM with a traced
 * vCPU, collect the AUX ring (drained as it fills, or snapshotted at the
 * end in snapshot mode) and write a capture for `ringside decode`, and
 * with --perf-data a perf.data for perf's intel_pt decoder (perfdata).
 */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/perfdata.h"
#include "ringside/pt_guest.h"
#include "ringside/pt_tracer.h"
#include "ringside/ring.h"
#include "ringside/vmm.h"

struct buf {
	uint8_t *p;
	uint64_t len, pos;
};

static const char *const workloads[] = {
	"branches", "calls", "indirect", "exception", "all",
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ringside-pt-trace --payload FILE --out FILE [--workload "
		   "branches|calls|indirect|exception|all]\n"
		   "       [--iterations N] [--aux-pages N] [--snapshot] "
		   "[--irq-at N] [--no-drain] [--perf-data FILE]\n");
}

static int on_aux(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	struct buf *b = arg;
	uint8_t *n = realloc(b->p, b->len + len);

	if (!n)
		return -1;
	if (!b->len)
		b->pos = pos;
	b->p = n;
	memcpy(b->p + b->len, chunk, len);
	b->len += len;
	return 0;
}

static int on_rec(const struct rs_perf_header *rec, void *arg)
{
	(void)rec;
	(void)arg;
	return 0;
}

/* The payload's executable PT_LOAD: what perf reads the code from. */
static int elf_text(const char *path, struct pdf_intel_pt_params *code)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	FILE *f = fopen(path, "rb");
	int ret = -1;

	if (!f)
		return -1;
	if (fread(&eh, sizeof(eh), 1, f) != 1 || eh.e_phentsize != sizeof(ph))
		goto out;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (fseek(f, (long)(eh.e_phoff + i * sizeof(ph)), SEEK_SET) < 0 ||
		    fread(&ph, sizeof(ph), 1, f) != 1)
			goto out;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			code->elf = path;
			code->code_vaddr = ph.p_vaddr;
			code->code_len = ph.p_filesz;
			code->code_offset = ph.p_offset;
			ret = 0;
			break;
		}
	}
out:
	fclose(f);
	return ret;
}

/* @cap as @out, written aside (0600, a name nobody planted) and renamed
 * into place. */
static int write_capture(const struct pv_capture *cap, const char *out)
{
	char tmp[PATH_MAX];
	int fd = pdf_aside_open(out, tmp, sizeof(tmp));

	if (fd < 0)
		return fd;
	if (pv_capture_write(cap, fd) < 0) {
		pdf_aside_discard(fd, tmp);
		return -EIO;
	}
	return pdf_aside_commit(fd, tmp, out);
}

static void on_log(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "ringside-pt-trace: %s\n", msg);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "payload", required_argument, NULL, 'p' },
		{ "out", required_argument, NULL, 'o' },
		{ "workload", required_argument, NULL, 'w' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "aux-pages", required_argument, NULL, 'a' },
		{ "snapshot", no_argument, NULL, 's' },
		{ "irq-at", required_argument, NULL, 'q' },
		{ "no-drain", no_argument, NULL, 'n' },
		{ "perf-data", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pv_trace_params tp = { .size = sizeof(tp), .workload = PV_WL_ALL,
				      .iterations = 40 };
	const char *payload = NULL, *out = NULL, *perf_out = NULL;
	struct vmm_params p;
	struct rs_consumer *cons = NULL;
	struct pv_trace *t = NULL;
	struct pv_capture cap = { 0 };
	struct vmm *vm = NULL;
	struct buf b = { 0 };
	uint32_t aux_pages = 64;
	int snapshot = 0, drain = 1, c, ret = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': payload = optarg; break;
		case 'o': out = optarg; break;
		case 'w':
			tp.workload = PV_WL_MAX;
			for (uint32_t i = 0; i < 5; i++)
				if (!strcmp(optarg, workloads[i]))
					tp.workload = i;
			if (tp.workload == PV_WL_MAX)
				return usage(stderr), 2;
			break;
		case 'i': tp.iterations = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'a': aux_pages = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': snapshot = 1; break;
		case 'q': tp.irq_at = strtoull(optarg, NULL, 0); break;
		case 'n': drain = 0; break;
		case 'P': perf_out = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!payload || !out || optind != argc)
		return usage(stderr), 2;

	vmm_params_init(&p);
	p.aux_pages = aux_pages;
	p.data_pages = 16;
	p.aux_mode = snapshot ? RS_MODE_OVERWRITE : RS_MODE_NORMAL;
	p.aux_watermark = aux_pages * 4096 / 2;
	p.log = on_log;
	if (vmm_create(&vm, &p) < 0 || vmm_load_file(vm, payload) < 0)
		goto out;
	if ((ret = pv_trace_attach(&t, vm, &tp)) < 0) {
		fprintf(stderr, "ringside-pt-trace: %s\n", pv_error_str(ret));
		ret = 1;
		goto out;
	}
	ret = 1;
	if (!snapshot && !(cons = rs_consumer_alloc(vmm_region(vm), 0)))
		goto out;
	if (vmm_start(vm) < 0)
		goto out;
	while (vmm_wait(vm, 10) == -ETIMEDOUT)
		if (cons && drain)
			rs_consumer_drain_aux(cons, on_aux, &b);
	pv_trace_finish(t);
	if (cons) {
		rs_consumer_drain(cons, on_rec, NULL);
		rs_consumer_drain_aux(cons, on_aux, &b);
	} else {
		struct rs_aux_snapshot s;
		uint64_t size = (uint64_t)aux_pages * 4096;

		b.p = malloc(size);
		if (!b.p || rs_snapshot_aux(&s, vmm_region(vm), 0, b.p, size) < 0)
			goto out;
		b.len = s.len;
		b.pos = s.start;
	}
	if (pv_trace_capture(t, &cap, b.p, b.len, b.pos) < 0 ||
	    write_capture(&cap, out) < 0) {
		fprintf(stderr, "ringside-pt-trace: cannot write %s\n", out);
		goto out;
	}
	if (perf_out) {
		struct pdf_intel_pt_params pp = { .size = sizeof(pp),
						  .trace = b.p,
						  .trace_len = b.len };
		char *abs = realpath(payload, NULL);

		if (!abs || elf_text(abs, &pp) < 0 ||
		    pdf_intel_pt_write(perf_out, &pp) < 0) {
			fprintf(stderr, "ringside-pt-trace: cannot write %s\n",
				perf_out);
			free(abs);
			goto out;
		}
		free(abs);
	}
	{
		const struct pv_trace_stats *st = pv_trace_stats(t);
		const struct pv_gen_stats *g = pv_trace_gen_stats(t);

		printf("traced %" PRIu64 " instructions (%" PRIu64 " steps), %"
		       PRIu64 " packets, %" PRIu64 " bytes (%" PRIu64 " PSB, %"
		       PRIu64 " TNT, %" PRIu64 " TIP), %" PRIu64 " in the capture\n",
		       st->insns, st->steps, g->packets, g->bytes, g->psb, g->tnt,
		       g->tip, b.len);
	}
	ret = 0;
out:
	pv_capture_fini(&cap);
	free(b.p);
	rs_consumer_free(cons);
	pv_trace_free(t);
	vmm_destroy(vm);
	return ret;
}
