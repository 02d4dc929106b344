/* SPDX-License-Identifier: MIT */
/*
 * The service's loop: libvirt's events noted as they come (the callbacks
 * only queue), then, outside libvirt's dispatch, each trigger turned into
 * a flight recorder capture of the domain's region file, or into a look
 * at what the domain is now (started, its device plugged in or out, its
 * metadata changed: enable --live, disable --live), or a reset's note;
 * the running opted-in domains' regions followed and their heartbeats
 * watched (svc_watch.c); root's requests on the control socket answered
 * (svc_ctl.c); the domains selected recorded (svc_rec.c); the metrics
 * served (svc_http.c, svc_metrics.c).  A capture is svc_capture.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/domain_events.h"
#include "ringside/domain_virt.h"
#include "ringside/service_ctl.h"
#include "ringside/service_limit.h"
#include "ringside/service_metrics.h"
#include "ringside/service_watch.h"

#include "svc_internal.h"

static void queue(struct svc *s, const char *domain,
		  enum svc_todo_kind kind, const char *reason)
{
	struct svc_todo *t;

	if (strlen(domain) > DOM_NAME_MAX)
		return;
	/* one look at a domain is enough for every event before it */
	for (unsigned i = 0; kind == SVC_TODO_FOLLOW && i < s->queued; i++)
		if (s->queue[i].kind == SVC_TODO_FOLLOW &&
		    !strcmp(s->queue[i].domain, domain))
			return;
	if (s->queued == SVC_QUEUE_MAX) {
		s->st.dropped++;
		svc_say(s, RS_LOG_WARNING, "%s: %s: not done, %u triggers are "
			"waiting already", domain, reason, SVC_QUEUE_MAX);
		return;
	}
	t = &s->queue[s->queued++];
	snprintf(t->domain, sizeof(t->domain), "%s", domain);
	t->kind = kind;
	t->reason = reason;
}

/* A reboot event: one reset however many times libvirt reports it. */
static void on_reboot(struct svc *s, const char *domain)
{
	int r = svc_resets_note(s->resets, domain, cap_time_now_ns());

	if (!r)
		return;
	s->st.resets++;
	svc_say(s, RS_LOG_NOTICE, "%s: the guest reset", domain);
	queue(s, domain, SVC_TODO_RESET, "reset");
}

/* The control socket made at @path: noted, to be removed at the end (if
 * it is still the one made). */
static void ctl_note(struct svc *s, const char *path)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISSOCK(st.st_mode))
		return;
	s->ctl_path = strdup(path);
	s->ctl_dev = st.st_dev;
	s->ctl_ino = st.st_ino;
}

/* Close the control socket and remove its file, unless another has taken
 * its name since (a second service refuses to while this one answers). */
static void ctl_close(struct svc *s)
{
	struct stat st;

	if (s->ctl >= 0)
		close(s->ctl);
	s->ctl = -1;
	if (s->ctl_path && !lstat(s->ctl_path, &st) && S_ISSOCK(st.st_mode) &&
	    st.st_dev == s->ctl_dev && st.st_ino == s->ctl_ino)
		unlink(s->ctl_path);
	free(s->ctl_path);
	s->ctl_path = NULL;
}

static void on_event(void *arg, const struct dom_event *ev)
{
	struct svc *s = arg;

	s->st.events++;
	switch (ev->kind) {
	case DOM_EV_CRASHED:
		svc_say(s, RS_LOG_NOTICE, "%s: the guest crashed", ev->domain);
		if (s->c->capture_on & SVC_ON_CRASH)
			queue(s, ev->domain, SVC_TODO_CAPTURE, "panic");
		break;
	case DOM_EV_WATCHDOG:
		svc_say(s, RS_LOG_NOTICE, "%s: its watchdog fired (action %d)",
			ev->domain, ev->detail);
		if (s->c->capture_on & SVC_ON_WATCHDOG)
			queue(s, ev->domain, SVC_TODO_CAPTURE, "watchdog");
		break;
	case DOM_EV_STARTED:
		svc_say(s, RS_LOG_INFO, "%s: %s", ev->domain,
			dom_events_name(ev->kind));
		queue(s, ev->domain, SVC_TODO_FOLLOW, "started");
		break;
	case DOM_EV_DEVICE_ADDED:
	case DOM_EV_DEVICE_REMOVED:
	case DOM_EV_METADATA:
		/* enable --live, disable --live, or another device: look */
		queue(s, ev->domain, SVC_TODO_FOLLOW, dom_events_name(ev->kind));
		break;
	case DOM_EV_STOPPED:
	case DOM_EV_UNDEFINED:
		svc_say(s, RS_LOG_INFO, "%s: %s", ev->domain,
			dom_events_name(ev->kind));
		svc_watch_del(s->watch, ev->domain);
		svc_host_unfollow(s, ev->domain);
		if (svc_rec_stop(s->rec, ev->domain, "stop"))
			svc_say(s, RS_LOG_INFO, "%s: its recording ends",
				ev->domain);
		break;
	case DOM_EV_REBOOT:
		on_reboot(s, ev->domain);
		break;
	default:
		break;
	}
}

static void on_connection(void *arg, int up)
{
	struct svc *s = arg;

	if (up)
		svc_say(s, RS_LOG_NOTICE, s->was_connected ? "connected to "
			"libvirtd again: events in between were not seen" :
			"following libvirt's domain events");
	else
		svc_say(s, RS_LOG_WARNING, "lost libvirtd; reconnecting");
	s->was_connected |= up;
	s->rescan |= up;
}

/* GET /metrics: the exposition text of the service and of every active
 * (running or paused) domain that is opted in. */
static int metrics_page(void *arg, char **body, size_t *len)
{
	struct svc *s = arg;
	struct svc_metrics_domain *d;
	struct rs_region_params layout;
	char **names = NULL, path[4096];
	struct svc_rec_domain *rd = NULL;
	size_t nr = 0, n = 0, nrd = 0;
	int err;

	if (dom_events_active(s->ev, &names, &nr))
		nr = 0;
	d = calloc(nr ? nr : 1, sizeof(*d));
	for (size_t i = 0; d && i < nr; i++)
		if (!dom_region_layout(names[i], path, sizeof(path), &layout)) {
			d[n].name = names[i];
			d[n++].region = names[i];
		}
	svc_recstats_get(svc_rec_counts(s->rec), &s->st.rec);
	svc_http_answers(s->http, s->st.http_answers);
	s->st.http_dropped = svc_http_dropped(s->http);
	err = svc_recstats_domains(svc_rec_counts(s->rec), &rd, &nrd);
	s->st.rec_domains = rd;
	s->st.nr_rec_domains = nrd;
	if (!err)
		err = d ? svc_metrics_text(s->metrics, &s->st,
					   s->c->capture_on & SVC_ON_HANG ?
					   svc_watch_count(s->watch) : 0, d, n,
					   cap_time_now_ns(), body, len) : -ENOMEM;
	s->st.rec_domains = NULL;
	s->st.nr_rec_domains = 0;
	svc_recstats_domains_free(rd, nrd);
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(d);
	return err;
}

/* Watch @domain's region (and its heartbeat) if it is opted in. */
static void watch(struct svc *s, const char *domain)
{
	struct rs_region_params layout;
	char path[4096];
	int err;

	err = dom_region_layout(domain, path, sizeof(path), &layout);
	if (err)
		return;   /* not opted in, or gone again */
	svc_host_follow(s, domain, layout.nr_rings);
	if (svc_watch_same(s->watch, domain, path))
		return;   /* the region watched */
	err = svc_watch_add(s->watch, domain, path, cap_time_now_ns());
	if (err)
		svc_say(s, RS_LOG_ERR, "%s: its region cannot be watched: %s",
			domain, strerror(-err));
}

/* Record @domain if it is selected, opted in and its rings are in
 * normal mode (an overwrite-mode one is a flight recorder: captured). */
static void record(struct svc *s, const char *domain)
{
	struct rs_region_params layout;
	char path[4096], uuid[SVC_UUID_MAX];
	int err;

	if (!svc_rec_config_selects(&s->c->rec, domain) ||
	    svc_rec_recording(s->rec, domain) ||
	    dom_region_layout(domain, path, sizeof(path), &layout))
		return;
	svc_domain_uuid(domain, uuid, sizeof(uuid));
	err = svc_rec_start(s->rec, domain, uuid, path, &layout);
	if (!err)
		svc_say(s, RS_LOG_NOTICE, "%s: recording its rings", domain);
	else if (err != -EMEDIUMTYPE)
		svc_say(s, RS_LOG_ERR, "%s: its rings cannot be recorded: %s",
			domain, err == -EWOULDBLOCK ?
			"another consumer drains them" :
			err < 0 && err > -4096 ? strerror(-err) :
			rs_error_str(err));
}

/* @domain's region is not the one followed any more (@why): its watch
 * and its recording end (its file completed: reason "disabled"). */
static void unfollow(struct svc *s, const char *domain, const char *why)
{
	int watched = svc_watch_has(s->watch, domain);
	/* one that is ending already (an event before said so) is not
	 * said again */
	int recorded = svc_rec_recording(s->rec, domain) &&
		       svc_rec_stop(s->rec, domain, "disabled");

	svc_watch_del(s->watch, domain);
	svc_host_unfollow(s, domain);
	if (watched || recorded)
		svc_say(s, RS_LOG_NOTICE, "%s: %s: %s%s", domain, why,
			recorded ? "its recording ends (its file completed), " :
			"", "its region is not watched any more");
}

/* Look at @domain now (it started, its device or metadata changed): an
 * opted-in domain's region watched and recorded, the region of one that
 * is not any more (disable --live) or that was laid out anew (enable
 * --live) let go. */
static void follow(struct svc *s, const char *domain, const char *what)
{
	struct rs_region_params layout;
	char path[4096];
	int err = dom_region_layout(domain, path, sizeof(path), &layout);

	if (err == -dome_not_enabled || err == -dome_no_shmem ||
	    err == -dome_not_running || err == -dome_no_domain) {
		unfollow(s, domain, err == -dome_not_running ||
			 err == -dome_no_domain ? "not running" :
			 "not opted in any more (disable --live)");
		return;
	}
	if (err) {
		svc_say(s, RS_LOG_ERR, "%s: %s: cannot find its region: %s",
			domain, what, dom_error_str(err));
		return;
	}
	if (svc_watch_has(s->watch, domain) &&
	    !svc_watch_same(s->watch, domain, path))
		unfollow(s, domain, "its region was laid out anew");
	watch(s, domain);
	record(s, domain);
}

/* svc_watch_check: a watched region's file went (disable --live removes
 * it) or was replaced (enable --live after it). */
static void on_gone(void *arg, const char *domain, int replaced)
{
	struct svc *s = arg;

	unfollow(s, domain, replaced ? "its region file was replaced" :
		 "its region file was removed (disable --live)");
	if (replaced)
		queue(s, domain, SVC_TODO_FOLLOW, "region replaced");
}

/* The guest of @domain reset: its heartbeat's age starts again, and the
 * region's count of boots says the agent's status is of the boot before. */
static void reset(struct svc *s, const char *domain)
{
	uint64_t gen;
	int err = svc_watch_reset(s->watch, domain, cap_time_now_ns(), &gen);

	if (err && err != -ENOENT)
		svc_say(s, RS_LOG_ERR, "%s: reset: its region's boot count "
			"cannot be written: %s", domain, strerror(-err));
}

/* After a (re)connection: every running domain, watched. */
static void rescan(struct svc *s)
{
	char **names;
	size_t nr;

	if (dom_events_running(s->ev, &names, &nr))
		return;
	s->rescan = 0;
	/* those that stopped while libvirtd was away: their files completed */
	svc_rec_keep_only(s->rec, names, nr, "stop");
	for (size_t i = 0; i < nr; i++) {
		follow(s, names[i], "running");
		free(names[i]);
	}
	free(names);
	svc_say(s, RS_LOG_INFO, "watching %zu opted-in domains' regions%s",
		svc_watch_count(s->watch), s->c->capture_on & SVC_ON_HANG ?
		" and heartbeats" : "");
}

/* A recording that ended in an error (a full disk) is begun anew, in a
 * file of its own, REC_RETRY_S after the last try. */
#define REC_RETRY_S 30u

static void retry_records(struct svc *s, uint64_t now)
{
	struct svc_rec_stats rs;
	char **names;
	size_t nr;

	svc_recstats_get(svc_rec_counts(s->rec), &rs);
	if (rs.failed == s->rec_failed || now < s->rec_retry_ns)
		return;
	s->rec_failed = rs.failed;
	s->rec_retry_ns = now + REC_RETRY_S * 1000000000ull;
	if (dom_events_running(s->ev, &names, &nr))
		return;
	for (size_t i = 0; i < nr; i++) {
		record(s, names[i]);
		free(names[i]);
	}
	free(names);
}

static int on_stale(void *arg, const char *domain, uint64_t secs)
{
	struct svc *s = arg;
	char out[4200];

	/* a paused guest beats no more: not a hang */
	if (dom_events_is_running(s->ev, domain) != 1)
		return 0;
	s->st.hangs++;
	svc_say(s, RS_LOG_NOTICE, "%s: its agent's heartbeat has not moved for "
		"%llu s: a hang", domain, (unsigned long long)secs);
	svc_capture_domain(s, domain, "hang", out, sizeof(out));
	return 1;
}

static void on_request(void *arg, const char *domain, char *reply, size_t len)
{
	struct svc *s = arg;

	s->st.requests++;
	/* svc_ctl_parse took only such names: nothing else is logged */
	if (dom_shm_name_check(domain)) {
		snprintf(reply, len, "error no such domain name");
		return;
	}
	svc_say(s, RS_LOG_NOTICE, "%s: a capture was asked for", domain);
	svc_capture_domain(s, domain, "request", reply, len);
}

int svc_open(struct svc **sp, const struct svc_config *c,
	     const struct svc_env *env)
{
	static const struct dom_events_ops ops = { on_event, on_connection };
	struct svc *s;
	int err;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = c;
	s->env = *env;
	s->ctl = -1;
	s->wake[0] = s->wake[1] = -1;
	err = svc_limit_new(&s->limit, c->burst, c->window_s);
	if (!err)
		err = svc_watch_new(&s->watch, c->capture_on & SVC_ON_HANG ?
				    c->hang_after_s : 0);
	if (!err)
		err = svc_resets_new(&s->resets, 0);
	if (!err && (c->capture_on & SVC_ON_HANG) &&
	    c->hang_after_s < SVC_HANG_MIN_S)
		svc_say(s, RS_LOG_WARNING, "hang-after %u s: %u s (the agent "
			"beats every second or two)", c->hang_after_s,
			SVC_HANG_MIN_S);
	if (!err)
		err = svc_rec_new(&s->rec, &c->rec,
				  c->rec.dir ? c->rec.dir : SVC_REC_DIR, env);
	/* record-region (tests, benchmarks): no libvirt domain, from now */
	for (uint32_t i = 0; !err && i < c->rec.nr_regions; i++) {
		int e = svc_rec_start(s->rec, c->rec.region_names[i], "",
				      c->rec.region_paths[i], NULL);

		if (e)
			svc_say(s, RS_LOG_ERR, "%s: region %s cannot be "
				"recorded: %s", c->rec.region_names[i],
				c->rec.region_paths[i], e < 0 && e > -4096 ?
				strerror(-e) : rs_error_str(e));
		else
			svc_say(s, RS_LOG_NOTICE, "%s: recording region %s",
				c->rec.region_names[i],
				c->rec.region_paths[i]);
	}
	if (!err)
		err = svc_metrics_new(&s->metrics);
	if (!err && !(c->metrics && !c->metrics[0])) {
		const char *addr = c->metrics ? c->metrics : SVC_METRICS_ADDR;

		err = svc_http_listen(&s->http, addr);
		if (err)
			svc_say(s, RS_LOG_ERR, "metrics endpoint %s: %s%s",
				addr, strerror(-err),
				c->metrics ? "" : ": metrics not served");
		else
			svc_say(s, RS_LOG_INFO, "metrics at http://%s/metrics",
				addr);
		/* the default address taken by another program costs the
		 * metrics, not the service; an address asked for is refused */
		if (!c->metrics)
			err = 0;
	}
	if (!err && !(c->socket && !c->socket[0])) {
		const char *path = c->socket ? c->socket : SVC_SOCKET_PATH;

		err = svc_ctl_listen(path, &s->ctl);
		if (!err)
			err = svc_ctl_new(&s->ctlc, s->ctl);
		if (err)
			svc_say(s, RS_LOG_ERR, "control socket %s: %s", path,
				strerror(-err));
		else
			ctl_note(s, path);
	}
	if (!err)
		err = dom_events_open(&s->ev, c->uri, &ops, s, 1);
	if (!s->ev) {
		svc_close(s);   /* what was made so far */
		return err;
	}
	if (err)
		svc_say(s, RS_LOG_WARNING, "libvirtd is not there yet (%s): "
			"trying every second", dom_error_str(err));
	/* a connection or a request wakes the loop at once, not at its next
	 * pass: a flood of connections is taken as it comes */
	if (s->http)
		s->wake[0] = dom_events_wake(s->ev, svc_http_fd(s->http));
	if (s->ctlc)
		s->wake[1] = dom_events_wake(s->ev, svc_ctl_fd(s->ctlc));
	*sp = s;
	return 0;
}

int svc_run(struct svc *s, int timeout_ms)
{
	int err = dom_events_run(s->ev, timeout_ms);
	char out[4200];

	if (s->rescan)
		rescan(s);
	/* the regions that went or were replaced since the last pass (a
	 * replaced one queues a look at its domain) */
	svc_watch_check(s->watch, on_gone, s);
	for (unsigned i = 0; i < s->queued; i++) {
		struct svc_todo *t = &s->queue[i];

		if (t->kind == SVC_TODO_CAPTURE)
			svc_capture_domain(s, t->domain, t->reason, out,
					   sizeof(out));
		else if (t->kind == SVC_TODO_FOLLOW)
			follow(s, t->domain, t->reason);
		else
			reset(s, t->domain);
	}
	s->queued = 0;
	svc_watch_poll(s->watch, cap_time_now_ns(), on_stale, s);
	svc_rec_poll(s->rec, cap_time_now_ns());
	retry_records(s, cap_time_now_ns());
	if (s->ctlc)
		svc_ctl_serve(s->ctlc, cap_time_now_ns(), on_request, s);
	if (s->http)
		svc_http_poll(s->http, cap_time_now_ns(), metrics_page, s);
	s->st.reconnects = dom_events_reconnects(s->ev);
	return err;
}

const struct svc_stats *svc_stats(const struct svc *s)
{
	return &s->st;
}

void svc_record_stats(const struct svc *s, struct svc_rec_stats *st)
{
	svc_recstats_get(svc_rec_counts(s->rec), st);
}

/* Accepts a service svc_open did not finish: what was made goes. */
void svc_close(struct svc *s)
{
	if (!s)
		return;
	dom_events_unwake(s->ev, s->wake[0]);
	dom_events_unwake(s->ev, s->wake[1]);
	svc_ctl_free(s->ctlc);
	/* every open file completed first */
	svc_rec_free(s->rec, "shutdown");
	dom_events_close(s->ev);
	ctl_close(s);
	svc_http_close(s->http);
	svc_metrics_free(s->metrics);
	svc_watch_free(s->watch);
	svc_host_free_all(s);
	svc_resets_free(s->resets);
	svc_limit_free(s->limit);
	free(s);
}
