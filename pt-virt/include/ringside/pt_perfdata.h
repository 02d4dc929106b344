/* SPDX-License-Identifier: MIT */
/*
 * The Intel PT of a perf.data file ringside wrote (AUXTRACE records of
 * `record` or `snapshot`), decoded with the guest kernel's code that the
 * file's build-id cache entry holds ("kcore", docs/perfdata.md): what
 * `ringside decode FILE` does with a perf.data file.
 */
#ifndef RINGSIDE_PT_PERFDATA_H
#define RINGSIDE_PT_PERFDATA_H

#include <stdint.h>

#include "ringside/pt_codec.h"

/* 1 if @path starts with perf.data's magic, 0 if not, -errno. */
int pv_perfdata_is_file(const char *path);

struct pv_perfdata_params {
	const char *path;
	const char *buildid_dir;  /* NULL: the file's own (pdf_cache_dir_of) */
	int last_psb;
	pv_decode_fn fn;             /* each decoded item */
	void *arg;
	/* called before each ring's items: its number and bytes */
	void (*ring)(void *arg, uint32_t ring, uint64_t bytes);
};

struct pv_perfdata_result {
	struct pv_decode_stats st;   /* summed over the rings */
	uint32_t rings;           /* rings with PT bytes */
	uint64_t bytes;
	uint32_t segments;        /* of the kernel code image */
	char kcore[4096];         /* where the code came from */
};

/*
 * Decode every ring's PT.  0; else a negative code with @why (a static
 * text) saying what was missing: pdf_error_str() names -errno and
 * PDF_ERR() codes, pv_error_str() the decoder's.  *@pv tells which.
 */
int pv_perfdata_decode(const struct pv_perfdata_params *p, struct pv_perfdata_result *res,
		const char **why, int *pv);

#endif /* RINGSIDE_PT_PERFDATA_H */
