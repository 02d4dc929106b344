/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_SOURCE_H
#define RINGSIDE_CAP_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/cap_err.h"
#include "ringside/cap_vm.h"
#include "ringside/gi_kbuf.h"
#include "ringside/gi_kcode.h"
#include "ringside/gi_vcpu.h"
#include "ringside/ring.h"
#include "ringside/vmm_control.h"

/*
 * A trace region, from the operator's name for it to a validated
 * struct rs_region, by the layout its host laid out where there is one:
 * a libvirt DOMAIN (a bare name no file has: the layout its hook made),
 * a ringside VMM's control socket (`--vm SOCKET`: the layout the VMM
 * says), a path (/dev/shm/NAME) or "fd:N" (a memfd or shm file another
 * process handed over, already open as descriptor N: its header).
 *
 *	struct cap_source *src;
 *	struct cap_err e = { 0 };
 *
 *	if (cap_source_new(&src) || cap_source_open(src, spec, 0, &e))
 *		...cap_err_str(&e)...
 *	cap_source_region(src) ...
 *	cap_source_free(src);
 */

enum cap_source_flag {
	CAP_SOURCE_WRITE = 1u << 0,  /* map writable: a consumer publishes tails */
	CAP_SOURCE_EXCL  = 1u << 1,  /* the only consumer: flock(LOCK_EX) the file */
};

struct cap_source;

/* A source with nothing open, into *@sp.  0, -ENOMEM. */
int cap_source_new(struct cap_source **sp);

/* Close what is open and free @s.  Accepts NULL. */
void cap_source_free(struct cap_source *s);

/*
 * Open, map and validate @spec (a libvirt domain's region when @spec is a
 * bare name with no file of that name, see dom_region_is_domain); what
 * @s had open is closed first.  0, or a negative code noted in @e
 * (cap_err.h) as one of:
 *   cap_err_sys: -errno of open, fstat, mmap; -EBADF for a bad "fd:N",
 *     -EACCES for an fd without the access @flags need, -ENODEV (-EISDIR)
 *     for something that is not a regular file, -EWOULDBLOCK when
 *     CAP_SOURCE_EXCL finds another consumer holding the lock;
 *   rs_error_str: -rse_magic, -rse_version, -rse_too_small, -rse_geometry
 *     (cap_source_abi_version says which version a -rse_version region
 *     claims);
 *   dom_error_str: dom_region_path()'s, for a domain.
 */
int cap_source_open(struct cap_source *s, const char *spec, unsigned flags,
		    struct cap_err *e);

/*
 * The region of the ringside VMM serving control socket @sock_path, with
 * its doorbells (cap_source_vm).  Errors as cap_source_open, and
 * cap_vm_open's -errno (cap_err_sys).
 */
int cap_source_open_vm(struct cap_source *s, const char *sock_path,
		       unsigned flags, struct cap_err *e);

/* The region file open in @fd (the caller's: left open), laid out as
 * @layout says (NULL: as its header says).  Errors as cap_source_open. */
int cap_source_open_fd(struct cap_source *s, int fd,
		       const struct rs_region_params *layout, unsigned flags,
		       struct cap_err *e);

/* Unmap; closes the descriptor if it was opened here.  @s can be opened
 * again.  Accepts NULL. */
void cap_source_close(struct cap_source *s);

/* The open region, and its mapping (writable with CAP_SOURCE_WRITE: the
 * memory a clock sync writes, cap_sync_take) of @size bytes. */
const struct rs_region *cap_source_region(const struct cap_source *s);
void *cap_source_mem(const struct cap_source *s);
uint64_t cap_source_size(const struct cap_source *s);

/* The region file's descriptor (-1: none open). */
int cap_source_fd(const struct cap_source *s);

/* The libvirt domain a bare name opened, or NULL. */
const char *cap_source_domain(const struct cap_source *s);

/* --vm: the VMM's control connection (its doorbells, its vCPUs), or
 * NULL. */
struct cap_vm *cap_source_vm(const struct cap_source *s);

/* The ABI version the region's header claims: after -rse_version too. */
uint32_t cap_source_abi_version(const struct cap_source *s);

/* What differs between the header (and the control pages) and the
 * layout its host laid out, or NULL when nothing does: the rings are read
 * by the layout all the same (docs/cli.md, "A damaged region header"). */
const struct rs_region_damage *cap_source_damage(const struct cap_source *s);

/* "magic (guest says 0x0, host laid out 0x...)": one damaged field of
 * @d as text in @buf (snprintf's return). */
int cap_source_diff_text(char *buf, size_t len, const struct rs_region_diff *d);

/* --vm: the VMM's header page guard into *@g, its counts as they were at
 * the open, or (@now) as the VMM says now (those of the open when it does
 * not answer).  1, or 0 for a source without one (another source, a VMM
 * that predates REGION). */
int cap_source_guard(const struct cap_source *s, int now,
		     struct rs_ctl_region *g);

/* 1 if @path names the region's own file (an output must never replace it). */
int cap_source_is_file(const struct cap_source *s, const char *path);

/* Stop / restart the region's writers around a stable snapshot.  0, or in
 * @e: -EOPNOTSUPP (cap_err_sys) when the source cannot pause them (a plain
 * file), cap_vm's -errno (cap_err_sys), dom_region_pause's (dom_error_str).
 * A domain's libvirt connection is made before the pause request and kept
 * until cap_source_close. */
int cap_source_pause(struct cap_source *s, struct cap_err *e);
int cap_source_resume(struct cap_source *s, struct cap_err *e);

/* How long the writers were stopped by the last cap_source_pause ..
 * cap_source_resume, ns: at most (from the pause request to the resume's
 * answer, the default) or at least (@inner: from the pause's answer to
 * the resume request), both taken on host CLOCK_MONOTONIC.  0 when
 * nothing was paused here (a domain stopped already). */
uint64_t cap_source_paused_ns(const struct cap_source *s, int inner);

/*
 * A DOMAIN source's guest, read by the host without its help
 * (ringside/gi_*.h): the peek sources introspect's modules read through,
 * over the source's own libvirt connections (the code's a connection of
 * its own: its reader runs in a thread; closed by cap_source_close).  The
 * kernel's code (kcode), its perf buffers' pages with the guest's RAM
 * ranges (kbuf), its vCPUs' registers and memory (vcpu).  0, or libvirt's
 * code (dom_error_str) when the domain cannot be reached; -EOPNOTSUPP for a
 * source that is no DOMAIN.
 */
int cap_source_domain_kcode_src(struct cap_source *s, struct gi_kcode_src *src);
int cap_source_domain_kbuf_src(struct cap_source *s, struct gi_kbuf_src *src);
int cap_source_domain_vcpu_src(struct cap_source *s, struct gi_vcpu_src *src);

/* The same kbuf source over a libvirt connection @d of the caller's (a
 * service that has one to the domain already), which must outlive it.
 * 0, or libvirt's code (dom_error_str). */
struct dom_virt;
int cap_source_domain_kbuf_src_of(struct dom_virt *d, struct gi_kbuf_src *src);

#endif /* RINGSIDE_CAP_SOURCE_H */
