/* SPDX-License-Identifier: MIT */
/* The service's configuration file: `key = value` lines. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/service.h"
#include "ringside/service_metrics.h"

#define CONFIG_MAX (64u << 10)   /* bytes of configuration read */
#define VALUE_MAX  4096u

void svc_config_default(struct svc_config *c)
{
	memset(c, 0, sizeof(*c));
	c->keep = FLIGHT_KEEP;
	c->keep_bytes = FLIGHT_KEEP_BYTES;
	c->capture_on = SVC_ON_CRASH | SVC_ON_WATCHDOG | SVC_ON_HANG;
	c->burst = SVC_BURST;
	c->window_s = SVC_WINDOW_S;
	c->hang_after_s = SVC_HANG_AFTER_S;
	svc_rec_config_default(&c->rec);
}

void svc_config_fini(struct svc_config *c)
{
	free(c->metrics);
	c->metrics = NULL;
	free(c->uri);
	free(c->capture_dir);
	free(c->socket);
	c->uri = c->capture_dir = c->socket = NULL;
	svc_rec_config_fini(&c->rec);
}

/* A decimal count no larger than @max; 0 or -EINVAL. */
static int number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -EINVAL : 0;
}

static int set_string(char **to, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*to);
	*to = s;
	return 0;
}

static int set_triggers(struct svc_config *c, char *v, const char **why)
{
	uint32_t on = 0;
	char *save = NULL, *w;

	for (w = strtok_r(v, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		if (!strcmp(w, "crash"))
			on |= SVC_ON_CRASH;
		else if (!strcmp(w, "watchdog"))
			on |= SVC_ON_WATCHDOG;
		else if (!strcmp(w, "hang"))
			on |= SVC_ON_HANG;
		else if (strcmp(w, "none")) {
			*why = "capture-on: words crash, watchdog, hang or none";
			return -EINVAL;
		}
	}
	c->capture_on = on;
	return 0;
}

static int set_rate(struct svc_config *c, char *v, const char **why)
{
	char *slash = strchr(v, '/');
	uint64_t n, s;

	*why = "rate-limit: N/SECONDS, N 1..1000 captures per domain in "
	       "SECONDS 1..604800";
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	if (number(v, 1000, &n) || number(slash + 1, 604800, &s) || !n || !s)
		return -EINVAL;
	c->burst = (uint32_t)n;
	c->window_s = (uint32_t)s;
	return 0;
}

static int set_key(struct svc_config *c, const char *k, char *v,
		   const char **why)
{
	uint64_t n;
	int err = svc_rec_config_key(&c->rec, k, v, why);

	if (err <= 0)
		return err;
	if (!strcmp(k, "uri"))
		return set_string(&c->uri, v);
	if (!strcmp(k, "capture-dir")) {
		*why = "capture-dir: an absolute path";
		return v[0] == '/' ? set_string(&c->capture_dir, v) : -EINVAL;
	}
	if (!strcmp(k, "keep")) {
		*why = "keep: a count of captures per domain, 0 for any";
		if (number(v, UINT32_MAX, &n))
			return -EINVAL;
		c->keep = (uint32_t)n;
		return 0;
	}
	if (!strcmp(k, "keep-mb")) {
		*why = "keep-mb: MiB of captures per domain, 0 for any";
		if (number(v, UINT64_MAX >> 20, &n))
			return -EINVAL;
		c->keep_bytes = n << 20;
		return 0;
	}
	if (!strcmp(k, "capture-on"))
		return set_triggers(c, v, why);
	if (!strcmp(k, "rate-limit"))
		return set_rate(c, v, why);
	if (!strcmp(k, "hang-after")) {
		*why = "hang-after: seconds without a heartbeat, 1..86400";
		if (number(v, 86400, &n) || !n)
			return -EINVAL;
		c->hang_after_s = (uint32_t)n;
		return 0;
	}
	if (!strcmp(k, "metrics")) {
		uint32_t ip;
		uint16_t port;

		*why = "metrics: HOST:PORT (an IPv4 address, port 1..65535), "
		       "or none";
		if (!strcmp(v, "none"))
			return set_string(&c->metrics, "");
		if (svc_http_addr(v, &ip, &port) || !port)
			return -EINVAL;
		return set_string(&c->metrics, v);
	}
	if (!strcmp(k, "socket")) {
		*why = "socket: an absolute path, or none";
		if (!strcmp(v, "none"))
			return set_string(&c->socket, "");
		return v[0] == '/' ? set_string(&c->socket, v) : -EINVAL;
	}
	*why = "unknown key (uri, capture-dir, keep, keep-mb, capture-on, "
	       "rate-limit, hang-after, socket, record, record-dir, rotate-mb, "
	       "rotate-seconds, record-keep-mb, record-total-mb, post-command, "
	       "post-tries)";
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int svc_config_parse(struct svc_config *c, const char *text, size_t len,
		     unsigned *line, const char **why)
{
	char buf[VALUE_MAX + 256];
	size_t at = 0;
	int err;

	*line = 0;
	*why = NULL;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = (nl ? (size_t)(nl - text) : len) - at;
		char *l, *eq, *hash;

		++*line;
		if (n >= sizeof(buf)) {
			*why = "line too long";
			return -EINVAL;
		}
		memcpy(buf, text + at, n);
		buf[n] = '\0';
		at += n + 1;
		if (memchr(buf, '\0', n)) {
			*why = "a NUL byte";
			return -EINVAL;
		}
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		l = trim(buf);
		if (!*l)
			continue;
		eq = strchr(l, '=');
		if (!eq) {
			*why = "not `key = value`";
			return -EINVAL;
		}
		*eq = '\0';
		err = set_key(c, trim(l), trim(eq + 1), why);
		if (err)
			return err;
	}
	*line = 0;
	return 0;
}

int svc_config_load(struct svc_config *c, const char *path, unsigned *line,
		    const char **why)
{
	char *text = malloc(CONFIG_MAX + 1);
	size_t len = 0;
	ssize_t n;
	int fd, err = 0;

	*line = 0;
	*why = NULL;
	if (!text)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(text);
		return -errno;
	}
	while ((n = read(fd, text + len, CONFIG_MAX + 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		err = -errno;
	close(fd);
	if (!err && len > CONFIG_MAX) {
		*why = "file larger than 64 KiB";
		err = -EFBIG;
	}
	if (!err)
		err = svc_config_parse(c, text, len, line, why);
	free(text);
	return err;
}
