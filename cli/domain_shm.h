/* SPDX-License-Identifier: MIT */
/*
 * The region file of a libvirt domain: what the libvirt hook creates before
 * QEMU starts and removes after it ended.
 */
#ifndef RINGSIDE_CLI_DOMAIN_SHM_H
#define RINGSIDE_CLI_DOMAIN_SHM_H

#include <sys/types.h>

#include "domain_meta.h"

/*
 * Create @dir/@shm_name as a laid-out region for @c (dom_cfg_check'ed),
 * tracing enabled, exactly c->size bytes, mode 0660, owner root, group
 * @gid.  Built under a temporary name and renamed into place, so QEMU
 * never opens a half-made region; a stale file of that name is replaced.
 * -errno, -(ERR_RING + e) from the layout.
 */
int dom_shm_create(const char *dir, const char *shm_name,
		   const struct dom_cfg *c, gid_t gid);

/* Remove @dir/@shm_name if it is a regular file.  0 also when absent. */
int dom_shm_remove(const char *dir, const char *shm_name);

#endif /* RINGSIDE_CLI_DOMAIN_SHM_H */
