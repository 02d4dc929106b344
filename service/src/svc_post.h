/* SPDX-License-Identifier: MIT */
/*
 * Private to the service: the post-command's queue (src/svc_post.c).
 * Each complete file (a recording's, a capture's) is given to the
 * configured program as `COMMAND FILE FILE.json`, started from the
 * service's loop (never from a recorder), a few at a time, and tried
 * again 1 s, 2 s, 4 s, ... later when it fails.
 */
#ifndef RINGSIDE_SVC_POST_H
#define RINGSIDE_SVC_POST_H

#include <stdint.h>

#include "ringside/log.h"

#include "svc_recstats.h"

#define SVC_POST_MAX      256u     /* files waiting for the post-command */
#define SVC_POST_RUNNING  4u       /* post-commands at once */

struct svc_post;

/* Run @command (an absolute path, copied; NULL: none, every file is let
 * go) on each file given, at most @tries times; counted in @st (post_*),
 * said through @log.  0 or -ENOMEM. */
int svc_post_new(struct svc_post **pp, const char *command, uint32_t tries,
		 struct svc_recstats *st, rs_log_fn log, void *log_arg);

/* Files still waiting are not run.  Accepts NULL. */
void svc_post_free(struct svc_post *p);

/* Queue @data_path (from any thread).  0, or -ENOSPC: SVC_POST_MAX files
 * wait already (counted as dropped, said). */
int svc_post_add(struct svc_post *p, const char *data_path);

/* From the service's loop: reap the commands that ended, start those
 * whose time came, never waiting. */
void svc_post_poll(struct svc_post *p, uint64_t now_ns);

/* Files running or waiting. */
unsigned svc_post_pending(struct svc_post *p);

#endif /* RINGSIDE_SVC_POST_H */
