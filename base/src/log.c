/* SPDX-License-Identifier: MIT */
/* The log callback, called one at a time (ringside/log.h). */
#include <pthread.h>

#include "ringside/log.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void rs_log_v(rs_log_fn fn, void *ctx, int level, const char *fmt,
	      va_list ap)
{
	if (!fn)
		return;
	pthread_mutex_lock(&log_lock);
	fn(ctx, level, fmt, ap);
	pthread_mutex_unlock(&log_lock);
}

void rs_log(rs_log_fn fn, void *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rs_log_v(fn, ctx, level, fmt, ap);
	va_end(ap);
}
