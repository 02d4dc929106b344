/* SPDX-License-Identifier: MIT */
/*
 * What the library's files share and its users never see.
 */
#ifndef RINGSIDE_DOMAIN_INTERNAL_H
#define RINGSIDE_DOMAIN_INTERNAL_H

#include "ringside/domain.h"

/* libvirt's words for the last failure, for dom_errstr(-dome_libvirt);
 * NULL forgets them. */
void dom_detail_set(const char *msg);

#endif /* RINGSIDE_DOMAIN_INTERNAL_H */
