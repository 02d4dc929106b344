/* SPDX-License-Identifier: MIT */
/*
 * The pprof conversions of complete recordings, in detached threads of
 * their own: each converts its file, then the queued ones, until none is
 * left (ringside/pprof.h, pprof_file_write).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ringside/domain.h"
#include "ringside/pprof.h"

#include "svc_convert.h"

/* One file's profile. */
struct conversion {
	struct conversion *next;   /* in the queue */
	struct svc_convert *c;
	char domain[DOM_NAME_MAX + 1];
	char data[4096];
};

struct svc_convert {
	struct svc_recstats *st;
	rs_log_fn log;
	void *log_arg;
	pthread_mutex_t lock;      /* all below */
	unsigned running;          /* conversion threads */
	pthread_cond_t ended;      /* one did */
	struct conversion *queue;  /* files waiting for a thread, oldest
				    * first */
	struct conversion *tail;
	unsigned queued;
};

int svc_convert_new(struct svc_convert **cp, struct svc_recstats *st,
		    rs_log_fn log, void *log_arg)
{
	struct svc_convert *c = calloc(1, sizeof(*c));

	*cp = c;
	if (!c)
		return -ENOMEM;
	c->st = st;
	c->log = log;
	c->log_arg = log_arg;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->ended, NULL);
	return 0;
}

/* So many more profiles written, failed, skipped. */
static void count(struct svc_convert *c, uint64_t ok, uint64_t failed,
		  uint64_t skipped)
{
	struct svc_rec_stats *st = svc_recstats_lock(c->st);

	st->pprof_ok += ok;
	st->pprof_failed += failed;
	st->pprof_skipped += skipped;
	svc_recstats_unlock(c->st);
}

static void *convert_main(void *arg)
{
	struct conversion *cv = arg;
	struct svc_convert *c = cv->c;

	while (cv) {
		struct pprof_params pp = { .size = sizeof(pp),
					   .domain = cv->domain };
		char out[4200];
		int err;

		snprintf(out, sizeof(out), "%s" SVC_PPROF_SUFFIX, cv->data);
		err = pprof_file_write(cv->data, out, &pp, NULL);
		if (err)
			rs_log(c->log, c->log_arg, RS_LOG_ERR, "%s: %s: no "
			       "profile: %s", cv->domain, cv->data,
			       pdf_error_str(err));
		count(c, !err, !!err, 0);
		free(cv);
		pthread_mutex_lock(&c->lock);
		cv = c->queue;
		if (cv) {
			c->queue = cv->next;
			if (!c->queue)
				c->tail = NULL;
			c->queued--;
		} else {
			c->running--;
			pthread_cond_broadcast(&c->ended);
		}
		pthread_mutex_unlock(&c->lock);
	}
	return NULL;
}

void svc_convert_file(struct svc_convert *c, const char *domain,
		      const char *data)
{
	struct conversion *cv = calloc(1, sizeof(*cv));
	pthread_attr_t at;
	pthread_t t;
	int start = 0, skipped = 0;

	if (cv) {
		cv->c = c;
		snprintf(cv->domain, sizeof(cv->domain), "%s", domain);
		snprintf(cv->data, sizeof(cv->data), "%s", data);
	}
	pthread_mutex_lock(&c->lock);
	if (cv && c->running < SVC_PPROF_RUNNING) {
		c->running++;
		start = 1;
	} else if (cv && c->queued < SVC_PPROF_QUEUED) {
		if (c->tail)
			c->tail->next = cv;
		else
			c->queue = cv;
		c->tail = cv;
		c->queued++;
		cv = NULL;
	} else {
		skipped = 1;
	}
	pthread_mutex_unlock(&c->lock);
	if (skipped)
		count(c, 0, 0, 1);
	if (!start) {
		free(cv);
		return;
	}
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, convert_main, cv)) {
		pthread_mutex_lock(&c->lock);
		c->running--;
		pthread_mutex_unlock(&c->lock);
		count(c, 0, 1, 0);
		free(cv);
	}
	pthread_attr_destroy(&at);
}

void svc_convert_free(struct svc_convert *c)
{
	unsigned left = 0;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	while (c->running)
		pthread_cond_wait(&c->ended, &c->lock);
	/* left only where no thread could be started for them */
	while (c->queue) {
		struct conversion *cv = c->queue;

		c->queue = cv->next;
		left++;
		free(cv);
	}
	pthread_mutex_unlock(&c->lock);
	count(c, 0, left, 0);
	pthread_cond_destroy(&c->ended);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
