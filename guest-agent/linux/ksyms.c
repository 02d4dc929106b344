/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's symbols and build id into the region's sideband, once
 * after attach (see agent.h).  Only the lines perf reads for function
 * names are published: types T t W w (text, weak), plus _text, _stext and
 * _etext whatever their type; modules' lines keep their "\t[mod]".
 *
 * A consistent table, not just a read of /proc/kallsyms.  The kernel lists
 * a module's symbols by position, walking its module list from the head
 * (where a module being loaded goes) on every line, and lists a module's
 * whole symbol table, .init symbols included, until its init has run and
 * every async probe in the system has ended (do_init_module() marks it
 * Live before that).  A read during module loads (udev's at boot or on a
 * hotplug) thus gets .init symbols in allocations of their own, between
 * other modules, and lines of other modules skipped or listed twice; the
 * host refuses the modules whose symbols lie amid another's.  So each read
 * sits between two reads of /proc/modules: a module line is kept only
 * when its module was listed before the read, not Unloading, and its
 * address lies in that module's core ([address, + coresize) of
 * /sys/module/NAME, else /proc/modules' size), and the read is made again
 * (a bounded number of times, each pause twice the last) while the list
 * changed during it, a module was not settled (Loading, Unloading, or its
 * init memory not yet freed: initsize not 0) or an address read as zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ringside/elf_note.h"

#include "agent.h"

#define NOTES_MAX       (64u << 10)
#define MODULES_MAX     (4u << 20)   /* bytes of /proc/modules read */
#define MOD_NAME_MAX    56u          /* MODULE_NAME_LEN, with the NUL */

static int read_small(const char *path, char *buf, size_t size, size_t *len)
{
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got < size && (n = read(fd, buf + got, size - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return 0;
}

int agent_ksyms_build_id(const char *notes_path, uint8_t *id, uint32_t max,
			 uint32_t *len)
{
	static uint8_t notes[NOTES_MAX];
	struct rs_elf_note note;
	size_t n = 0, off = 0;
	int err;

	*len = 0;
	err = read_small(notes_path, (char *)notes, sizeof(notes), &n);
	if (err)
		return err;
	/* the first GNU build id note decides: one of a size not taken is
	 * an error, not passed over */
	while ((err = rs_elf_note_next(notes, n, 4, &off, &note)) > 0) {
		if (!rs_elf_note_is_buildid(&note))
			continue;
		if (!note.descsz || note.descsz > max)
			return -EINVAL;
		memcpy(id, note.desc, note.descsz);
		*len = note.descsz;
		return 0;
	}
	return err ? -EINVAL : -ENOENT;
}

/* A line perf reads for a function name: "ADDR TYPE NAME[\t[MOD]]\n".
 * @addr its address, @mod its module ("" for the kernel's). */
static int wanted_line(const char *line, uint64_t *addr, char *mod)
{
	const char *sp = strchr(line, ' '), *name, *m;
	size_t n;

	if (!sp || !sp[1] || sp[2] != ' ')
		return 0;
	name = sp + 3;
	n = strcspn(name, "\t\n");
	if (!strchr("TtWw", sp[1]) &&
	    !((n == 5 && !strncmp(name, "_text", 5)) ||
	      (n == 6 && !strncmp(name, "_stext", 6)) ||
	      (n == 6 && !strncmp(name, "_etext", 6))))
		return 0;
	*addr = strtoull(line, NULL, 16);
	mod[0] = '\0';
	if (name[n] == '\t' && name[n + 1] == '[') {
		m = name + n + 2;
		n = strcspn(m, "]\n");
		if (n >= MOD_NAME_MAX)
			n = MOD_NAME_MAX - 1;
		memcpy(mod, m, n);
		mod[n] = '\0';
	}
	return 1;
}

/* ---- the module list ------------------------------------------------------ */

struct kmod {
	char name[MOD_NAME_MAX];
	char state;               /* 'L'ive, 'C'oming (Loading), 'G'oing */
	int settled;              /* Live, and its init memory freed (or not
				   * known otherwise) */
	uint64_t size;            /* /proc/modules': core and init */
	uint64_t base;            /* its core (0: hidden) */
	uint64_t core;            /* bytes of its core: coresize, else size */
};

struct kmods {
	struct kmod *m;
	uint32_t nr;
	int torn;                 /* a module listed twice: /proc/modules,
				   * too, is listed by position, and the list
				   * changed between two of its read()s */
	int err;                  /* -errno: not read */
};

static int cmp_kmod(const void *a, const void *b)
{
	return strcmp(((const struct kmod *)a)->name,
		      ((const struct kmod *)b)->name);
}

/* The whole of @fd (a /proc file: its size says nothing) into *@buf. */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 16384, got = 0;
	char *b = malloc(cap + 1), *nb;
	ssize_t n;

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (got == cap) {
			if (cap >= MODULES_MAX) {
				free(b);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		n = read(fd, b + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(b);
			return (int)n;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	b[got] = '\0';
	*buf = b;
	*len = got;
	return 0;
}

/* A number in a file of /sys/module/NAME; -1 when there is none. */
static int64_t sys_module_value(const char *dir, const char *name,
				const char *what)
{
	char path[512], buf[32];
	size_t n = 0;

	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, name, what) >=
	    (int)sizeof(path) || read_small(path, buf, sizeof(buf) - 1, &n) ||
	    !n)
		return -1;
	buf[n] = '\0';
	return (int64_t)strtoull(buf, NULL, 10);
}

/* /proc/modules, read from @fd (closed here): "NAME SIZE REFS DEPS STATE
 * ADDR[ TAINTS]" a line; sorted by name.  With @sys, each one's coresize
 * and initsize from there. */
static void kmods_read(struct kmods *l, int fd, const char *sys)
{
	char *buf = NULL, *p, *nl;
	size_t len, lines = 0;
	uint32_t i;

	memset(l, 0, sizeof(*l));
	if (fd < 0) {
		l->err = fd;
		return;
	}
	l->err = read_all(fd, &buf, &len);
	close(fd);
	if (l->err)
		return;
	for (p = buf; (p = strchr(p, '\n')); p++)
		lines++;
	l->m = calloc(lines + 1, sizeof(*l->m));
	if (!l->m) {
		l->err = -ENOMEM;
		free(buf);
		return;
	}
	for (p = buf; *p; p = nl) {
		char *f[6];
		unsigned nf = 0;
		size_t flen;
		struct kmod *m = &l->m[l->nr];

		nl = strchr(p, '\n');
		nl = nl ? nl + 1 : p + strlen(p);
		while (nf < 6 && p < nl) {
			f[nf++] = p;
			p += strcspn(p, " \n");
			if (*p == ' ')
				*p++ = '\0';
			else
				break;
		}
		if (nf < 6 || strlen(f[0]) >= MOD_NAME_MAX)
			continue; /* not a module line */
		flen = strcspn(f[5], " \n");
		f[5][flen] = '\0';
		memcpy(m->name, f[0], strlen(f[0]) + 1);
		m->size = strtoull(f[1], NULL, 10);
		m->state = !strcmp(f[4], "Live") ? 'L' :
			   !strcmp(f[4], "Loading") ? 'C' : 'G';
		m->base = strtoull(f[5], NULL, 16);
		m->core = m->size;
		m->settled = m->state == 'L';
		l->nr++;
	}
	free(buf);
	qsort(l->m, l->nr, sizeof(*l->m), cmp_kmod);
	for (i = 1; i < l->nr; i++)
		if (!strcmp(l->m[i - 1].name, l->m[i].name))
			l->torn = 1;
	for (i = 0; sys && i < l->nr; i++) {
		struct kmod *m = &l->m[i];
		int64_t core = sys_module_value(sys, m->name, "coresize");
		int64_t init = sys_module_value(sys, m->name, "initsize");

		if (core > 0 && (uint64_t)core <= m->size)
			m->core = (uint64_t)core;
		if (init > 0)
			m->settled = 0;
	}
}

/* The same modules, in the same states, at the same places. */
static int kmods_same(const struct kmods *a, const struct kmods *b)
{
	uint32_t i;

	if (a->err || b->err || a->torn || b->torn || a->nr != b->nr)
		return 0;
	for (i = 0; i < a->nr; i++)
		if (strcmp(a->m[i].name, b->m[i].name) ||
		    a->m[i].state != b->m[i].state ||
		    a->m[i].size != b->m[i].size ||
		    a->m[i].base != b->m[i].base)
			return 0;
	return 1;
}

static const struct kmod *kmods_find(const struct kmods *l, const char *name)
{
	struct kmod key;

	memset(key.name, 0, sizeof(key.name));
	memcpy(key.name, name, strlen(name) + 1);
	return bsearch(&key, l->m, l->nr, sizeof(*l->m), cmp_kmod);
}

/* A module's line is published: its module listed before the read, not
 * going away, the address in its core. */
static int kmod_line_ok(const struct kmods *l, const char *mod, uint64_t addr,
			const struct kmod **last)
{
	const struct kmod *m = *last;

	if (l->err)
		return 1; /* no list to hold it against (no module support) */
	if (!m || strcmp(m->name, mod))
		m = *last = kmods_find(l, mod);
	return m && m->state != 'G' && m->base && addr >= m->base &&
	       addr - m->base < m->core;
}

/* kernel.kptr_restrict: the value it had, or -errno. */
static int kptr_restrict_get(const char *path)
{
	char buf[16];
	size_t n = 0;
	int err = read_small(path, buf, sizeof(buf) - 1, &n);

	if (err)
		return err;
	buf[n] = '\0';
	return atoi(buf);
}

static int kptr_restrict_set(const char *path, int value)
{
	char buf[16];
	int fd, n, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", value);
	if (write(fd, buf, (size_t)n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/* /proc/modules opened: the fd, or -errno (-ENOENT: not asked for). */
static int open_modules(const struct agent_ksyms_paths *paths)
{
	int fd;

	if (!paths->modules)
		return -ENOENT;
	fd = open(paths->modules, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Open /proc/kallsyms and /proc/modules (twice: before and after) while
 * they show addresses.  Both decide at open whether they show them
 * (kallsyms_show_value() of the opener), so kptr_restrict is lowered for
 * the opens alone and put back before anything is read: another agent's
 * toggling can only give this one zeros, which the caller sees and reads
 * again for, and every agent puts back the value it found (it lowers only
 * what it found above 0, and nobody writes other than 0 or that value). */
static FILE *open_visible(const struct agent_ksyms_paths *paths,
			  struct agent_ksyms *res, int *m0, int *m1)
{
	int kptr = kptr_restrict_get(paths->kptr_restrict), lowered = 0;
	FILE *f;

	if (res->tries == 1)
		res->kptr_restrict = kptr;
	if (kptr > 0 && kptr_restrict_set(paths->kptr_restrict, 0) == 0)
		lowered = res->kptr_lowered = 1;
	*m0 = open_modules(paths);
	f = fopen(paths->kallsyms, "re");
	if (!f)
		res->open_err = -errno;
	*m1 = open_modules(paths);
	if (lowered)
		kptr_restrict_set(paths->kptr_restrict, kptr);
	if (!f) {
		if (*m0 >= 0)
			close(*m0);
		if (*m1 >= 0)
			close(*m1);
	}
	return f;
}

/* One read of kallsyms into the sideband, published.  0 and *@clean (1:
 * nothing changed under it), or -errno. */
static int publish_once(const struct rs_region *region,
			const struct agent_ksyms_paths *paths, uint64_t room,
			struct agent_ksyms *res, int *clean)
{
	struct rs_sideband_writer w;
	struct kmods before, after;
	const struct kmod *last = NULL;
	char line[1024], mod[MOD_NAME_MAX];
	int err, m0, m1;
	uint32_t i;
	FILE *f;

	*clean = 0;
	res->lines = res->kept = res->cut = res->zero_addrs = 0;
	res->skipped = res->mod_dropped = 0;
	res->read_err = res->open_err = 0;
	f = open_visible(paths, res, &m0, &m1);
	if (!f)
		return res->open_err;
	kmods_read(&before, m0, paths->sys_module);
	err = rs_sideband_begin(region, &w);
	if (err) {
		fclose(f);
		if (m1 >= 0)
			close(m1);
		free(before.m);
		return err == -rse_absent ? -ENXIO : -EINVAL;
	}
	if (room && rs_sideband_limit(&w, room)) {
		rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS);
		fclose(f);
		if (m1 >= 0)
			close(m1);
		free(before.m);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		uint64_t addr;

		res->lines++;
		if (!n || line[n - 1] != '\n') {
			int ch;

			/* longer than any kallsyms line (the name limit is
			 * 511): skip the rest, count it */
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			res->skipped++;
			continue;
		}
		if (!wanted_line(line, &addr, mod))
			continue;
		if (!addr) {
			res->zero_addrs++;
			continue;
		}
		if (mod[0] && !kmod_line_ok(&before, mod, addr, &last)) {
			res->mod_dropped++;
			continue;
		}
		res->kept++;
		if (rs_sideband_append(&w, line, n) != 1)
			res->cut++;
	}
	if (ferror(f))
		res->read_err = -EIO;
	fclose(f);
	kmods_read(&after, m1, NULL);
	res->modules_err = before.err;
	res->modules = before.nr;
	res->unsettled = 0;
	for (i = 0; i < before.nr; i++)
		res->unsettled += !before.m[i].settled;
	/* without a list (no module support, or none to read) nothing is
	 * held against it, and nothing can change */
	*clean = !res->zero_addrs && !res->read_err &&
		 (before.err ? before.err == after.err :
		  kmods_same(&before, &after) && !res->unsettled);
	free(before.m);
	free(after.m);
	if (res->build_id_len)
		rs_sideband_set_build_id(&w, res->build_id, res->build_id_len);
	res->length = w.length;
	res->wanted = w.wanted;
	return rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS) ? -EINVAL : 0;
}

int agent_ksyms_publish(const struct rs_region *region,
			const struct agent_ksyms_paths *paths, uint64_t room,
			struct agent_ksyms *res)
{
	uint64_t pause_ms = paths->retry_ms;
	int err, clean;

	memset(res, 0, sizeof(*res));
	res->kptr_restrict = -1;
	res->build_id_err = agent_ksyms_build_id(paths->notes, res->build_id,
						 sizeof(res->build_id),
						 &res->build_id_len);
	for (;;) {
		res->tries++;
		err = publish_once(region, paths, room, res, &clean);
		if (err || clean || res->tries >= AGENT_KSYMS_TRIES)
			return err;
		if (pause_ms) {
			struct timespec ts = { (time_t)(pause_ms / 1000),
					       (long)(pause_ms % 1000) * 1000000 };

			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
			pause_ms *= 2;
		}
	}
}
