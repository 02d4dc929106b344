/* SPDX-License-Identifier: MIT */
/* Names for the guest's frames, from perf's build-id cache alone: the
 * kernel's kallsyms table under the file's kernel build id, a user
 * binary's ELF symbol file under its MMAP2's build id.  Never a host
 * file found by path. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/elf_note.h"

#include "pprof_int.h"

#define UELF_MAX_BYTES (64u << 20)
#define UELF_MAX_PHDRS 64u
#define UELF_MAX_SHDRS 4096u

void pprof_names_hex(char *dst, const uint8_t *id, uint32_t len)
{
	static const char digits[] = "0123456789abcdef";
	uint32_t i;

	for (i = 0; i < len; i++) {
		dst[2 * i] = digits[id[i] >> 4];
		dst[2 * i + 1] = digits[id[i] & 15];
	}
	dst[2 * len] = 0;
}

/* Never perf's own cache: what it holds under a build id a guest claims
 * may be the host's own binary. */
static int cache_dir(char *dst, size_t size, const char *dir)
{
	if (!dir)
		return -ENOENT;
	if ((size_t)snprintf(dst, size, "%s", dir) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* The whole regular file at @path, at most @max bytes. */
static int read_file(const char *path, uint64_t max, uint8_t **datap,
		     size_t *lenp)
{
	struct stat st;
	uint8_t *data;
	size_t got = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
	} else if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
	} else if ((uint64_t)st.st_size > max) {
		err = -EFBIG;
	}
	if (err) {
		close(fd);
		return err;
	}
	data = malloc((size_t)st.st_size + 1);
	if (!data) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (err) {
		free(data);
		return err;
	}
	*datap = data;
	*lenp = got;
	return 0;
}

int pprof_names_ksyms(struct pdf_ksyms **kp, const char *dir,
		      const uint8_t *id, uint32_t id_len)
{
	char base[PATH_MAX], path[PATH_MAX], hex[2 * PDF_BUILD_ID_SIZE + 1];
	uint8_t *text;
	size_t len;
	int err;

	*kp = NULL;
	if (!id_len || id_len > PDF_BUILD_ID_SIZE)
		return -ENODATA;
	err = cache_dir(base, sizeof(base), dir);
	if (err)
		return err;
	pprof_names_hex(hex, id, id_len);
	if ((size_t)snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms",
			     base, hex) >= sizeof(path))
		return -ENAMETOOLONG;
	err = read_file(path, PDF_KSYMS_MAX_BYTES, &text, &len);
	if (err)
		return err;
	err = pdf_ksyms_parse(kp, text, len);
	free(text);
	return err;
}

/* ---- a user binary's symbol file --------------------------------------- */

struct usym {
	uint64_t off, size;
	uint32_t name;            /* offset in strtab */
};

struct pprof_uelf {
	uint8_t *data;            /* the file */
	const char *strtab;       /* in data, NUL-terminated where used */
	struct usym *syms;        /* by offset */
	size_t nr;
};

static int usym_cmp(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* @off + @len inside @size, without wrapping. */
static int inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* The file's GNU build id equals @id. */
static int id_matches(const uint8_t *d, size_t size, const Elf64_Shdr *sh,
		      unsigned shnum, const uint8_t *id, uint32_t id_len)
{
	unsigned i;

	for (i = 0; i < shnum; i++) {
		uint8_t got[PDF_BUILD_ID_SIZE];
		size_t got_len = sizeof(got);

		if (sh[i].sh_type != SHT_NOTE ||
		    !inside(sh[i].sh_offset, sh[i].sh_size, size))
			continue;
		if (rs_elf_note_buildid(d + sh[i].sh_offset, (size_t)sh[i].sh_size,
					sh[i].sh_addralign, got, &got_len))
			continue;
		return got_len == id_len && !memcmp(got, id, id_len);
	}
	return 0;
}

/* A symbol's value as a file offset, as perf keeps a user DSO's symbols:
 * through the PT_LOAD holding it, else through its section. */
static int sym_offset(const Elf64_Phdr *ph, unsigned phnum, const Elf64_Shdr *sh,
		      unsigned shnum, const Elf64_Sym *s, uint64_t *off)
{
	unsigned i;

	for (i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_LOAD && s->st_value >= ph[i].p_vaddr &&
		    s->st_value - ph[i].p_vaddr < ph[i].p_memsz) {
			*off = s->st_value - ph[i].p_vaddr + ph[i].p_offset;
			return 0;
		}
	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= shnum ||
	    s->st_value < sh[s->st_shndx].sh_addr)
		return -1;
	*off = s->st_value - sh[s->st_shndx].sh_addr + sh[s->st_shndx].sh_offset;
	return 0;
}

static int parse_uelf(struct pprof_uelf *u, size_t size, const uint8_t *id,
		      uint32_t id_len)
{
	const uint8_t *d = u->data;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[UELF_MAX_PHDRS];
	Elf64_Shdr *sh = NULL;
	const Elf64_Shdr *symtab = NULL, *strtab;
	uint64_t nsyms, i;
	int err = -ENOEXEC;

	if (size < sizeof(eh))
		return -ENOEXEC;
	memcpy(&eh, d, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phnum > UELF_MAX_PHDRS ||
	    eh.e_shnum == 0 || eh.e_shnum > UELF_MAX_SHDRS ||
	    (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr)) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !inside(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), size) ||
	    !inside(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
		return -ENOEXEC;
	if (eh.e_phnum)
		memcpy(ph, d + eh.e_phoff, eh.e_phnum * sizeof(Elf64_Phdr));
	sh = malloc(eh.e_shnum * sizeof(*sh));
	if (!sh)
		return -ENOMEM;
	memcpy(sh, d + eh.e_shoff, eh.e_shnum * sizeof(*sh));
	if (!id_matches(d, size, sh, eh.e_shnum, id, id_len))
		goto out;
	for (i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB) {
			symtab = &sh[i];
			break;
		}
	if (!symtab || symtab->sh_link >= eh.e_shnum ||
	    symtab->sh_entsize != sizeof(Elf64_Sym) ||
	    !inside(symtab->sh_offset, symtab->sh_size, size))
		goto out;
	strtab = &sh[symtab->sh_link];
	if (strtab->sh_type != SHT_STRTAB || !strtab->sh_size ||
	    !inside(strtab->sh_offset, strtab->sh_size, size) ||
	    d[strtab->sh_offset + strtab->sh_size - 1] != 0)
		goto out;
	u->strtab = (const char *)d + strtab->sh_offset;
	nsyms = symtab->sh_size / sizeof(Elf64_Sym);
	u->syms = calloc(nsyms ? nsyms : 1, sizeof(*u->syms));
	if (!u->syms) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nsyms; i++) {
		Elf64_Sym s;
		uint64_t off;

		memcpy(&s, d + symtab->sh_offset + i * sizeof(s), sizeof(s));
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || !s.st_name ||
		    s.st_name >= strtab->sh_size ||
		    sym_offset(ph, eh.e_phnum, sh, eh.e_shnum, &s, &off))
			continue;
		u->syms[u->nr++] = (struct usym){ off, s.st_size, s.st_name };
	}
	qsort(u->syms, u->nr, sizeof(*u->syms), usym_cmp);
	err = 0;
out:
	free(sh);
	return err;
}

int pprof_uelf_load(struct pprof_uelf **up, const char *dir,
		    const uint8_t *id, uint32_t id_len)
{
	char base[PATH_MAX], path[PATH_MAX], hex[2 * PDF_BUILD_ID_SIZE + 1];
	struct pprof_uelf *u;
	size_t size;
	int err;

	*up = NULL;
	if (!id_len || id_len > PDF_BUILD_ID_SIZE)
		return -ENOENT;
	err = cache_dir(base, sizeof(base), dir);
	if (err)
		return err;
	pprof_names_hex(hex, id, id_len);
	/* the link perf follows: .build-id/XX/REST, a directory with "elf" */
	if ((size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf",
			     base, hex, hex + 2) >= sizeof(path))
		return -ENAMETOOLONG;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	err = read_file(path, UELF_MAX_BYTES, &u->data, &size);
	if (!err)
		err = parse_uelf(u, size, id, id_len);
	if (err) {
		pprof_uelf_free(u);
		return err;
	}
	*up = u;
	return 0;
}

void pprof_uelf_free(struct pprof_uelf *u)
{
	if (!u)
		return;
	free(u->syms);
	free(u->data);
	free(u);
}

const char *pprof_uelf_find(const struct pprof_uelf *u, uint64_t off)
{
	size_t lo = 0, hi = u->nr;
	const struct usym *s;

	/* the last symbol at or below @off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->syms[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* one of size 0 runs to the next (which is past @off) */
	s = &u->syms[lo - 1];
	if (s->size && off - s->off >= s->size)
		return NULL;
	return u->strtab + s->name;
}
