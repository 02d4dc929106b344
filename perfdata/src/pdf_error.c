/* SPDX-License-Identifier: MIT */
/* The library's error codes in words (ringside/perfdata/error.h). */
#include <string.h>

#include "ringside/ring_error.h"
#include "ringside/perfdata/error.h"

#define UNKNOWN "unknown perf.data error"

static const char *const pdf_errors[pdfe_max] = {
	[pdfe_ok]           = "success",
	[pdfe_internal]     = "internal error in the perf.data code",
	[pdfe_invalid]      = "invalid argument",
	[pdfe_magic]        = "not a perf.data file (no PERFILE2 magic)",
	[pdfe_format]       = "malformed perf.data file",
	[pdfe_attr_size]    = "perf.data file uses an attr size this ringside does not know",
	[pdfe_not_ringside] = "perf.data file was not written by ringside",
	[pdfe_truncated]    = "perf.data file is truncated",
	[pdfe_too_big]      = "record too big for a perf record",
	[pdfe_ksyms_format] = "guest kallsyms: a line is not in /proc/kallsyms form",
	[pdfe_ksyms_range]  = "guest kallsyms: a function address outside the kernel half (kptr_restrict?)",
	[pdfe_ksyms_overlap] = "guest kallsyms: a module's symbols overlap another module or the kernel",
	[pdfe_ksyms_empty]  = "guest kallsyms: no function symbol",
	[pdfe_ksyms_size]   = "guest kallsyms: too big (PDF_KSYMS_MAX_BYTES, _LINES, _MODULES)",
	[pdfe_cache_unsafe] = "build-id cache refused: a link, not this user's, writable by others, or perf's own",
};

const char *pdf_error_str(int err)
{
	if (err >= 0)
		return UNKNOWN;
	if (err > -PDF_ERR_BASE)
		return strerror(-err);
	/* PDF_ERR(e) + PDF_ERR_BASE is -e */
	return rs_error_name(err + PDF_ERR_BASE, pdf_errors, pdfe_max, UNKNOWN);
}
