/* SPDX-License-Identifier: MIT */
/*
 * The JSON sidecar beside each file the service writes (a recording's, a
 * capture's): what the host observed apart from what the guest claims,
 * every string escaped (rs_text_json), written aside and renamed; and
 * the sidecars and profiles a removed capture left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ringside/io.h"
#include "ringside/perfdata.h"
#include "ringside/service_record.h"
#include "ringside/service_sidecar.h"
#include "ringside/text.h"

#define SIDECAR_MAX 8192u
#define DATA_SUFFIX ".data"
#define JSON_SUFFIX ".json"

struct out {
	char *buf;
	size_t len, at;
	int full;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->at) {
		o->full = 1;
		return;
	}
	o->at += (size_t)n;
}

/* A JSON string, escaped by rs_text_json: plain ASCII, valid UTF-8
 * whatever the name holds. */
static void put_str(struct out *o, const char *k, const char *s)
{
	put(o, "\"%s\":\"", k);
	if (!o->full && s) {
		size_t n = rs_text_json(o->buf + o->at, o->len - o->at, s,
					strlen(s));

		if (n >= o->len - o->at)
			o->full = 1;
		else
			o->at += n;
	}
	put(o, "\",");
}

/* Host CLOCK_MONOTONIC @ns as UTC ISO 8601 with ns. */
static void put_wall(struct out *o, const char *k, uint64_t ns, int64_t off)
{
	int64_t w = (int64_t)ns + off;
	time_t sec;
	struct tm tm;
	char buf[64];

	if (w < 0)
		w = 0;
	sec = (time_t)(w / 1000000000);
	gmtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	put(o, "\"%s\":\"%s.%09" PRId64 "Z\",", k, buf, w % 1000000000);
}

int svc_sidecar_text(const struct svc_sidecar *sc, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };

	if (!len)
		return -ENOSPC;
	put(&o, "{");
	put_str(&o, "domain", sc->domain);
	put_str(&o, "uuid", sc->uuid);
	put_str(&o, "host", sc->host);
	put_str(&o, "reason", sc->reason);
	put_str(&o, "file", sc->file);
	put(&o, "\"start_monotonic_ns\":%" PRIu64 ",\"end_monotonic_ns\":%"
	    PRIu64 ",", sc->start_ns, sc->end_ns);
	put_wall(&o, "start_time", sc->start_ns, sc->wall_offset_ns);
	put_wall(&o, "end_time", sc->end_ns, sc->wall_offset_ns);
	put(&o, "\"bytes\":%" PRIu64 ",\"rings\":%u,\"records\":%" PRIu64
	    ",\"lost_records\":%" PRIu64 ",", sc->bytes, sc->rings,
	    sc->records, sc->lost_records);
	put(&o, "\"host_observed\":{\"corrupt\":%" PRIu64 ",\"corrupt_bytes\":%"
	    PRIu64 ",\"not_written\":%" PRIu64 ",\"overwritten\":%" PRIu64
	    ",\"disk_lost\":%" PRIu64 "},", sc->corrupt, sc->corrupt_bytes,
	    sc->not_written, sc->overwritten, sc->disk_lost);
	put(&o, "\"guest_claimed\":{\"lost\":%" PRIu64 ",\"lost_samples\":%"
	    PRIu64 ",\"aux_truncated\":%" PRIu64 ",\"flagged\":%" PRIu64
	    ",\"disk_lost_lost\":%" PRIu64 "}}\n", sc->lost, sc->lost_samples,
	    sc->aux_truncated, sc->flagged, sc->disk_lost_lost);
	return o.full ? -ENOSPC : (int)o.at;
}

int svc_sidecar_write(const char *data_path, const struct svc_sidecar *sc)
{
	char path[4200], tmp[4200 + sizeof(PDF_ASIDE_SUFFIX)];
	char *text = malloc(SIDECAR_MAX);
	int n, fd, err;

	if (!text)
		return -ENOMEM;
	n = svc_sidecar_text(sc, text, SIDECAR_MAX);
	if (n < 0 ||
	    (size_t)snprintf(path, sizeof(path), "%s" JSON_SUFFIX, data_path) >=
	    sizeof(path)) {
		free(text);
		return n < 0 ? n : -ENAMETOOLONG;
	}
	/* 0600 like the file it describes, aside under a name nobody
	 * planted (pdf_aside_open) */
	fd = pdf_aside_open(path, tmp, sizeof(tmp));
	if (fd < 0) {
		free(text);
		return fd;
	}
	err = rs_io_write_all(fd, text, (size_t)n);
	if (err)
		pdf_aside_discard(fd, tmp);
	else
		err = pdf_aside_commit(fd, tmp, path);
	free(text);
	return err;
}

int64_t svc_sidecar_wall_offset(void)
{
	struct timespec m, w;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &w);
	return ((int64_t)w.tv_sec - (int64_t)m.tv_sec) * 1000000000ll +
	       ((int64_t)w.tv_nsec - (int64_t)m.tv_nsec);
}

/* NAME.data + @suffix: the length of @suffix, else 0. */
static size_t beside_data(const char *name, const char *suffix)
{
	size_t n = strlen(name), sl = strlen(suffix), dl = strlen(DATA_SUFFIX);

	if (n <= sl + dl || strcmp(name + n - sl, suffix) ||
	    strncmp(name + n - sl - dl, DATA_SUFFIX, dl))
		return 0;
	return sl;
}

int svc_sidecar_orphans(const char *ddir, uint32_t *removed)
{
	DIR *d = opendir(ddir);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[4200], data[4200];
		size_t sl = beside_data(de->d_name, JSON_SUFFIX);

		if (!sl)
			sl = beside_data(de->d_name, SVC_PPROF_SUFFIX);
		if (!sl)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", ddir,
				     de->d_name) >= sizeof(path))
			continue;
		snprintf(data, sizeof(data), "%.*s", (int)(strlen(path) - sl),
			 path);
		if (access(data, F_OK) && errno == ENOENT && !unlink(path) &&
		    removed)
			++*removed;
	}
	closedir(d);
	return 0;
}
