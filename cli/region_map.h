/* SPDX-License-Identifier: MIT */
/*
 * A trace region, from the operator's name for it to a validated
 * struct rs_region: a path (/dev/shm/NAME) or "fd:N" (a memfd or shm file
 * another process handed over, already open as descriptor N).
 */
#ifndef RINGSIDE_CLI_REGION_MAP_H
#define RINGSIDE_CLI_REGION_MAP_H

#include <stdint.h>
#include <stdio.h>

#include "ringside/ring.h"
#include "ringside/vmm_control.h"

#include "liberr.h"

enum rmap_flag {
	RMAP_WRITE = 1u << 0,  /* map writable: a consumer publishes tails */
	RMAP_EXCL  = 1u << 1,  /* the only consumer: flock(LOCK_EX) the file */
};

struct rmap {
	struct rs_region region;
	void *base;
	uint64_t size;
	int fd;
	int own_fd;              /* opened here (closed by rmap_close) */
	int locked;              /* RMAP_EXCL taken */
	uint32_t abi_version;    /* what the header claims, for messages */
	struct vm_conn *vm;      /* --vm: the VMM's control connection */
	char *domain;            /* REGION named a libvirt domain (ringside/domain_virt.h) */
	int domain_paused;       /* rmap_pause suspended it */
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
 * negative code noted in @e (liberr.h) as one of:
 *   liberr_sys: -errno of open, fstat, mmap; -EBADF for a bad "fd:N",
 *     -EACCES for an fd without the access @flags need, -ENODEV (-EISDIR)
 *     for something that is not a regular file, -EWOULDBLOCK when
 *     RMAP_EXCL finds another consumer holding the lock;
 *   rs_errstr: -rse_magic, -rse_version, -rse_too_small, -rse_geometry
 *     (m->abi_version says which version a -rse_version region claims);
 *   dom_errstr: dom_region_path()'s, for a domain.
 */
int rmap_open(struct rmap *m, const char *spec, unsigned flags,
	      struct liberr *e);

/*
 * The region of the ringside VMM serving control socket @sock_path, with
 * its doorbells (m->vm, vm_conn.h).  Errors as rmap_open, and
 * vm_conn_open's -errno (liberr_sys).
 */
int rmap_open_vm(struct rmap *m, const char *sock_path, unsigned flags,
		 struct liberr *e);

/* Stop / restart the region's writers around a stable snapshot.  0, or in
 * @e: -EOPNOTSUPP (liberr_sys) when the source cannot pause them (a plain
 * file), vm_conn's -errno (liberr_sys), dom_region_pause's (dom_errstr). */
int rmap_pause(struct rmap *m, struct liberr *e);
int rmap_resume(struct rmap *m, struct liberr *e);

/* 1 if @path names the region's own file (an output must never replace it). */
int rmap_is_file(const struct rmap *m, const char *path);

/* region_check.c: the damage rmap_open found, and for --vm the header
 * page guard's count, on stderr as @cmd's messages about @spec (nothing
 * when the region is whole and the guard refused nothing).  Returns
 * m->damaged. */
int rmap_damage_report(const struct rmap *m, const char *cmd, const char *spec);

/* --vm: one line on the header page guard, with the VMM's counts as of
 * now.  Nothing for other sources. */
void rmap_guard_print(const struct rmap *m, FILE *f);

/* The params of a VMM's REGION answer.  0, or -EPROTO for geometry no
 * ringside VMM lays out. */
int rmap_vm_params(const struct rs_ctl_region *r, struct rs_region_params *p);

/* Unmap; closes the descriptor if rmap_open opened it.  Accepts NULL. */
void rmap_close(struct rmap *m);

#endif /* RINGSIDE_CLI_REGION_MAP_H */
