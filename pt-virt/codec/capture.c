// SPDX-License-Identifier: MIT
/*
 * Capture files: what `ringside decode` needs, in one file.  Layout
 * (little endian): "RSPTCAP1", u32 version (1), u32 sections; then per
 * section u32 type, u32 reserved, u64 addr, u64 len, len bytes, zero
 * padding to 8.  Read back with every length checked against the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/pt_codec.h"

#define MAGIC "RSPTCAP1"
#define VERSION 1u
#define MAX_SECTIONS 4096u
#define MAX_FILE (1ull << 32)

struct hdr {
	char magic[8];
	uint32_t version;
	uint32_t nr;
};

struct sec_hdr {
	uint32_t type;
	uint32_t reserved;
	uint64_t addr;
	uint64_t len;
};
_Static_assert(sizeof(struct hdr) == 16, "capture header");
_Static_assert(sizeof(struct sec_hdr) == 24, "capture section header");

int pv_capture_add(struct pv_capture *c, uint32_t type, uint64_t addr,
	       const void *data, uint64_t len)
{
	struct pv_capture_sec *s;

	if (!c || (!data && len) || c->nr >= MAX_SECTIONS)
		return -pve_invalid;
	if (c->nr == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 8;

		s = realloc(c->secs, cap * sizeof(*s));
		if (!s)
			return -pve_nomem;
		c->secs = s;
		c->cap = cap;
	}
	s = &c->secs[c->nr];
	s->data = malloc(len ? len : 1);
	if (!s->data)
		return -pve_nomem;
	if (len)
		memcpy(s->data, data, len);
	s->type = type;
	s->reserved = 0;
	s->addr = addr;
	s->len = len;
	c->nr++;
	return 0;
}

const struct pv_capture_sec *pv_capture_find(const struct pv_capture *c, uint32_t type)
{
	for (uint32_t i = 0; c && i < c->nr; i++)
		if (c->secs[i].type == type)
			return &c->secs[i];
	return NULL;
}

void pv_capture_fini(struct pv_capture *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nr; i++)
		free(c->secs[i].data);
	free(c->secs);
	memset(c, 0, sizeof(*c));
}

/* All of @len bytes at @p to @fd: 1, or 0 on a failed write. */
static int put_all(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len) {
		ssize_t n = write(fd, b, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		b += n;
		len -= (size_t)n;
	}
	return 1;
}

int pv_capture_write(const struct pv_capture *c, int fd)
{
	static const uint8_t zero[8];
	struct hdr h = { .version = VERSION };
	int ok;

	if (!c || fd < 0)
		return -pve_invalid;
	memcpy(h.magic, MAGIC, 8);
	h.nr = c->nr;
	ok = put_all(fd, &h, sizeof(h));
	for (uint32_t i = 0; ok && i < c->nr; i++) {
		const struct pv_capture_sec *s = &c->secs[i];
		struct sec_hdr sh = { s->type, 0, s->addr, s->len };
		size_t pad = (8 - s->len % 8) % 8;

		ok = put_all(fd, &sh, sizeof(sh)) &&
		     (!s->len || put_all(fd, s->data, s->len)) &&
		     (!pad || put_all(fd, zero, pad));
	}
	return ok ? 0 : -pve_io;
}

int pv_capture_read(struct pv_capture *c, const char *path)
{
	struct hdr h;
	uint8_t *buf = NULL;
	long size;
	uint64_t pos;
	FILE *f;
	int ret = -pve_format;

	if (!c || !path)
		return -pve_invalid;
	memset(c, 0, sizeof(*c));
	f = fopen(path, "rb");
	if (!f)
		return -pve_io;
	if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 ||
	    (uint64_t)size > MAX_FILE || fseek(f, 0, SEEK_SET) < 0) {
		ret = -pve_io;
		goto out;
	}
	buf = malloc((size_t)size + 1);
	if (!buf) {
		ret = -pve_nomem;
		goto out;
	}
	if (size && fread(buf, (size_t)size, 1, f) != 1) {
		ret = -pve_io;
		goto out;
	}
	if ((uint64_t)size < sizeof(h))
		goto out;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, MAGIC, 8) || h.version != VERSION ||
	    h.nr > MAX_SECTIONS)
		goto out;
	pos = sizeof(h);
	for (uint32_t i = 0; i < h.nr; i++) {
		struct sec_hdr sh;

		if ((uint64_t)size - pos < sizeof(sh))
			goto bad;
		memcpy(&sh, buf + pos, sizeof(sh));
		pos += sizeof(sh);
		if (sh.len > (uint64_t)size - pos)
			goto bad;
		if ((ret = pv_capture_add(c, sh.type, sh.addr, buf + pos, sh.len)) < 0)
			goto out;
		pos += sh.len;
		pos += (8 - sh.len % 8) % 8;
		if (pos > (uint64_t)size)
			goto bad;
	}
	ret = 0;
	goto out;
bad:
	ret = -pve_format;
out:
	if (ret < 0)
		pv_capture_fini(c);
	free(buf);
	fclose(f);
	return ret;
}

static void *cap_ptr(void *arg, uint64_t gpa, uint64_t len)
{
	const struct pv_capture *c = arg;

	for (uint32_t i = 0; i < c->nr; i++) {
		const struct pv_capture_sec *s = &c->secs[i];

		if (s->type == PV_CAP_MEM && gpa >= s->addr &&
		    gpa - s->addr <= s->len && len <= s->len - (gpa - s->addr))
			return s->data + (gpa - s->addr);
	}
	return NULL;
}

struct pv_mem pv_capture_mem(const struct pv_capture *c)
{
	struct pv_mem m = { cap_ptr, (void *)(uintptr_t)c };

	return m;
}
