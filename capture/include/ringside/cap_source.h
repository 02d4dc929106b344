/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_SOURCE_H
#define RINGSIDE_CAP_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/cap_err.h"
#include "ringside/cap_vm.h"
#include "ringside/ring.h"
#include "ringside/vmm_control.h"

/*
 * A trace region, from the operator's name for it to a validated
 * struct rs_region: a path (/dev/shm/NAME) or "fd:N" (a memfd or shm file
 * another process handed over, already open as descriptor N).
 */

enum cap_source_flag {
	CAP_SOURCE_WRITE = 1u << 0,  /* map writable: a consumer publishes tails */
	CAP_SOURCE_EXCL  = 1u << 1,  /* the only consumer: flock(LOCK_EX) the file */
};

struct dom_virt;

/* Host CLOCK_MONOTONIC around a pause of the writers: before the pause
 * request, at its answer (the writers stand still), before the resume
 * request, at its answer.  All 0 when nothing was paused here. */
struct cap_source_pause_times {
	uint64_t request_ns;
	uint64_t paused_ns;
	uint64_t resume_ns;
	uint64_t resumed_ns;
};

struct cap_source {
	struct rs_region region;
	void *base;
	uint64_t size;
	int fd;
	int own_fd;              /* opened here (closed by cap_source_close) */
	int locked;              /* CAP_SOURCE_EXCL taken */
	uint32_t abi_version;    /* what the header claims, for messages */
	struct cap_vm *vm;      /* --vm: the VMM's control connection */
	char *domain;            /* REGION named a libvirt domain (ringside/domain_virt.h) */
	int domain_paused;       /* cap_source_pause suspended it */
	struct dom_virt *dom_conn; /* the domain's connection, made before
				    * the pause and kept until cap_source_close */
	struct cap_source_pause_times pause; /* the last cap_source_pause .. cap_source_resume */
	/* A domain's or a VM's region is opened by the layout its host laid
	 * it out with, not by its guest-writable header (region_check.c). */
	int have_layout;
	struct rs_region_params layout;
	int damaged;             /* the header or a control page differs */
	struct rs_region_damage damage;
	int have_guard;          /* --vm: vm_guard is the VMM's REGION answer */
	struct rs_ctl_region vm_guard;
};

/*
 * Open, map and validate @spec (a libvirt domain's region when @spec is a
 * bare name with no file of that name, see dom_region_is_domain).  0, or a
 * negative code noted in @e (cap_err.h) as one of:
 *   cap_err_sys: -errno of open, fstat, mmap; -EBADF for a bad "fd:N",
 *     -EACCES for an fd without the access @flags need, -ENODEV (-EISDIR)
 *     for something that is not a regular file, -EWOULDBLOCK when
 *     CAP_SOURCE_EXCL finds another consumer holding the lock;
 *   rs_error_str: -rse_magic, -rse_version, -rse_too_small, -rse_geometry
 *     (m->abi_version says which version a -rse_version region claims);
 *   dom_error_str: dom_region_path()'s, for a domain.
 */
int cap_source_open(struct cap_source *m, const char *spec, unsigned flags,
	      struct cap_err *e);

/*
 * The region of the ringside VMM serving control socket @sock_path, with
 * its doorbells (m->vm, cap_vm.h).  Errors as cap_source_open, and
 * cap_vm_open's -errno (cap_err_sys).
 */
int cap_source_open_vm(struct cap_source *m, const char *sock_path, unsigned flags,
		 struct cap_err *e);

/* Stop / restart the region's writers around a stable snapshot.  0, or in
 * @e: -EOPNOTSUPP (cap_err_sys) when the source cannot pause them (a plain
 * file), cap_vm's -errno (cap_err_sys), dom_region_pause's (dom_error_str). */
int cap_source_pause(struct cap_source *m, struct cap_err *e);
int cap_source_resume(struct cap_source *m, struct cap_err *e);

/* How long the writers were stopped by the last cap_source_pause .. cap_source_resume,
 * ns: at most (from the pause request to the resume's answer, the
 * default) or at least (@inner: from the pause's answer to the resume
 * request).  0 when nothing was paused here (a domain stopped already). */
uint64_t cap_source_paused_ns(const struct cap_source *m, int inner);

/* A read-write open file description of our own of the file behind @fd
 * (through /proc/self/fd): a flock or a writable map another process's
 * description would not give.  The new descriptor, or -errno. */
int cap_source_reopen(int fd);

/* 1 if @path names the region's own file (an output must never replace it). */
int cap_source_is_file(const struct cap_source *m, const char *path);

/* "magic (guest says 0x0, host laid out 0x...)": one damaged field of
 * @d as text in @buf (snprintf's return). */
int cap_source_diff_text(char *buf, size_t len, const struct rs_region_diff *d);

/* Unmap; closes the descriptor if cap_source_open opened it.  Accepts NULL. */
void cap_source_close(struct cap_source *m);

#endif /* RINGSIDE_CAP_SOURCE_H */
