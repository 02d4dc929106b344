/* SPDX-License-Identifier: MIT */
/* What enable and disable share: their DOMAIN, --connect, --live and
 * --live-only, and the domain's region file name and libvirt handle,
 * with a message that says what is wrong. */
#ifndef RINGSIDE_CLI_DOMAIN_CMD_H
#define RINGSIDE_CLI_DOMAIN_CMD_H

#include <stddef.h>

#include "ringside/opt.h"

struct dom_virt;

struct domain_cmd_opts {
	const char *domain;        /* the DOMAIN operand */
	const char *uri;           /* --connect; NULL: libvirt's default */
	int live;                  /* the running domain too (also set by
				    * --live-only) */
	int live_only;             /* ... and leave the persistent XML */
};

/* Parse the command line of @c (CLI_DOMAIN_CMD) into the options its
 * table points at and @d: 0, OPT_HELP after --help, or CLI_EXIT_USAGE
 * after saying what is wrong. */
int domain_cmd_parse(const struct opt_cmd *c, int argc, char **argv,
		     struct domain_cmd_opts *d);

/* @d->domain's region file name into @shm_name (@len bytes:
 * DOM_SHM_NAME_MAX do), then the domain through libvirt into *@v: 0, or
 * CLI_EXIT_FAIL after saying why (*@v is then NULL). */
int domain_cmd_open(const char *cmd, const struct domain_cmd_opts *d,
		    char *shm_name, size_t len, struct dom_virt **v);

#endif /* RINGSIDE_CLI_DOMAIN_CMD_H */
