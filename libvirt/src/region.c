/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ringside/domain_virt.h"

int dom_region_is_domain(const char *spec)
{
	struct stat st;

	if (!spec || !*spec || strchr(spec, '/') || !strncmp(spec, "fd:", 3))
		return 0;
	return lstat(spec, &st) && errno == ENOENT;
}

/* The live metadata and device of @d, checked against each other; the
 * params the hook laid the region out with into @p (when not NULL). */
static int lookup(struct dom_virt *d, const char *shm_name,
		  struct rs_region_params *p)
{
	struct dom_xml *x = NULL;
	struct dom_cfg c;
	const char *bad;
	char *text = NULL;
	int err;

	err = dom_virt_active(d);
	if (err <= 0)
		return err ? err : -dome_not_running;
	err = dom_virt_meta_get(d, 0, &text);
	if (err)
		return err;
	dom_cfg_default(&c);
	err = dom_xml_meta_parse(text, &c, &bad);
	free(text);
	if (err)
		return err;
	err = dom_virt_xml_parse(d, 0, &x);
	if (!err) {
		err = dom_xml_shmem(x, shm_name, NULL, NULL);
		err = err < 0 ? err : err ? 0 : -dome_no_shmem;
	}
	/* As the hook does: no rings in the metadata means one per vCPU. */
	if (!err && !c.rings && dom_xml_vcpus(x, &c.rings))
		err = -dome_xml;
	if (!err && p)
		dom_cfg_params(&c, p);
	dom_xml_free(x);
	return err;
}

int dom_region_layout(const char *name, char *path, size_t len,
		      struct rs_region_params *params)
{
	char shm_name[DOM_SHM_NAME_MAX];
	struct dom_virt *d = NULL;
	int err, n;

	err = dom_shm_name(name, shm_name, sizeof(shm_name));
	if (err)
		return err;
	err = dom_virt_open(&d, NULL, name, 1);
	if (!err)
		err = lookup(d, shm_name, params);
	dom_virt_close(d);
	if (err)
		return err;
	n = snprintf(path, len, "%s/%s", DOM_SHM_DIR, shm_name);
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

int dom_region_pt(const char *name, char **arg)
{
	char shm_name[DOM_SHM_NAME_MAX];
	struct dom_virt *d = NULL;
	struct dom_xml *x = NULL;
	int err;

	*arg = NULL;
	err = dom_shm_name(name, shm_name, sizeof(shm_name));
	if (!err)
		err = dom_virt_open(&d, NULL, name, 1);
	if (!err)
		err = dom_virt_xml_parse(d, 0, &x);
	if (!err)
		err = dom_pt_xml_arg(x, shm_name, arg);
	dom_xml_free(x);
	dom_virt_close(d);
	return err;
}

int dom_region_path(const char *name, char *path, size_t len)
{
	return dom_region_layout(name, path, len, NULL);
}
