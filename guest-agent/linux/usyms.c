/* SPDX-License-Identifier: MIT */
/*
 * The symbol tables of the guest's user binaries, into the region's user
 * symbol table (abi.h, struct rs_usyms_entry; docs/abi.md, "User
 * symbols"), so that the host names guest user code without a copy of the
 * guest's files.  mmaps calls agent_usyms_note() for each executable file
 * mapping it describes (the processes sampled) and for each executable
 * mapping the kernel reports (an exec); each build id is read once (a read
 * or an allocation that failed: again when met again, at most USYMS_TRIES
 * times): its ELF header and section headers, .symtab (else .dynsym) and its
 * strings, FUNC symbols only, inside the file's PT_LOADs, with printable
 * names of bounded length.  The entry is built in private memory and
 * appended whole (rs_usyms_append); the table is bounded by the option's
 * bytes and the room left in the sideband, and what did not fit is
 * counted here and flagged for the host (TRUNCATED, wanted).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/text.h"

#include "agent.h"

#define USYMS_IDS      512u           /* build ids looked at */
#define SHDRS_MAX      4096u          /* section headers read at most */
#define STRTAB_MAX     (16u << 20)    /* bytes of a string table read */
#define SYMS_CHUNK     512u           /* symbols read per pread */
#define USYMS_TRIES    3u             /* failed reads of one build id */

static struct {
	int on;
	struct rs_usyms_writer w;
	uint32_t nr_ids;
	uint8_t id_len[USYMS_IDS];
	uint8_t id[USYMS_IDS][RS_USYMS_BUILD_ID_MAX];
	uint8_t tries[USYMS_IDS];     /* its reads that failed */
	uint8_t done[USYMS_IDS];      /* published, or never will be */
	struct agent_usyms_stats st;
} u;

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n == (ssize_t)len ? 0 : -1;
}

int agent_usyms_begin(const struct rs_region *region, uint64_t offset,
		      uint64_t size)
{
	int err;

	memset(&u, 0, sizeof(u));
	offset = (offset + 7u) & ~(uint64_t)7u;
	err = rs_usyms_begin(region, &u.w, offset, size);
	if (err)
		return err;
	u.on = 1;
	u.st.table_size = u.w.table_size;
	return 0;
}

void agent_usyms_end(void)
{
	u.on = 0;
}

const struct agent_usyms_stats *agent_usyms_stats(void)
{
	return &u.st;
}

/* The index of @id in the set of build ids looked at; -1: not in it. */
static int find(const uint8_t *id, uint8_t len)
{
	uint32_t i;

	for (i = 0; i < u.nr_ids; i++)
		if (u.id_len[i] == len && !memcmp(u.id[i], id, len))
			return (int)i;
	return -1;
}

int agent_usyms_wants(const uint8_t *id, uint8_t len)
{
	int i;

	if (!u.on || !len || len > RS_USYMS_BUILD_ID_MAX)
		return 0;
	i = find(id, len);
	if (i >= 0)
		return !u.done[i];
	return u.nr_ids < USYMS_IDS;
}

/* A growing byte buffer; a failed growth sets @bad. */
struct gbuf {
	uint8_t *p;
	size_t len, cap;
	int bad;
};

static void *gbuf_add(struct gbuf *b, const void *src, size_t len)
{
	void *at;

	if (b->bad)
		return NULL;
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap - b->len < len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->bad = 1;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	at = b->p + b->len;
	memcpy(at, src, len);
	b->len += len;
	return at;
}

static int in_loads(const struct rs_usyms_load *l, uint32_t n, uint64_t v)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (v >= l[i].vaddr && v - l[i].vaddr < l[i].memsz)
			return 1;
	return 0;
}

/*
 * The entry of the ELF file open at @fd into @out (header, loads, symbols,
 * path, names, padding).  0; -1 when it is no 64-bit ELF file with symbols
 * and PT_LOADs this reads; -2 when a read or an allocation failed (a file
 * cut short, memory short): worth another try.
 */
static int build_entry(int fd, const char *path, const uint8_t *id,
		       uint8_t id_len, struct gbuf *out)
{
	Elf64_Shdr *sh;
	static Elf64_Sym syms[SYMS_CHUNK];
	static Elf64_Phdr phs[AGENT_PHDRS_MAX];
	static const uint8_t zero[8];
	struct rs_usyms_entry e;
	struct rs_usyms_load loads[RS_USYMS_MAX_LOADS];
	struct gbuf symv = { 0 }, names = { 0 };
	Elf64_Phdr ph;
	Elf64_Ehdr eh;
	char *str = NULL, *shstr = NULL;
	uint64_t nsyms, i, got;
	uint32_t nl = 0, s;
	int symi = -1, ret = -1;
	size_t plen = strnlen(path, RS_USYMS_PATH_MAX + 1);

	memset(&e, 0, sizeof(e));
	if (read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > AGENT_PHDRS_MAX ||   /* as agent_mmaps_elf_build_id */
	    eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum ||
	    eh.e_shnum > SHDRS_MAX || eh.e_shstrndx >= eh.e_shnum ||
	    !plen || plen > RS_USYMS_PATH_MAX)
		return -1;
	sh = malloc(eh.e_shnum * sizeof(sh[0]));
	if (!sh || read_at(fd, sh, eh.e_shnum * sizeof(sh[0]), eh.e_shoff)) {
		free(sh);
		return -2;
	}
	if (read_at(fd, phs, eh.e_phnum * sizeof(ph), eh.e_phoff)) {
		ret = -2;
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		ph = phs[i];
		if (ph.p_type != PT_LOAD)
			continue;
		if (nl == RS_USYMS_MAX_LOADS)
			goto out;
		loads[nl++] = (struct rs_usyms_load){ ph.p_vaddr, ph.p_offset,
			ph.p_filesz, ph.p_memsz, ph.p_flags, 0 };
	}
	if (!nl)
		goto out;
	/* .text, by name */
	if (sh[eh.e_shstrndx].sh_size && sh[eh.e_shstrndx].sh_size <= 65536) {
		shstr = malloc(sh[eh.e_shstrndx].sh_size + 1);
		if (shstr && !read_at(fd, shstr, sh[eh.e_shstrndx].sh_size,
				      sh[eh.e_shstrndx].sh_offset)) {
			shstr[sh[eh.e_shstrndx].sh_size] = 0;
			for (i = 0; i < eh.e_shnum; i++)
				if (sh[i].sh_name < sh[eh.e_shstrndx].sh_size &&
				    !strcmp(shstr + sh[i].sh_name, ".text")) {
					e.text_addr = sh[i].sh_addr;
					e.text_offset = sh[i].sh_offset;
					e.text_size = sh[i].sh_size;
					break;
				}
		}
		free(shstr);
	}
	if (!e.text_size)
		goto out;
	for (i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			symi = (int)i;
	if (symi < 0) {
		for (i = 0; i < eh.e_shnum; i++)
			if (sh[i].sh_type == SHT_DYNSYM)
				symi = (int)i;
		e.flags |= RS_USYMS_E_DYNSYM;
	}
	if (symi < 0 || sh[symi].sh_entsize != sizeof(Elf64_Sym) ||
	    sh[symi].sh_link >= eh.e_shnum ||
	    sh[sh[symi].sh_link].sh_type != SHT_STRTAB ||
	    !sh[sh[symi].sh_link].sh_size ||
	    sh[sh[symi].sh_link].sh_size > STRTAB_MAX)
		goto out;
	str = malloc(sh[sh[symi].sh_link].sh_size + 1);
	if (!str || read_at(fd, str, sh[sh[symi].sh_link].sh_size,
			    sh[sh[symi].sh_link].sh_offset)) {
		ret = -2;
		goto out;
	}
	str[sh[sh[symi].sh_link].sh_size] = 0;
	nsyms = sh[symi].sh_size / sizeof(Elf64_Sym);
	for (i = 0; i < nsyms; i += got) {
		got = nsyms - i < SYMS_CHUNK ? nsyms - i : SYMS_CHUNK;
		if (read_at(fd, syms, got * sizeof(syms[0]),
			    sh[symi].sh_offset + i * sizeof(syms[0]))) {
			ret = -2;
			goto out;
		}
		for (s = 0; s < got; s++) {
			const Elf64_Sym *y = &syms[s];
			struct rs_usyms_sym rec;
			const char *name;
			size_t n;

			if (ELF64_ST_TYPE(y->st_info) != STT_FUNC ||
			    y->st_shndx == SHN_UNDEF || y->st_shndx >= SHN_LORESERVE ||
			    !y->st_name ||
			    y->st_name >= sh[sh[symi].sh_link].sh_size)
				continue;
			name = str + y->st_name;
			n = strnlen(name, RS_USYMS_NAME_MAX + 1);
			if (!n || n > RS_USYMS_NAME_MAX || !rs_text_graph(name, n) ||
			    !in_loads(loads, nl, y->st_value) ||
			    y->st_size > UINT32_MAX) {
				e.flags |= RS_USYMS_E_CUT;
				continue;
			}
			if (e.nr_syms == RS_USYMS_MAX_SYMS ||
			    names.len + n + 1 > UINT32_MAX / 2) {
				e.flags |= RS_USYMS_E_CUT;
				continue;
			}
			rec.value = y->st_value;
			rec.size = (uint32_t)y->st_size;
			rec.name = (uint32_t)names.len;
			gbuf_add(&names, name, n + 1);
			gbuf_add(&symv, &rec, sizeof(rec));
			e.nr_syms++;
		}
	}
	if (symv.bad || names.bad) {
		ret = -2;
		goto out;
	}
	if (!e.nr_syms)
		goto out;
	e.e_type = eh.e_type;
	e.e_machine = eh.e_machine;
	e.build_id_len = id_len;
	memcpy(e.build_id, id, id_len);
	e.nr_loads = (uint16_t)nl;
	e.path_len = (uint16_t)plen;
	e.str_size = (uint32_t)names.len;
	out->len = 0;
	gbuf_add(out, &e, sizeof(e));
	gbuf_add(out, loads, nl * sizeof(loads[0]));
	gbuf_add(out, symv.p, symv.len);
	gbuf_add(out, path, plen);
	gbuf_add(out, names.p, names.len);
	gbuf_add(out, zero, (8 - out->len % 8) % 8);
	if (out->bad)
		ret = -2;
	else if (out->len <= RS_USYMS_ENTRY_MAX) {
		((struct rs_usyms_entry *)out->p)->length = (uint32_t)out->len;
		ret = 0;
	}
out:
	free(sh);
	free(str);
	free(symv.p);
	free(names.p);
	return ret;
}

void agent_usyms_note(int fd, const char *path, const uint8_t *id,
		      uint8_t id_len)
{
	struct gbuf entry = { 0 };
	int i, put, err;

	if (!u.on || !id_len || id_len > RS_USYMS_BUILD_ID_MAX || fd < 0)
		return;
	i = find(id, id_len);
	if (i >= 0 && u.done[i])
		return;
	if (i < 0) {
		if (u.nr_ids == USYMS_IDS) {
			u.st.ids_full++;
			return;
		}
		i = (int)u.nr_ids++;
		u.id_len[i] = id_len;
		memcpy(u.id[i], id, id_len);
		u.tries[i] = 0;
		u.done[i] = 0;
	}
	err = build_entry(fd, path, id, id_len, &entry);
	if (err == -2) {
		/* the file cut short, memory short: its id stays wanted (the
		 * next mapping of it met tries again), a few times */
		u.st.failed_reads++;
		if (++u.tries[i] >= USYMS_TRIES) {
			u.done[i] = 1;
			u.st.unreadable++;
		}
		free(entry.p);
		return;
	}
	u.done[i] = 1;
	if (err) {
		u.st.no_symbols++;
		free(entry.p);
		return;
	}
	put = rs_usyms_append(&u.w, entry.p, entry.len);
	if (put == 1) {
		u.st.published++;
		u.st.bytes += entry.len;
		u.st.symbols += ((struct rs_usyms_entry *)entry.p)->nr_syms;
		if (((struct rs_usyms_entry *)entry.p)->flags & RS_USYMS_E_CUT)
			u.st.cut++;
		if (entry.len > u.st.largest)
			u.st.largest = entry.len;
	} else {
		u.st.no_room++;
		u.st.no_room_bytes += entry.len;
	}
	free(entry.p);
}
