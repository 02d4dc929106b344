/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "ringside/capture.h"

const char *liberr_sys(int code)
{
	return strerror(-code);
}
