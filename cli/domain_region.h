/* SPDX-License-Identifier: MIT */
/*
 * From a libvirt domain name to its trace region: what `ringside
 * record|snapshot|stat DOMAIN` look up.
 */
#ifndef RINGSIDE_CLI_DOMAIN_REGION_H
#define RINGSIDE_CLI_DOMAIN_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "domain_meta.h"

/*
 * 1 if REGION @spec names a libvirt domain rather than a file: no '/', not
 * "fd:N", and no file of that name in the current directory.
 */
int dom_region_is_domain(const char *spec);

/*
 * The region file of running domain @name, found through libvirt: its
 * ringside metadata, then its <shmem> device, then /dev/shm/NAME.
 * -(ERR_DOM + dome_name | dome_no_domain | dome_not_running |
 * dome_not_enabled | dome_no_shmem | dome_libvirt | dome_no_libvirt),
 * -ENAMETOOLONG, -ENOMEM.
 */
int dom_region_path(const char *name, char *path, size_t len);

/*
 * Pause running domain @name's vCPUs for a stable snapshot: *@paused is 1
 * when this call paused it (resume it after), 0 when it was stopped
 * already (leave it).  Errors as dom_region_path.
 */
int dom_region_pause(const char *name, int *paused);
int dom_region_resume(const char *name);

#endif /* RINGSIDE_CLI_DOMAIN_REGION_H */
