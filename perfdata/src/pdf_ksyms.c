/* SPDX-License-Identifier: MIT */
/*
 * A guest kernel's symbols, checked, and put where perf 6.1 looks for a
 * kernel that is not the one it runs on (docs/perfdata.md, "Guest kernel
 * symbols"):
 *
 *  - the kernel's map: a PERF_RECORD_MMAP of "[kernel.kallsyms]_text"
 *    (machine__process_kernel_mmap_event() makes the kernel map of it; its
 *    pgoff, the address of _text, is the reference perf relocates by);
 *  - one PERF_RECORD_MMAP "[name]" per module (a module map whose symbols
 *    dso__split_kallsyms() moves there from the kernel's);
 *  - the kernel's build id in HEADER_BUILD_ID: with it dso__find_kallsyms()
 *    reads BUILDID_DIR/[kernel.kallsyms]/ID/kallsyms; without one it reads
 *    the host's /proc/kallsyms, which is the wrong kernel;
 *  - that cache entry: the checked, sorted text (pdf_cache.c
 *    writes it).
 *
 * This file parses and checks the table, looks symbols up and gives the
 * entry's text; pdf_kernel.c makes the maps of it, pdf_buildid.c the
 * HEADER_BUILD_ID entry.  The text is untrusted: pdf_ksyms_parse() bounds
 * and checks all of it before anything is built from it
 * (ringside/perfdata/ksyms.h says what it refuses).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/abi.h"
#include "ringside/perfdata.h"

#include "pdf_kernel.h"
#include "pdf_ksyms.h"
#include "pdf_sha256.h"

#define MOD_SLOTS 8192u              /* > 2 * PDF_KSYMS_MAX_MODULES */

#define E(e) PDF_ERR(pdfe_ksyms_##e)

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int name_byte(unsigned char c)
{
	return c >= '!' && c <= '~' && c != '[' && c != ']';
}

static int mod_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Names perf gives a meaning of its own (kmod_path__parse_name()). */
static int perf_reserved(const char *m, size_t len)
{
	static const char *const names[] = { "vdso", "vdso32", "vdsox32",
					     "vsyscall" };
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(m, names[i], len))
			return 1;
	return 0;
}

/* Modules whose symbols have no range of their own: BPF programs and
 * kprobe/ftrace trampolines sit anywhere in the module area. */
static int pseudo_module(const char *m, size_t len)
{
	return (len == 3 && !memcmp(m, "bpf", 3)) ||
	       (len >= 11 && !memcmp(m, "__builtin__", 11));
}

static int is_kept_type(char t)
{
	int u = toupper((unsigned char)t);

	return u == 'T' || u == 'W' || u == 'D' || u == 'B';
}

struct parse {
	struct pdf_ksyms *k;
	size_t cap;
	uint16_t slot[MOD_SLOTS];    /* module index + 1, 0: free */
};

static uint32_t hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The index of module @name (in k->str), added if new.  -1: too many. */
static int module_index(struct parse *ps, uint32_t name, uint16_t len)
{
	struct pdf_ksyms *k = ps->k;
	const char *s = k->str + name;
	uint32_t i = hash(s, len) % MOD_SLOTS;

	for (;; i = (i + 1) % MOD_SLOTS) {
		uint16_t m = ps->slot[i];

		if (!m)
			break;
		if (k->mods[m - 1].name_len == len &&
		    !memcmp(k->str + k->mods[m - 1].name, s, len))
			return m - 1;
	}
	if (k->nr_mods >= PDF_KSYMS_MAX_MODULES)
		return -1;
	k->mods[k->nr_mods].name = name;
	k->mods[k->nr_mods].name_len = len;
	ps->slot[i] = (uint16_t)(++k->nr_mods);
	return (int)k->nr_mods - 1;
}

/* One line [p, end) of k->str.  0 kept or skipped, or an error. */
static int parse_line(struct parse *ps, char *p, char *end)
{
	struct pdf_ksyms *k = ps->k;
	struct ksym s = { 0, 0, 0, NO_MOD, 0 };
	char *name, *mod = NULL;
	size_t name_len, mod_len = 0, digits = 0;
	int v;

	while (p < end && (v = hexval((unsigned char)*p)) >= 0) {
		if (++digits > 16)
			return E(format);
		s.addr = s.addr << 4 | (uint64_t)v;
		p++;
	}
	if (!digits || end - p < 4 || p[0] != ' ' ||
	    !isalpha((unsigned char)p[1]) || (unsigned char)p[1] > 0x7f ||
	    p[2] != ' ')
		return E(format);
	s.type = p[1];
	name = p += 3;
	while (p < end && name_byte((unsigned char)*p))
		p++;
	name_len = (size_t)(p - name);
	if (!name_len || name_len > PDF_KSYMS_NAME_MAX)
		return E(format);
	if (p < end) {
		if (*p != '\t' || end - p < 4 || p[1] != '[' || end[-1] != ']')
			return E(format);
		*p = 0; /* ends the name */
		mod = p + 2;
		mod_len = (size_t)(end - 1 - mod);
		for (p = mod; p < end - 1; p++)
			if (!mod_byte((unsigned char)*p))
				return E(format);
		if (!mod_len || mod_len > PDF_KSYMS_MODULE_MAX ||
		    perf_reserved(mod, mod_len))
			return E(format);
		end[-1] = 0;
	}
	*end = 0; /* the newline, or the byte after the text */

	if (!is_kept_type(s.type)) {
		k->stats.ignored++;
		return 0;
	}
	if (mod && (pseudo_module(mod, mod_len) || !pdf_ksym_is_func(s.type))) {
		k->stats.dropped++;
		return 0;
	}
	if (s.addr < PDF_KSYMS_MIN_ADDR) {
		if (pdf_ksym_is_func(s.type))
			return E(range);
		k->stats.dropped++; /* x86-64's per-CPU offsets */
		return 0;
	}
	s.name = (uint32_t)(name - k->str);
	s.name_len = (uint16_t)name_len;
	if (mod) {
		int m = module_index(ps, (uint32_t)(mod - k->str),
				     (uint16_t)mod_len);

		if (m < 0)
			return E(size);
		s.mod = (uint16_t)m;
	}
	if (k->nr == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 4096;
		struct ksym *n = realloc(k->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		k->syms = n;
		ps->cap = cap;
	}
	k->syms[k->nr++] = s;
	return 0;
}

static _Thread_local const char *sort_str; /* qsort has no context argument */

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	size_t n;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	n = x->name_len < y->name_len ? x->name_len : y->name_len;
	c = memcmp(sort_str + x->name, sort_str + y->name, n);
	if (c)
		return c;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return (unsigned char)x->type - (unsigned char)y->type;
}

/*
 * A guest's table is a guest claim, and one bad module must not cost the
 * kernel's names and every other module's.  The kernel lays each module's
 * functions out in one allocation of its own (the core; its init text is
 * another, listed only until it is freed), so in a table read at one
 * moment each module's functions form one run of addresses that no other
 * map's symbol enters.  A read of /proc/kallsyms racing a module load
 * breaks that for the modules involved: a module still in its init lists
 * its .init symbols in another allocation, often in a hole between other
 * modules; a module whose init memory was freed and reused meanwhile shows
 * the new owner there.  Left out, each with all its symbols, and counted:
 * every module whose functions are split by another map's symbol, that
 * shares an address with another map's symbol, or that reaches into the
 * kernel's span.  The kernel is never left out, and a module lying whole
 * in a hole of a split one keeps its names.  What is left has no map amid
 * another.
 */
static int refuse_overlaps(struct pdf_ksyms *k)
{
	struct span {
		uint64_t lo, hi;
		uint32_t runs;
	} *sp = calloc((size_t)k->nr_mods + 1, sizeof(*sp)); /* the kernel last */
	const struct span *ks = NULL;
	unsigned i, prev = UINT32_MAX;
	size_t j, out;

	if (!sp)
		return -ENOMEM;
	for (j = 0; j < k->nr; j++) {
		const struct ksym *s = &k->syms[j];
		unsigned m = s->mod == NO_MOD ? k->nr_mods : s->mod;

		if (m != prev) {
			if (!sp[m].runs++)
				sp[m].lo = s->addr;
			/* two maps at one address: the modules among them go */
			if (j && k->syms[j - 1].addr == s->addr) {
				sp[m].runs++;
				sp[prev].runs++;
			}
			prev = m;
		}
		sp[m].hi = s->addr;
	}
	if (sp[k->nr_mods].runs)
		ks = &sp[k->nr_mods];
	for (i = 0; i < k->nr_mods; i++) {
		struct span *m = &sp[i];

		if (!m->runs)
			continue;
		if (m->runs > 1 || (ks && m->lo <= ks->hi && m->hi >= ks->lo)) {
			m->runs = 0; /* refused */
			k->stats.modules_refused++;
		} else {
			m->runs = 1;
		}
	}
	for (j = 0, out = 0; j < k->nr; j++) {
		const struct ksym *s = &k->syms[j];

		if (s->mod != NO_MOD && !sp[s->mod].runs) {
			k->stats.refused++;
			continue;
		}
		k->syms[out++] = *s;
	}
	k->nr = out;
	free(sp);
	return 0;
}

/* The maps: per module and the kernel, by address, none amid another
 * (refuse_overlaps() saw to it); each MMAP from its lowest symbol's page to
 * a page past its highest (perf's own end for a last symbol), never into
 * the next map. */
static int build_maps(struct pdf_ksyms *k)
{
	unsigned i, n = 0;
	size_t j;
	int have_core = 0;
	uint8_t *seen; /* per module, the kernel last */

	k->maps = calloc((size_t)k->nr_mods + 1, sizeof(*k->maps));
	seen = calloc((size_t)k->nr_mods + 1, 1);
	if (!k->maps || !seen) {
		free(seen);
		return -ENOMEM;
	}
	for (j = 0; j < k->nr; j++) {
		const struct ksym *s = &k->syms[j];
		struct kmap *m = n ? &k->maps[n - 1] : NULL;

		if (s->mod == NO_MOD && pdf_ksym_is_func(s->type))
			have_core = 1;
		if (m && m->mod == s->mod) {
			m->hi = s->addr;
			m->nr++;
			continue;
		}
		/* a map amid another, or two at one address: left out above */
		i = s->mod == NO_MOD ? k->nr_mods : s->mod;
		if ((m && s->addr == m->hi) || seen[i]++ ||
		    n == k->nr_mods + 1) {
			free(seen);
			return PDF_ERR(pdfe_internal);
		}
		m = &k->maps[n++];
		m->mod = s->mod;
		m->lo = m->hi = s->addr;
		m->first = (uint32_t)j;
		m->nr = 1;
	}
	free(seen);
	if (!have_core)
		return E(empty);
	k->nr_maps = n;
	for (i = 0; i < n; i++) {
		struct kmap *m = &k->maps[i];

		if (m->mod != NO_MOD)
			k->stats.modules++;
		m->start = m->lo & ~((uint64_t)RS_PAGE_SIZE - 1);
		if (i && m->start <= k->maps[i - 1].hi)
			m->start = m->lo;
	}
	for (i = 0; i < n; i++) {
		struct kmap *m = &k->maps[i];

		m->end = pdf_sat_add(pdf_sat_add(m->hi, RS_PAGE_SIZE - 1) &
				 ~((uint64_t)RS_PAGE_SIZE - 1), RS_PAGE_SIZE);
		if (m->end <= m->hi) /* saturated at the top of the space */
			m->end = UINT64_MAX;
		if (i + 1 < n && m->end > k->maps[i + 1].start)
			m->end = k->maps[i + 1].start;
		if (m->mod == NO_MOD) {
			k->stats.kernel_start = m->start;
			k->stats.kernel_end = m->end;
		}
	}
	return 0;
}

int pdf_ksyms_parse(struct pdf_ksyms **kp, const void *text, size_t len)
{
	struct pdf_ksyms *k;
	struct parse *ps;
	char *p, *end;
	size_t j, out;
	int err = 0;

	if (!kp || (!text && len))
		return PDF_ERR(pdfe_invalid);
	*kp = NULL;
	if (len > PDF_KSYMS_MAX_BYTES)
		return E(size);
	k = calloc(1, sizeof(*k));
	ps = calloc(1, sizeof(*ps));
	if (!k || !ps) {
		free(k);
		free(ps);
		return -ENOMEM;
	}
	ps->k = k;
	k->str = malloc(len + 1);
	k->mods = malloc(PDF_KSYMS_MAX_MODULES * sizeof(*k->mods));
	if (!k->str || !k->mods) {
		err = -ENOMEM;
		goto out;
	}
	if (len)
		memcpy(k->str, text, len);
	k->str[len] = 0;
	for (p = k->str, end = k->str + len; p < end && !err;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *lend = nl ? nl : end;

		if (++k->stats.lines > PDF_KSYMS_MAX_LINES)
			err = E(size);
		else
			err = parse_line(ps, p, lend);
		p = lend + 1;
	}
	if (err)
		goto out;
	if (!k->nr) {
		err = E(empty);
		goto out;
	}
	sort_str = k->str;
	qsort(k->syms, k->nr, sizeof(*k->syms), cmp_sym);
	for (j = 1, out = 1; j < k->nr; j++) {
		if (!cmp_sym(&k->syms[j], &k->syms[out - 1])) {
			k->stats.dropped++;
			continue;
		}
		k->syms[out++] = k->syms[j];
	}
	k->nr = out;
	err = refuse_overlaps(k);
	if (!err)
		err = build_maps(k);
	if (err)
		goto out;
	for (j = 0; j < k->nr; j++) {
		const struct ksym *s = &k->syms[j];

		if (s->mod == NO_MOD && s->name_len == 5 &&
		    !memcmp(k->str + s->name, "_text", 5)) {
			k->stats.have_text = 1;
			k->stats.text = s->addr;
			break;
		}
	}
	k->stats.symbols = k->nr;
out:
	free(ps);
	if (err) {
		pdf_ksyms_free(k);
		return err;
	}
	*kp = k;
	return 0;
}

void pdf_ksyms_free(struct pdf_ksyms *k)
{
	if (!k)
		return;
	free(k->str);
	free(k->syms);
	free(k->mods);
	free(k->maps);
	free(k);
}

const struct pdf_ksyms_stats *pdf_ksyms_stats(const struct pdf_ksyms *k)
{
	return &k->stats;
}

int pdf_ksyms_find(const struct pdf_ksyms *k, uint64_t addr,
		   struct pdf_ksym *sym)
{
	const struct kmap *m = NULL;
	size_t lo, hi;
	unsigned i;

	if (!k || !sym)
		return 0;
	for (i = 0; i < k->nr_maps; i++)
		if (addr >= k->maps[i].start && addr < k->maps[i].end)
			m = &k->maps[i];
	if (!m || addr < m->lo)
		return 0;
	/* the last symbol of the map at or below @addr */
	lo = m->first;
	hi = m->first + m->nr;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	sym->addr = k->syms[lo].addr;
	sym->type = k->syms[lo].type;
	sym->name = k->str + k->syms[lo].name;
	sym->module = k->syms[lo].mod == NO_MOD ? NULL :
		      k->str + k->mods[k->syms[lo].mod].name;
	return 1;
}

static void add_line(struct pdf_buf *out, const struct pdf_ksyms *k,
		     const struct ksym *s, const char *line, size_t n);

int pdf_ksyms_text(const struct pdf_ksyms *k, struct pdf_buf *out)
{
	char line[64];
	size_t j;

	if (!k || !out)
		return PDF_ERR(pdfe_invalid);
	for (j = 0; j < k->nr && !out->err; j++) {
		const struct ksym *s = &k->syms[j];
		int n;

		/* Before a module's first symbol, a copy of it one byte lower:
		 * perf 6.1 drops the symbol a module's run of lines starts
		 * with when it tried to load that module before the kernel
		 * (dso__split_kallsyms() discards the symbol it switches to a
		 * map whose dso counts as loaded).  The copy is dropped
		 * instead; kept, it lies below the module's map where no
		 * sample finds it.  (An exact duplicate would not do: perf
		 * removes those before splitting.) */
		if (s->mod != NO_MOD && j && k->syms[j - 1].mod != s->mod &&
		    k->syms[j - 1].addr != s->addr - 1) {
			n = snprintf(line, sizeof(line), "%016llx %c ",
				     (unsigned long long)(s->addr - 1), s->type);
			add_line(out, k, s, line, (size_t)n);
		}
		n = snprintf(line, sizeof(line), "%016llx %c ",
			     (unsigned long long)s->addr, s->type);
		add_line(out, k, s, line, (size_t)n);
	}
	return out->err;
}

static void add_line(struct pdf_buf *out, const struct pdf_ksyms *k,
		     const struct ksym *s, const char *line, size_t n)
{
	pdf_buf_add(out, line, n);
	pdf_buf_add(out, k->str + s->name, s->name_len);
	if (s->mod != NO_MOD) {
		const struct kmod *m = &k->mods[s->mod];

		pdf_buf_add(out, "\t[", 2);
		pdf_buf_add(out, k->str + m->name, m->name_len);
		pdf_buf_add(out, "]", 1);
	}
	pdf_buf_add(out, "\n", 1);
}

int pdf_ksyms_content_id(const struct pdf_ksyms *k,
			 uint8_t id[PDF_BUILD_ID_SIZE])
{
	uint8_t digest[32];
	struct pdf_sha256 sha;
	struct pdf_buf text;
	int err;

	if (!k || !id)
		return PDF_ERR(pdfe_invalid);
	pdf_buf_init(&text);
	err = pdf_ksyms_text(k, &text);
	if (!err) {
		pdf_sha256_init(&sha);
		pdf_sha256_add(&sha, text.data, text.len);
		pdf_sha256_end(&sha, digest);
		memcpy(id, digest, PDF_BUILD_ID_SIZE);
	}
	pdf_buf_fini(&text);
	return err;
}

int pdf_ksyms_cache_put(const struct pdf_ksyms *k,
			const uint8_t *id, size_t id_len, const char *dir)
{
	struct pdf_buf text;
	int err;

	if (!k || !dir)
		return PDF_ERR(pdfe_invalid);
	pdf_buf_init(&text);
	err = pdf_ksyms_text(k, &text);
	if (!err)
		err = pdf_cache_kernel_put(dir, id, id_len, "kallsyms",
					   text.data, text.len);
	pdf_buf_fini(&text);
	return err;
}
