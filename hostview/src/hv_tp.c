/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint formats from tracefs: an event's id and where its fields
 * lie.  The text is parsed line by line, bounded by its length; a line
 * that is no field line is passed over.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* The unsigned decimal at @s (< @end) up to @max; its end, or NULL. */
static const char *parse_num(const char *s, const char *end, uint32_t max,
			     uint32_t *v)
{
	uint64_t n = 0;
	const char *b = s;

	while (s < end && *s >= '0' && *s <= '9') {
		n = n * 10 + (uint64_t)(*s - '0');
		if (n > max)
			return NULL;
		s++;
	}
	if (s == b)
		return NULL;
	*v = (uint32_t)n;
	return s;
}

/* @key (e.g. "offset:") in [s, end), then a number: 0 or -1. */
static int keyed(const char *s, const char *end, const char *key, uint32_t max,
		 uint32_t *v)
{
	size_t k = strlen(key);

	for (; s + k <= end; s++)
		if (!memcmp(s, key, k))
			return parse_num(s + k, end, max, v) ? 0 : -1;
	return -1;
}

/* The name a "field:TYPE NAME[N];" declaration ends with: [*b, *e). */
static int decl_name(const char *s, const char *end, const char **b,
		     const char **e)
{
	const char *semi = memchr(s, ';', (size_t)(end - s));
	const char *p;

	if (!semi)
		return -1;
	p = semi;
	if (p > s && p[-1] == ']') {           /* an array: NAME[N] */
		while (p > s && *p != '[')
			p--;
		if (*p != '[')
			return -1;
	}
	*e = p;
	while (p > s && (p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
			 (p[-1] >= 'a' && p[-1] <= 'z') ||
			 (p[-1] >= 'A' && p[-1] <= 'Z')))
		p--;
	*b = p;
	return *b < *e ? 0 : -1;
}

int hv_tp_parse(const char *text, size_t len, const char *const *names,
		uint32_t n, struct hv_tp *out)
{
	const char *p, *end;
	int have_id = 0;

	if (!text || !out || n > HV_TP_FIELDS || (n && !names))
		return HV_ERR(hve_invalid);
	for (uint32_t i = 0; i < n; i++)
		if (!names[i])
			return HV_ERR(hve_invalid);
	memset(out, 0, sizeof(*out));
	out->nfields = n;
	end = text + len;
	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (le - q > 4 && !memcmp(q, "ID: ", 4)) {
			if (!parse_num(q + 4, le, UINT32_MAX, &out->id))
				return HV_ERR(hve_format);
			have_id = 1;
		} else if (le - q > 6 && !memcmp(q, "field:", 6)) {
			const char *nb, *ne;
			struct hv_tpfield f = { 0 };

			if (decl_name(q + 6, le, &nb, &ne) == 0 &&
			    keyed(ne, le, "offset:", 1u << 16, &f.offset) == 0 &&
			    keyed(ne, le, "size:", 1u << 16, &f.size) == 0) {
				if (keyed(ne, le, "signed:", 1, &f.is_signed))
					f.is_signed = 0;
				for (uint32_t i = 0; i < n; i++) {
					if (strlen(names[i]) != (size_t)(ne - nb) ||
					    memcmp(names[i], nb, (size_t)(ne - nb)))
						continue;
					if (f.size != 1 && f.size != 2 &&
					    f.size != 4 && f.size != 8)
						return HV_ERR(hve_format);
					out->f[i] = f;
				}
			}
		}
		p = le + 1;
	}
	return have_id ? 0 : HV_ERR(hve_format);
}

int hv_tp_tracefs_find(char *buf, size_t len)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[64];
	struct stat st;

	if (!buf || !len)
		return HV_ERR(hve_invalid);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (strlen(dirs[i]) >= len)
				return HV_ERR(hve_invalid);
			strcpy(buf, dirs[i]);
			return 0;
		}
	}
	return HV_ERR(hve_no_tracefs);
}

int hv_tp_load(const char *tracefs, const char *system, const char *event,
	       const char *const *names, uint32_t n, struct hv_tp *out)
{
	char dir[4096], path[4096], text[16384];
	struct stat st;
	int len, ret;

	if (!system || !event || !out || strchr(system, '/') || strchr(event, '/'))
		return HV_ERR(hve_invalid);
	if (!tracefs) {
		ret = hv_tp_tracefs_find(dir, sizeof(dir));
		if (ret)
			return ret;
		tracefs = dir;
	} else {
		if (snprintf(path, sizeof(path), "%s/events", tracefs) >=
		    (int)sizeof(path))
			return -ENAMETOOLONG;
		if (stat(path, &st))
			return errno == EACCES ? HV_ERR(hve_perm) :
			       HV_ERR(hve_no_tracefs);
		if (!S_ISDIR(st.st_mode))
			return HV_ERR(hve_no_tracefs);
	}
	if (snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs,
		     system, event) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	len = hv_thread_read_small(AT_FDCWD, path, text, sizeof(text));
	if (len == -ENOENT || len == -ENOTDIR)
		return HV_ERR(hve_no_tp);
	if (len == -EACCES || len == -EPERM)
		return HV_ERR(hve_perm);
	if (len < 0)
		return len;
	return hv_tp_parse(text, (size_t)len, names, n, out);
}

int hv_tp_get(const struct hv_tpfield *f, const uint8_t *raw, uint32_t len,
	      uint64_t *v)
{
	uint8_t b1;
	uint16_t b2;
	uint32_t b4;
	uint64_t b8;

	if (!f || !raw || !v)
		return HV_ERR(hve_invalid);
	if (!f->size || f->offset > len || f->size > len - f->offset)
		return HV_ERR(hve_short);
	switch (f->size) {
	case 1:
		memcpy(&b1, raw + f->offset, 1);
		*v = f->is_signed ? (uint64_t)(int64_t)(int8_t)b1 : b1;
		return 0;
	case 2:
		memcpy(&b2, raw + f->offset, 2);
		*v = f->is_signed ? (uint64_t)(int64_t)(int16_t)b2 : b2;
		return 0;
	case 4:
		memcpy(&b4, raw + f->offset, 4);
		*v = f->is_signed ? (uint64_t)(int64_t)(int32_t)b4 : b4;
		return 0;
	case 8:
		memcpy(&b8, raw + f->offset, 8);
		*v = b8;
		return 0;
	}
	return HV_ERR(hve_short);
}
