/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/perfdata.h"

#include "ringside/pt_perfdata.h"

#define PERF_MAGIC "PERFILE2"
#define MAX_RINGS 256u

int pv_perfdata_is_file(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == (ssize_t)sizeof(magic) && !memcmp(magic, PERF_MAGIC, 8);
}

/* A ring's PT: its AUXTRACE payloads in file order, one stream. */
struct ring_buf {
	uint8_t *data;
	uint64_t len;
};

struct rings {
	struct ring_buf r[MAX_RINGS];
};

static int add_aux(void *arg, uint32_t ring, uint64_t offset,
		   const uint8_t *data, uint64_t len)
{
	struct rings *rs = arg;
	struct ring_buf *b;
	uint8_t *grown;

	(void)offset;  /* a gap between records: the decoder resyncs at a PSB */
	if (ring >= MAX_RINGS)
		return PDF_ERR(pdfe_format);
	b = &rs->r[ring];
	grown = realloc(b->data, b->len + len);
	if (!grown)
		return -ENOMEM;
	memcpy(grown + b->len, data, len);
	b->data = grown;
	b->len += len;
	return 0;
}

/* The code: kcore's segments, by address. */
struct code {
	struct pdf_kcore_seg *segs;
	uint32_t nr;
};

static void *code_ptr(void *arg, uint64_t addr, uint64_t len)
{
	const struct code *c = arg;
	uint32_t lo = 0, hi = c->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct pdf_kcore_seg *s = &c->segs[mid];

		if (addr < s->addr) {
			hi = mid;
		} else if (addr - s->addr >= s->len) {
			lo = mid + 1;
		} else {
			if (len > s->len - (addr - s->addr))
				return NULL;
			return (void *)(uintptr_t)((const uint8_t *)s->data +
						   (addr - s->addr));
		}
	}
	return NULL;
}

static int read_file(const char *path, uint8_t **buf, uint64_t *len)
{
	struct stat st;
	uint64_t at = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > PDF_KCORE_MAX_BYTES + (64u << 20)) {
		close(fd);
		return -EFBIG;
	}
	*len = (uint64_t)st.st_size;
	*buf = malloc(*len ? *len : 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	while (at < *len) {
		ssize_t n = read(fd, *buf + at, *len - at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			free(*buf);
			return n < 0 ? -errno : -EIO;
		}
		at += (uint64_t)n;
	}
	close(fd);
	return 0;
}

static int kcore_path(const struct pv_perfdata_params *p, const struct pdf_info *info,
		      char *path, size_t size)
{
	char dir[4096], hex[2 * PDF_BUILD_ID_SIZE + 1];
	uint32_t i;
	int n, err = 0;

	if (p->buildid_dir)
		n = snprintf(dir, sizeof(dir), "%s", p->buildid_dir);
	else
		n = (err = pdf_cache_dir_of(p->path, dir, sizeof(dir))) ? 0 : 1;
	if (err || n < 0 || (size_t)n >= sizeof(dir))
		return err ? err : -ENAMETOOLONG;
	for (i = 0; i < info->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", info->build_id[i]);
	n = snprintf(path, size, "%s/[kernel.kallsyms]/%s/kcore", dir, hex);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int pv_perfdata_decode(const struct pv_perfdata_params *p, struct pv_perfdata_result *res,
		const char **why, int *pv)
{
	struct pdf_reader *r = NULL;
	struct rings *rs = calloc(1, sizeof(*rs));
	struct code code = { 0 };
	uint8_t *image = NULL;
	uint64_t image_len = 0;
	uint32_t i;
	int err, n;

	memset(res, 0, sizeof(*res));
	*pv = 0;
	*why = "reading the file";
	if (!rs)
		return -ENOMEM;
	err = pdf_reader_open(&r, p->path);
	if (!err && !pdf_reader_info(r)->build_id_len) {
		*why = "the file names no guest kernel (no build id: the guest "
		       "published no kallsyms)";
		err = -ENOENT;
	}
	if (!err) {
		*why = "the guest kernel's code";
		err = kcore_path(p, pdf_reader_info(r), res->kcore,
				 sizeof(res->kcore));
	}
	if (!err)
		err = read_file(res->kcore, &image, &image_len);
	if (!err) {
		n = pdf_kcore_parse(image, image_len, NULL, 0);
		err = n < 0 ? n : n == 0 ? PDF_ERR(pdfe_format) : 0;
		if (!err) {
			code.segs = calloc((size_t)n, sizeof(*code.segs));
			code.nr = (uint32_t)n;
			err = !code.segs ? -ENOMEM :
			      pdf_kcore_parse(image, image_len, code.segs, code.nr);
			err = err < 0 ? err : 0;
		}
		res->segments = code.nr;
	}
	if (!err) {
		*why = "reading its AUXTRACE records";
		n = pdf_reader_aux(r, add_aux, rs);
		err = n < 0 ? n : 0;
	}
	for (i = 0; !err && i < MAX_RINGS; i++) {
		struct pv_decode_params dp = {
			.size = sizeof(dp), .from_last_psb = p->last_psb,
			.trace = rs->r[i].data, .len = rs->r[i].len,
			.code = { code_ptr, &code }, .fn = p->fn, .arg = p->arg,
		};
		struct pv_decode_stats st;

		if (!rs->r[i].len)
			continue;
		if (p->ring)
			p->ring(p->arg, i, rs->r[i].len);
		err = pv_decode_run(&dp, &st);
		if (err < 0) {
			*why = "decoding";
			*pv = 1;
			break;
		}
		err = 0;
		res->rings++;
		res->bytes += rs->r[i].len;
		res->st.insns += st.insns;
		res->st.enabled += st.enabled;
		res->st.disabled += st.disabled;
		res->st.interrupts += st.interrupts;
		res->st.overflows += st.overflows;
		res->st.errors += st.errors;
		res->st.syncs += st.syncs;
	}
	for (i = 0; i < MAX_RINGS; i++)
		free(rs->r[i].data);
	free(rs);
	free(code.segs);
	free(image);
	pdf_reader_close(r);
	return err;
}
