/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's maps as perf 6.1 makes them from a file
 * (docs/perfdata.md, "Guest kernel symbols"): the PERF_RECORD_MMAPs of the
 * kernel ("[kernel.kallsyms]_text") and of each module ("[name]"), the
 * code ranges a kcore holds and the /proc/modules text perf checks them
 * against, and _stext, where perf meets the kernel's own segment.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/abi.h"
#include "ringside/perfdata.h"

#include "pdf_kernel.h"
#include "pdf_ksyms.h"

uint64_t pdf_kernel_stext(const struct pdf_ksyms *k)
{
	static const char name[] = "_stext";
	size_t j;

	for (j = 0; j < k->nr; j++) {
		const struct ksym *s = &k->syms[j];

		if (s->mod == NO_MOD && s->name_len == sizeof(name) - 1 &&
		    !memcmp(k->str + s->name, name, sizeof(name) - 1))
			return s->addr;
	}
	return k->stats.have_text ? k->stats.text : k->stats.kernel_start;
}

static int cmp_range(const void *a, const void *b)
{
	const struct pdf_code_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Kernel functions closer than this share a range: the text, the init
 * text and the exit text each become one, the data between them none. */
#define CODE_GAP (1ull << 20)

int pdf_kernel_code_ranges(const struct pdf_ksyms *k,
			  struct pdf_code_range *r, unsigned max)
{
	uint64_t start = 0, end = 0;
	unsigned i, n = 0;
	int open = 0;
	size_t j;

	if (!k || (!r && max))
		return PDF_ERR(pdfe_invalid);
	/* the kernel's: clusters of its functions, from each one's page to a
	 * page past the last (perf's own end for a last symbol) */
	for (j = 0; j < k->nr; j++) {
		const struct ksym *sym = &k->syms[j];
		uint64_t lo = sym->addr & ~((uint64_t)RS_PAGE_SIZE - 1);
		uint64_t hi = pdf_sat_add(lo, 2 * (uint64_t)RS_PAGE_SIZE);

		if (sym->mod != NO_MOD || !pdf_ksym_is_func(sym->type))
			continue;
		if (hi > k->stats.kernel_end)
			hi = k->stats.kernel_end;
		if (open && lo <= pdf_sat_add(end, CODE_GAP)) {
			if (hi > end)
				end = hi;
			continue;
		}
		if (open && n++ < max) {
			r[n - 1].start = start;
			r[n - 1].end = end;
		}
		start = lo < k->stats.kernel_start ? k->stats.kernel_start : lo;
		end = hi;
		open = 1;
	}
	if (open && n++ < max) {
		r[n - 1].start = start;
		r[n - 1].end = end;
	}
	for (i = 0; i < k->nr_maps; i++) {
		const struct kmap *m = &k->maps[i];

		if (m->mod == NO_MOD)
			continue;
		if (n < max) {
			r[n].start = m->start;
			r[n].end = m->end;
		}
		n++;
	}
	/* by address (a module may lie below the kernel) */
	if (n <= max)
		qsort(r, n, sizeof(*r), cmp_range);
	return (int)n;
}

int pdf_kernel_modules_text(const struct pdf_ksyms *k, struct pdf_buf *out)
{
	char line[PDF_KSYMS_MODULE_MAX + 64];
	unsigned i;

	/* /proc/modules' form, what perf's modules__parse() reads: the name,
	 * the size, then the address after the last 'x' */
	for (i = 0; i < k->nr_maps; i++) {
		const struct kmap *m = &k->maps[i];
		const struct kmod *mod;
		int n;

		if (m->mod == NO_MOD)
			continue;
		mod = &k->mods[m->mod];
		n = snprintf(line, sizeof(line), "%.*s %" PRIu64 " 0 - Live "
			     "0x%016" PRIx64 "\n", (int)mod->name_len,
			     k->str + mod->name, m->end - m->start, m->start);
		pdf_buf_add(out, line, (size_t)n);
	}
	return out->err;
}

static void add_mmap(struct pdf_buf *out, const struct pdf_layout *lay,
		     uint64_t start, uint64_t end, uint64_t pgoff,
		     const char *name, size_t name_len, const char *suffix)
{
	size_t slen = strlen(suffix);
	size_t fname = (name_len + slen + 1 + 7) & ~(size_t)7;
	struct rs_perf_mmap_body body = { (uint32_t)-1, 0, start, end - start,
					   pgoff };
	uint8_t tr[PDF_TRAILER_MAX];
	size_t trs = pdf_layout_trailer(lay, (uint32_t)-1, 0, 0, 0,
					lay->id[PDF_KIND_RING], tr);
	struct rs_perf_header hdr = { PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
		(uint16_t)(sizeof(hdr) + sizeof(body) + fname + trs) };
	static const uint8_t zero[8];

	pdf_buf_add(out, &hdr, sizeof(hdr));
	pdf_buf_add(out, &body, sizeof(body));
	pdf_buf_add(out, name, name_len);
	pdf_buf_add(out, suffix, slen);
	pdf_buf_add(out, zero, fname - name_len - slen);
	pdf_buf_add(out, tr, trs);
}

int pdf_kernel_mmaps(const struct pdf_ksyms *k, const struct pdf_layout *lay,
		    struct pdf_buf *out)
{
	char name[PDF_KSYMS_MODULE_MAX + 3];
	unsigned i;

	for (i = 0; i < k->nr_maps; i++) {
		const struct kmap *m = &k->maps[i];

		if (m->mod != NO_MOD)
			continue;
		if (k->stats.have_text)
			add_mmap(out, lay, m->start, m->end, k->stats.text,
				 PDF_KERNEL_DSO, strlen(PDF_KERNEL_DSO), "_text");
		else
			add_mmap(out, lay, m->start, m->end, 0,
				 PDF_KERNEL_DSO, strlen(PDF_KERNEL_DSO), "");
	}
	for (i = 0; i < k->nr_maps; i++) {
		const struct kmap *m = &k->maps[i];
		const struct kmod *mod = &k->mods[m->mod];

		if (m->mod == NO_MOD)
			continue;
		name[0] = '[';
		memcpy(name + 1, k->str + mod->name, mod->name_len);
		name[mod->name_len + 1] = ']';
		add_mmap(out, lay, m->start, m->end, 0, name,
			 mod->name_len + 2u, "");
	}
	return out->err;
}
