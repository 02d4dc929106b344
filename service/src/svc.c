/* SPDX-License-Identifier: MIT */
/*
 * The service's loop: libvirt's events noted as they come (the callbacks
 * only queue), then, outside libvirt's dispatch, each trigger turned into
 * a flight recorder capture of the domain's region file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ringside/capture.h"
#include "ringside/domain_events.h"
#include "ringside/domain_virt.h"
#include "ringside/service.h"

#define QUEUE_MAX 64u

struct trigger {
	char domain[DOM_NAME_MAX + 1];
	const char *reason;        /* "panic", "watchdog" */
};

struct svc {
	const struct svc_config *c;
	struct dom_events *ev;
	struct svc_limit *limit;
	svc_log_fn log;
	void *log_arg;
	int argc;
	char *const *argv;
	int was_connected;
	struct trigger queue[QUEUE_MAX];
	unsigned queued;
	struct svc_stats st;
};

static void say(struct svc *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct svc *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->log)
		return;
	va_start(ap, fmt);
	s->log(s->log_arg, fmt, ap);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void queue(struct svc *s, const char *domain, const char *reason)
{
	struct trigger *t;

	if (strlen(domain) > DOM_NAME_MAX)
		return;
	if (s->queued == QUEUE_MAX) {
		s->st.dropped++;
		say(s, "%s: %s: not captured, %u triggers are waiting already",
		    domain, reason, QUEUE_MAX);
		return;
	}
	t = &s->queue[s->queued++];
	snprintf(t->domain, sizeof(t->domain), "%s", domain);
	t->reason = reason;
}

static void on_event(void *arg, const struct dom_event *ev)
{
	struct svc *s = arg;

	s->st.events++;
	switch (ev->kind) {
	case DOM_EV_CRASHED:
		say(s, "%s: the guest crashed", ev->domain);
		if (s->c->capture_on & SVC_ON_CRASH)
			queue(s, ev->domain, "panic");
		break;
	case DOM_EV_WATCHDOG:
		say(s, "%s: its watchdog fired (action %d)", ev->domain,
		    ev->detail);
		if (s->c->capture_on & SVC_ON_WATCHDOG)
			queue(s, ev->domain, "watchdog");
		break;
	case DOM_EV_STARTED:
	case DOM_EV_STOPPED:
	case DOM_EV_REBOOT:
		say(s, "%s: %s", ev->domain, dom_event_name(ev->kind));
		break;
	default:
		break;
	}
}

static void on_connection(void *arg, int up)
{
	struct svc *s = arg;

	if (up)
		say(s, s->was_connected ? "connected to libvirtd again: events "
		    "in between were not seen" : "following libvirt's domain "
		    "events");
	else
		say(s, "lost libvirtd; reconnecting");
	s->was_connected |= up;
}

/* The domain's <on_crash> policy from its live XML into @buf ("" when
 * libvirt does not say). */
static void on_crash_policy(const char *domain, char *buf, size_t len)
{
	struct dom_virt *d = NULL;
	char *xml = NULL;
	const char *a, *b;

	buf[0] = '\0';
	if (dom_virt_open(&d, NULL, domain, 1))
		return;
	if (!dom_virt_xml(d, 0, &xml) && (a = strstr(xml, "<on_crash>")) &&
	    (b = strstr(a, "</on_crash>"))) {
		a += strlen("<on_crash>");
		snprintf(buf, len, "%.*s", (int)(b - a), a);
	}
	free(xml);
	dom_virt_close(d);
}

static void capture(struct svc *s, const struct trigger *t)
{
	struct rs_region_params layout;
	struct flight_result res;
	char path[4096], cache[4200], policy[64];
	const char *dir = s->c->capture_dir ? s->c->capture_dir : FLIGHT_DIR;
	struct flight_req q = {
		.domain = t->domain, .region_path = path, .layout = &layout,
		.dir = dir, .keep = s->c->keep, .keep_bytes = s->c->keep_bytes,
		.buildid_dir = cache, .argc = s->argc, .argv = s->argv,
		.reason = t->reason,
	};
	int err, ok;

	err = dom_region_layout(t->domain, path, sizeof(path), &layout);
	if (err == -dome_not_enabled || err == -dome_no_shmem) {
		s->st.not_enabled++;
		return;
	}
	if (err == -dome_not_running || err == -dome_no_domain) {
		say(s, "%s: %s: the domain stopped: its capture is the hook's",
		    t->domain, t->reason);
		return;
	}
	if (err) {
		s->st.failed++;
		say(s, "%s: %s: cannot find its region: %s", t->domain,
		    t->reason, dom_errstr(err));
		return;
	}
	on_crash_policy(t->domain, policy, sizeof(policy));
	if (!strcmp(t->reason, "panic") && strstr(policy, "destroy")) {
		say(s, "%s: panic: on_crash %s: the hook captures it as the "
		    "domain stops", t->domain, policy);
		return;
	}
	ok = svc_limit_take(s->limit, t->domain, now_ns());
	if (ok <= 0) {
		s->st.rate_limited += ok == 0;
		s->st.failed += ok < 0;
		say(s, "%s: %s: not captured: %s", t->domain, t->reason,
		    ok ? "out of memory" : "rate limit reached");
		return;
	}
	snprintf(cache, sizeof(cache), "%s/.debug", dir);
	err = flight_capture(&q, &res);
	if (err) {
		s->st.failed++;
		say(s, "%s: %s: the flight recorder could not be captured: %s",
		    t->domain, t->reason, liberr_str(&res.fail.e));
		return;
	}
	if (res.empty) {
		s->st.empty++;
		say(s, "%s: %s: flight recorder empty: nothing captured",
		    t->domain, t->reason);
		return;
	}
	s->st.captures++;
	say(s, "%s: %s: flight recorder captured: %s (%llu records, %llu "
	    "overwritten, %llu lost, %llu corrupt); %u older captures removed",
	    t->domain, t->reason, res.path, (unsigned long long)res.records,
	    (unsigned long long)res.overwritten, (unsigned long long)res.lost,
	    (unsigned long long)res.corrupt, res.pruned);
}

int svc_open(struct svc **sp, const struct svc_config *c, svc_log_fn log,
	     void *log_arg, int argc, char *const *argv)
{
	static const struct dom_events_ops ops = { on_event, on_connection };
	struct svc *s;
	int err;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = c;
	s->log = log;
	s->log_arg = log_arg;
	s->argc = argc;
	s->argv = argv;
	err = svc_limit_new(&s->limit, c->burst, c->window_s);
	if (err) {
		free(s);
		return err;
	}
	err = dom_events_open(&s->ev, c->uri, &ops, s, 1);
	if (!s->ev) {
		svc_limit_free(s->limit);
		free(s);
		return err;
	}
	if (err)
		say(s, "libvirtd is not there yet (%s): trying every second",
		    dom_errstr(err));
	*sp = s;
	return 0;
}

int svc_run(struct svc *s, int timeout_ms)
{
	int err = dom_events_run(s->ev, timeout_ms);

	for (unsigned i = 0; i < s->queued; i++)
		capture(s, &s->queue[i]);
	s->queued = 0;
	s->st.reconnects = dom_events_reconnects(s->ev);
	return err;
}

const struct svc_stats *svc_stats(const struct svc *s)
{
	return &s->st;
}

void svc_close(struct svc *s)
{
	if (!s)
		return;
	dom_events_close(s->ev);
	svc_limit_free(s->limit);
	free(s);
}
