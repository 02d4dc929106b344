/* SPDX-License-Identifier: MIT */
/*
 * A guest user binary's symbol file for perf's build-id cache
 * (docs/perfdata.md, "Guest user symbols"): an ELF file of ringside's own
 * making, just what perf 6.1 and elfutils read to name a binary's code:
 *
 *   ELF header         the binary's e_type and e_machine
 *   program headers    the binary's PT_LOADs, as they are in it
 *   .note.gnu.build-id its build id (perf refuses a file without it)
 *   .symtab, .strtab   its FUNC symbols, each in .text
 *   .shstrtab
 *   section headers    null, .text (NOBITS, the binary's sh_addr,
 *                      sh_offset and sh_size), the note, .symtab,
 *                      .strtab, .shstrtab
 *
 * perf subtracts from a user symbol's value p_vaddr - p_offset of the
 * PT_LOAD that holds it (falling back to sh_addr - sh_offset of its
 * section); both are the binary's own here, so the file gives the
 * addresses the binary gives.  Nothing of the binary's bytes is in it.
 * The cache entry and the HEADER_BUILD_ID entries of the writer are here
 * too.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/perfdata.h"

#include "pdf_elf.h"
#include "pdf_kernel.h"

static const char shstr[] =
	"\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
enum { SH_TEXT = 1, SH_NOTE = 7, SH_SYMTAB = 26, SH_STRTAB = 34,
       SH_SHSTRTAB = 42 };
enum { S_NULL, S_TEXT, S_NOTE, S_SYMTAB, S_STRTAB, S_SHSTRTAB, S_NR };

static void pad(struct pdf_buf *b, size_t align)
{
	static const uint8_t zero[8];

	pdf_buf_add(b, zero, (align - b->len % align) % align);
}

static int is_vdso(const char *path)
{
	return !strcmp(path, PDF_VDSO_DSO);
}

static int ubin_ok(const struct pdf_ubin *b)
{
	return b && b->build_id_len && b->build_id_len <= PDF_BUILD_ID_SIZE &&
	       b->nr_loads && b->nr_loads <= PDF_UBIN_MAX_LOADS &&
	       (b->syms || !b->nr_syms) && b->names && b->names_len &&
	       !b->names[b->names_len - 1] && b->path &&
	       (b->path[0] == '/' || is_vdso(b->path));
}

int pdf_uelf_image(const struct pdf_ubin *b, struct pdf_buf *out)
{
	Elf64_Shdr sh[S_NR];
	Elf64_Ehdr eh;
	Elf64_Nhdr nh;
	Elf64_Sym sym;
	size_t base = out ? out->len : 0;
	uint64_t note_at, sym_at, str_at, shstr_at;
	uint32_t i;

	if (!ubin_ok(b) || !out)
		return PDF_ERR(pdfe_invalid);
	for (i = 0; i < b->nr_syms; i++)
		if (b->syms[i].name >= b->names_len)
			return PDF_ERR(pdfe_invalid);
	pdf_elf_header(&eh, b->e_type, b->e_machine, (uint16_t)b->nr_loads);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = S_NR;
	eh.e_shstrndx = S_SHSTRTAB;
	pdf_buf_add(out, &eh, sizeof(eh));
	for (i = 0; i < b->nr_loads; i++) {
		Elf64_Phdr ph = {
			.p_type = PT_LOAD, .p_flags = b->loads[i].flags,
			.p_offset = b->loads[i].offset,
			.p_vaddr = b->loads[i].vaddr,
			.p_paddr = b->loads[i].vaddr,
			.p_filesz = b->loads[i].filesz,
			.p_memsz = b->loads[i].memsz, .p_align = 0x1000,
		};

		pdf_buf_add(out, &ph, sizeof(ph));
	}
	pad(out, 8);
	note_at = out->len - base;
	nh.n_namesz = 4;
	nh.n_descsz = b->build_id_len;
	nh.n_type = NT_GNU_BUILD_ID;
	pdf_buf_add(out, &nh, sizeof(nh));
	pdf_buf_add(out, "GNU", 4);
	pdf_buf_add(out, b->build_id, b->build_id_len);
	pad(out, 8);
	sym_at = out->len - base;
	memset(&sym, 0, sizeof(sym));
	pdf_buf_add(out, &sym, sizeof(sym));
	for (i = 0; i < b->nr_syms; i++) {
		sym.st_name = b->syms[i].name + 1;  /* .strtab starts with a NUL */
		sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		sym.st_shndx = S_TEXT;
		sym.st_value = b->syms[i].value;
		sym.st_size = b->syms[i].size;
		pdf_buf_add(out, &sym, sizeof(sym));
	}
	str_at = out->len - base;
	pdf_buf_add(out, "", 1);
	pdf_buf_add(out, b->names, b->names_len);
	shstr_at = out->len - base;
	pdf_buf_add(out, shstr, sizeof(shstr));
	pad(out, 8);
	eh.e_shoff = out->len - base;
	memset(sh, 0, sizeof(sh));
	sh[S_TEXT] = (Elf64_Shdr){ .sh_name = SH_TEXT, .sh_type = SHT_NOBITS,
		.sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = b->text_addr,
		.sh_offset = b->text_offset, .sh_size = b->text_size,
		.sh_addralign = 16 };
	sh[S_NOTE] = (Elf64_Shdr){ .sh_name = SH_NOTE, .sh_type = SHT_NOTE,
		.sh_flags = SHF_ALLOC, .sh_offset = note_at,
		.sh_size = sizeof(nh) + 4 + b->build_id_len, .sh_addralign = 4 };
	sh[S_SYMTAB] = (Elf64_Shdr){ .sh_name = SH_SYMTAB,
		.sh_type = SHT_SYMTAB, .sh_offset = sym_at,
		.sh_size = (b->nr_syms + 1ull) * sizeof(Elf64_Sym),
		.sh_link = S_STRTAB, .sh_info = 1, .sh_addralign = 8,
		.sh_entsize = sizeof(Elf64_Sym) };
	sh[S_STRTAB] = (Elf64_Shdr){ .sh_name = SH_STRTAB,
		.sh_type = SHT_STRTAB, .sh_offset = str_at,
		.sh_size = 1ull + b->names_len, .sh_addralign = 1 };
	sh[S_SHSTRTAB] = (Elf64_Shdr){ .sh_name = SH_SHSTRTAB,
		.sh_type = SHT_STRTAB, .sh_offset = shstr_at,
		.sh_size = sizeof(shstr), .sh_addralign = 1 };
	pdf_buf_add(out, sh, sizeof(sh));
	if (out->err)
		return out->err;
	memcpy(out->data + base, &eh, sizeof(eh));  /* with e_shoff now */
	return 0;
}

int pdf_uelf_cache_put(const struct pdf_ubin *b, const char *dir)
{
	char rel[PATH_MAX], hex[2 * PDF_BUILD_ID_SIZE + 1];
	const char *dso;
	struct pdf_buf img;
	int root, entry, n, err;
	uint32_t i;

	if (!dir || !ubin_ok(b) || strstr(b->path, "/../") ||
	    strstr(b->path, "//") || strstr(b->path, "/./"))
		return PDF_ERR(pdfe_invalid);
	for (i = 0; i < b->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", b->build_id[i]);
	/* DIR/PATH/HEX, the path without its leading slash; the vdso's
	 * directory is "[vdso]" under the cache, as a path "/[vdso]" would
	 * make it.  pdf_cache_subdir refuses "." and ".." components. */
	dso = is_vdso(b->path) ? PDF_VDSO_DSO : b->path + 1;
	n = snprintf(rel, sizeof(rel), "%s/%s", dso, hex);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	root = pdf_cache_root(dir);
	if (root < 0)
		return root;
	entry = pdf_cache_subdir(root, rel);
	if (entry < 0) {
		close(root);
		return entry;
	}
	pdf_buf_init(&img);
	err = pdf_uelf_image(b, &img);
	if (!err)
		err = pdf_cache_put_at(entry, is_vdso(b->path) ? "vdso" : "elf",
				       img.data, img.len);
	pdf_buf_fini(&img);
	close(entry);
	if (!err)
		err = pdf_cache_link_at(root, dso, hex);
	close(root);
	return err;
}

/* Whether @ids (HEADER_BUILD_ID entries) names @b's build id already. */
static int listed(const struct pdf_buf *ids, const struct pdf_ubin *b)
{
	size_t at = 0;

	while (at + 36 <= ids->len) {
		struct rs_perf_header h;

		memcpy(&h, ids->data + at, sizeof(h));
		if (ids->data[at + 32] == b->build_id_len &&
		    !memcmp(ids->data + at + 12, b->build_id, b->build_id_len))
			return 1;
		if (!h.size)
			break;
		at += h.size;
	}
	return 0;
}

int pdf_uelf_add_all(struct pdf_buf *ids, struct pdf_writer_stats *st,
		  const char *dir, const struct pdf_ubin *b, uint32_t nr)
{
	uint32_t i;
	int put = 0;

	if (!ids || !st || (!b && nr))
		return PDF_ERR(pdfe_invalid);
	for (i = 0; i < nr; i++) {
		size_t plen;
		int err;

		if (!ubin_ok(&b[i]) || listed(ids, &b[i]))
			continue;
		plen = strnlen(b[i].path, PATH_MAX);
		err = pdf_uelf_cache_put(&b[i], dir);
		if (err == 1) {
			st->ubins_other++;
			continue;
		}
		if (err || plen >= PATH_MAX) {
			st->ubins_failed++;
			st->ubins_err = err ? err : -ENAMETOOLONG;
			continue;
		}
		pdf_buildid_add(ids, PERF_RECORD_MISC_USER, b[i].build_id,
				b[i].build_id_len, b[i].path);
		if (ids->err)
			return ids->err;
		st->ubins++;
		put++;
	}
	return put;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct pdf_uelf_sym *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

void pdf_uelf_sort(struct pdf_uelf_sym *syms, size_t nr)
{
	qsort(syms, nr, sizeof(*syms), sym_cmp);
}

const struct pdf_uelf_sym *pdf_uelf_find(const struct pdf_uelf_sym *syms,
					 size_t nr, uint64_t at)
{
	size_t lo = 0, hi = nr;
	const struct pdf_uelf_sym *s;

	while (lo < hi) {                  /* the last symbol at or below */
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].at <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* one of size 0 runs to the next, which is past @at */
	s = &syms[lo - 1];
	return s->size && at - s->at >= s->size ? NULL : s;
}
