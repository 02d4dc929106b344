/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "ringside/domain.h"
#include "ringside/perfdata.h"
#include "ringside/ring.h"

#include "err.h"

_Static_assert(ERR_PDF == PDF_ERR_BASE, "perfdata codes pass through unchanged");

/* The libvirt library's codes pass through unchanged. */
_Static_assert(DOM_ERROR_BASE == ERR_DOM, "libvirt library errors at ERR_DOM");

const char *err_str(int err)
{
	int e = -err;

	if (err >= 0)
		return "success";
	if (e < ERR_RING)
		return strerror(e);
	if (e < ERR_PDF)
		return rs_errstr(e - ERR_RING);
	if (e >= ERR_DOM)
		return dom_errstr(err);
	return pdf_errstr(err);
}
