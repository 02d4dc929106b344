/* SPDX-License-Identifier: MIT */
/*
 * The service's configuration file: `key = value` lines.  Every key is a
 * row of one table (keys[] below): the parser, its unknown-key message,
 * `ringside-service --check-config` (svc_config_value) and the checks of
 * the example file and docs/service.md (tests/service) all read it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/service_client.h"
#include "ringside/service_config.h"
#include "ringside/service_http.h"
#include "ringside/text.h"

#define CONFIG_MAX (64u << 10)   /* bytes of configuration read */
#define VALUE_MAX  4096u

void svc_config_default(struct svc_config *c)
{
	memset(c, 0, sizeof(*c));
	c->keep = CAP_FLIGHT_KEEP;
	c->keep_bytes = CAP_FLIGHT_KEEP_BYTES;
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

int svc_config_number(const char *s, uint64_t max, uint64_t *v)
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

/* ---- setting a key: (@c, the key's name, its value) ---- */

static int set_uri(struct svc_config *c, const char *k, char *v,
		   const char **why)
{
	(void)k;
	(void)why;
	return set_string(&c->uri, v);
}

static int set_triggers(struct svc_config *c, const char *k, char *v,
			const char **why)
{
	uint32_t on = 0;
	char *save = NULL, *w;

	(void)k;
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

static int set_rate(struct svc_config *c, const char *k, char *v,
		    const char **why)
{
	char *slash = strchr(v, '/');
	uint64_t n, s;

	(void)k;
	*why = "rate-limit: N/SECONDS, N 1..1000 captures per domain in "
	       "SECONDS 1..604800";
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	if (svc_config_number(v, 1000, &n) ||
	    svc_config_number(slash + 1, 604800, &s) || !n || !s)
		return -EINVAL;
	c->burst = (uint32_t)n;
	c->window_s = (uint32_t)s;
	return 0;
}

static int set_socket(struct svc_config *c, const char *k, char *v,
		      const char **why)
{
	(void)k;
	*why = "socket: an absolute path, or none";
	if (!strcmp(v, "none"))
		return set_string(&c->socket, "");
	return v[0] == '/' ? set_string(&c->socket, v) : -EINVAL;
}

static int set_metrics(struct svc_config *c, const char *k, char *v,
		       const char **why)
{
	uint32_t ip;
	uint16_t port;

	(void)k;
	*why = "metrics: HOST:PORT (an IPv4 address, port 1..65535), or none";
	if (!strcmp(v, "none"))
		return set_string(&c->metrics, "");
	if (svc_http_addr(v, &ip, &port) || !port)
		return -EINVAL;
	return set_string(&c->metrics, v);
}

/* The recording's keys, which svc_rec_config_key parses. */
static int set_rec(struct svc_config *c, const char *k, char *v,
		   const char **why)
{
	int err = svc_rec_config_key(&c->rec, k, v, why);

	if (err > 0) {
		*why = "a key of the table that the recording does not know";
		return -EINVAL;
	}
	return err;
}

/* ---- showing a key's value in @c, as a line of the file has it ---- */

struct text {
	char *buf;
	size_t len, at;
};

static void put(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->at >= t->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->at, t->len - t->at, fmt, ap);
	va_end(ap);
	t->at += n < 0 ? t->len : (size_t)n;
}

/* The keys whose value is not one field of struct svc_config as it is:
 * each returns 1 with the value in @t, 0 when the key has none (its
 * row's `unset` says what applies then).  @n: which value of a key given
 * once per value; 0 for the others. */
typedef int (*show_fn)(const struct svc_config *c, uint32_t n, struct text *t);

static int show_triggers(const struct svc_config *c, uint32_t n,
			 struct text *t)
{
	static const struct { uint32_t bit; const char *word; } w[] = {
		{ SVC_ON_CRASH, "crash" }, { SVC_ON_WATCHDOG, "watchdog" },
		{ SVC_ON_HANG, "hang" },
	};
	const char *sep = "";

	(void)n;
	if (!c->capture_on)
		put(t, "none");
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (c->capture_on & w[i].bit) {
			put(t, "%s%s", sep, w[i].word);
			sep = " ";
		}
	return 1;
}

static int show_rate(const struct svc_config *c, uint32_t n, struct text *t)
{
	(void)n;
	put(t, "%" PRIu32 "/%" PRIu32, c->burst, c->window_s);
	return 1;
}

static int show_record(const struct svc_config *c, uint32_t n, struct text *t)
{
	(void)n;
	if (!c->rec.all && !c->rec.nr_domains)
		put(t, "none");
	if (c->rec.all)
		put(t, "all");
	for (uint32_t i = 0; i < c->rec.nr_domains; i++)
		put(t, "%s%s", c->rec.all || i ? " " : "", c->rec.domains[i]);
	return 1;
}

static int show_pprof(const struct svc_config *c, uint32_t n, struct text *t)
{
	(void)n;
	put(t, "%s", c->rec.pprof ? "yes" : "no");
	return 1;
}

static int show_region(const struct svc_config *c, uint32_t n, struct text *t)
{
	if (n >= c->rec.nr_regions)
		return 0;
	put(t, "%s %s", c->rec.region_names[n], c->rec.region_paths[n]);
	return 1;
}

/* ---- the table ---- */

typedef int (*set_fn)(struct svc_config *c, const char *k, char *v,
		      const char **why);

/* How a key's value is shown, and set when its row has no set(): */
enum show_kind {
	SHOW_FN,      /* by its row's show() */
	SHOW_U32,     /* a uint32_t field, lo..hi */
	SHOW_MIB,     /* a uint64_t field of bytes, in MiB */
	SHOW_STRING,  /* a char * field: NULL is the row's def (none: not
		       * set), "" is none; set: an absolute path */
};

static const struct svc_key {
	const char *name;
	set_fn set;             /* NULL: the field, by kind */
	enum show_kind kind;
	size_t off;             /* the field, for all but SHOW_FN */
	show_fn show;           /* SHOW_FN */
	const char *def;        /* SHOW_STRING: the value while NULL */
	const char *unset;      /* what applies while the key is not set */
	int repeats;            /* every line adds a value */
	const char *why;        /* without set(): what a value must be */
	uint32_t lo, hi;        /* ... SHOW_U32: its bounds */
} keys[] = {
#define AT(f) offsetof(struct svc_config, f)
#define U32(f, l, h) .kind = SHOW_U32, .off = AT(f), .lo = l, .hi = h
#define MIB(f) .kind = SHOW_MIB, .off = AT(f)
#define STRING(f) .kind = SHOW_STRING, .off = AT(f)
#define FN(fn) .kind = SHOW_FN, .show = fn
	{ "uri",             set_uri,         STRING(uri),
	  .unset = "libvirt's default" },
	{ "capture-dir",     NULL,            STRING(capture_dir),
	  .def = CAP_FLIGHT_DIR, .why = "capture-dir: an absolute path" },
	{ "keep",            NULL,            U32(keep, 0, UINT32_MAX),
	  .why = "keep: a count of captures per domain, 0 for any" },
	{ "keep-mb",         NULL,            MIB(keep_bytes),
	  .why = "keep-mb: MiB of captures per domain, 0 for any" },
	{ "capture-on",      set_triggers,    FN(show_triggers) },
	{ "rate-limit",      set_rate,        FN(show_rate) },
	{ "hang-after",      NULL,            U32(hang_after_s, 1, 86400),
	  .why = "hang-after: seconds without a heartbeat, 1..86400" },
	{ "socket",          set_socket,      STRING(socket),
	  .def = SVC_SOCKET_PATH },
	{ "metrics",         set_metrics,     STRING(metrics),
	  .def = SVC_METRICS_ADDR },
	{ "record",          set_rec,         FN(show_record) },
	{ "record-dir",      NULL,            STRING(rec.dir),
	  .def = SVC_REC_DIR, .why = "record-dir: an absolute path" },
	{ "rotate-mb",       NULL,            MIB(rec.rotate_bytes),
	  .why = "rotate-mb: MiB per file, 0 for no size rotation" },
	{ "rotate-seconds",  NULL,            U32(rec.rotate_s, 0, 604800),
	  .why = "rotate-seconds: seconds per file 1..604800, 0 for no time "
		 "rotation" },
	{ "record-keep-mb",  NULL,            MIB(rec.keep_bytes),
	  .why = "record-keep-mb: MiB of recordings per domain, 0 for any" },
	{ "record-total-mb", NULL,            MIB(rec.total_bytes),
	  .why = "record-total-mb: MiB of recordings of all domains, 0 for "
		 "any" },
	{ "post-command",    set_rec,         STRING(rec.post_command),
	  .def = "none" },
	{ "post-tries",      NULL,            U32(rec.post_tries, 1, 20),
	  .why = "post-tries: tries per file, 1..20" },
	{ "pprof",           set_rec,         FN(show_pprof) },
	{ "record-region",   set_rec,         FN(show_region), .unset = "none",
	  .repeats = 1 },
#undef AT
#undef U32
#undef MIB
#undef STRING
#undef FN
};
#define NR_KEYS (sizeof(keys) / sizeof(keys[0]))

size_t svc_config_nkeys(void)
{
	return NR_KEYS;
}

const char *svc_config_key(size_t i)
{
	return i < NR_KEYS ? keys[i].name : NULL;
}

const char *svc_config_unset(size_t i)
{
	return i < NR_KEYS ? keys[i].unset : NULL;
}

static int show(const struct svc_key *k, const struct svc_config *c,
		uint32_t n, struct text *t)
{
	const char *field = (const char *)c + k->off;
	const char *s;
	uint64_t mib;
	uint32_t u;

	if (k->kind == SHOW_FN)
		return k->show(c, n, t);
	if (n)
		return 0;
	switch (k->kind) {
	case SHOW_U32:
		memcpy(&u, field, sizeof(u));
		put(t, "%" PRIu32, u);
		return 1;
	case SHOW_MIB:
		memcpy(&mib, field, sizeof(mib));
		put(t, "%" PRIu64, mib >> 20);
		return 1;
	default:
		memcpy(&s, field, sizeof(s));
		if (!s && !k->def)
			return 0;
		put(t, "%s", !s ? k->def : *s ? s : "none");
		return 1;
	}
}

int svc_config_value(const struct svc_config *c, size_t i, uint32_t n,
		     char *buf, size_t len)
{
	struct text t = { .buf = buf, .len = len };
	int ret;

	if (i >= NR_KEYS || !len)
		return -EINVAL;
	buf[0] = '\0';
	if (n && !keys[i].repeats)
		return 0;
	ret = show(&keys[i], c, n, &t);
	if (ret > 0 && t.at >= len) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	return ret;
}

/* "unknown key (uri, capture-dir, ...)", from the table, made once. */
static char unknown[64 + NR_KEYS * 20];
static pthread_once_t unknown_once = PTHREAD_ONCE_INIT;

static void unknown_make(void)
{
	struct text t = { .buf = unknown, .len = sizeof(unknown) };

	put(&t, "unknown key (the keys: ");
	for (size_t i = 0; i < NR_KEYS; i++)
		put(&t, "%s%s", i ? ", " : "", keys[i].name);
	put(&t, ")");
}

/* Key @k's field, its row without a set(): a number within its bounds,
 * MiB, an absolute path. */
static int set_field(const struct svc_key *k, struct svc_config *c,
		     const char *v, const char **why)
{
	char *field = (char *)c + k->off;
	uint64_t n;
	uint32_t u;

	*why = k->why;
	switch (k->kind) {
	case SHOW_U32:
		if (svc_config_number(v, k->hi, &n) || n < k->lo)
			return -EINVAL;
		u = (uint32_t)n;
		memcpy(field, &u, sizeof(u));
		return 0;
	case SHOW_MIB:
		if (svc_config_number(v, UINT64_MAX >> 20, &n))
			return -EINVAL;
		n <<= 20;
		memcpy(field, &n, sizeof(n));
		return 0;
	default:
		return v[0] == '/' ? set_string((char **)(void *)field, v) :
		       -EINVAL;
	}
}

static int set_key(struct svc_config *c, const char *k, char *v,
		   const char **why)
{
	for (size_t i = 0; i < NR_KEYS; i++) {
		if (strcmp(k, keys[i].name))
			continue;
		return keys[i].set ? keys[i].set(c, k, v, why) :
		       set_field(&keys[i], c, v, why);
	}
	pthread_once(&unknown_once, unknown_make);
	*why = unknown;
	return -EINVAL;
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
		l = rs_text_trim(buf);
		if (!*l)
			continue;
		eq = strchr(l, '=');
		if (!eq) {
			*why = "not `key = value`";
			return -EINVAL;
		}
		*eq = '\0';
		err = set_key(c, rs_text_trim(l), rs_text_trim(eq + 1), why);
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
