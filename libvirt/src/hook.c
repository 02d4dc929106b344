/* SPDX-License-Identifier: MIT */
/*
 * What the libvirt hook does: the region file of an opted-in domain at
 * "prepare begin" and "release end", where the rings are kept (the
 * caller's capture) before the file goes.  Reads only the XML libvirt hands
 * over; every failure goes to the caller's log function, which passes it
 * on to libvirt (and so to whoever started the domain).
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/domain_hook.h"

struct hook {
	const struct dom_hook_call *call;
	rs_log_fn log;
	void *arg;
};

static void say(const struct hook *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct hook *h, const char *fmt, ...)
{
	va_list ap;

	if (!h->log)
		return;
	va_start(ap, fmt);
	h->log(h->arg, fmt, ap);
	va_end(ap);
}

/* All of @fd to its end into *@text, NUL-terminated.  At most DOM_XML_MAX
 * bytes are kept; the rest is read and dropped.  -EFBIG (more than that),
 * -ENOMEM, -errno of read. */
static int read_all(int fd, char **text, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL, *p, sink[4096];
	int err = 0;

	for (;;) {
		char *dst = sink;
		size_t room = sizeof(sink);
		ssize_t got;

		if (n <= DOM_XML_MAX) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64 << 10;
				if (cap > DOM_XML_MAX + 1)
					cap = DOM_XML_MAX + 1;
				p = realloc(buf, cap + 1);
				if (!p) {
					err = -ENOMEM;
					break;
				}
				buf = p;
			}
			dst = buf + n;
			room = cap - n;
		}
		got = read(fd, dst, room);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got ? -errno : 0;
			break;
		}
		if (dst != sink)
			n += (size_t)got;
	}
	if (!err && n > DOM_XML_MAX)
		err = -EFBIG;
	if (err) {
		free(buf);
		*text = NULL;
		return err;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* The domain's opt-in, checked. */
static int config(const struct hook *h, const struct dom_xml *x,
		  const char *shm_name, struct dom_cfg *c)
{
	const char *domain = h->call->domain, *bad;
	char name[DOM_NAME_MAX + 1];
	uint64_t size = 0;
	int err, have;

	if (dom_xml_name(x, name, sizeof(name)) || strcmp(name, domain)) {
		say(h, "%s: the XML on stdin is of another domain", domain);
		return -dome_xml;
	}
	dom_cfg_default(c);
	err = dom_xml_meta(x, c, &bad);
	if (!err && !c->rings && dom_xml_vcpus(x, &c->rings)) {
		bad = "rings: missing, and no <vcpu> count";
		err = -dome_option;
	}
	if (!err)
		err = dom_cfg_check(c, &bad);
	if (err) {
		say(h, "%s: ringside metadata: %s; fix it with 'ringside enable %s'",
		    domain, bad ? bad : dom_error_str(err), domain);
		return err;
	}
	have = dom_xml_shmem(x, shm_name, &size, NULL);
	if (have <= 0) {
		say(h, "%s: %s", domain, have < 0 ?
		    "its ringside <shmem> device is not ivshmem-plain" :
		    dom_error_str(-dome_no_shmem));
		return have < 0 ? have : -dome_no_shmem;
	}
	if (size != c->size) {
		say(h, "%s: <shmem name='%s'> is %" PRIu64 " bytes, the metadata "
		    "needs %" PRIu64 "; run 'ringside enable %s' again", domain,
		    shm_name, size, c->size, domain);
		return -dome_size;
	}
	return 0;
}

static int prepare(const struct hook *h, const char *text, size_t len)
{
	const char *domain = h->call->domain, *group = h->call->group;
	char shm_name[DOM_SHM_NAME_MAX];
	struct dom_xml *x = NULL;
	struct dom_cfg c;
	int err;

	/* Most domains are not ours: leave them without parsing anything. */
	if (!strstr(text, DOM_XMLNS))
		return 0;
	err = dom_shm_name(domain, shm_name, sizeof(shm_name));
	if (err) {
		say(h, "'%s': %s", domain, dom_error_str(err));
		return err;
	}
	err = dom_xml_parse(&x, text, len);
	if (err) {
		say(h, "%s: the domain XML on stdin does not parse", domain);
		return err;
	}
	err = config(h, x, shm_name, &c);
	dom_xml_free(x);
	if (err)
		return err;
	err = dom_shm_create_group(DOM_SHM_DIR, shm_name, &c, group);
	if (err == -ENOENT && !getgrnam(group ? group : DOM_HOOK_GROUP))
		say(h, "%s: no group '%s' for the region file; reinstall the "
		    "hook with --group", domain, group ? group : DOM_HOOK_GROUP);
	else if (err)
		say(h, "%s: cannot create %s/%s: %s", domain, DOM_SHM_DIR,
		    shm_name, dom_error_str(err));
	return err;
}

/* The configuration a stopping domain's region was laid out with, or
 * NULL when its metadata does not say (the capture reads the header). */
static const struct dom_cfg *laid_out(const struct hook *h, const char *text,
				      size_t len, struct dom_cfg *c)
{
	const char *domain = h->call->domain, *bad;
	char name[DOM_NAME_MAX + 1];
	struct dom_xml *x = NULL;
	int ok;

	if (dom_xml_parse(&x, text, len))
		return NULL;
	dom_cfg_default(c);
	ok = !dom_xml_name(x, name, sizeof(name)) && !strcmp(name, domain) &&
	     !dom_xml_meta(x, c, &bad) &&
	     (c->rings || !dom_xml_vcpus(x, &c->rings)) &&
	     !dom_cfg_check(c, &bad);
	dom_xml_free(x);
	return ok ? c : NULL;
}

/* The rings of a domain that stopped, in @fd, kept before the file goes
 * (by h->call->capture).  0: the file may go; else it was renamed to keep
 * it, and said. */
static int keep_rings(const struct hook *h, int fd, const char *path,
		      const struct dom_cfg *cfg)
{
	const char *domain = h->call->domain;
	char kept[sizeof(DOM_SHM_DIR) + DOM_SHM_NAME_MAX + 1 +
		  sizeof(DOM_SHM_KEPT)];
	int err;

	err = h->call->capture(h->call->capture_arg, domain, path, fd, cfg,
			       h->log, h->arg);
	if (!err)
		return 0;
	/* root's file in a sticky directory: nobody else can have renamed
	 * or replaced it since it was opened */
	snprintf(kept, sizeof(kept), "%s%s", path, DOM_SHM_KEPT);
	if (rename(path, kept)) {
		err = -errno;
		say(h, "%s: its rings could not be kept, and %s could not be "
		    "set aside either: %s", domain, path, dom_error_str(err));
		return err;
	}
	say(h, "%s: its rings are kept in %s until they can be captured "
	    "('ringside snapshot %s -o FILE')", domain, kept, kept);
	return err;
}

/* The domain's region file, open, if ringside made it (for @cfg's size
 * when known); said when a file of its name is another's. */
static int open_region(const struct hook *h, const char *shm_name,
		       const struct dom_cfg *cfg, struct stat *st)
{
	const char *domain = h->call->domain;
	const char *group = h->call->group ? h->call->group : DOM_HOOK_GROUP;
	struct group *gr;
	const char *why;
	char path[sizeof(DOM_SHM_DIR) + DOM_SHM_NAME_MAX + 1];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", DOM_SHM_DIR, shm_name);
	if (lstat(path, st) && errno == ENOENT)
		return -ENOENT;   /* most domains: nothing to say */
	gr = getgrnam(group);
	if (!gr) {
		say(h, "%s: no group '%s' to check %s by: left as it is; "
		    "reinstall the hook with --group", domain, group, path);
		return -dome_not_ours;
	}
	fd = dom_shm_open_region(DOM_SHM_DIR, shm_name, gr->gr_gid,
				 cfg ? cfg->size : 0, st, &why);
	if (fd == -dome_not_ours)
		say(h, "%s: %s/%s is not a region file ringside made (%s: "
		    "owner %u, group %u, mode %04o, %llu bytes): neither "
		    "captured nor removed", domain, DOM_SHM_DIR, shm_name, why,
		    (unsigned)st->st_uid, (unsigned)st->st_gid,
		    (unsigned)(st->st_mode & 07777),
		    (unsigned long long)st->st_size);
	else if (fd < 0 && fd != -ENOENT)
		say(h, "%s: cannot open %s/%s: %s", domain, DOM_SHM_DIR,
		    shm_name, dom_error_str(fd));
	return fd;
}

static int release(const struct hook *h, const char *text, size_t len)
{
	const char *domain = h->call->domain;
	char shm_name[DOM_SHM_NAME_MAX];
	char path[sizeof(DOM_SHM_DIR) + DOM_SHM_NAME_MAX + 1];
	const struct dom_cfg *cfg = NULL;
	struct dom_cfg c;
	struct stat st;
	int fd, err, kept = 0, ours;

	if (dom_shm_name(domain, shm_name, sizeof(shm_name)))
		return 0;  /* a name we never made a region for */
	ours = text && strstr(text, DOM_XMLNS);
	if (ours)
		cfg = laid_out(h, text, len, &c);
	/* Only a file ringside made is captured or removed: anyone may
	 * create one of its name in /dev/shm when it is absent. */
	fd = open_region(h, shm_name, cfg, &st);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;  /* never started, or went live */
	snprintf(path, sizeof(path), "%s/%s", DOM_SHM_DIR, shm_name);
	/* A domain stopped for any reason (a crash with on_crash destroy or
	 * restart, virsh destroy, a power-off, a save): its flight recorder
	 * is kept before the file goes.  A domain without our metadata has
	 * none to keep. */
	if (h->call->capture && ours)
		kept = keep_rings(h, fd, path, cfg);
	close(fd);
	if (kept)
		return kept;
	err = dom_shm_remove_region(DOM_SHM_DIR, shm_name, &st);
	if (err)
		say(h, "%s: cannot remove %s: %s", domain, path, dom_error_str(err));
	return err;
}

int dom_hook_run(const struct dom_hook_call *call, rs_log_fn log, void *arg)
{
	struct hook h = { call, log, arg };
	size_t len = 0;
	char *text;
	int err;

	if (!call || !call->domain || !call->op || !call->subop)
		return -dome_invalid;
	/* Whatever the operation, take all of libvirt's XML: it must see no
	 * EPIPE. */
	err = read_all(call->xml_fd, &text, &len);
	if (!strcmp(call->op, "prepare") && !strcmp(call->subop, "begin")) {
		if (err)
			say(&h, "%s: cannot read the domain XML on stdin",
			    call->domain);
		else
			err = prepare(&h, text, len);
	} else if (!strcmp(call->op, "release") && !strcmp(call->subop, "end")) {
		err = release(&h, err ? NULL : text, len);
	} else {
		err = 0;  /* not ours */
	}
	free(text);
	return err;
}
