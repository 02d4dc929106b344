/* SPDX-License-Identifier: MIT */
/*
 * The post-command's queue: a file given is run through the configured
 * command from the service's loop (svc_post_poll), SVC_POST_RUNNING at a
 * time, each up to its tries, 1 s, 2 s, 4 s, ... apart.  A recorder only
 * queues (svc_post_add): it never waits for the command.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "svc_post.h"

#define PATH_LEN 4264u

extern char **environ;

struct post {
	char data[PATH_LEN];
	uint32_t tries;
	uint64_t next_ns;          /* not before (host CLOCK_MONOTONIC) */
	pid_t pid;                 /* running; 0 waiting */
};

struct svc_post {
	char *command;             /* a copy; NULL: none */
	uint32_t tries;
	struct svc_recstats *st;
	rs_log_fn log;
	void *log_arg;
	pthread_mutex_t lock;      /* the queue */
	struct post *q;
	unsigned nr;
};

int svc_post_new(struct svc_post **pp, const char *command, uint32_t tries,
		 struct svc_recstats *st, rs_log_fn log, void *log_arg)
{
	struct svc_post *p = calloc(1, sizeof(*p));

	*pp = NULL;
	if (p) {
		p->q = calloc(SVC_POST_MAX, sizeof(*p->q));
		p->command = command ? strdup(command) : NULL;
	}
	if (!p || !p->q || (command && !p->command)) {
		if (p) {
			free(p->q);
			free(p->command);
		}
		free(p);
		return -ENOMEM;
	}
	p->tries = tries;
	p->st = st;
	p->log = log;
	p->log_arg = log_arg;
	pthread_mutex_init(&p->lock, NULL);
	*pp = p;
	return 0;
}

void svc_post_free(struct svc_post *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p->command);
	free(p->q);
	free(p);
}

int svc_post_add(struct svc_post *p, const char *data_path)
{
	int full;

	if (!p->command)
		return 0;
	pthread_mutex_lock(&p->lock);
	full = p->nr == SVC_POST_MAX;
	if (!full) {
		struct post *e = &p->q[p->nr++];

		memset(e, 0, sizeof(*e));
		snprintf(e->data, sizeof(e->data), "%s", data_path);
	}
	pthread_mutex_unlock(&p->lock);
	if (!full)
		return 0;
	svc_recstats_lock(p->st)->post_dropped++;
	svc_recstats_unlock(p->st);
	rs_log(p->log, p->log_arg, RS_LOG_WARNING, "%s: not given to the "
	       "post-command: %u files wait for it already", data_path,
	       SVC_POST_MAX);
	return -ENOSPC;
}

/* Start the command on @e.  0 or -errno. */
static int spawn(const struct svc_post *p, struct post *e)
{
	char json[PATH_LEN + 8];
	char *argv[] = { p->command, e->data, json, NULL };
	posix_spawn_file_actions_t fa;
	int err;

	snprintf(json, sizeof(json), "%s.json", e->data);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	err = posix_spawn(&e->pid, p->command, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		e->pid = 0;
	return -err;
}

/* What a pass over the queue did, counted once it is over. */
struct pass {
	uint64_t run, ok, failed;
};

/* @e's turn at @now_ns: 1 while it runs or waits, 0 when it is done
 * (succeeded, or failed its last try). */
static int step(struct svc_post *p, struct post *e, uint64_t now_ns,
		unsigned *running, struct pass *n)
{
	int status, ok = 0;

	if (e->pid > 0) {
		pid_t w = waitpid(e->pid, &status, WNOHANG);

		if (w == 0) {
			++*running;
			return 1;
		}
		ok = w == e->pid && WIFEXITED(status) && !WEXITSTATUS(status);
		e->pid = 0;
	} else if (now_ns >= e->next_ns && *running < SVC_POST_RUNNING) {
		n->run++;
		if (!spawn(p, e)) {
			++*running;
			return 1;
		}
	} else {
		return 1;
	}
	if (ok) {
		n->ok++;
		return 0;
	}
	e->tries++;
	if (e->tries < p->tries) {
		e->next_ns = now_ns + (1000000000ull << (e->tries - 1));
		return 1;
	}
	n->failed++;
	rs_log(p->log, p->log_arg, RS_LOG_ERR, "%s: the post-command failed "
	       "%u times: given up", e->data, e->tries);
	return 0;
}

void svc_post_poll(struct svc_post *p, uint64_t now_ns)
{
	struct pass n = { 0 };
	struct svc_rec_stats *st;
	unsigned running = 0;

	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->nr; i++)
		if (!step(p, &p->q[i], now_ns, &running, &n))
			p->q[i--] = p->q[--p->nr];
	pthread_mutex_unlock(&p->lock);
	st = svc_recstats_lock(p->st);
	st->post_run += n.run;
	st->post_ok += n.ok;
	st->post_failed += n.failed;
	svc_recstats_unlock(p->st);
}

unsigned svc_post_pending(struct svc_post *p)
{
	unsigned n;

	pthread_mutex_lock(&p->lock);
	n = p->nr;
	pthread_mutex_unlock(&p->lock);
	return n;
}
