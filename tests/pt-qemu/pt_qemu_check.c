// SPDX-License-Identifier: MIT
/*
 * The host side of the QEMU PT plugin's ground-truth test:
 *
 *   pt-qemu-check layout FILE RINGS AUX_PAGES normal|overwrite
 *       a region file laid out by ring/ (rs_region_layout), switched on
 *   pt-qemu-check check FILE TRUTH VCPU [MIN_INSNS]
 *       read ring VCPU's AUX area (rs_snapshot_aux), decode it with
 *       pv_decode_run over the truth file's code bytes, and compare with the
 *       truth's instructions one for one.  Normal mode decodes from the
 *       start against the truth's first instructions, reading each block's
 *       code as it was translated by then (the kernel patches its text
 *       while it boots); snapshot mode decodes from the first PSB in the
 *       buffer (with --last-psb: from the last one, and then whatever
 *       follows it must agree, however little) against the truth's latest
 *       instructions and the code as it is at the end.
 *       The decode is aligned with the truth where MATCH_RUN instructions
 *       agree, then every decoded instruction from there must be the
 *       truth's next one, skipping those the truth lists as faulted
 *       (started, not retired).  Passes when at least MIN_INSNS matched,
 *       with at least one interrupt among them, and nothing disagreed.
 *   pt-qemu-check ips TRUTH VCPU FILE MIN_INSNS
 *       another decoder's instructions (perf's) against the end of the
 *       truth: see ips() below.
 * Exit 0 pass, 1 fail (said why), 2 usage.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/pt_codec.h"
#include "ringside/pt_truth.h"
#include "ringside/ring.h"

#define MATCH_RUN 10000
#define SLOTS (1u << 18)
#define PAGE 4096u
#define OVERLAP 16u

/* ---- code bytes: a sparse image, pages with 16 bytes of the next ---- */

struct page {
	uint64_t pfn;
	uint8_t data[PAGE + OVERLAP];
	uint8_t set[PAGE + OVERLAP];    /* data[i] was put */
};

static struct page *slots[SLOTS];

static struct page *page_of(uint64_t pfn, int make)
{
	uint32_t i = (uint32_t)(pfn * 0x9e3779b97f4a7c15ull >> 46) % SLOTS;

	for (;; i = (i + 1) % SLOTS) {
		if (!slots[i]) {
			if (!make)
				return NULL;
			slots[i] = calloc(1, sizeof(struct page));
			if (!slots[i])
				exit(1);
			slots[i]->pfn = pfn;
			return slots[i];
		}
		if (slots[i]->pfn == pfn)
			return slots[i];
	}
}

static void put_byte(struct page *p, uint64_t off, uint8_t b, int over)
{
	if (over || !p->set[off]) {
		p->data[off] = b;
		p->set[off] = 1;
	}
}

/* @over: a later translation replaces an earlier one (the code was
 * patched); else the first one stays. */
static void code_put(uint64_t addr, const uint8_t *b, uint64_t len, int over)
{
	for (uint64_t k = 0; k < len; k++) {
		uint64_t a = addr + k, off = a % PAGE;

		put_byte(page_of(a / PAGE, 1), off, b[k], over);
		if (off < OVERLAP)
			put_byte(page_of(a / PAGE - 1, 1), PAGE + off, b[k], over);
	}
}

static void code_advance(void);

static void *code_ptr(void *arg, uint64_t addr, uint64_t len)
{
	struct page *p;

	(void)arg;
	code_advance();
	p = page_of(addr / PAGE, 0);
	if (!p || addr % PAGE + len > PAGE + OVERLAP)
		return NULL;
	return p->data + addr % PAGE;
}

/* ---- the truth file ---------------------------------------------------- */

struct code_rec {
	uint32_t vcpu;
	uint64_t addr, mark, len;
	const uint8_t *bytes;
};

static uint64_t *truth;
static uint64_t ntruth, truth_first;
static uint64_t *faults, nfaults;
static struct code_rec *recs;
static uint64_t nrecs, next_rec;
static uint32_t the_vcpu;
static int versioned;           /* apply code as the decode reaches it */
static uint64_t cur_index;      /* truth index of the next instruction */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Apply the code translated up to the decode's position: every record
 * before the first of this vCPU's translated after it. */
static void code_advance(void)
{
	while (next_rec < nrecs && (!versioned ||
	       recs[next_rec].vcpu != the_vcpu ||
	       recs[next_rec].mark <= cur_index)) {
		code_put(recs[next_rec].addr, recs[next_rec].bytes,
			 recs[next_rec].len, 1);
		next_rec++;
	}
}

static int load_truth(const char *path, uint32_t vcpu, int from_start)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *m, *p, *end;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 8) {
		fprintf(stderr, "%s: cannot read\n", path);
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED || memcmp(m, PV_TRUTH_MAGIC, 8)) {
		fprintf(stderr, "%s: not a truth file\n", path);
		return -1;
	}
	end = m + st.st_size;
	for (p = m + 8; p + sizeof(struct pv_truth_rec) <= end;) {
		struct pv_truth_rec r;

		memcpy(&r, p, sizeof(r));
		p += sizeof(r);
		if (r.len > (uint64_t)(end - p)) {
			fprintf(stderr, "%s: truncated\n", path);
			return -1;
		}
		if (r.type == PV_TRUTH_CODE && r.len > 8) {
			if (!(nrecs & (nrecs + 1)) || !recs) {
				recs = realloc(recs, 2 * (nrecs + 1) * sizeof(*recs));
				if (!recs)
					return -1;
			}
			recs[nrecs].vcpu = r.vcpu;
			recs[nrecs].addr = r.addr;
			memcpy(&recs[nrecs].mark, p, 8);
			recs[nrecs].bytes = p + 8;
			recs[nrecs].len = r.len - 8;
			nrecs++;
		}
		/* From the start (normal mode) or the latest. */
		if (r.type == PV_TRUTH_IPS && r.vcpu == vcpu &&
		    (!truth || (!from_start && r.addr > truth_first))) {
			/* The latest right after the first (the ring never
			 * wrapped): one run, kept whole. */
			uint64_t *both = truth && r.addr == truth_first + ntruth ?
					 malloc((ntruth + r.len / 8) * 8) : NULL;

			if (both) {
				memcpy(both, truth, ntruth * 8);
				memcpy(both + ntruth, p, r.len);
				truth = both;
				ntruth += r.len / 8;
			} else {
				truth = (uint64_t *)(void *)p;
				ntruth = r.len / 8;
				truth_first = r.addr;
			}
		}
		if (r.type == PV_TRUTH_FAULTS && r.vcpu == vcpu) {
			nfaults = r.len / 8;
			faults = malloc(r.len + 8);
			if (!faults)
				return -1;
			memcpy(faults, p, r.len);
			qsort(faults, nfaults, 8, cmp_u64);
		}
		p += (r.len + 7) & ~7ull;
	}
	if (!truth) {
		fprintf(stderr, "%s: no instructions of vCPU %u\n", path, vcpu);
		return -1;
	}
	the_vcpu = vcpu;
	/* From the start, the code as it was when it ran; at the end, the
	 * code as it is (patching is long over). */
	versioned = from_start && truth_first == 0;
	code_advance();
	return 0;
}

static int is_fault(uint64_t index)
{
	return bsearch(&index, faults, nfaults, 8, cmp_u64) != NULL;
}

/* ---- decode ------------------------------------------------------------ */

struct item {
	uint32_t kind;
	uint64_t ip, to;
};

/* The decoded items, the last `keep` of them: a ring while decoding
 * (a whole boot decodes to hundreds of millions), then in order. */
static struct item *items;
static uint64_t nitems, keep, seen;
static int keep_last;           /* snapshot: the last `keep`, else the first */
static uint64_t match_run = MATCH_RUN;  /* agreeing instructions to align */
static int last_psb;            /* decode from the last PSB only */
/* Instructions only, no events (ips: perf's --itrace=i).  A faulted
 * instruction of the truth that the decode shows is then a fixup's: a
 * retried fault's handler comes first in the decode, never the fault. */
static int no_events;

#define ENOUGH (-1000)          /* collect's "stop: the window is full" */

static int collect(void *arg, const struct pv_decode_item *it)
{
	(void)arg;
	if (it->kind != PV_DEC_INSN && it->kind != PV_DEC_INTERRUPT &&
	    it->kind != PV_DEC_ERROR && it->kind != PV_DEC_OVERFLOW &&
	    it->kind != PV_DEC_SYNC)
		return 0;
	if (!keep_last && seen == keep)
		return ENOUGH;
	if (it->kind == PV_DEC_INSN) {
		/* The next instruction's truth index: past the faulted. */
		cur_index++;
		while (is_fault(cur_index))
			cur_index++;
	}
	if (it->kind == PV_DEC_ERROR)     /* where, and libipt's code */
		items[seen++ % keep] = (struct item){ it->kind, it->offset,
						      (uint64_t)-it->code };
	else
		items[seen++ % keep] = (struct item){ it->kind, it->ip, it->to };
	return 0;
}

static int linearize(void)
{
	struct item *lin;
	uint64_t cut = seen % keep;

	nitems = seen < keep ? seen : keep;
	if (seen <= keep)
		return 0;
	lin = malloc(keep * sizeof(*lin));
	if (!lin)
		return -1;
	memcpy(lin, items + cut, (keep - cut) * sizeof(*lin));
	memcpy(lin + keep - cut, items, cut * sizeof(*lin));
	free(items);
	items = lin;
	return 0;
}

/* Walk from decoded item @i and truth entry @j; stop at the first
 * disagreement or after @limit instructions.  Returns instructions
 * matched; *@bad says whether it stopped on a disagreement. */
struct walk {
	uint64_t insns, interrupts, faults, fixups, i, j;
	uint64_t early, early_insns;
	int bad;
};

/*
 * ips (no events to go by): the decode shows instructions the truth runs
 * only after an event, at most EARLY_MAX of them, then agrees again for
 * EARLY_AGREE.  The plugin's documented guess (pt-virt.md): a handler that
 * returns to an instruction of the interrupted block which is also the
 * target of that block's last branch is taken to have come after the
 * branch, and QEMU had left the block before that instruction.  How many
 * times, and how many instructions, is printed, never hidden.
 */
#define EARLY_MAX 64
#define EARLY_AGREE 64

static uint64_t early_skip(uint64_t i, uint64_t j)
{
	for (uint64_t k = 1; k <= EARLY_MAX && i + k < nitems; k++) {
		uint64_t n = 0;

		if (items[i + k].ip != truth[j])
			continue;
		while (n < EARLY_AGREE && i + k + n < nitems && j + n < ntruth &&
		       items[i + k + n].ip == truth[j + n])
			n++;
		if (n == EARLY_AGREE || i + k + n == nitems || j + n == ntruth)
			return k;
	}
	return 0;
}

static struct walk walk(uint64_t i, uint64_t j, uint64_t limit)
{
	struct walk w = { .i = i, .j = j };

	for (; w.i < nitems && w.j < ntruth && w.insns < limit; w.i++) {
		const struct item *it = &items[w.i];

		if (it->kind == PV_DEC_INTERRUPT) {
			w.interrupts++;
			continue;
		}
		/* A fault whose fixup resumed after it, at the block's next
		 * instruction: the plugin cannot tell that from a retried
		 * fault there (docs/pt-virt.md), so the decode shows it
		 * retired, then the event.  Counted, not a disagreement. */
		if (w.j < ntruth && is_fault(truth_first + w.j) &&
		    truth[w.j] == it->ip &&
		    (no_events || (w.i + 1 < nitems &&
		     items[w.i + 1].kind == PV_DEC_INTERRUPT &&
		     items[w.i + 1].ip > it->ip &&
		     items[w.i + 1].ip <= it->ip + 15))) {
			w.fixups++;
			w.insns++;
			w.j++;
			continue;
		}
		while (w.j < ntruth && is_fault(truth_first + w.j)) {
			w.faults++;
			w.j++;
		}
		if (w.j == ntruth)
			break;
		if (it->kind != PV_DEC_INSN) {
			w.bad = 1;
			break;
		}
		if (truth[w.j] != it->ip) {
			uint64_t k = no_events ? early_skip(w.i, w.j) : 0;

			if (!k) {
				w.bad = 1;
				break;
			}
			w.early++;
			w.early_insns += k;
			if (getenv("PTQ_DEBUG"))
				printf("early: decoded %#" PRIx64 "..%#" PRIx64
				       " (%" PRIu64 "), truth goes to %#" PRIx64
				       " after %#" PRIx64 "\n", it->ip,
				       items[w.i + k - 1].ip, k, truth[w.j],
				       w.j ? truth[w.j - 1] : 0);
			w.i += k - 1;
			continue;
		}
		w.insns++;
		w.j++;
	}
	return w;
}

/* Where a walk stopped: the decode and the truth around it. */
static void context(struct walk w)
{
	uint64_t i0 = w.i > 12 ? w.i - 12 : 0, j0 = w.j > 12 ? w.j - 12 : 0;

	for (uint64_t k = 0; k < 16; k++) {
		printf("  decoded %s", i0 + k < nitems ? "" : "-");
		if (i0 + k < nitems)
			printf("%u %#" PRIx64 " %#" PRIx64, items[i0 + k].kind,
			       items[i0 + k].ip, items[i0 + k].to);
		printf("   truth ");
		if (j0 + k < ntruth)
			printf("%#" PRIx64, truth[j0 + k]);
		printf("\n");
	}
}

/* A walk that agreed to the end: enough of it, with an event among them
 * (@min 0: whatever there was, as from the last PSB)? */
static int verdict(struct walk w, uint64_t min)
{
	if (min && (w.insns < min || !w.interrupts)) {
		printf("FAIL window too small: %" PRIu64 " instructions "
		       "(want %" PRIu64 "), %" PRIu64 " interrupts\n",
		       w.insns, min, w.interrupts);
		return 1;
	}
	printf("PASS\n");
	return 0;
}

static int check(const char *region_path, const char *truth_path,
		 uint32_t vcpu, uint64_t min)
{
	struct rs_region region;
	struct rs_aux_snapshot snap;
	struct pv_decode_stats ds;
	struct pv_decode_params dp = { .size = sizeof(dp) };
	struct stat st;
	uint8_t *buf;
	void *mem;
	int fd, ret, snapshot;
	struct rs_ring ring;

	fd = open(region_path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(region_path);
		return 1;
	}
	mem = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (mem == MAP_FAILED ||
	    rs_region_open(&region, mem, (uint64_t)st.st_size) < 0 ||
	    rs_region_ring(&region, vcpu, &ring) < 0) {
		fprintf(stderr, "%s: not a region with ring %u\n", region_path, vcpu);
		return 1;
	}
	snapshot = ring.aux_mode == RS_MODE_OVERWRITE;
	if (load_truth(truth_path, vcpu, !snapshot) < 0)
		return 1;
	buf = malloc(ring.aux_size);
	ret = buf ? rs_snapshot_aux(&snap, &region, vcpu, buf, ring.aux_size) : -1;
	if (ret < 0) {
		fprintf(stderr, "rs_snapshot_aux: %s\n", rs_error_str(-ret));
		return 1;
	}
	dp.from_last_psb = last_psb;
	dp.trace = buf;
	dp.len = snap.len;
	dp.code = (struct pv_mem){ code_ptr, NULL };
	dp.fn = collect;
	keep = snapshot ? 2 * ntruth + (1u << 20) : ntruth + (1u << 20);
	items = malloc(keep * sizeof(*items));
	if (!items)
		return 1;
	keep_last = snapshot;
	ret = pv_decode_run(&dp, &ds);
	if (ret == ENOUGH)
		ret = 0;
	if (linearize() < 0)
		return 1;
	printf("AUX %s: %" PRIu64 " bytes (head %" PRIu64 "); decoded %" PRIu64
	       " instructions, %" PRIu64 " interrupts, %" PRIu64 " errors, %"
	       PRIu64 " overflows, first sync at %" PRIu64 "\n",
	       snapshot ? "snapshot" : "normal", snap.len, snap.head, ds.insns,
	       ds.interrupts, ds.errors, ds.overflows, ds.first_sync);
	printf("truth: %" PRIu64 " instructions of vCPU %u from #%" PRIu64 "\n",
	       ntruth, vcpu, truth_first);
	if (ret < 0) {
		fprintf(stderr, "FAIL decode: %s\n", pv_error_str(-ret));
		return 1;
	}
	/* From the last PSB: whatever follows it, all of it, must agree. */
	if (last_psb)
		match_run = ds.insns < MATCH_RUN ? ds.insns : MATCH_RUN;
	if (!match_run) {
		printf("FAIL nothing decoded\n");
		return 1;
	}
	/* Align: the first decoded instruction where MATCH_RUN agree.  In
	 * snapshot mode only the decode's start may be cut; in normal mode
	 * the truth's start is (it keeps the last truth_max). */
	/* A loop can make a wrong alignment agree for a while: the one that
	 * agrees to the end wins; the longest failed one is reported. */
	struct walk best = { .bad = 1 };
	uint64_t best_i = 0;

	for (uint64_t i = 0; i < nitems; i++) {
		if (items[i].kind != PV_DEC_INSN || items[i].ip != truth[0])
			continue;
		struct walk w = walk(i, 0, match_run);

		if (w.bad || w.insns < match_run)
			continue;
		w = walk(i, 0, UINT64_MAX);
		if (w.bad && w.i < nitems) {
			if (best.bad && w.insns >= best.insns) {
				best = w;
				best_i = i;
			}
			continue;
		}
		printf("aligned decoded item %" PRIu64 " with truth #%" PRIu64
		       ": %" PRIu64 " instructions match, %" PRIu64
		       " interrupts (%" PRIu64 " faulted instructions skipped, %"
		       PRIu64 " shown retired before a fixup)\n",
		       i, truth_first, w.insns, w.interrupts, w.faults, w.fixups);
		return verdict(w, min);
	}
	if (best.insns) {
		printf("FAIL: the best alignment, decoded item %" PRIu64
		       " with truth #%" PRIu64 ", agrees for %" PRIu64
		       " instructions, then decoded item %" PRIu64 " (kind %u ip %#"
		       PRIx64 ") against truth #%" PRIu64 " %#" PRIx64 "\n",
		       best_i, truth_first, best.insns, best.i, items[best.i].kind,
		       items[best.i].ip, truth_first + best.j, truth[best.j]);
		context(best);
		return 1;
	}
	/* Snapshot: the truth's start may be older than the decode. */
	for (uint64_t j = 1; j < ntruth && nitems; j++) {
		uint64_t i = 0;

		while (i < nitems && items[i].kind != PV_DEC_INSN)
			i++;
		if (i == nitems || truth[j] != items[i].ip)
			continue;
		struct walk w = walk(i, j, UINT64_MAX);

		if (w.bad || w.insns < match_run)
			continue;
		printf("aligned the decode's start with truth #%" PRIu64 ": %"
		       PRIu64 " instructions match to the decode's end, %" PRIu64
		       " interrupts (%" PRIu64 " faulted instructions skipped, %"
		       PRIu64 " shown retired before a fixup)\n",
		       truth_first + j, w.insns, w.interrupts, w.faults, w.fixups);
		return verdict(w, last_psb ? 0 : min);
	}
	printf("FAIL no alignment of the decode with the truth\n");
	if (getenv("PTQ_DEBUG")) {
		struct walk w = { .i = 12, .j = 12 };
		uint64_t k = 0;

		for (uint64_t i = 0; i < nitems; i++)
			if (items[i].kind == PV_DEC_INSN && items[i].ip == truth[0]) {
				w = walk(i, 0, UINT64_MAX);
				printf("walk from %" PRIu64 ": %" PRIu64 " match\n", i, w.insns);
				context(w);
				break;
			}
		for (uint64_t i = 0; i < nitems && k < 20; i++)
			if (items[i].kind == PV_DEC_ERROR && k++ < 20) {
				w.i = i + 4;
				printf("error %" PRIu64 ":\n", i);
				context(w);
			}
	}
	return 1;
}

/*
 * ips: another decoder's instructions for one vCPU (perf script
 * --itrace=i0nse, filtered by the harness): a hex address a line, "E"
 * where it reported an error or an overflow.  What follows the last E is
 * held against the end of the truth.  Every instruction must be the
 * truth's next one, and the two must end together but for at most TAIL:
 * the truth may hold a few more (the last block, whose last branch no
 * packet told before the vCPU stopped), the decode may walk a few past
 * the end (code that needs no packet).  Passes with at least MIN_INSNS.
 */
#define TAIL 512

static int ips(const char *truth_path, uint32_t vcpu, const char *path,
	       uint64_t min)
{
	FILE *f = fopen(path, "r");
	char line[128];
	uint64_t errors = 0, lines = 0;

	if (!f) {
		perror(path);
		return 1;
	}
	if (load_truth(truth_path, vcpu, 0) < 0)
		return 1;
	keep = 1u << 16;
	items = malloc(keep * sizeof(*items));
	while (items && fgets(line, sizeof(line), f)) {
		char *end;
		uint64_t ip;

		lines++;
		if (line[0] == 'E') {
			errors++;
			nitems = 0;      /* only the last segment counts */
			continue;
		}
		ip = strtoull(line, &end, 16);
		if (end == line || (*end && *end != '\n')) {
			fprintf(stderr, "%s:%" PRIu64 ": not an address\n", path,
				lines);
			return 1;
		}
		if (nitems == keep) {
			struct item *n = realloc(items, 2 * keep * sizeof(*n));

			if (!n)
				break;
			items = n;
			keep *= 2;
		}
		items[nitems++] = (struct item){ PV_DEC_INSN, ip, 0 };
	}
	fclose(f);
	if (!items) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	no_events = 1;
	printf("decode: %" PRIu64 " instructions after the last of %" PRIu64
	       " errors; truth: %" PRIu64 " instructions of vCPU %u from #%"
	       PRIu64 " (%" PRIu64 " faulted)\n", nitems, errors, ntruth, vcpu,
	       truth_first, nfaults);
	if (nitems < min) {
		printf("FAIL fewer than %" PRIu64 " instructions decoded\n", min);
		return 1;
	}
	match_run = nitems < MATCH_RUN ? nitems : MATCH_RUN;
	/* The decode's first instruction in the truth: the first place
	 * from where they agree to the end of either. */
	struct walk best = { .bad = 1 };

	for (uint64_t j = 0; j < ntruth; j++) {
		if (truth[j] != items[0].ip)
			continue;
		struct walk w = walk(0, j, UINT64_MAX);

		if (w.bad) {
			if (w.insns > best.insns)
				best = w;
			continue;
		}
		uint64_t left = 0, past = nitems - w.i;

		for (uint64_t k = w.j; k < ntruth; k++)
			left += !is_fault(truth_first + k);
		printf("aligned with truth #%" PRIu64 ": %" PRIu64 " of %" PRIu64
		       " decoded instructions are the truth's, in order (%"
		       PRIu64 " faulted skipped, %" PRIu64 " shown retired "
		       "before a fixup; %" PRIu64 " times %" PRIu64 " shown "
		       "before an event the truth runs them after); the truth "
		       "goes on for %" PRIu64 ", the decode for %" PRIu64 "\n",
		       truth_first + j, w.insns, nitems, w.faults, w.fixups,
		       w.early, w.early_insns, left, past);
		if (left > TAIL || past > TAIL) {
			printf("FAIL the two end more than %d instructions "
			       "apart\n", TAIL);
			return 1;
		}
		printf("PASS count: decoded %" PRIu64 " = truth %" PRIu64
		       " + %" PRIu64 " shown early\n", nitems, w.insns + left,
		       w.early_insns);
		return 0;
	}
	printf("FAIL the decode's start (%#" PRIx64 ") is nowhere in the truth "
	       "from where both agree to the end (the truth kept %" PRIu64
	       " instructions: a larger truth_max?)\n", items[0].ip, ntruth);
	if (best.insns) {
		printf("  the longest agreement: %" PRIu64 " instructions, then "
		       "decoded #%" PRIu64 " against truth #%" PRIu64 "\n",
		       best.insns, best.i, truth_first + best.j);
		context(best);
	}
	return 1;
}

static int layout(const char *path, uint32_t rings, uint32_t aux_pages,
		  uint32_t mode)
{
	struct rs_region_params p;
	uint64_t size;
	void *mem;
	int fd, ret;

	ret = rs_region_params_init(&p, rings, 16, aux_pages, RS_MODE_NORMAL,
				    mode);
	if (ret == 0)
		ret = rs_region_size(&p, &size);
	if (ret < 0) {
		fprintf(stderr, "layout: %s\n", rs_error_str(-ret));
		return 1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror(path);
		return 1;
	}
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (mem == MAP_FAILED || rs_region_layout(mem, size, &p) < 0 ||
	    rs_region_enable(mem) < 0) {
		fprintf(stderr, "%s: cannot lay the region out\n", path);
		return 1;
	}
	printf("%" PRIu64 "\n", size);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "layout"))
		return layout(argv[2], (uint32_t)atoi(argv[3]),
			      (uint32_t)atoi(argv[4]),
			      strcmp(argv[5], "overwrite") ? RS_MODE_NORMAL :
							     RS_MODE_OVERWRITE);
	if (argc == 7 && !strcmp(argv[6], "--last-psb")) {
		last_psb = 1;
		argc--;
	}
	if (argc == 6 && !strcmp(argv[1], "ips"))
		return ips(argv[2], (uint32_t)atoi(argv[3]), argv[4],
			   strtoull(argv[5], NULL, 0));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3], (uint32_t)atoi(argv[4]),
			     argc == 6 ? strtoull(argv[5], NULL, 0) : 100000);
	fprintf(stderr, "usage: pt-qemu-check layout FILE RINGS AUX_PAGES "
		"normal|overwrite\n       pt-qemu-check check FILE TRUTH VCPU "
		"[MIN_INSNS [--last-psb]]\n       pt-qemu-check ips TRUTH "
		"VCPU FILE MIN_INSNS\n");
	return 2;
}
