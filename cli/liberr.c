/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "liberr.h"

const char *liberr_sys(int code)
{
	return strerror(-code);
}
