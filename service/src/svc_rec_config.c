/* SPDX-License-Identifier: MIT */
/*
 * Continuous recording's configuration (struct svc_rec_config): its
 * defaults, the values of its keys that are more than one field as it is
 * (record, post-command, pprof, record-region; svc_config.c's table hands
 * them here and sets the others itself), and which domains they select.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/domain.h"
#include "ringside/service_config.h"

void svc_rec_config_default(struct svc_rec_config *c)
{
	memset(c, 0, sizeof(*c));
	c->rotate_bytes = (uint64_t)SVC_REC_ROTATE_MB << 20;
	c->keep_bytes = (uint64_t)SVC_REC_KEEP_MB << 20;
	c->post_tries = SVC_REC_POST_TRIES;
	c->interval_ms = 100;
	c->pprof = 1;
}

static void free_domains(struct svc_rec_config *c)
{
	for (uint32_t i = 0; i < c->nr_domains; i++)
		free(c->domains[i]);
	free(c->domains);
	c->domains = NULL;
	c->nr_domains = 0;
}

void svc_rec_config_fini(struct svc_rec_config *c)
{
	for (uint32_t i = 0; i < c->nr_regions; i++) {
		free(c->region_names[i]);
		free(c->region_paths[i]);
	}
	free(c->region_names);
	free(c->region_paths);
	c->region_names = c->region_paths = NULL;
	c->nr_regions = 0;
	free_domains(c);
	free(c->post_command);
	free(c->dir);
	c->post_command = c->dir = NULL;
}

static int set_record(struct svc_rec_config *c, char *v, const char **why)
{
	char *save = NULL, *w;
	char **names;

	free_domains(c);
	c->all = 0;
	for (w = strtok_r(v, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		if (!strcmp(w, "all")) {
			c->all = 1;
			continue;
		}
		if (!strcmp(w, "none"))
			continue;
		if (strlen(w) > DOM_NAME_MAX || strchr(w, '/') ||
		    w[0] == '.') {
			*why = "record: all, none, or domain names (no '/', "
			       "not starting with '.')";
			return -EINVAL;
		}
		names = realloc(c->domains, (c->nr_domains + 1) * sizeof(*names));
		if (!names)
			return -ENOMEM;
		c->domains = names;
		c->domains[c->nr_domains] = strdup(w);
		if (!c->domains[c->nr_domains])
			return -ENOMEM;
		c->nr_domains++;
	}
	return 0;
}

int svc_rec_config_key(struct svc_rec_config *c, const char *k, char *v,
		       const char **why)
{
	if (!strcmp(k, "record"))
		return set_record(c, v, why);
	if (!strcmp(k, "pprof")) {
		*why = "pprof: yes or no";
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return -EINVAL;
		c->pprof = !strcmp(v, "yes");
		return 0;
	}
	if (!strcmp(k, "record-region")) {
		char *sp = strpbrk(v, " \t"), *path, **rn, **rp;

		*why = "record-region: NAME /PATH (a domain name, no '/', not "
		       "starting with '.'; an absolute path)";
		if (!sp)
			return -EINVAL;
		*sp = '\0';
		path = sp + 1 + strspn(sp + 1, " \t");
		if (!v[0] || strlen(v) > DOM_NAME_MAX || strchr(v, '/') ||
		    v[0] == '.' || path[0] != '/')
			return -EINVAL;
		rn = realloc(c->region_names, (c->nr_regions + 1) * sizeof(*rn));
		if (!rn)
			return -ENOMEM;
		c->region_names = rn;
		rp = realloc(c->region_paths, (c->nr_regions + 1) * sizeof(*rp));
		if (!rp)
			return -ENOMEM;
		c->region_paths = rp;
		rn[c->nr_regions] = strdup(v);
		rp[c->nr_regions] = strdup(path);
		if (!rn[c->nr_regions] || !rp[c->nr_regions]) {
			free(rn[c->nr_regions]);
			free(rp[c->nr_regions]);
			return -ENOMEM;
		}
		c->nr_regions++;
		return 0;
	}
	if (!strcmp(k, "post-command")) {
		char *s;

		*why = "post-command: an absolute path to a program, or none";
		if (!strcmp(v, "none")) {
			free(c->post_command);
			c->post_command = NULL;
			return 0;
		}
		if (v[0] != '/')
			return -EINVAL;
		s = strdup(v);
		if (!s)
			return -ENOMEM;
		free(c->post_command);
		c->post_command = s;
		return 0;
	}
	return 1;
}

int svc_rec_config_selects(const struct svc_rec_config *c, const char *domain)
{
	if (c->all)
		return 1;
	for (uint32_t i = 0; i < c->nr_domains; i++)
		if (!strcmp(c->domains[i], domain))
			return 1;
	return 0;
}
