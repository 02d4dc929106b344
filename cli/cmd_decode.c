/* SPDX-License-Identifier: MIT */
/*
 * ringside decode FILE: the instruction flow of a pt-virt capture (PT
 * bytes + the guest memory they ran on), decoded with libipt and printed
 * the way ptxed prints it, then a summary; --check compares it with the
 * single-step ground truth the capture carries.  A perf.data file of
 * `record` or `snapshot` (AUXTRACE) is decoded ring by ring with the
 * guest kernel's code from its build-id cache entry (pt_perfdata.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ringside/perfdata.h"
#include "ringside/pt_codec.h"
#include "ringside/pt_perfdata.h"

#include "cli.h"

#define CMD "decode"

struct dec_out {
	int quiet;
	int events;              /* a count for each run of instructions */
	int check;
	const uint64_t *truth;
	uint64_t ntruth;
	uint64_t n;              /* instructions decoded */
	uint64_t executed;       /* instructions in the ground truth */
	uint64_t mismatch_at;    /* first difference + 1, 0 none */
	uint64_t mismatch_ip;
	uint64_t run;            /* --events: instructions since the last line */
};

/* --events: the run of instructions before an event, as one line. */
static void flush_run(struct dec_out *o)
{
	if (o->run && !o->quiet)
		printf("[%" PRIu64 " instructions]\n", o->run);
	o->run = 0;
}

static void print_insn(const struct pv_decode_item *it)
{
	char text[PV_INSN_TEXT];

	if (pv_insn_disasm(it->raw, it->size, it->ip, text, sizeof(text)) >= 0)
		printf("%016" PRIx64 "  %s\n", it->ip, text);
	else
		printf("%016" PRIx64 "  (bad)\n", it->ip);
}

static int on_item(void *arg, const struct pv_decode_item *it)
{
	struct dec_out *o = arg;

	if (it->kind == PV_DEC_INSN) {
		if (o->check && !o->mismatch_at &&
		    (o->n >= o->ntruth || o->truth[o->n] != it->ip)) {
			o->mismatch_at = o->n + 1;
			o->mismatch_ip = it->ip;
		}
		o->n++;
	}
	if (o->quiet)
		return 0;
	if (o->events) {
		if (it->kind == PV_DEC_INSN) {
			o->run++;
			return 0;
		}
		flush_run(o);
	}
	switch (it->kind) {
	case PV_DEC_INSN:
		print_insn(it);
		break;
	case PV_DEC_ENABLED:
		printf("[enabled]\n");
		break;
	case PV_DEC_DISABLED:
		printf("[disabled]\n");
		break;
	case PV_DEC_INTERRUPT:
		printf("[interrupt %016" PRIx64 " -> %016" PRIx64 "]\n",
		       it->ip, it->to);
		break;
	case PV_DEC_OVERFLOW:
		printf("[overflow]\n");
		break;
	case PV_DEC_SYNC:
		printf("[sync at offset %" PRIu64 "]\n", it->offset);
		break;
	case PV_DEC_ERROR:
		if (it->code == PV_DEC_ERR_STALL)
			printf("[%" PRIu64 ": error: %u instructions without "
			       "trace: an endless loop, not what ran]\n",
			       it->offset, PV_DEC_STALL);
		else
			printf("[%" PRIu64 ": error: %d]\n", it->offset, it->code);
		break;
	}
	return 0;
}

/* With --check from a PSB, the decode is a suffix of the truth: align the
 * truth to the first decoded instruction by matching its position. */
static void align_truth(struct dec_out *o, uint64_t skip)
{
	o->truth += skip;
	o->ntruth -= skip;
}

static int parse(int argc, char **argv, int *last_psb, struct dec_out *o,
		 const char **path, const char **buildid_dir)
{
	const struct opt opts[] = {
		OPT_FLAG(0, "last-psb", last_psb, "start at the last PSB "
			 "(snapshot-mode data; the default when the capture says "
			 "snapshot)"),
		OPT_FLAG(0, "check", &o->check, "compare with the ground truth in "
			 "the capture: the decoded flow must be the executed flow "
			 "(or, from a PSB or up to a cut, a contiguous part of it)"),
		OPT_FLAG(0, "quiet", &o->quiet, "the summary only"),
		OPT_FLAG(0, "events", &o->events, "the events and errors, each "
			 "run of instructions between them as one line "
			 "([N instructions]): where a long trace went wrong"),
		OPT_STRING(0, "buildid-dir", buildid_dir, "DIR", "perf.data: "
			   "the build-id cache with the guest kernel's code "
			   "(default: the file's own, " PDF_CACHE_NAME
			   " beside it)"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_OPERAND_CMD("FILE", "a pt-virt capture (ringside-pt-trace "
				"--out), or a perf.data file of 'ringside "
				"record|snapshot' with PT",
				"which capture? give a file ringside-pt-trace "
				"wrote"),
		.usage = "FILE [--last-psb] [--check] [--quiet | --events] "
			 "[--buildid-dir DIR]",
		.about = "Decode a pt-virt capture file (Intel PT bytes from a "
			 "guest's AUX ring plus the guest memory the code ran from) "
			 "with libipt's instruction decoder.  One line per "
			 "instruction, ptxed style: the address and the "
			 "instruction; events in brackets ([enabled], [disabled], "
			 "[interrupt], [overflow], errors with their trace offset); a "
			 "summary at the end.  Decode errors resynchronize at the "
			 "next PSB.  A perf.data file is decoded ring by ring "
			 "([ring N: BYTES bytes] first) with the guest kernel's "
			 "code that 'record' or 'snapshot' put beside its kallsyms "
			 "in the build-id cache.",
		.opts = opts,
		.notes = "Exit status: 0 success, 1 unreadable file or --check "
			 "mismatch, 2 bad usage.",
	};
	int first, ret;

	ret = opt_parse(&cmd, argc, argv, &first);
	if (!ret)
		*path = argv[first];
	return ret;
}

static void on_ring(void *arg, uint32_t ring, uint64_t bytes)
{
	struct dec_out *o = arg;

	flush_run(o);
	if (!o->quiet)
		printf("[ring %u: %" PRIu64 " bytes]\n", ring, bytes);
}

/* A perf.data file: every ring's AUXTRACE, the kernel code from kcore. */
static int decode_perf(const char *path, const char *buildid_dir,
		       int last_psb, struct dec_out *o)
{
	struct pv_perfdata_params p = {
		.path = path, .buildid_dir = buildid_dir, .last_psb = last_psb,
		.fn = on_item, .arg = o, .ring = on_ring,
	};
	static struct pv_perfdata_result res;
	const char *why;
	int pv, err;

	if (o->check)
		return cli_usage(CMD, "%s: --check needs a capture's ground "
				 "truth; a perf.data file has none", path);
	err = pv_perfdata_decode(&p, &res, &why, &pv);
	flush_run(o);
	if (err) {
		cli_err(CMD, "%s: %s: %s%s%s", path, why,
			pv ? pv_error_str(err) : pdf_error_str(err),
			res.kcore[0] ? "; code from " : "", res.kcore);
		return CLI_EXIT_FAIL;
	}
	if (!res.rings) {
		cli_err(CMD, "%s: no PT in the file (no AUXTRACE bytes)", path);
		return CLI_EXIT_FAIL;
	}
	printf("summary: %" PRIu64 " instructions, %" PRIu64 " enabled, %"
	       PRIu64 " disabled, %" PRIu64 " interrupts, %" PRIu64
	       " overflows, %" PRIu64 " syncs, %" PRIu64 " errors; %" PRIu64
	       " trace bytes in %u rings; code: %u segments of %s\n",
	       res.st.insns, res.st.enabled, res.st.disabled, res.st.interrupts,
	       res.st.overflows, res.st.syncs, res.st.errors, res.bytes,
	       res.rings, res.segments, res.kcore);
	return CLI_EXIT_OK;
}

static int run(const struct pv_capture *cap, int last_psb, struct dec_out *o,
	       struct pv_decode_stats *st)
{
	const struct pv_capture_sec *trace = pv_capture_find(cap, PV_CAP_TRACE);
	const struct pv_capture_sec *truth = pv_capture_find(cap, PV_CAP_TRUTH);
	struct pv_decode_params p = {
		.size = sizeof(p), .from_last_psb = last_psb,
		.code = pv_capture_mem(cap), .fn = on_item, .arg = o,
	};

	if (!trace)
		return -pve_format;
	p.trace = trace->data;
	p.len = trace->len;
	if (o->check && truth) {
		o->truth = (const uint64_t *)(const void *)truth->data;
		o->ntruth = truth->len / sizeof(uint64_t);
		o->executed = o->ntruth;
	}
	if (o->check && last_psb) {
		/* Decode once quietly to learn how many instructions the
		 * suffix has, then align. */
		struct dec_out q = { .quiet = 1 };
		struct pv_decode_params qp = p;
		int ret;

		qp.arg = &q;
		if ((ret = pv_decode_run(&qp, NULL)) < 0)
			return ret;
		if (q.n <= o->ntruth)
			align_truth(o, o->ntruth - q.n);
	}
	return pv_decode_run(&p, st);
}

int cmd_decode(int argc, char **argv)
{
	struct dec_out o = { 0 };
	struct pv_capture cap;
	struct pv_decode_stats st;
	const struct pv_capture_sec *info_sec, *trace;
	struct pv_capture_info info = { 0 };
	const char *path = NULL, *buildid_dir = NULL;
	int last_psb = 0, ret;

	ret = parse(argc, argv, &last_psb, &o, &path, &buildid_dir);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (pv_perfdata_is_file(path) > 0)
		return decode_perf(path, buildid_dir, last_psb, &o);
	ret = pv_capture_read(&cap, path);
	if (ret < 0) {
		cli_err(CMD, "%s: %s", path, pv_error_str(ret));
		return CLI_EXIT_FAIL;
	}
	info_sec = pv_capture_find(&cap, PV_CAP_INFO);
	if (info_sec && info_sec->len >= sizeof(info))
		memcpy(&info, info_sec->data, sizeof(info));
	if (info.snapshot)
		last_psb = 1;
	if (o.check && !pv_capture_find(&cap, PV_CAP_TRUTH)) {
		pv_capture_fini(&cap);
		return cli_usage(CMD, "%s carries no ground truth to --check", path);
	}
	ret = run(&cap, last_psb, &o, &st);
	flush_run(&o);
	if (ret < 0) {
		cli_err(CMD, "%s: %s", path, pv_error_str(ret));
		pv_capture_fini(&cap);
		return CLI_EXIT_FAIL;
	}
	trace = pv_capture_find(&cap, PV_CAP_TRACE);
	printf("summary: %" PRIu64 " instructions, %" PRIu64 " enabled, %"
	       PRIu64 " disabled, %" PRIu64 " interrupts, %" PRIu64
	       " overflows, %" PRIu64 " syncs (first at %" PRIu64 "), %" PRIu64
	       " errors; %" PRIu64 " trace bytes%s%s\n",
	       st.insns, st.enabled, st.disabled, st.interrupts, st.overflows,
	       st.syncs, st.first_sync, st.errors, trace->len,
	       info.snapshot ? ", snapshot" : "",
	       info.truncated ? ", truncated" : "");
	ret = CLI_EXIT_OK;
	if (o.check) {
		if (o.mismatch_at) {
			printf("check: MISMATCH at instruction %" PRIu64
			       ": decoded %#" PRIx64 ", ground truth %#" PRIx64 "\n",
			       o.mismatch_at - 1, o.mismatch_ip,
			       o.mismatch_at - 1 < o.ntruth ?
			       o.truth[o.mismatch_at - 1] : 0);
			ret = CLI_EXIT_FAIL;
		} else {
			printf("check: %" PRIu64 " decoded instructions match the "
			       "ground truth (%" PRIu64 " executed)%s\n", o.n,
			       o.executed, o.n == o.executed ? ", all of them" :
			       last_psb ? ", its end" : ", its start");
		}
	}
	pv_capture_fini(&cap);
	return ret;
}
