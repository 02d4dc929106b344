/* SPDX-License-Identifier: MIT */
/*
 * The host service's configuration keys, one table (src/svc_config.c):
 * the parser (svc_config_parse) takes a key only from it, its message for
 * an unknown key lists it, `ringside-service --check-config` prints every
 * key's value from it, and the service suite checks the example file
 * (dist/host/service.conf) and docs/service.md against it.
 */
#ifndef RINGSIDE_SERVICE_CONFIG_H
#define RINGSIDE_SERVICE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/service.h"

/* How many keys there are; key @i's name ("rate-limit"), NULL past the
 * end. */
size_t svc_config_nkeys(void);
const char *svc_config_key(size_t i);

/* What applies while key @i is not set ("libvirt's default"), or NULL for
 * a key that always has a value (its default). */
const char *svc_config_unset(size_t i);

/*
 * Key @i's value in @c as a line of the file would give it ("3/3600",
 * "none"), into @buf: 1 written, 0 the key is not set (svc_config_unset
 * says what applies) or, for a key given once per value (record-region),
 * it has no value number @n; -ENOSPC when @len is too short, -EINVAL for
 * no such key.  @n is 0 for the other keys.  Of a default configuration
 * (svc_config_default) it is the key's default.
 */
int svc_config_value(const struct svc_config *c, size_t i, uint32_t n,
		     char *buf, size_t len);

#endif /* RINGSIDE_SERVICE_CONFIG_H */
