/* SPDX-License-Identifier: MIT */
/*
 * A trigger turned into a capture: the domain's region found by its
 * metadata, a panic the hook captures left to it, the rate limit taken,
 * the flight recorder captured (ringside/capture.h, cap_flight_capture) into
 * the capture directory with what the agent had not forwarded of the
 * guest kernel's perf buffers where its memory holds still, its sidecar
 * written, the file given to the post-command, counted for the metrics,
 * and the outcome said.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "ringside/capture.h"
#include "ringside/domain_virt.h"
#include "ringside/service_limit.h"
#include "ringside/service_metrics.h"
#include "ringside/service_sidecar.h"

#include "svc_internal.h"

/* A capture written, for the metrics: by domain and reason, when. */
static void note(struct svc *s, const char *domain, const char *reason)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (svc_metrics_capture(s->metrics, domain, reason,
				(double)ts.tv_sec + (double)ts.tv_nsec / 1e9))
		svc_say(s, RS_LOG_WARNING, "%s: %s: not counted in the "
			"metrics: out of memory", domain, reason);
}

/* A capture's sidecar (its window: the moment of the copy) and the
 * post-command. */
static void ship(struct svc *s, const char *domain, const char *reason,
		 const struct cap_flight_result *res)
{
	struct utsname u;
	char uuid[SVC_UUID_MAX];
	const char *base = strrchr(res->path, '/');
	struct svc_sidecar sc = {
		.domain = domain, .uuid = uuid, .reason = reason,
		.file = base ? base + 1 : res->path, .bytes = res->bytes,
		.rings = res->rings, .records = res->records,
		.corrupt = res->corrupt, .overwritten = res->overwritten,
		.lost = res->lost,
		.wall_offset_ns = svc_sidecar_wall_offset(),
	};
	int err;

	sc.start_ns = sc.end_ns = cap_time_now_ns();
	sc.host = uname(&u) ? "" : u.nodename;
	svc_domain_uuid(domain, uuid, sizeof(uuid));
	err = svc_sidecar_write(res->path, &sc);
	if (err)
		svc_say(s, RS_LOG_ERR, "%s: %s: its sidecar was not written: "
			"%s", domain, res->path, strerror(-err));
	svc_rec_post(s->rec, res->path);
	/* the captures the bounds removed leave no sidecar behind */
	if (base) {
		char ddir[4096];

		snprintf(ddir, sizeof(ddir), "%.*s", (int)(base - res->path),
			 res->path);
		svc_sidecar_orphans(ddir, NULL);
	}
}

/* @domain's region file into @path and its layout: 0, or -1 with the
 * answer in @out (not opted in, stopped: the hook's, not found). */
static int region(struct svc *s, const char *domain, const char *reason,
		  char *path, size_t plen, struct rs_region_params *layout,
		  char *out, size_t len)
{
	int err = dom_region_layout(domain, path, plen, layout);

	if (!err)
		return 0;
	if (err == -dome_not_enabled || err == -dome_no_shmem) {
		s->st.not_enabled++;
		snprintf(out, len, "error %s is not opted in", domain);
	} else if (err == -dome_not_running || err == -dome_no_domain) {
		svc_say(s, RS_LOG_INFO, "%s: %s: the domain stopped: its "
			"capture is the hook's", domain, reason);
		snprintf(out, len, "error %s: %s", domain, dom_error_str(err));
	} else {
		s->st.failed++;
		svc_say(s, RS_LOG_ERR, "%s: %s: cannot find its region: %s",
			domain, reason, dom_error_str(err));
		snprintf(out, len, "error cannot find its region: %s",
			 dom_error_str(err));
	}
	return -1;
}

/* Is @domain to be captured for @reason now?  1, or 0 with the answer in
 * @out (a panic the hook captures, the rate limit). */
static int allowed(struct svc *s, const char *domain, const char *reason,
		   char *out, size_t len)
{
	char policy[64];
	int ok;

	svc_domain_on_crash(domain, policy, sizeof(policy));
	if (!strcmp(reason, "panic") && strstr(policy, "destroy")) {
		svc_say(s, RS_LOG_NOTICE, "%s: panic: on_crash %s: the hook "
			"captures it as the domain stops", domain, policy);
		return 0;
	}
	ok = svc_limit_take(s->limit, domain, cap_time_now_ns());
	if (ok > 0)
		return 1;
	s->st.rate_limited += ok == 0;
	s->st.failed += ok < 0;
	svc_say(s, RS_LOG_WARNING, "%s: %s: not captured: %s", domain, reason,
		ok ? "out of memory" : "rate limit reached");
	snprintf(out, len, "error %s", ok ? "out of memory" :
		 "rate limit reached (rate-limit in the service's "
		 "configuration)");
	return 0;
}

/* Page reads of the guest kernel's buffers per capture: 16 MiB, every
 * buffer of 31 CPUs at the agent's default 128 pages (one monitor call
 * each); a larger guest's other buffers are counted, not read. */
#define SVC_KBUF_PAGE_READS 4096u

/*
 * Whether @reason's capture reads the guest's memory too: its kernel's
 * buffers hold up to a beat of samples the agent had not forwarded (a
 * hung or panicked guest's last ones).  A hung guest and a request: the
 * domain runs on.  A panic under on_crash preserve: it is kept as it
 * stopped.  Not a panic under restart nor a watchdog (whose action may
 * be a reset): the guest boots again under the read.
 */
static int reads_memory(const char *domain, const char *reason)
{
	char policy[64];

	if (!strcmp(reason, "hang") || !strcmp(reason, "request"))
		return 1;
	if (strcmp(reason, "panic"))
		return 0;
	svc_domain_on_crash(domain, policy, sizeof(policy));
	return strstr(policy, "preserve") != NULL;
}

/* The kernel's buffers' outcome, for the capture's line: "" when they
 * were not read. */
static void kbuf_words(const struct cap_flight_req *q,
		       const struct cap_flight_result *res, char *buf,
		       size_t len)
{
	const char *why = res->kbuf_state == GI_KBUF_BUSY ?
			  "their table was being written" :
			  res->kbuf_state == GI_KBUF_CORRUPT ?
			  "a table no agent writes" :
			  res->kbuf_state == GI_KBUF_MISMATCH ?
			  "not of the region's sample type" : "none published";

	buf[0] = '\0';
	if (!q->kbuf_src)
		return;
	if (res->kbuf_state != GI_KBUF_OK) {
		snprintf(buf, len, "; the guest kernel's buffers: %s", why);
		return;
	}
	snprintf(buf, len, "; %llu records from the guest kernel's buffers%s",
		 (unsigned long long)res->kbuf_records,
		 res->kbuf_cpus_unread ? " (some CPUs' not read)" : "");
}

int svc_capture_domain(struct svc *s, const char *domain, const char *reason,
		       char *out, size_t len)
{
	struct dom_virt *mem = NULL;
	struct gi_kbuf_src kbuf;
	char kwords[96];
	struct rs_region_params layout;
	struct cap_flight_result res;
	char path[4096];
	const char *dir = s->c->capture_dir ? s->c->capture_dir : CAP_FLIGHT_DIR;
	struct cap_flight_req q = {
		.domain = domain, .region_path = path, .layout = &layout,
		.dir = dir, .keep = s->c->keep, .keep_bytes = s->c->keep_bytes,
		.argc = s->env.argc, .argv = s->env.argv,
		.reason = reason,
		.host = svc_host_of(s, domain),
	};
	int err;

	out[0] = '\0';
	if (region(s, domain, reason, path, sizeof(path), &layout, out, len) ||
	    !allowed(s, domain, reason, out, len))
		return -1;
	/* never a reason to fail: the rings are captured without it */
	if (reads_memory(domain, reason) &&
	    !dom_virt_open(&mem, s->c->uri, domain, 0) &&
	    !cap_source_domain_kbuf_src_of(mem, &kbuf)) {
		kbuf.max_page_reads = SVC_KBUF_PAGE_READS;
		q.kbuf_src = &kbuf;
	}
	err = cap_flight_capture(&q, &res);
	dom_virt_close(mem);
	if (err) {
		/* a full disk: nothing is removed to make room (the captures'
		 * own bounds apply after a capture), the region never is */
		int full = err == -ENOSPC || err == -EDQUOT;

		s->st.failed++;
		s->st.failed_disk_full += full;
		svc_say(s, RS_LOG_ERR, "%s: %s: the flight recorder could not "
			"be captured: %s%s%s", domain, reason,
			cap_err_str(&res.fail.e), full ? ": the disk of " : "",
			full ? dir : "");
		snprintf(out, len, "error the flight recorder could not be "
			 "captured: %s%s%s", cap_err_str(&res.fail.e),
			 full ? ": the disk of " : "", full ? dir : "");
		return -1;
	}
	if (res.empty) {
		s->st.empty++;
		svc_say(s, RS_LOG_NOTICE, "%s: %s: flight recorder empty: "
			"nothing captured", domain, reason);
		snprintf(out, len, "error the flight recorder is empty (the "
			 "guest never wrote to it): nothing captured");
		return -1;
	}
	s->st.captures++;
	ship(s, domain, reason, &res);
	note(s, domain, reason);
	snprintf(out, len, "ok %s", res.path);
	kbuf_words(&q, &res, kwords, sizeof(kwords));
	svc_say(s, RS_LOG_NOTICE, "%s: %s: flight recorder captured: %s (%llu "
		"records, %llu overwritten, %llu lost, %llu corrupt%s); %u older "
		"captures removed", domain, reason, res.path,
		(unsigned long long)res.records,
		(unsigned long long)res.overwritten,
		(unsigned long long)res.lost, (unsigned long long)res.corrupt,
		kwords, res.pruned);
	return 0;
}
