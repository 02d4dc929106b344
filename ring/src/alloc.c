/* SPDX-License-Identifier: MIT */
/* Heap constructors for the host; the freestanding build leaves them out. */
#include <stdlib.h>

#include "ringside/ring.h"

struct rs_consumer *rs_consumer_alloc(const struct rs_region *region,
				      uint32_t index)
{
	struct rs_consumer *c = malloc(sizeof(*c));

	if (c && rs_consumer_init(c, region, index) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

void rs_consumer_free(struct rs_consumer *c)
{
	rs_consumer_fini(c);
	free(c);
}

struct rs_snapshot *rs_snapshot_alloc(void)
{
	return calloc(1, sizeof(struct rs_snapshot));
}

void rs_snapshot_free(struct rs_snapshot *s)
{
	free(s);
}
