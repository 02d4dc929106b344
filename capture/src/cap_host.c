/* SPDX-License-Identifier: MIT */
/*
 * The host's view of a VMM's vCPU threads in a capture: a hostview
 * recorder filed into the capture's perf.data (pdf_writer_add_host), and
 * read back into one track per vCPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ringside/cap_host.h"
#include "ringside/hv_parse.h"

#define REFRESH_NS 1000000000ull   /* a look at the threads once a second */

struct cap_host {
	struct cap_host_config c;
	struct hv_rec *rec;
	struct cap_host_stats st;
	struct pdf_writer *w;       /* the writer of this call */
	const struct pdf_writer *named_w; /* the names went into this one */
	int32_t named_tid[RS_MAX_RINGS];   /* the thread named on each lane */
	struct hv_track *track[RS_MAX_RINGS]; /* per lane, as it is read */
	uint64_t last_refresh;
	int err;                    /* the writer's, in a read */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int cap_host_open(struct cap_host **hp, const struct cap_host_config *c)
{
	struct hv_rec_opts o = { 0 };
	struct hv_thread_id one;
	struct cap_host *h;
	uint32_t found = 0;
	int err;

	if (!hp || !c || c->pid <= 0 || !c->nr_lanes ||
	    c->nr_lanes > RS_MAX_RINGS)
		return -EINVAL;
	*hp = NULL;
	err = hv_thread_scan(c->proc, c->pid, HV_KIND_VCPU, &one, 1, &found);
	if (err)
		return err;
	if (!found)
		return -ENOENT;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->c = *c;
	o.mode = c->mode;
	o.data_pages = c->data_pages;
	o.sources = HV_SRC_BIT(HV_SRC_SWITCH) | c->sources;
	o.kinds = HV_KIND_VCPU;
	o.proc = c->proc;
	err = hv_probe(&o, one.tid, &h->st.probe);
	/* what this host refuses is left out: the probe says why */
	o.sources &= h->st.probe.usable | HV_SRC_BIT(HV_SRC_SWITCH);
	/* the exits in buffers of their own: a storm of them cannot push
	 * the switches out */
	if (o.sources & ~HV_SRC_BIT(HV_SRC_SWITCH))
		o.exit_pages = c->data_pages;
	h->st.sources = o.sources;
	if (!err)
		err = hv_rec_new(&o, &h->rec);
	if (!err) {
		err = hv_rec_follow(h->rec, c->pid);
		if (err >= 0) {
			h->st.vcpus = (uint32_t)err;
			err = err ? 0 : -ENOENT;
		}
	}
	if (err) {
		hv_rec_free(h->rec);
		free(h);
		return err;
	}
	h->last_refresh = mono_ns();
	*hp = h;
	return 0;
}

/* Thread @t's name on lane @lane, once per writer. */
static int name_lane(struct cap_host *h, const struct hv_thread_id *t,
		     uint32_t lane)
{
	struct {
		struct rs_perf_header hdr;
		uint32_t pid, tid;
		char comm[HV_COMM_LEN];
	} rec;

	if (h->named_w == h->w && h->named_tid[lane] == t->tid)
		return 0;
	if (h->named_w != h->w) {
		memset(h->named_tid, 0, sizeof(h->named_tid));
		h->named_w = h->w;
	}
	h->named_tid[lane] = t->tid;
	memset(&rec, 0, sizeof(rec));
	rec.hdr.type = PERF_RECORD_COMM;
	rec.hdr.size = sizeof(rec);
	rec.pid = rec.tid = PDF_HOST_TID(lane);
	memcpy(rec.comm, t->comm, sizeof(rec.comm) - 1);
	return pdf_writer_add_state(h->w, lane, 0, &rec.hdr);
}

static int file_ev(void *arg, const struct hv_thread_id *t,
		   const struct hv_ev *ev)
{
	struct cap_host *h = arg;
	struct pdf_host_rec r = { 0 };
	const char *name;
	int err;

	if (t->kind != HV_KIND_VCPU || t->vcpu < 0) {
		h->st.other++;
		return 0;
	}
	if ((uint32_t)t->vcpu >= h->c.nr_lanes) {
		h->st.off_lane++;
		return 0;
	}
	r.lane = (uint32_t)t->vcpu;
	r.tid = PDF_HOST_TID(r.lane);
	r.host_cpu = ev->cpu;
	r.time = ev->time;
	/* a flight recorder's captures read the same records again */
	if (h->c.mode == HV_MODE_OVERWRITE)
		;
	else if (!h->track[r.lane]) {
		h->track[r.lane] = malloc(sizeof(struct hv_track));
		if (h->track[r.lane])
			hv_track_init(h->track[r.lane], NULL, NULL);
	}
	if (h->c.mode != HV_MODE_OVERWRITE && h->track[r.lane])
		hv_track_feed(h->track[r.lane], ev);
	switch (ev->type) {
	case HV_EV_SWITCH_IN:
		r.type = PERF_RECORD_SWITCH;
		break;
	case HV_EV_SWITCH_OUT:
		r.type = PERF_RECORD_SWITCH;
		r.misc = PERF_RECORD_MISC_SWITCH_OUT;
		break;
	case HV_EV_PREEMPT:
		r.type = PERF_RECORD_SWITCH;
		r.misc = PERF_RECORD_MISC_SWITCH_OUT |
			 PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
		break;
	case HV_EV_LOST:
		r.type = PERF_RECORD_LOST;
		r.lost = ev->count;
		break;
	case HV_EV_KVM_EXIT:
	case HV_EV_KVM_UEXIT:
		r.type = PERF_RECORD_SAMPLE;
		r.exit.type = ev->type == HV_EV_KVM_EXIT ? PDF_HOST_KVM_EXIT :
							  PDF_HOST_KVM_UEXIT;
		r.exit.isa = ev->isa;
		r.exit.reason = ev->reason;
		name = hv_name_exit(ev->type, ev->isa, ev->reason);
		if (name)
			memcpy(r.exit.name, name,
			       strnlen(name, sizeof(r.exit.name)));
		break;
	default:
		h->st.other++;
		return 0;
	}
	err = name_lane(h, t, r.lane);
	if (!err)
		err = pdf_writer_add_host(h->w, &r);
	if (err < 0 && err != PDF_ERR(pdfe_format)) {
		h->err = err;
		return 1;
	}
	if (r.type == PERF_RECORD_LOST) {
		h->st.lost_records++;
		h->st.lost += r.lost;
	} else if (r.type == PERF_RECORD_SAMPLE) {
		h->st.exits++;
	} else {
		h->st.filed++;
	}
	return 0;
}

static int file_read(struct cap_host *h, struct pdf_writer *w, uint32_t how)
{
	uint64_t before, now;
	struct hv_refresh rf;
	int n;

	if (!h || !w)
		return -EINVAL;
	h->w = w;
	h->err = 0;
	before = h->st.filed + h->st.lost_records + h->st.exits;
	n = hv_rec_read(h->rec, how, file_ev, h);
	if (h->err) {
		if (!h->st.write_err)
			h->st.write_err = h->err;
		return h->err;
	}
	now = mono_ns();
	if (!h->st.process_gone &&
	    ((n > 0 && (n & HV_REFRESH_DUE)) ||
	     now - h->last_refresh >= REFRESH_NS)) {
		h->last_refresh = now;
		h->st.refreshes++;
		h->st.refresh_err = hv_rec_refresh(h->rec, &rf);
		if (!h->st.refresh_err) {
			h->st.vcpus += rf.added;
			h->st.process_gone = rf.process_gone;
		}
	}
	return (int)(h->st.filed + h->st.lost_records + h->st.exits - before);
}

int cap_host_file(struct cap_host *h, struct pdf_writer *w)
{
	return file_read(h, w, HV_READ_NEW);
}

int cap_host_capture(struct cap_host *h, struct pdf_writer *w)
{
	return file_read(h, w, HV_READ_ALL);
}

const struct cap_host_stats *cap_host_stats(const struct cap_host *h)
{
	return h ? &h->st : NULL;
}

const struct hv_track *cap_host_track(const struct cap_host *h,
				      uint32_t lane)
{
	return h && lane < RS_MAX_RINGS ? h->track[lane] : NULL;
}

void cap_host_totals(const struct cap_host *h, struct hv_rec_totals *out)
{
	if (h && out)
		hv_rec_totals(h->rec, out);
}

void cap_host_free(struct cap_host *h)
{
	if (!h)
		return;
	hv_rec_free(h->rec);
	for (uint32_t i = 0; i < RS_MAX_RINGS; i++)
		free(h->track[i]);
	free(h);
}

int cap_host_domain_pid(const char *name, const char *run_dir, int32_t *pid)
{
	struct hv_thread_id one;
	char path[4096], buf[32];
	uint32_t found = 0;
	long v;
	char *end;
	ssize_t n;
	int fd, err;

	if (!name || !*name || strchr(name, '/') || !pid)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.pid",
			     run_dir ? run_dir : "/run/libvirt/qemu", name) >=
	    sizeof(path))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v <= 0 || v > INT32_MAX)
		return -ESRCH;
	err = hv_thread_scan(NULL, (int32_t)v, HV_KIND_VCPU, &one, 1, &found);
	if (err)
		return err;
	if (!found)
		return -ESRCH;
	*pid = (int32_t)v;
	return 0;
}

int cap_host_socket_pid(int fd, int32_t *pid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (fd < 0 || !pid)
		return -EINVAL;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return -errno;
	if (cr.pid <= 0)
		return -ESRCH;
	*pid = cr.pid;
	return 0;
}

int cap_host_ev(const struct pdf_event *ev, struct hv_ev *out)
{
	uint64_t lost = 0;

	if (!ev || !out || !ev->host || !ev->rec)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->time = ev->time;
	out->cpu = ev->host_cpu;
	out->pid = out->tid = PDF_HOST_TID(ev->ring);
	if (ev->rec->type == PERF_RECORD_LOST) {
		if (ev->rec->size < sizeof(*ev->rec) + 16)
			return -EINVAL;
		memcpy(&lost, (const uint8_t *)(ev->rec + 1) + 8, 8);
		out->type = HV_EV_LOST;
		out->count = lost;
		return 0;
	}
	if (ev->rec->type == PERF_RECORD_SAMPLE) {
		struct pdf_host_exit x;

		if (ev->rec->size < sizeof(*ev->rec) + sizeof(x))
			return -EINVAL;
		memcpy(&x, ev->rec + 1, sizeof(x));
		if (x.type != PDF_HOST_KVM_EXIT && x.type != PDF_HOST_KVM_UEXIT)
			return -EINVAL;
		out->type = x.type == PDF_HOST_KVM_EXIT ? HV_EV_KVM_EXIT :
							 HV_EV_KVM_UEXIT;
		out->isa = x.isa;
		out->reason = x.reason;
		return 0;
	}
	if (ev->rec->type != PERF_RECORD_SWITCH)
		return -EINVAL;
	if (!(ev->rec->misc & PERF_RECORD_MISC_SWITCH_OUT))
		out->type = HV_EV_SWITCH_IN;
	else if (ev->rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
		out->type = HV_EV_PREEMPT;
	else
		out->type = HV_EV_SWITCH_OUT;
	return 0;
}

void cap_host_view_init(struct cap_host_view *v)
{
	memset(v, 0, sizeof(*v));
}

int cap_host_view_feed(struct cap_host_view *v, const struct pdf_event *ev)
{
	struct hv_track *t;
	struct hv_ev hev;

	if (!v || !ev || !ev->host || ev->ring >= RS_MAX_RINGS ||
	    cap_host_ev(ev, &hev))
		return 0;
	t = v->track[ev->ring];
	if (!t) {
		t = malloc(sizeof(*t));
		if (!t)
			return -ENOMEM;
		hv_track_init(t, NULL, NULL);
		v->track[ev->ring] = t;
	}
	if (!v->records || hev.time < v->first)
		v->first = hev.time;
	if (hev.time > v->last)
		v->last = hev.time;
	v->records++;
	if (hev.type == HV_EV_LOST) {
		v->lost_records++;
		v->lost += hev.count;
	} else if (hev.type == HV_EV_KVM_EXIT || hev.type == HV_EV_KVM_UEXIT) {
		v->exits++;
	} else {
		v->switches++;
	}
	hv_track_feed(t, &hev);
	return 0;
}

void cap_host_view_finish(struct cap_host_view *v)
{
	uint32_t i;

	for (i = 0; v && i < RS_MAX_RINGS; i++)
		if (v->track[i])
			hv_track_finish(v->track[i], v->last);
}

void cap_host_view_guest(struct cap_host_view *v, const struct pdf_event *ev)
{
	const struct hv_track *t;
	uint32_t k;

	if (!v || !ev || ev->host || ev->state || ev->ring >= RS_MAX_RINGS ||
	    !(t = v->track[ev->ring]))
		return;
	for (k = 0; k < t->ntop && k < HV_TOP; k++) {
		const struct hv_preempt *p = &t->top[k];
		uint64_t *b = &v->guest_before[ev->ring][k];
		uint64_t *a = &v->guest_after[ev->ring][k];

		if (ev->time < p->start && ev->time > *b)
			*b = ev->time;
		else if (ev->time > p->start + p->ns && (!*a || ev->time < *a))
			*a = ev->time;
	}
}

void cap_host_view_fini(struct cap_host_view *v)
{
	uint32_t i;

	for (i = 0; v && i < RS_MAX_RINGS; i++) {
		free(v->track[i]);
		v->track[i] = NULL;
	}
}
