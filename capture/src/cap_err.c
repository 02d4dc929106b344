/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "cap_internal.h"

const char *cap_err_sys(int code)
{
	return strerror(-code);
}
