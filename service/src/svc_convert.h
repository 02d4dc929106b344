/* SPDX-License-Identifier: MIT */
/*
 * Private to the service: the pprof conversions (src/svc_convert.c).
 * Each complete recording gets its profile, FILE.data.pb.gz, made in a
 * thread of the pool's, off the recorder's thread: a recorder never waits
 * for it.  At most SVC_PPROF_RUNNING run at once; up to SVC_PPROF_QUEUED
 * wait their turn, past which a file goes without (counted).
 */
#ifndef RINGSIDE_SVC_CONVERT_H
#define RINGSIDE_SVC_CONVERT_H

#include "ringside/log.h"

#include "svc_recstats.h"

struct svc_convert;

/* Counted in @st (pprof_*), failures said through @log.  0, -ENOMEM. */
int svc_convert_new(struct svc_convert **cp, struct svc_recstats *st,
		    rs_log_fn log, void *log_arg);

/* Make @domain's @data's profile, now or when a thread is free. */
void svc_convert_file(struct svc_convert *c, const char *domain,
		      const char *data);

/* Wait until every conversion queued is done, then free.  Accepts NULL. */
void svc_convert_free(struct svc_convert *c);

#endif /* RINGSIDE_SVC_CONVERT_H */
