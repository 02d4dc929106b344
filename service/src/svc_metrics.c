/* SPDX-License-Identifier: MIT */
/*
 * The service's metrics in Prometheus' text exposition format (0.0.4):
 * each family once, "# HELP" and "# TYPE" before its samples, counters
 * named *_total, base units (_bytes, _seconds), label values escaped
 * (backslash, double quote, newline).  A domain's rings are read as
 * `ringside stat` reads them (cap_source, cap_rinfo), the region mapped read-only
 * for the length of one scrape.  What the guest wrote is exposed as read:
 * its produced and lost counts under ringside_guest_claimed_*, never
 * summed with the host's counts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/hv_parse.h"
#include "ringside/service_metrics.h"

#include "svc_expo.h"
#include "svc_metrics_rec.h"

struct series {            /* captures of one domain for one reason */
	char *domain;
	char *reason;
	uint64_t count;
	double last_s;
};

struct beat {              /* a domain's heartbeat as last seen */
	char *domain;
	uint64_t value;
	uint64_t since_ns;
	int seen;
};

struct svc_metrics {
	struct series *s;
	size_t nr;
	uint64_t dropped;
	struct beat *b;
	size_t nb;
};

/* One domain as read for a scrape. */
struct reading {
	int mapped;
	uint64_t damaged;          /* 1: the header or a control page */
	uint64_t size;
	uint64_t attached;         /* 1: the agent says so */
	struct cap_rinfo_region rr;
	uint32_t rings;
	struct cap_rinfo *ri;          /* rings entries */
	int *ok;                   /* cap_rinfo_get succeeded */
	uint64_t age_ns;
};

int svc_metrics_new(struct svc_metrics **mp)
{
	*mp = calloc(1, sizeof(**mp));
	return *mp ? 0 : -ENOMEM;
}

void svc_metrics_free(struct svc_metrics *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr; i++) {
		free(m->s[i].domain);
		free(m->s[i].reason);
	}
	for (size_t i = 0; i < m->nb; i++)
		free(m->b[i].domain);
	free(m->s);
	free(m->b);
	free(m);
}

int svc_metrics_capture(struct svc_metrics *m, const char *domain,
			const char *reason, double when_s)
{
	struct series *grown, n = { 0 };

	for (size_t i = 0; i < m->nr; i++) {
		if (strcmp(m->s[i].domain, domain) || strcmp(m->s[i].reason, reason))
			continue;
		m->s[i].count++;
		m->s[i].last_s = when_s;
		return 0;
	}
	if (m->nr == SVC_METRICS_SERIES) {
		m->dropped++;
		return 0;
	}
	n.domain = strdup(domain);
	n.reason = strdup(reason);
	grown = n.domain && n.reason ?
		realloc(m->s, (m->nr + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(n.domain);
		free(n.reason);
		return -ENOMEM;
	}
	m->s = grown;
	n.count = 1;
	n.last_s = when_s;
	m->s[m->nr++] = n;
	return 0;
}

/* How long @domain's heartbeat has had @value, at @now_ns. */
static int beat_age(struct svc_metrics *m, const char *domain, uint64_t value,
		    uint64_t now_ns, uint64_t *age_ns)
{
	struct beat *grown, n = { 0 };

	*age_ns = 0;
	for (size_t i = 0; i < m->nb; i++) {
		struct beat *b = &m->b[i];

		if (strcmp(b->domain, domain))
			continue;
		b->seen = 1;
		if (b->value != value || now_ns < b->since_ns) {
			b->value = value;
			b->since_ns = now_ns;
		}
		*age_ns = now_ns - b->since_ns;
		return 0;
	}
	n.domain = strdup(domain);
	grown = n.domain ? realloc(m->b, (m->nb + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(n.domain);
		return -ENOMEM;
	}
	m->b = grown;
	n.value = value;
	n.since_ns = now_ns;
	n.seen = 1;
	m->b[m->nb++] = n;
	return 0;
}

/* Forget the heartbeats of domains this scrape did not list. */
static void beats_sweep(struct svc_metrics *m)
{
	for (size_t i = 0; i < m->nb;) {
		if (m->b[i].seen) {
			m->b[i++].seen = 0;
			continue;
		}
		free(m->b[i].domain);
		m->b[i] = m->b[--m->nb];
	}
}

static void reading_read(struct svc_metrics *m, const struct svc_metrics_domain *d,
			 uint64_t now_ns, struct reading *r)
{
	struct cap_err e = { 0 };
	const struct rs_region *region;
	struct cap_source *map;

	memset(r, 0, sizeof(*r));
	if (cap_source_new(&map))
		return;
	if (cap_source_open(map, d->region, 0, &e)) {
		cap_source_free(map);
		return;
	}
	region = cap_source_region(map);
	r->mapped = 1;
	r->damaged = cap_source_damage(map) != NULL;
	r->size = cap_source_size(map);
	cap_rinfo_region_get(region, &r->rr);
	r->attached = r->rr.attached == 1;
	r->rings = cap_rinfo_count(region);
	r->ri = calloc(r->rings ? r->rings : 1, sizeof(*r->ri));
	r->ok = calloc(r->rings ? r->rings : 1, sizeof(*r->ok));
	if (!r->ri || !r->ok)
		r->rings = 0;
	for (uint32_t i = 0; i < r->rings; i++)
		r->ok[i] = !cap_rinfo_get(region, i, &r->ri[i]);
	cap_source_free(map);
	if (beat_age(m, d->name, r->rr.heartbeat, now_ns, &r->age_ns))
		r->age_ns = 0;
}

/* ---- the text (the format's writer: svc_expo.c) ---- */

/* The service's counts but its reconnections (not a uint64_t). */
static const struct svc_expo_def counts[] = {
#define S(name, member, help) \
	{ name, "counter", help, SVC_EXPO_AT(struct svc_stats, member) }
	S("ringside_capture_failures_total", failed,
	  "Captures that failed."),
	S("ringside_capture_failures_disk_full_total", failed_disk_full,
	  "Of them, on a full disk (the flight recorder stays in its "
	  "region)."),
	S("ringside_capture_triggers_rate_limited_total", rate_limited,
	  "Triggers refused by the per-domain rate limit."),
	S("ringside_capture_triggers_dropped_total", dropped,
	  "Triggers lost: the service's queue was full."),
	S("ringside_capture_triggers_empty_total", empty,
	  "Triggers whose flight recorder was never written: nothing "
	  "captured."),
	S("ringside_capture_triggers_not_enabled_total", not_enabled,
	  "Triggers of domains not opted in."),
	S("ringside_capture_requests_total", requests,
	  "Captures asked for on the control socket."),
	S("ringside_hangs_total", hangs,
	  "Stale agent heartbeats taken for hangs."),
	S("ringside_guest_resets_total", resets,
	  "Guest resets seen (libvirt's reboot events, those of one "
	  "reset counted once)."),
	S("ringside_libvirt_events_total", events,
	  "Domain events seen from libvirt."),
#undef S
};

static void service(FILE *f, const struct svc_metrics *m,
		    const struct svc_stats *st, size_t watched, size_t mapped)
{
	svc_expo_family(f, "ringside_captures_total", "counter", "Flight "
			"recorder captures written, by domain and reason.");
	for (size_t i = 0; i < m->nr; i++)
		svc_expo_u(f, "ringside_captures_total", m->s[i].domain, -1,
			   m->s[i].reason, m->s[i].count);
	svc_expo_family(f, "ringside_last_capture_timestamp_seconds",
			"gauge", "Wall-clock time of the last capture written, "
			"by domain and reason.");
	for (size_t i = 0; i < m->nr; i++)
		svc_expo_d(f, "ringside_last_capture_timestamp_seconds",
			   m->s[i].domain, m->s[i].reason, m->s[i].last_s);
	svc_expo_defs(f, counts, sizeof(counts) / sizeof(counts[0]), st);
	svc_expo_counter(f, "ringside_libvirt_reconnects_total",
			 "Reconnections to libvirtd.", st->reconnects);
	svc_expo_gauge(f, "ringside_domains_watched", "Running opted-in "
		       "domains whose agent heartbeat is watched for hangs.",
		       watched);
	svc_expo_gauge(f, "ringside_domains_enabled", "Active opted-in domains "
		       "whose region this scrape read.", mapped);
	svc_expo_counter(f, "ringside_metrics_series_dropped_total", "Capture "
			 "series (domain, reason) past the service's bound, "
			 "not exposed.", m->dropped);
	svc_metrics_rec_totals(f, &st->rec);
}

/* The metrics endpoint's own. */
static void http(FILE *f, const struct svc_stats *st)
{
	static const char *const code[SVC_HTTP_ANSWERS] = {
		[SVC_HTTP_OK] = "200", [SVC_HTTP_BAD_REQUEST] = "400",
		[SVC_HTTP_NOT_FOUND] = "404", [SVC_HTTP_NOT_ALLOWED] = "405",
		[SVC_HTTP_TOO_LARGE] = "431", [SVC_HTTP_ERROR] = "500",
	};

	svc_expo_family(f, "ringside_http_responses_total", "counter",
			"Answers the metrics endpoint sent whole, by status "
			"code (200: a scrape served; this one not yet "
			"counted).");
	for (int i = 0; i < SVC_HTTP_ANSWERS; i++)
		fprintf(f, "ringside_http_responses_total{code=\"%s\"} %llu\n",
			code[i], (unsigned long long)st->http_answers[i]);
	svc_expo_counter(f, "ringside_http_connections_dropped_total",
			 "Connections to the metrics endpoint dropped before a "
			 "whole answer: timed out, closed to make room for "
			 "another, closed or reset by the client.",
			 st->http_dropped);
}

/* The process's own, as Prometheus' client libraries name them. */
static void process(FILE *f)
{
	struct rusage ru;
	unsigned long long pages = 0, rss = 0;
	FILE *statm;

	if (!getrusage(RUSAGE_SELF, &ru)) {
		svc_expo_family(f, "process_cpu_seconds_total", "counter",
				"Total user and system CPU time spent in "
				"seconds.");
		svc_expo_d(f, "process_cpu_seconds_total", NULL, NULL,
			   (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			   (double)(ru.ru_utime.tv_usec +
				    ru.ru_stime.tv_usec) / 1e6);
	}
	statm = fopen("/proc/self/statm", "re");
	if (statm && fscanf(statm, "%llu %llu", &pages, &rss) == 2) {
		svc_expo_family(f, "process_resident_memory_bytes", "gauge",
				"Resident memory size in bytes.");
		svc_expo_u(f, "process_resident_memory_bytes", NULL, -1, NULL,
			   rss * (unsigned long long)sysconf(_SC_PAGESIZE));
	}
	if (statm)
		fclose(statm);
}

/* A ring's families: each a gauge of its cap_rinfo member, but the
 * fill (cap_rinfo_fill) and an overwrite ring's head (signed). */
enum ring_field { R_SIZE, R_FILL, R_HEAD, R_TAIL, R_AUX_SIZE, R_AUX_HEAD,
		  R_AUX_TAIL, R_PRODUCED, R_LOST, R_FIELDS };

static const struct svc_expo_def ring_fields[R_FIELDS] = {
#define G(name, member, help) \
	{ name, "gauge", help, SVC_EXPO_AT(struct cap_rinfo, member) }
	[R_SIZE] = G("ringside_ring_size_bytes", data_size,
		     "Bytes of the ring's data area."),
	[R_FILL] = { "ringside_ring_fill_bytes", "gauge",
		"Bytes of ring data not yet consumed (normal mode) or held "
		"(overwrite mode), from the guest's head.", 0 },
	[R_HEAD] = G("ringside_ring_data_head_bytes", data_head,
		     "The data head as the guest last wrote it (an overwrite "
		     "ring's counts down from 0)."),
	[R_TAIL] = G("ringside_ring_data_tail_bytes", data_tail,
		     "The data tail as last written."),
	[R_AUX_SIZE] = G("ringside_ring_aux_size_bytes", aux_size,
			 "Bytes of the ring's AUX area (0: none)."),
	[R_AUX_HEAD] = G("ringside_ring_aux_head_bytes", aux_head,
			 "The AUX head as the guest last wrote it."),
	[R_AUX_TAIL] = G("ringside_ring_aux_tail_bytes", aux_tail,
			 "The AUX tail as last written."),
#undef G
	[R_PRODUCED] = { "ringside_guest_claimed_produced_records_total",
		"counter", "Records the guest says its producer wrote to the "
		"ring: the guest's claim, unchecked.",
		SVC_EXPO_AT(struct cap_rinfo, produced) },
	[R_LOST] = { "ringside_guest_claimed_lost_records_total", "counter",
		"Records the guest says its producer lost: the guest's claim, "
		"unchecked, never summed with host-observed loss.",
		SVC_EXPO_AT(struct cap_rinfo, lost) },
};

static void ring_sample(FILE *f, enum ring_field k, const char *domain,
			long ring, const struct cap_rinfo *ri)
{
	const char *name = ring_fields[k].name;

	if (k == R_HEAD && ri->data_mode == RS_MODE_OVERWRITE)
		svc_expo_i(f, name, domain, ring, (int64_t)ri->data_head);
	else
		svc_expo_u(f, name, domain, ring, NULL, k == R_FILL ?
			   cap_rinfo_fill(ri) :
			   svc_expo_value(&ring_fields[k], ri));
}

/* A mapped domain's families (struct reading), after the gauge
 * ringside_region_mapped of every domain. */
static const struct svc_expo_def domain_fields[] = {
	{ "ringside_region_damaged", "gauge", "1 if the region's header or "
	  "a control page differs from the layout its host laid out.",
	  SVC_EXPO_AT(struct reading, damaged) },
	{ "ringside_region_size_bytes", "gauge",
	  "Bytes of the domain's trace region.",
	  SVC_EXPO_AT(struct reading, size) },
	{ "ringside_agent_attached", "gauge", "1 if the guest's agent says it "
	  "is attached: the guest's claim.",
	  SVC_EXPO_AT(struct reading, attached) },
	{ "ringside_guest_claimed_agent_heartbeats_total", "counter",
	  "The agent's heartbeat count as the guest last wrote it: the "
	  "guest's claim.", SVC_EXPO_AT(struct reading, rr.heartbeat) },
};

static void domains(FILE *f, const struct svc_metrics_domain *d,
		    const struct reading *r, size_t nr)
{
	svc_expo_family(f, "ringside_region_mapped", "gauge", "1 if the "
			"domain's region could be mapped and validated this "
			"scrape.");
	for (size_t i = 0; i < nr; i++)
		svc_expo_u(f, "ringside_region_mapped", d[i].name, -1, NULL,
			   (uint64_t)r[i].mapped);
	for (size_t k = 0; k < sizeof(domain_fields) / sizeof(domain_fields[0]);
	     k++) {
		svc_expo_def_family(f, &domain_fields[k]);
		for (size_t i = 0; i < nr; i++)
			if (r[i].mapped)
				svc_expo_u(f, domain_fields[k].name, d[i].name,
					   -1, NULL,
					   svc_expo_value(&domain_fields[k],
							  &r[i]));
	}
	svc_expo_family(f, "ringside_agent_heartbeat_age_seconds", "gauge",
			"Seconds since the service first saw the agent's "
			"heartbeat at its current value (seen at scrapes).");
	for (size_t i = 0; i < nr; i++)
		if (r[i].mapped)
			svc_expo_d(f, "ringside_agent_heartbeat_age_seconds",
				   d[i].name, NULL, (double)r[i].age_ns / 1e9);
	for (int k = 0; k < R_FIELDS; k++) {
		svc_expo_def_family(f, &ring_fields[k]);
		for (size_t i = 0; i < nr; i++)
			for (uint32_t j = 0; r[i].mapped && j < r[i].rings; j++)
				if (r[i].ok[j])
					ring_sample(f, (enum ring_field)k,
						    d[i].name, (long)j,
						    &r[i].ri[j]);
	}
}

/* Per vCPU thread of each domain's VMM, the time the host had it
 * runnable and not running: the scheduler's own count of it
 * (/proc/PID/task/TID/schedstat), exact, no records needed. */
static void host_steal(FILE *f, const struct svc_metrics_domain *d, size_t nr)
{
	struct hv_thread_id *t = calloc(RS_MAX_RINGS, sizeof(*t));
	struct hv_schedstat ss;
	uint32_t found, k;
	int32_t pid;

	svc_expo_family(f, "ringside_host_steal_seconds_total", "counter",
			"Seconds the host kept each vCPU thread of the "
			"domain's VMM runnable and not running (schedstat).");
	for (size_t i = 0; t && i < nr; i++) {
		pid = d[i].vmm_pid;
		if ((!pid && cap_host_domain_pid(d[i].name, NULL, &pid)) ||
		    hv_thread_scan(NULL, pid, HV_KIND_VCPU, t, RS_MAX_RINGS,
				   &found))
			continue;
		for (k = 0; k < found && k < RS_MAX_RINGS; k++)
			if (t[k].vcpu >= 0 &&
			    !hv_thread_schedstat_read(NULL, pid, t[k].tid, &ss))
				svc_expo_vcpu_d(f, "ringside_host_steal_seconds_total",
						d[i].name, (uint32_t)t[k].vcpu,
						(double)ss.wait_ns / 1e9);
	}
	free(t);
}

int svc_metrics_text(struct svc_metrics *m, const struct svc_stats *st,
		     size_t watched, const struct svc_metrics_domain *d,
		     size_t nr, uint64_t now_ns, char **text, size_t *len)
{
	struct reading *r = calloc(nr ? nr : 1, sizeof(*r));
	size_t mapped = 0;
	FILE *f;
	int err = 0;

	*text = NULL;
	*len = 0;
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		reading_read(m, &d[i], now_ns, &r[i]);
		mapped += (size_t)r[i].mapped;
	}
	beats_sweep(m);
	f = open_memstream(text, len);
	if (!f) {
		err = -ENOMEM;
	} else {
		service(f, m, st, watched, mapped);
		svc_metrics_rec_domains(f, st);
		http(f, st);
		domains(f, d, r, nr);
		host_steal(f, d, nr);
		process(f);
		if (ferror(f))
			err = -ENOMEM;
		if (fclose(f))
			err = -ENOMEM;
		if (err) {
			free(*text);
			*text = NULL;
			*len = 0;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		free(r[i].ri);
		free(r[i].ok);
	}
	free(r);
	return err;
}
