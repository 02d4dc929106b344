/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "ringside/capture.h"

const char *cap_err_sys(int code)
{
	return strerror(-code);
}
