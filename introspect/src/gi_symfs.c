/* SPDX-License-Identifier: MIT */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "ringside/elf_note.h"
#include "ringside/gi_symfs.h"
#include "ringside/perfdata.h"

#define PHDRS_MAX     64u
#define SHDRS_MAX     4096u
#define NOTE_MAX      4096u
#define TABLE_MAX     (64u << 20)   /* bytes of a symbol or string table */

struct load {
	uint64_t offset, filesz, vaddr;
};

/* What is read of a mapped file: its name and build id are in
 * gi_symfs.maps.files, by the same index. */
struct ufile {
	int state;                    /* 0 not loaded, 1 named, -1 unusable */
	int mismatch;
	struct pdf_uelf_sym *syms;    /* at: the symbol's address */
	size_t nr_syms;
	char *strtab;
	uint64_t strtab_len;
	struct load loads[PHDRS_MAX];
	unsigned nr_loads;
};

struct hit {
	uint32_t file;                /* + 1; 0: an empty slot */
	uint64_t offset;
	uint64_t count;
};

struct gi_symfs {
	char *symfs;
	struct pdf_umaps maps;        /* each mapping's file: in files */
	struct ufile *files;
	struct hit *hits;             /* open addressing, GI_SYMFS_MAX_HITS */
	uint32_t nr_hits;
	struct gi_symfs_summary sum;
};

int gi_symfs_new(struct gi_symfs **up, const char *symfs)
{
	struct gi_symfs *u = calloc(1, sizeof(*u));

	*up = NULL;
	if (!u)
		return -ENOMEM;
	u->files = calloc(GI_SYMFS_MAX_FILES, sizeof(*u->files));
	u->hits = calloc(GI_SYMFS_MAX_HITS, sizeof(*u->hits));
	u->symfs = symfs ? strdup(symfs) : NULL;
	if (pdf_umaps_init(&u->maps, GI_SYMFS_MAX_MAPS, GI_SYMFS_MAX_FILES,
			   UINT64_MAX) ||
	    !u->files || !u->hits || (symfs && !u->symfs)) {
		gi_symfs_free(u);
		return -ENOMEM;
	}
	*up = u;
	return 0;
}

void gi_symfs_free(struct gi_symfs *u)
{
	uint32_t i;

	if (!u)
		return;
	for (i = 0; u->files && i < u->maps.files.nr; i++) {
		free(u->files[i].syms);
		free(u->files[i].strtab);
	}
	free(u->files);
	pdf_umaps_fini(&u->maps);
	free(u->hits);
	free(u->symfs);
	free(u);
}

/* ---- counting ---------------------------------------------------------- */

/* A newer mapping replaces what it overlaps, as in the process. */
static void add_map(struct gi_symfs *u, const struct rs_perf_header *rec)
{
	struct rs_perf_mmap2_body m;
	const char *name = pdf_umaps_mmap2(rec, &m);
	uint32_t file;

	if (name && (pdf_umaps_file(&u->maps, name, &m, rec->misc, &file) ||
		     pdf_umaps_add(&u->maps, &m, file)))
		u->sum.maps_dropped++;
}

static void add_hit(struct gi_symfs *u, uint32_t file, uint64_t offset)
{
	uint64_t h = (offset * 0x9e3779b97f4a7c15ull) ^ file;
	uint32_t i = (uint32_t)(h % GI_SYMFS_MAX_HITS), n;

	for (n = 0; n < GI_SYMFS_MAX_HITS; n++, i = (i + 1) % GI_SYMFS_MAX_HITS) {
		struct hit *e = &u->hits[i];

		if (e->file == file + 1 && e->offset == offset) {
			e->count++;
			return;
		}
		if (!e->file) {
			if (u->nr_hits >= GI_SYMFS_MAX_HITS / 4 * 3)
				break;
			*e = (struct hit){ file + 1, offset, 1 };
			u->nr_hits++;
			return;
		}
	}
	u->sum.dropped++;
}

void gi_symfs_add(struct gi_symfs *u, const struct rs_perf_header *rec,
		  uint64_t sample_type)
{
	uint16_t mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	enum pdf_rrec_class cls = pdf_rrec_classify(rec, sample_type);
	const struct pdf_umap *m;
	struct pdf_sample s;

	if (cls == PDF_RREC_MMAP2) {
		add_map(u, rec);
		return;
	}
	if (cls != PDF_RREC_SAMPLE ||
	    (mode != PERF_RECORD_MISC_USER && mode != PERF_RECORD_MISC_GUEST_USER) ||
	    (sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_TID)) !=
	    (PERF_SAMPLE_IP | PERF_SAMPLE_TID) ||
	    pdf_sample_parse(sample_type, rec + 1, rec->size - sizeof(*rec), &s))
		return;
	u->sum.samples++;
	m = pdf_umaps_find(&u->maps, s.pid, s.ip);
	if (!m) {
		u->sum.unmapped++;
		return;
	}
	add_hit(u, m->file, s.ip - m->start + m->pgoff);
}

/* ---- naming: the file's ELF under --symfs ----------------------------- */

static int read_at(int fd, void *buf, uint64_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, (size_t)len, (off_t)off);

	return n >= 0 && (uint64_t)n == len ? 0 : -1;
}

/* Does the file's GNU build id (a PT_NOTE) equal @f's? */
static int build_id_matches(int fd, const struct pdf_ufile *k,
			    const Elf64_Phdr *ph, unsigned nr)
{
	static uint8_t note[NOTE_MAX];
	unsigned i;

	for (i = 0; i < nr; i++) {
		size_t off = 0, len = (size_t)ph[i].p_filesz;
		size_t align = ph[i].p_align == 8 ? 8 : 4;
		struct rs_elf_note n;

		if (ph[i].p_type != PT_NOTE || len > NOTE_MAX ||
		    read_at(fd, note, len, ph[i].p_offset))
			continue;
		while (rs_elf_note_next(note, len, align, &off, &n) > 0)
			if (rs_elf_note_is_buildid(&n))
				return n.descsz == k->id_len &&
				       !memcmp(n.desc, k->id, k->id_len);
	}
	return 0;
}

/* The functions of the symbol table @sh (and its string table @str). */
static int load_syms(int fd, struct ufile *f, const Elf64_Shdr *sh,
		     const Elf64_Shdr *str)
{
	uint64_t n = sh->sh_size / sizeof(Elf64_Sym), i;
	Elf64_Sym *tab;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_size > TABLE_MAX ||
	    str->sh_size > TABLE_MAX || !str->sh_size)
		return -1;
	tab = malloc(sh->sh_size ? sh->sh_size : 1);
	f->strtab = malloc(str->sh_size + 1);
	f->syms = calloc(n ? n : 1, sizeof(*f->syms));
	if (!tab || !f->strtab || !f->syms ||
	    read_at(fd, tab, sh->sh_size, sh->sh_offset) ||
	    read_at(fd, f->strtab, str->sh_size, str->sh_offset)) {
		free(tab);
		return -1;
	}
	f->strtab[str->sh_size] = '\0';
	f->strtab_len = str->sh_size;
	for (i = 0; i < n; i++) {
		unsigned type = ELF64_ST_TYPE(tab[i].st_info);

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    tab[i].st_shndx == SHN_UNDEF || !tab[i].st_value ||
		    tab[i].st_name >= str->sh_size)
			continue;
		f->syms[f->nr_syms++] = (struct pdf_uelf_sym){ tab[i].st_value,
			tab[i].st_size, tab[i].st_name };
	}
	free(tab);
	pdf_uelf_sort(f->syms, f->nr_syms);
	return 0;
}

/* Open SYMFS/NAME and read its loads and functions.  1 named, -1 not. */
static int load_file(const struct gi_symfs *u, const struct pdf_ufile *k,
		     struct ufile *f)
{
	Elf64_Phdr ph[PHDRS_MAX];
	Elf64_Shdr *sh = NULL;
	Elf64_Ehdr eh;
	char path[PATH_MAX];
	int fd, ret = -1, sym = -1;
	unsigned i;

	if (!u->symfs || k->name[0] != '/' ||
	    snprintf(path, sizeof(path), "%s%s", u->symfs, k->name) >=
	    (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > PHDRS_MAX ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > SHDRS_MAX ||
	    read_at(fd, ph, (uint64_t)eh.e_phnum * sizeof(ph[0]), eh.e_phoff))
		goto out;
	if (k->id_len && !build_id_matches(fd, k, ph, eh.e_phnum)) {
		f->mismatch = 1;
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			f->loads[f->nr_loads++] = (struct load){ ph[i].p_offset,
				ph[i].p_filesz, ph[i].p_vaddr };
	sh = calloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*sh));
	if (!sh || read_at(fd, sh, (uint64_t)eh.e_shnum * sizeof(*sh), eh.e_shoff))
		goto out;
	/* the full table if the file kept it, else the dynamic one */
	for (i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB ||
		    (sh[i].sh_type == SHT_DYNSYM && sym < 0))
			sym = (int)i;
	if (sym >= 0 && sh[sym].sh_link < eh.e_shnum &&
	    sh[sh[sym].sh_link].sh_type == SHT_STRTAB &&
	    !load_syms(fd, f, &sh[sym], &sh[sh[sym].sh_link]))
		ret = 1;
out:
	free(sh);
	close(fd);
	return ret;
}

/* The function of @f at file offset @off, or NULL. */
static const char *name_at(const struct ufile *f, uint64_t off)
{
	const struct pdf_uelf_sym *s;
	unsigned i;

	for (i = 0; i < f->nr_loads; i++)
		if (off >= f->loads[i].offset &&
		    off - f->loads[i].offset < f->loads[i].filesz)
			break;
	if (i == f->nr_loads)
		return NULL;
	s = pdf_uelf_find(f->syms, f->nr_syms,
			  off - f->loads[i].offset + f->loads[i].vaddr);
	return s ? f->strtab + s->name : NULL;
}

/* ---- the table ------------------------------------------------------------ */

static int row_key_cmp(const void *a, const void *b)
{
	const struct gi_symfs_row *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (!x->function != !y->function)
		return x->function ? -1 : 1;
	if (x->function)
		return strcmp(x->function, y->function);
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int row_count_cmp(const void *a, const void *b)
{
	const struct gi_symfs_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return row_key_cmp(a, b);
}

int gi_symfs_top(struct gi_symfs *u, struct gi_symfs_row *rows, unsigned max,
		 struct gi_symfs_summary *sum)
{
	struct gi_symfs_row *all = calloc(u->nr_hits ? u->nr_hits : 1, sizeof(*all));
	uint8_t *used = calloc(u->maps.files.nr ? u->maps.files.nr : 1, 1);
	size_t n = 0, m = 0, i;

	if (!all || !used) {
		free(all);
		free(used);
		return -ENOMEM;
	}
	u->sum.files = u->sum.unnamed_files = u->sum.mismatched = 0;
	for (i = 0; i < GI_SYMFS_MAX_HITS; i++) {
		const struct hit *h = &u->hits[i];
		const struct pdf_ufile *k;
		struct ufile *f;

		if (!h->file)
			continue;
		f = &u->files[h->file - 1];
		k = &u->maps.files.files[h->file - 1];
		if (!f->state)
			f->state = load_file(u, k, f);
		used[h->file - 1] = 1;
		all[n++] = (struct gi_symfs_row){ k->name,
			f->state > 0 ? name_at(f, h->offset) : NULL,
			h->offset, h->count };
	}
	for (i = 0; i < u->maps.files.nr; i++) {
		if (!used[i])
			continue;
		u->sum.files++;
		u->sum.unnamed_files += u->files[i].state < 0;
		u->sum.mismatched += u->files[i].mismatch;
	}
	free(used);
	/* one row per function: the offsets in it summed */
	qsort(all, n, sizeof(*all), row_key_cmp);
	for (i = 0; i < n; i++) {
		if (m && all[i].function && all[m - 1].function &&
		    all[i].file == all[m - 1].file &&
		    !strcmp(all[i].function, all[m - 1].function)) {
			all[m - 1].samples += all[i].samples;
			continue;
		}
		all[m++] = all[i];
	}
	qsort(all, m, sizeof(*all), row_count_cmp);
	if (m > max)
		m = max;
	memcpy(rows, all, m * sizeof(*all));
	free(all);
	*sum = u->sum;
	return (int)m;
}
