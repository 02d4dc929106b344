/* SPDX-License-Identifier: MIT */
#include "ringside/ring.h"

static const char *const rs_error_names[rse_max] = {
	[rse_ok]        = "success",
	[rse_internal]  = "internal error in the ring library",
	[rse_invalid]   = "invalid argument",
	[rse_magic]     = "not a ringside region (bad magic)",
	[rse_version]   = "unsupported ringside ABI version",
	[rse_geometry]  = "bad region geometry (size, offset or alignment)",
	[rse_too_small] = "buffer or region too small",
	[rse_too_big]   = "record too large",
	[rse_no_space]  = "ring full, record dropped",
	[rse_mode]      = "operation not possible in this ring's mode",
	[rse_corrupt]   = "shared ring state is corrupt",
	[rse_nesting]   = "unbalanced reserve/commit or AUX begin/end",
	[rse_disabled]  = "tracing not enabled by the host",
	[rse_absent]    = "the region has no such area",
	[rse_busy]      = "being written by the other side",
	[rse_timeout]   = "the other side did not answer in time",
};

const char *rs_error_name(int err, const char *const *names, unsigned n,
			  const char *unknown)
{
	/* the magnitude in unsigned arithmetic: -INT_MIN does not exist */
	unsigned i = err < 0 ? 0u - (unsigned)err : (unsigned)err;

	return i < n && names[i] ? names[i] : unknown;
}

const char *rs_error_str(int err)
{
	return rs_error_name(err, rs_error_names, rse_max, "unknown error");
}
