/* SPDX-License-Identifier: MIT */
/*
 * ringside's libvirt hook: the region file of an opted-in domain, made
 * before QEMU opens it and removed after QEMU ended, and the hook file
 * that has libvirtd run the hook program.  Needs the ring library and
 * libxml2, never libvirt: libvirtd waits for a hook while it holds the
 * domain's lock, so a hook must never call back into it.
 *
 * libvirt runs DOM_HOOK_DIR/DOM_HOOK_SUB/DOM_HOOK_NAME (or, for a libvirt
 * without qemu.d support, DOM_HOOK_DIR/qemu) for every QEMU domain with
 * DOMAIN OPERATION SUB-OPERATION EXTRA and the domain XML on stdin.
 *
 * Errors as in domain.h: -errno or -dome_*.
 */
#ifndef RINGSIDE_DOMAIN_HOOK_H
#define RINGSIDE_DOMAIN_HOOK_H

#include <stdarg.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "ringside/domain.h"

#define DOM_HOOK_DIR   "/etc/libvirt/hooks"
#define DOM_HOOK_SUB   "qemu.d"
#define DOM_HOOK_NAME  "ringside"
#define DOM_HOOK_MARK  "# ringside libvirt hook"
#define DOM_HOOK_GROUP "libvirt-qemu"   /* the group QEMU runs as */

/* --- the region file ------------------------------------------------------ */

/*
 * Create @dir/@shm_name as a laid-out region for @c (dom_cfg_check'ed),
 * tracing enabled, exactly c->size bytes, mode 0660, owner root, group
 * @gid.  Built under a temporary name and renamed into place, so QEMU
 * never opens a half-made region; a stale file of that name is replaced.
 * -EINVAL (NULL, or c->size 0), -ENAMETOOLONG, -errno of mkostemp,
 * posix_fallocate (-ENOSPC: /dev/shm is full), mmap, fchown, fchmod and
 * rename; -dome_internal when the ring library refuses the layout
 * dom_cfg_check() accepted.
 */
int dom_shm_create(const char *dir, const char *shm_name,
		   const struct dom_cfg *c, gid_t gid);

/* dom_shm_create with the group named @group (NULL: DOM_HOOK_GROUP, the
 * group QEMU runs as), as the hook and `enable --live` make the file.
 * Its errors, and -ENOENT when there is no such group. */
int dom_shm_create_group(const char *dir, const char *shm_name,
			 const struct dom_cfg *c, const char *group);

/* Remove @dir/@shm_name if it is a regular file.  0 also when absent.
 * -EINVAL (NULL), -ENAMETOOLONG, -ENODEV (not a regular file), -errno of
 * lstat and unlink. */
int dom_shm_remove(const char *dir, const char *shm_name);

/*
 * Open @dir/@shm_name read-only if it is a region file dom_shm_create()
 * made: no symbolic link (O_NOFOLLOW), a regular file of one link, owner
 * root, group @gid, mode 0660 exactly, and @size bytes (0: unknown, then
 * any power of two).  /dev/shm is writable by every local user: a file of
 * that name anyone else made (or QEMU, when ringside's was absent) is not
 * the domain's rings.  Its fstat in *@st.  The descriptor (O_CLOEXEC),
 * -ENOENT (absent), -dome_not_ours (*@why says what, *@st what is known
 * of it), -EINVAL (NULL), -ENAMETOOLONG, -errno of open and fstat.
 */
int dom_shm_open_region(const char *dir, const char *shm_name, gid_t gid,
			uint64_t size, struct stat *st, const char **why);

/* Remove @dir/@shm_name if it is still the file @st (of
 * dom_shm_open_region): 0 also when absent; -dome_not_ours (another file
 * has the name now: left), -EINVAL, -ENAMETOOLONG, -errno of lstat and
 * unlink. */
int dom_shm_remove_region(const char *dir, const char *shm_name,
			  const struct stat *st);

/* --- what the hook does ---------------------------------------------------- */

/* How the hook reports why it failed: one message per failure, without a
 * trailing newline, e.g. "web1: ringside metadata: mode: ...".  libvirt
 * shows it to whoever started the domain. */
typedef void (*rs_log_fn)(void *arg, const char *fmt, va_list ap);

/*
 * What keeps a stopped domain's flight recorder before its region file
 * goes: called with the domain, the file's path, the file itself open
 * read-only (checked by dom_shm_open_region: read this, never the path)
 * and, when its metadata is sound, the configuration it was laid out
 * with (NULL: read it by its header).  0 once the rings are safe elsewhere; negative (after saying
 * why through @log) to keep the file.  ringside-hook and `ringside hook
 * run` give the capture library's (ringside/capture.h, flight).
 */
typedef int (*dom_capture_fn)(void *arg, const char *domain,
			      const char *region_path, int region_fd,
			      const struct dom_cfg *c, rs_log_fn log,
			      void *log_arg);

/* One call of the hook, as libvirt makes it. */
struct dom_hook_call {
	const char *domain;    /* DOMAIN */
	const char *op;        /* OPERATION: prepare, start, ..., release */
	const char *subop;     /* SUB-OPERATION: begin, end, - */
	const char *group;     /* group of region files; NULL: DOM_HOOK_GROUP */
	int xml_fd;            /* the domain XML (libvirt's stdin) */
	dom_capture_fn capture; /* NULL: the region file just goes */
	void *capture_arg;
};

/*
 * Do what the hook does for @call, reading only @call->xml_fd:
 *  - "prepare begin" of a domain with ringside metadata: check the
 *    metadata against the <shmem> device and create the region file in
 *    DOM_SHM_DIR (dom_shm_create), group @call->group;
 *  - "release end": when the domain has ringside metadata and a region
 *    file, @call->capture keeps its rings first; then the file goes.  If
 *    the capture fails the file is kept, renamed DOM_SHM_PREFIX DOMAIN
 *    DOM_SHM_KEPT, and said.  A file of that name ringside did not make
 *    (dom_shm_open_region, group @call->group) is neither captured nor
 *    removed: it is said, with its owner, group and mode;
 *  - anything else, and any domain without ringside metadata (its XML is
 *    not even parsed): nothing.
 * The XML is read to its end in every case, so that libvirt sees no EPIPE.
 * Returns 0, or a negative code after @log (when not NULL) was given the
 * message: -dome_invalid (NULL @call or a member of it), -dome_xml (not
 * readable, not parseable, or of another domain), -dome_name,
 * -dome_option or -dome_version (metadata `ringside enable` would not
 * write), -dome_no_shmem, -dome_size, -ENOENT (no such group),
 * -dome_not_ours, dom_shm_create()'s, dom_shm_open_region()'s and
 * dom_shm_remove_region()'s errors.
 */
int dom_hook_run(const struct dom_hook_call *call, rs_log_fn log, void *arg);

/* --- the hook file --------------------------------------------------------- */

/* 1 if @path is an executable ringside hook (it carries DOM_HOOK_MARK),
 * else 0. */
int dom_hook_file_is_ours(const char *path);

/* 1 if ringside's hook is installed in DOM_HOOK_DIR (as DOM_HOOK_SUB/
 * DOM_HOOK_NAME or as qemu), else 0. */
int dom_hook_file_installed(void);

/* Where the hook keeps stopped domains' captures, and how many: each 0 or
 * NULL leaves the hook program's default. */
struct dom_hook_keep {
	const char *capture_dir;  /* absolute */
	uint32_t keep;            /* captures per domain */
	uint64_t keep_mb;         /* MiB of them per domain */
};

/*
 * Write @path: a shell script carrying DOM_HOOK_MARK that execs @program
 * --group @group, and what @keep (NULL: nothing) says as --capture-dir,
 * --keep and --keep-mb, with libvirt's arguments.  Written under a
 * temporary name, mode 0755, and renamed into place.  -dome_invalid
 * (NULL, @program or the capture directory not an absolute path, or a
 * quote in @program, @group or the directory), -ENAMETOOLONG, -errno of
 * mkstemp, write, fchmod, fsync and rename.
 */
int dom_hook_file_write(const char *path, const char *program,
			const char *group, const struct dom_hook_keep *keep);

#endif /* RINGSIDE_DOMAIN_HOOK_H */
