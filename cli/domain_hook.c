/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "domain_hook.h"
#include "domain_shm.h"
#include "domain_xml.h"
#include "err.h"

/* All of stdin, at most DOM_XML_MAX bytes, NUL-terminated. */
static char *read_stdin(size_t *len)
{
	size_t cap = 64 << 10, n = 0;
	char *buf = malloc(cap + 1), *p;

	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, stdin);

		n += got;
		if (got == 0 || n > DOM_XML_MAX)
			break;
		if (n == cap) {
			cap *= 2;
			p = realloc(buf, cap + 1);
			if (!p)
				free(buf);
			buf = p;
		}
	}
	if (!buf || ferror(stdin) || n > DOM_XML_MAX) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The domain's opt-in, checked; exit status. */
static int config(const char *cmd, const char *domain, const struct dom_xml *x,
		  const char *shm_name, struct dom_cfg *c)
{
	char name[DOM_NAME_MAX + 1];
	uint64_t size = 0;
	const char *bad;
	int err, have;

	if (dom_xml_name(x, name, sizeof(name)) || strcmp(name, domain)) {
		cli_err(cmd, "%s: the XML on stdin is of another domain", domain);
		return CLI_EXIT_FAIL;
	}
	dom_cfg_default(c);
	err = dom_xml_meta(x, c, &bad);
	if (!err && !c->rings && dom_xml_vcpus(x, &c->rings))
		bad = "rings: missing, and no <vcpu> count";
	if (!err && !bad)
		err = dom_cfg_check(c, &bad);
	if (err || bad) {
		cli_err(cmd, "%s: ringside metadata: %s; fix it with 'ringside "
			"enable %s'", domain, bad ? bad : err_str(err), domain);
		return CLI_EXIT_FAIL;
	}
	have = dom_xml_shmem(x, shm_name, &size, NULL);
	if (have <= 0) {
		cli_err(cmd, "%s: %s", domain, have < 0 ?
			"its ringside <shmem> device is not ivshmem-plain" :
			err_str(-(ERR_DOM + dome_no_shmem)));
		return CLI_EXIT_FAIL;
	}
	if (size != c->size) {
		cli_err(cmd, "%s: <shmem name='%s'> is %" PRIu64 " bytes, the "
			"metadata needs %" PRIu64 "; run 'ringside enable %s' again",
			domain, shm_name, size, c->size, domain);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

int dom_hook_prepare(const char *cmd, const char *domain, const char *group)
{
	char shm_name[DOM_NAME_MAX + 16];
	struct dom_xml *x = NULL;
	struct dom_cfg c;
	struct group *gr;
	char *text;
	size_t len;
	int err, ret = CLI_EXIT_FAIL;

	text = read_stdin(&len);
	if (!text) {
		cli_err(cmd, "%s: cannot read the domain XML on stdin", domain);
		return CLI_EXIT_FAIL;
	}
	/* Most domains are not ours: leave them without parsing anything. */
	if (!strstr(text, DOM_XMLNS)) {
		free(text);
		return CLI_EXIT_OK;
	}
	if (dom_shm_name(domain, shm_name, sizeof(shm_name))) {
		cli_err(cmd, "'%s': %s", domain, err_str(-(ERR_DOM + dome_name)));
		goto out;
	}
	if (dom_xml_parse(&x, text, len)) {
		cli_err(cmd, "%s: the domain XML on stdin does not parse", domain);
		goto out;
	}
	ret = config(cmd, domain, x, shm_name, &c);
	if (ret)
		goto out;
	ret = CLI_EXIT_FAIL;
	gr = getgrnam(group);
	if (!gr) {
		cli_err(cmd, "%s: no group '%s' for the region file; reinstall the "
			"hook with --group", domain, group);
		goto out;
	}
	err = dom_shm_create(DOM_SHM_DIR, shm_name, &c, gr->gr_gid);
	if (err) {
		cli_err(cmd, "%s: cannot create %s/%s: %s", domain, DOM_SHM_DIR,
			shm_name, err_str(err));
		goto out;
	}
	ret = CLI_EXIT_OK;
out:
	dom_xml_free(x);
	free(text);
	return ret;
}

int dom_hook_release(const char *cmd, const char *domain)
{
	char shm_name[DOM_NAME_MAX + 16];
	int err;

	while (getchar() != EOF)
		;
	if (dom_shm_name(domain, shm_name, sizeof(shm_name)))
		return CLI_EXIT_OK;  /* a name we never made a region for */
	err = dom_shm_remove(DOM_SHM_DIR, shm_name);
	if (err) {
		cli_err(cmd, "%s: cannot remove %s/%s: %s", domain, DOM_SHM_DIR,
			shm_name, err_str(err));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}
