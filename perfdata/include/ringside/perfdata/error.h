/* SPDX-License-Identifier: MIT */
/*
 * ringside-perfdata's errors (perfdata/src/pdf_error.c).  Every function
 * of the library returning int returns >= 0 on success (or a count), or a
 * negative code: -errno where a system call failed (-1 .. -4095), or
 * PDF_ERR(e) for an enum pdf_error e.  pdf_error_str() names both.
 */
#ifndef RINGSIDE_PERFDATA_ERROR_H
#define RINGSIDE_PERFDATA_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Above every errno value, so that -errno and PDF_ERR() never meet. */
#define PDF_ERR_BASE 8192
#define PDF_ERR(e)   (-(PDF_ERR_BASE + (int)(e)))

enum pdf_error {
	pdfe_ok = 0,
	pdfe_internal,     /* a broken invariant of this library */
	pdfe_invalid,      /* the caller passed nonsense */
	pdfe_magic,        /* not a perf.data file */
	pdfe_format,       /* malformed header, section or record */
	pdfe_attr_size,    /* an attr size this reader does not know */
	pdfe_not_ringside, /* a perf.data file ringside did not write */
	pdfe_truncated,    /* a section or record runs past the file */
	pdfe_too_big,      /* the record does not fit a perf record (u16 size) */
	pdfe_ksyms_format, /* guest kallsyms: a line that is no kallsyms line */
	pdfe_ksyms_range,  /* guest kallsyms: a function outside the kernel half */
	pdfe_ksyms_overlap,/* guest kallsyms: a module's symbols amid another's
			    * (the reason a module is refused; never returned) */
	pdfe_ksyms_empty,  /* guest kallsyms: no function perf could name */
	pdfe_ksyms_size,   /* guest kallsyms: over PDF_KSYMS_MAX_* */
	pdfe_cache_unsafe, /* a build-id cache directory or file ringside will
			    * not write: a link, not this user's, writable by
			    * others, or perf's own cache */
	pdfe_max
};

/* Never NULL; takes any negative return of this library, -errno too. */
const char *pdf_error_str(int err);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_ERROR_H */
