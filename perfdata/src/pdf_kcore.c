/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's code as an ELF core file, the form of /proc/kcore that
 * perf reads kernel instructions from: a 64-bit x86-64 ET_CORE header, one
 * PT_LOAD program header a segment (readable and executable, at its kernel
 * address, its bytes at a page-aligned file offset), no sections.  perf
 * 6.1 takes every PT_LOAD with PF_X as a map of the kernel
 * (file__read_maps(), symbol-elf.c) and reads code at the segment's offset.
 *
 * The order of the program headers matters to perf 6.1: dso__load_kcore()
 * (symbol.c) takes kcore's maps in reverse header order, and merges each
 * into the kernel's maps, dropping one that lies inside a map already
 * there; the kernel map from the file's MMAP spans all the kernel's
 * symbols until the segment holding _stext replaces it.  So that segment's
 * header comes last (its bytes stay in address order): tried, a Debian
 * guest's init and entry text lost their names otherwise.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/abi.h"
#include "ringside/perfdata.h"

#include "pdf_elf.h"

static uint64_t page_up(uint64_t v)
{
	return (v + RS_PAGE_SIZE - 1) & ~((uint64_t)RS_PAGE_SIZE - 1);
}

static int segs_ok(const struct pdf_kcore_seg *segs, uint32_t nr)
{
	uint64_t total = 0;
	uint32_t i;

	if (!segs || !nr || nr > PDF_KCORE_MAX_SEGS)
		return 0;
	for (i = 0; i < nr; i++) {
		const struct pdf_kcore_seg *s = &segs[i];

		if (!s->data || !s->len || s->len > PDF_KCORE_MAX_BYTES ||
		    s->addr < PDF_KSYMS_MIN_ADDR ||
		    s->addr + s->len < s->addr ||       /* wraps */
		    (i && s->addr < segs[i - 1].addr + segs[i - 1].len))
			return 0;
		total += s->len;
		if (total > PDF_KCORE_MAX_BYTES)
			return 0;
	}
	return 1;
}

static void add_phdr(struct pdf_buf *out, const struct pdf_kcore_seg *s,
		     uint64_t offset)
{
	Elf64_Phdr ph;

	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_offset = offset;
	ph.p_vaddr = s->addr;
	ph.p_filesz = ph.p_memsz = s->len;
	ph.p_align = RS_PAGE_SIZE;
	pdf_buf_add(out, &ph, sizeof(ph));
}

int pdf_kcore_image(const struct pdf_kcore_seg *segs, uint32_t nr,
		    uint64_t last, struct pdf_buf *out)
{
	static const uint8_t zero[RS_PAGE_SIZE];
	uint64_t at, last_at = 0;
	uint32_t i, last_i = nr;
	Elf64_Ehdr eh;

	if (!out || !segs_ok(segs, nr))
		return PDF_ERR(pdfe_invalid);
	pdf_elf_header(&eh, ET_CORE, EM_X86_64, (uint16_t)nr);
	pdf_buf_add(out, &eh, sizeof(eh));

	at = page_up(sizeof(eh) + (uint64_t)nr * sizeof(Elf64_Phdr));
	for (i = 0; i < nr; i++) {
		if (last - segs[i].addr < segs[i].len && last_i == nr) {
			last_i = i;   /* its header after the others */
			last_at = at;
		} else {
			add_phdr(out, &segs[i], at);
		}
		at = page_up(at + segs[i].len);
	}
	if (last_i < nr)
		add_phdr(out, &segs[last_i], last_at);
	for (i = 0; i < nr; i++) {
		pdf_buf_add(out, zero, page_up(out->len) - out->len);
		pdf_buf_add(out, segs[i].data, segs[i].len);
	}
	return out->err;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct pdf_kcore_seg *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int pdf_kcore_parse(const uint8_t *image, uint64_t len,
		    struct pdf_kcore_seg *segs, uint32_t max)
{
	uint32_t i, n = 0;
	Elf64_Ehdr eh;

	if (!image || len < sizeof(eh))
		return PDF_ERR(pdfe_format);
	memcpy(&eh, image, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phoff > len ||
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > len - eh.e_phoff)
		return PDF_ERR(pdfe_format);
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, image + eh.e_phoff + (uint64_t)i * sizeof(ph),
		       sizeof(ph));
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		if (ph.p_offset > len || ph.p_filesz > len - ph.p_offset ||
		    ph.p_vaddr < PDF_KSYMS_MIN_ADDR ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr)
			return PDF_ERR(pdfe_format);
		if (n < max) {
			segs[n].addr = ph.p_vaddr;
			segs[n].len = ph.p_filesz;
			segs[n].data = image + ph.p_offset;
		}
		n++;
	}
	/* by address, none overlapping (checked when all fit) */
	if (n <= max && n) {
		qsort(segs, n, sizeof(*segs), cmp_seg);
		for (i = 1; i < n; i++)
			if (segs[i].addr < segs[i - 1].addr + segs[i - 1].len)
				return PDF_ERR(pdfe_format);
	}
	return (int)n;
}
