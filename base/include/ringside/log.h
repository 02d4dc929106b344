/* SPDX-License-Identifier: MIT */
/*
 * How every ringside library reports what it has to say: no library
 * prints, each takes a callback of this one type (and its context) from
 * the program that uses it, which decides where a line goes (stderr,
 * syslog, a test's buffer).  One message per call, without a trailing
 * newline.
 */
#ifndef RINGSIDE_LOG_H
#define RINGSIDE_LOG_H

#include <stdarg.h>

/* A message's level: syslog's numbers, so that a callback may hand it
 * to vsyslog as it is. */
enum rs_log_level {
	RS_LOG_ERR     = 3,   /* something failed: a capture, a recording */
	RS_LOG_WARNING = 4,   /* something is wrong and was dealt with */
	RS_LOG_NOTICE  = 5,   /* what an operator wants to know happened */
	RS_LOG_INFO    = 6,   /* the rest */
};

/* The callback: @ctx as the program gave it, the level, the message as a
 * printf format and its arguments. */
typedef void (*rs_log_fn)(void *ctx, int level, const char *fmt, va_list ap);

/*
 * Call @fn (@ctx, @level, @fmt, ...) when @fn is not NULL.  The calls of
 * every library in the process go through here one at a time: a callback
 * is never run by two threads at once (the service's recorders log from
 * threads of their own).
 */
void rs_log(rs_log_fn fn, void *ctx, int level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void rs_log_v(rs_log_fn fn, void *ctx, int level, const char *fmt,
	      va_list ap) __attribute__((format(printf, 4, 0)));

#endif /* RINGSIDE_LOG_H */
