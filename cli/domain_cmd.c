/* SPDX-License-Identifier: MIT */
#include "ringside/domain_virt.h"

#include "cli.h"
#include "domain_cmd.h"

int domain_cmd_parse(const struct opt_cmd *c, int argc, char **argv,
		     struct domain_cmd_opts *d)
{
	int first, ret = opt_parse(c, argc, argv, &first);

	if (ret)
		return ret;
	d->domain = argv[first];
	if (d->live_only)
		d->live = 1;
	return 0;
}

int domain_cmd_open(const char *cmd, const struct domain_cmd_opts *d,
		    char *shm_name, size_t len, struct dom_virt **v)
{
	int err;

	*v = NULL;
	if (dom_shm_name(d->domain, shm_name, len)) {
		cli_err(cmd, "'%s': %s", d->domain, dom_error_str(-dome_name));
		return CLI_EXIT_FAIL;
	}
	err = dom_virt_open(v, d->uri, d->domain, 0);
	if (err) {
		cli_err(cmd, "%s: %s", d->domain, dom_error_str(err));
		return CLI_EXIT_FAIL;
	}
	return 0;
}
