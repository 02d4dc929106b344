/* SPDX-License-Identifier: MIT */
/*
 * ringside-agent: the Linux guest agent (see agent.h).  It runs until
 * SIGTERM or SIGINT, then detaches: last records in, status cleared.
 * When the device goes away under it (PCI hot-unplug) it lets go of
 * everything without touching the BAR again, counts what the removal
 * cost, and ends, or with --follow waits for the next device: one
 * attachment (a session) per device.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "agent.h"
#include "agent_main.h"
#include "ringside/mark_wire.h"

static struct agent the_agent;

/* How a wait or a session ended. */
enum { END_SIGNAL = 1, END_GONE = 2 };

void agent_main_say(const struct agent *a, const char *fmt, ...)
{
	va_list ap;

	if (a->opts.quiet)
		return;
	fputs("ringside-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("ringside-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Why the last candidate device was refused. */
static const char *refused(const struct agent_dev_scan *scan)
{
	return scan->last_ring_err ? rs_error_str(scan->last_ring_err) :
				     strerror(-scan->last_errno);
}

/* One tick's wait on the signals: 1 if one came. */
static int wait_tick(const struct agent *a)
{
	struct pollfd p = { .fd = a->sigfd, .events = POLLIN };

	return poll(&p, 1, (int)a->beat_ms) > 0;
}

/* 0 with a device open; END_SIGNAL.  Without --follow, no device is the
 * end (status 1); with it, the agent looks again every tick. */
static int find_region(struct agent *a)
{
	struct agent_dev_scan scan;
	uint32_t told = UINT32_MAX;
	int err;

	for (;;) {
		err = agent_device_open(&a->dev, a->opts.sysfs, a->opts.device,
				     &scan);
		if (!err)
			return 0;
		if (err != -ENODEV || !a->opts.follow)
			break;
		/* said once, and again when what is there changes */
		if (told != scan.ivshmem) {
			told = scan.ivshmem;
			if (scan.ivshmem)
				say(a, "waiting for a ringside device: %u ivshmem-plain "
				    "devices, none holds a ringside region (last: "
				    "%s: %s)", scan.ivshmem, scan.last_bdf,
				    scan.last_ring_err ? rs_error_str(scan.last_ring_err) :
				    strerror(-scan.last_errno));
			else
				say(a, "waiting for a ringside device (ivshmem-plain "
				    "1af4:1110) to be plugged in");
		}
		if (wait_tick(a))
			return END_SIGNAL;
	}
	if (err != -ENODEV)
		die("cannot read %s: %s", a->opts.sysfs, strerror(-err));
	if (a->opts.device && !scan.ivshmem)
		die("%s is not an ivshmem-plain PCI device (1af4:1110)", a->opts.device);
	if (a->opts.device)
		die("cannot use the BAR2 of %s: %s", a->opts.device, refused(&scan));
	if (!scan.ivshmem)
		die("no ivshmem-plain PCI device (1af4:1110) in this guest: has the "
		    "host run 'ringside enable' on this domain and restarted it?");
	die("none of the %u ivshmem-plain devices holds a ringside region "
	    "(last: %s: %s)%s", scan.ivshmem, scan.last_bdf,
	    refused(&scan), scan.unmappable ?
	    "; mapping resource2 needs root" : "; is the host's libvirt hook "
	    "installed ('ringside hook install')?");
}

/* Whether the device went away (agent_device_gone), as of @now: a fault on
 * its BAR is seen at once (no system call); its sysfs entry, a stat,
 * is looked at every AGENT_DEV_LOOK_BEATS beats.  An unplug revokes the
 * mapping, so the pass's next write faults: the stat is for a removal
 * that did not, or another device at the same address.  Returns 0 or
 * AGENT_DEV_*; *@looked: the entry was looked at. */
static int dev_gone(struct agent *a, uint64_t now, int *looked)
{
	int look = now >= a->look_at;

	if (look)
		a->look_at = now + AGENT_DEV_LOOK_BEATS * a->beat_ms *
				   1000000ull;
	if (looked)
		*looked = look;
	/* whichever caller's look saw it gone, every later one hears it */
	if (!a->gone_how)
		a->gone_how = agent_device_gone(&a->dev, look ? a->opts.sysfs : NULL);
	return a->gone_how;
}

/* The device is there, as far as the agent can tell: when its entry was
 * looked at too, what was written until now reached the host. */
static int gone(struct agent *a, uint64_t now)
{
	uint64_t written = 0;
	uint32_t i;
	int looked, g = dev_gone(a, now, &looked);

	if (g || !looked)
		return g;
	for (i = 0; i < a->nr_rings; i++)
		written += a->ring[i].written;
	a->confirmed = written;
	return 0;
}

/* The host may switch tracing and what to trace while the agent runs.
 * 0; -1 when the device went away (what was read is not the host's). */
static int config_read(struct agent *a, uint64_t now)
{
	int err = rs_guest_config_read(&a->dev.region, &a->cfg);

	if (dev_gone(a, now, NULL))
		return -1;
	if (err)
		die("reading the host's configuration: %s", rs_error_str(err));
	return 0;
}

/* Until the host enables tracing: 0; END_SIGNAL, END_GONE. */
static int wait_enabled(struct agent *a)
{
	int told = 0;

	for (;;) {
		if (config_read(a, agent_markers_now()))
			return END_GONE;
		if (a->cfg.enabled)
			return 0;
		if (!told++)
			say(a, "waiting for the host to enable tracing");
		if (wait_tick(a))
			return END_SIGNAL;
	}
}

/*
 * How much a kernel buffer holds before it wakes the agent.  The beat
 * forwards whatever the buffers hold (once a second, or two in normal
 * mode: agent_opts_beat_ms); the watermark wakes the agent sooner only
 * for a CPU that samples more than that in a beat (at_risk), and then
 * for the busiest such CPU alone.  A normal ring
 * takes a wake's records at once, so no more than three quarters of it
 * (its consumer has drained the rest since the beat before); an overwrite
 * ring keeps the newest of whatever comes: half the kernel buffer, the
 * rest of it room for the samples taken while the agent wakes.
 */
static uint32_t wake_bytes(const struct agent *a)
{
	uint64_t buf = (uint64_t)a->opts.buf_pages * RS_PAGE_SIZE, w = buf / 2;
	struct rs_ring ring;

	if (!rs_region_ring(&a->dev.region, 0, &ring) &&
	    ring.data_mode == RS_MODE_NORMAL && ring.data_size / 4 * 3 < w)
		w = ring.data_size / 4 * 3;
	w &= ~(uint64_t)7u;
	return w ? (uint32_t)w : 8u;
}

static void open_events(struct agent *a)
{
	const struct rs_config *c = rs_region_config(&a->dev.region);
	uint32_t i, cpus = a->opts.nr_cpus;
	int err;

	a->ev.sample_type = c->sample_type ? c->sample_type : AGENT_SAMPLE_DEFAULT;
	if (a->ev.sample_type & ~AGENT_SAMPLE_KNOWN)
		die("the host asks for sample_type %#" PRIx64 "; this agent knows %#x",
		    a->ev.sample_type, AGENT_SAMPLE_KNOWN);
	a->ev.freq = agent_opts_freq(&a->opts, c->sample_freq);
	a->ev.buf_pages = a->opts.buf_pages;
	a->ev.watermark = wake_bytes(a);
	for (i = 0; i < a->opts.nr_tps; i++) {
		err = agent_tracepoint_id(a->opts.tp[i], &a->ev.tp_id[i]);
		if (err)
			die("tracepoint %s: %s", a->opts.tp[i], err == -ENOENT ?
			    "no such tracepoint in this kernel" : strerror(-err));
	}
	a->ev.nr_tps = a->opts.nr_tps;
	for (i = 0; i < cpus; i++) {
		a->kbuf[i] = malloc(sizeof(*a->kbuf[i]));
		if (!a->kbuf[i])
			die("out of memory");
		err = agent_kbuf_open(a->kbuf[i], (int)i, &a->ev);
		if (err == -ENODEV) {          /* an offline CPU */
			free(a->kbuf[i]);
			a->kbuf[i] = NULL;
			continue;
		}
		if (err)
			die("perf events on CPU %u: %s%s", i, strerror(-err),
			    err == -EACCES || err == -EPERM ?
			    " (run as root, or lower kernel.perf_event_paranoid)" : "");
	}
	a->nr_cpus = cpus;
}

static void attach(struct agent *a)
{
	uint32_t i, rings = rs_region_nr_rings(&a->dev.region);
	char text[512];
	int err, n;

	a->nr_rings = a->opts.nr_cpus < rings ? a->opts.nr_cpus : rings;
	for (i = 0; i < a->nr_rings; i++) {
		a->ring[i].index = i;
		err = rs_producer_init(&a->ring[i].prod, &a->dev.region, i);
		if (err)
			die("ring %u: %s", i, rs_error_str(err));
		agent_ring_batch(&a->ring[i], &a->dev.region);
		a->ring[i].wait_max_ms = AGENT_RING_WAIT_MS;
		a->epoch_mark[i] = agent_ring_mark(&a->ring[i]);
	}
	n = snprintf(text, sizeof(text), "linux agent attached: %u cpus, %u rings, "
		     "%" PRIu64 " Hz, sample_type %#" PRIx64, a->nr_cpus,
		     a->nr_rings, a->ev.freq, a->ev.sample_type);
	agent_markers_put(&a->ring[0], RS_MARK_AGENT_ATTACH, (uint32_t)getpid(),
			 (uint32_t)getpid(), agent_markers_now(), text, (uint32_t)n);
	for (i = 0; i < a->ev.nr_tps; i++) {
		n = snprintf(text, sizeof(text), "%s id=%" PRIu64, a->opts.tp[i],
			     a->ev.tp_id[i]);
		agent_markers_put(&a->ring[0], RS_MARK_AGENT_TRACEPOINT,
				 (uint32_t)getpid(), (uint32_t)getpid(),
				 agent_markers_now(), text, (uint32_t)n);
	}
	err = rs_guest_attach(&a->dev.region, RS_AGENT_LINUX, a->nr_rings,
			      &a->cfg);
	if (err < 0)
		die("attaching to the region: %s", rs_error_str(err));
}

/* Every CPU's events on or off: 0 when each one went. */
static int events_set(struct agent *a, int on)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < a->nr_cpus; i++)
		if (a->kbuf[i] && agent_kbuf_enable(a->kbuf[i], on))
			err = -1;
	return err;
}

/* Events on or off as the host's switches say.  The census may have
 * turned them on already (on_since_census): then the host's first "on"
 * finds them on, and a host that turned sampling off meanwhile has them
 * turned off without ever having heard "sampling on". */
static void follow_config(struct agent *a, uint64_t now)
{
	int want, on;

	if (config_read(a, now))
		return;   /* the loop sees the device gone */
	want = a->cfg.enabled && (a->cfg.trace_mask & RS_TRACE_SAMPLES);
	on = a->sampling || a->on_since_census;
	if (want == a->sampling && want == on)
		return;
	if (want != on)
		(void)events_set(a, want);
	/* the processes' records of a time off were missed */
	if (want && !on)
		agent_pstate_lost();
	a->on_since_census = 0;
	if (want == a->sampling)
		return;
	a->sampling = want;
	agent_markers_put(&a->ring[0], RS_MARK_AGENT_CONFIG, (uint32_t)getpid(),
			 (uint32_t)getpid(), now,
			 want ? "sampling on" : "sampling off", want ? 11 : 12);
}

/* The process table written before @r could overwrite what it took of a
 * change (agent_pstate_due). */
static void table_due(struct agent *a, const struct agent_ring *r)
{
	if (agent_pstate_due(r))
		agent_pstate_publish(a->ring, a->nr_rings, agent_markers_now());
}

static void fwd(const struct rs_perf_header *rec, uint32_t cpu, void *arg)
{
	struct agent *a = arg;
	struct agent_ring *r = &a->ring[cpu % a->nr_rings];

	agent_forward(r, a->ev.sample_type, rec);
	table_due(a, r);
}

static void fwd_samples(const uint8_t *recs, uint32_t len, uint32_t nr,
			const struct kbuf_thread *thr, uint32_t nr_thr,
			uint32_t cpu, void *arg)
{
	struct agent *a = arg;
	struct agent_ring *r = &a->ring[cpu % a->nr_rings];

	agent_forward_samples(r, thr, nr_thr, recs, len, nr);
	table_due(a, r);
}

static const struct kbuf_sink sink = { fwd, fwd_samples };

/* The kernel's records of every CPU into the rings, and the names of the
 * threads they sampled after them; the markers waiting.  The process
 * table follows at the pass's end, once, after the beat if there is one
 * (pass_end); within the pass only where a ring is due (agent_pstate_due). */
static void drain(struct agent *a)
{
	uint32_t i;

	/* in time order across the CPUs: a process's FORK on one reaches
	 * pstate before its samples on another */
	agent_kbuf_drain_runs(a->kbuf, a->nr_cpus, &sink, a);
	agent_markers_drain(&a->mk, &a->ring[0], a->cfg.enabled &&
			    (a->cfg.trace_mask & RS_TRACE_MARKERS));
	/* The end of a pass: the names of the threads it sampled, newer than
	 * their samples, and the host sees all of it. */
	for (i = 0; i < a->nr_rings; i++) {
		agent_comm_flush(&a->ring[i]);
		agent_ring_publish(&a->ring[i]);
	}
}

/* The end of a pass: the process table, if the pass changed the model
 * and the beat (when it came) did not write it already.  One copy a pass
 * however many things changed it: each copy is the whole model.  The
 * clock is read for its stamp only then (a system call and a device read
 * where the guest's clocksource is the HPET). */
static void pass_end(struct agent *a)
{
	if (agent_pstate_changed())
		agent_pstate_publish(a->ring, a->nr_rings, agent_markers_now());
}

/* Every ring past its mark since the last epoch began (written over, or
 * consumed: agent_ring_passed): a new one (pstate drops the ended
 * processes whose samples no snapshot can read any more). */
static void ring_epoch(struct agent *a)
{
	uint32_t i;

	for (i = 0; i < a->nr_rings; i++)
		if (!agent_ring_passed(&a->ring[i], a->epoch_mark[i]))
			return;
	for (i = 0; i < a->nr_rings; i++)
		a->epoch_mark[i] = agent_ring_mark(&a->ring[i]);
	agent_pstate_epoch();
}

/* Once a beat (agent_opts_beat_ms), @now the pass's agent_markers_now(): the
 * heartbeat, the process table when it changed, the host's switches.
 * Whatever the beat stamps takes the pass's one clock reading. */
static void beat(struct agent *a, uint64_t now)
{
	if (agent_pstate_has_ended())
		ring_epoch(a);
	agent_pstate_tick(a->ring, a->nr_rings, now);   /* and the table */
	rs_guest_heartbeat(&a->dev.region);
	follow_config(a, now);
}

/* A kernel buffer past its watermark among @p's (after the signal and
 * the marker socket). */
static int woke(const struct pollfd *p, uint32_t n)
{
	uint32_t i;

	for (i = 2; i < n; i++)
		if (p[i].revents)
			return 1;
	return 0;
}

/* Which kernel buffers' watermarks the loop listens for (at_risk). */
#define LISTEN_NONE (-1)
#define LISTEN_ALL  (-2)

/*
 * Whether a beat may bring a kernel buffer more than its watermark's
 * worth, from what the kernel wrote into each since the pass before
 * (@mark: the heads then), @elapsed ns ago: LISTEN_NONE, or the CPU that
 * wrote the most (LISTEN_ALL before a rate is known).  Below that rate a
 * buffer holds two beats of samples (the watermark is at most half of
 * it) and a normal ring takes a beat's at once (at most three quarters of
 * it: wake_bytes).  The kernel wakes its reader each time a watermark's
 * worth was written into one buffer, however much the agent drained
 * meanwhile: listening to every CPU's would wake it once per CPU per
 * watermark, although each wake drains them all.  So it listens to the
 * busiest one's alone: when that one has written a watermark's worth
 * since the pass before, every other has written less (as long as their
 * rates keep their order over a pass; each pass looks again).
 */
static int at_risk(const struct agent *a, uint64_t *mark, uint64_t elapsed,
		   uint64_t period)
{
	int listen = elapsed ? LISTEN_NONE : LISTEN_ALL;
	uint64_t most = 0;
	uint32_t i;

	for (i = 0; i < a->nr_cpus; i++) {
		const struct kbuf *k = a->kbuf[i];
		uint64_t wrote;

		if (!k)
			continue;
		wrote = k->head - mark[i];
		mark[i] = k->head;
		if (elapsed && wrote > most && wrote * (period / 1000u) >
			       (uint64_t)a->ev.watermark * (elapsed / 1000u)) {
			most = wrote;
			listen = (int)i;
		}
	}
	return listen;
}

/* A wake on the marker's wake socket alone (a RS_MARK_SYNC sender waits):
 * the markers waiting go into ring 0 and the host sees them, with nothing
 * else of a pass.  The kernel's buffers wait for the beat or their
 * watermark as they would have without it, in guest memory, where a
 * capture reads them too.  Other markers wait for the next pass: a guest
 * that marks often costs the agent no wake for it. */
static void markers_only(struct agent *a)
{
	agent_markers_drain(&a->mk, &a->ring[0], a->cfg.enabled &&
			    (a->cfg.trace_mask & RS_TRACE_MARKERS));
	agent_ring_publish(&a->ring[0]);
}

/*
 * Until a signal (END_SIGNAL) or the device went away (END_GONE).  The
 * agent sleeps until there is something to do: a signal, the beat, a
 * marker's sender waiting (the wake socket), or, while a beat may not
 * drain them in time, the busiest kernel buffer past its watermark
 * (at_risk).  A
 * wake for markers alone takes only them (markers_only).  Any other wake
 * is one pass over the kernel buffers (what they hold below the watermark
 * goes too, so that nothing waits longer than a beat) and the markers
 * waiting.  A wake for data from half a beat before the beat is due to
 * half a beat after is the beat too: while a watermark wakes the agent
 * (a busy CPU writes more than its watermark in a beat), the beat
 * rides on them, as perf's work does on its watermark alone.  Every wake
 * has one look at the host's time sync request (answered there, in a
 * burst) and one clock reading.
 */
static int run(struct agent *a)
{
	struct pollfd p[2 + AGENT_MAX_CPUS];
	uint64_t period = a->beat_ms * 1000000ull;
	uint64_t now = agent_markers_now(), next = now, last = now;
	static uint64_t mark[AGENT_MAX_CPUS];
	uint32_t i, n;
	int listen = LISTEN_ALL;

	for (;;) {
		/* While the watermarks wake it, one of them carries the
		 * beat: the beat's own wake waits half a beat more for it. */
		uint64_t due = next + (listen != LISTEN_NONE ? period / 2 : 0);
		int timeout = 0, data;

		if (now < due)
			timeout = (int)((due - now + 999999ull) / 1000000ull);
		n = 0;
		p[n++] = (struct pollfd){ .fd = a->sigfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = a->mk.wake_fd, .events = POLLIN };
		for (i = 0; listen != LISTEN_NONE && i < a->nr_cpus; i++)
			if (a->kbuf[i] && (listen == LISTEN_ALL || (int)i == listen))
				p[n++] = (struct pollfd){ .fd = a->kbuf[i]->fd,
							  .events = POLLIN };
		if (poll(p, n, timeout) < 0) {
			if (errno != EINTR)
				die("poll: %s", strerror(errno));
			p[1].revents = 0;
		}
		now = agent_markers_now();
		data = woke(p, n);
		a->wakes.data += data;
		a->wakes.markers += !data && p[1].revents;
		a->wakes.beat += !data && !p[1].revents && !p[0].revents;
		if (p[1].revents)
			agent_markers_woken(&a->mk);
		agent_tsync_poll(&a->ts, &a->dev.region);
		if (p[1].revents && !data && !p[0].revents && now < next) {
			markers_only(a);
		} else {
			drain(a);
			listen = at_risk(a, mark, now - last, period);
			last = now;
			/* A wake for data past half a beat is the beat too: a
			 * busy CPU's watermark then carries it, and the agent
			 * does not wake again for the beat alone (nor, while
			 * at risk, until half a beat after it was due). */
			if (now >= next || (data && next - now <= period / 2)) {
				beat(a, now);
				a->wakes.beats++;
				next = now + period;
			}
			pass_end(a);
		}
		/* after the pass: a fault in it, or the device gone since */
		if (gone(a, now))
			return END_GONE;
		if (p[0].revents)
			return END_SIGNAL;
	}
}

static void detach(struct agent *a)
{
	uint32_t i;

	for (i = 0; i < a->nr_cpus; i++)
		if (a->kbuf[i])
			agent_kbuf_enable(a->kbuf[i], 0);
	drain(a);
	pass_end(a);
	agent_markers_put(&a->ring[0], RS_MARK_AGENT_DETACH, (uint32_t)getpid(),
			 (uint32_t)getpid(), agent_markers_now(), "detached", 8);
	for (i = 0; i < a->nr_rings; i++)
		agent_ring_publish(&a->ring[i]);
	rs_guest_detach(&a->dev.region);
	/* the buffers' pages go back to the kernel: no table may name them */
	if (a->sideband_room)
		rs_kbuf_withdraw(&a->dev.region);
	for (i = 0; i < a->nr_cpus; i++) {
		if (a->kbuf[i])
			agent_kbuf_close(a->kbuf[i]);
		free(a->kbuf[i]);
		a->kbuf[i] = NULL;
	}
	agent_markers_close(&a->mk);
	agent_device_close(&a->dev);
}

static void count_rec(const struct rs_perf_header *rec, void *arg)
{
	(void)rec;
	++*(uint64_t *)arg;
}

/*
 * The device went away: let go of everything without touching the BAR
 * (its pages are revoked, or anonymous ones stand in for them).  What was
 * on its way is counted: the kernel's records not yet copied and the
 * markers waiting on the socket are dropped; after a fault, the records
 * written since the device was last seen may not have reached the host.
 */
static void detach_gone(struct agent *a, int how)
{
	uint64_t written = 0, dropped = 0, kernel = 0, marks = a->mk.received;
	uint32_t i;

	for (i = 0; i < a->nr_cpus; i++)
		if (a->kbuf[i]) {
			agent_kbuf_enable(a->kbuf[i], 0);
			agent_kbuf_drain(a->kbuf[i], a->kbuf[i]->data_size, count_rec,
				   &kernel);
			agent_kbuf_close(a->kbuf[i]);
			free(a->kbuf[i]);
			a->kbuf[i] = NULL;
		}
	agent_markers_drain(&a->mk, &a->ring[0], 0);
	marks = a->mk.received - marks;
	agent_markers_close(&a->mk);
	for (i = 0; i < a->nr_rings; i++) {
		written += a->ring[i].written;
		dropped += a->ring[i].dropped;
	}
	say(a, "the device %s went away (%s): detached: %" PRIu64 " records "
	    "written, %" PRIu64 " dropped, %" PRIu64 " markers; lost to the "
	    "removal: %" PRIu64 " kernel records not yet copied, %" PRIu64
	    " markers waiting", a->dev.bdf, how == AGENT_DEV_FAULTED ?
	    "its BAR faulted" : "unplugged", written, dropped, a->mk.received,
	    kernel, marks);
	if (how == AGENT_DEV_FAULTED)
		say(a, "of the records written, the last %" PRIu64 " (since the "
		    "device was last seen) may not have reached the host",
		    written - a->confirmed);
	agent_device_close(&a->dev);
}

/* What the agent said of the processes' mappings, and what it could not. */
static void mmap_summary(const struct agent *a)
{
	struct agent_mmap_stats sum = { 0 };
	uint32_t i;

	for (i = 0; i < a->nr_rings; i++) {
		const struct agent_mmap_stats *st = &a->ring[i].mmap_stats;

		sum.pids += st->pids;
		sum.records += st->records;
		sum.no_build_id += st->no_build_id;
		sum.skipped += st->skipped;
		sum.truncated += st->truncated;
		sum.unreadable += st->unreadable;
		sum.refreshes += st->refreshes;
	}
	say(a, "mappings: %" PRIu64 " MMAP2 records for %" PRIu64 " processes "
	    "(%" PRIu64 " of files without a build id, %" PRIu64 " rounds of "
	    "renewal); not described: %" PRIu64 " mappings, %" PRIu64
	    " maps files cut short, %" PRIu64 " processes gone or unreadable",
	    sum.records, sum.pids, sum.no_build_id, sum.refreshes, sum.skipped,
	    sum.truncated, sum.unreadable);
}

/* The processes already running, into the process model.  The events go
 * on first when the host wants samples: what changes after /proc was
 * read, their records tell, and the first beat's "sampling on" does not
 * have to throw the census away (every process read from /proc again at
 * its first sample, a millisecond each under TCG). */
static void census(struct agent *a)
{
	struct agent_mmap_stats st = { 0 };
	uint64_t t0 = agent_markers_now();
	uint32_t n;

	a->on_since_census = 0;
	if (rs_region_config(&a->dev.region)->trace_mask & RS_TRACE_SAMPLES) {
		a->on_since_census = !events_set(a, 1);
		if (!a->on_since_census)   /* off, as the first beat expects */
			(void)events_set(a, 0);
	}
	n = agent_mmaps_census("/proc", &st);

	say(a, "processes at the start: %u described from /proc (%" PRIu64
	    " unreadable, %" PRIu64 " maps files cut short) in %.1f ms", n,
	    st.unreadable, st.truncated,
	    (double)(agent_markers_now() - t0) / 1e6);
}

/* One device, attached until a signal or until it goes: END_SIGNAL,
 * END_GONE. */
static int session(struct agent *a)
{
	uint64_t written = 0, dropped = 0, waits = 0, waited = 0, fails = 0;
	uint32_t i;
	int err, end;

	memset(a->ring, 0, sizeof(a->ring));
	memset(a->epoch_mark, 0, sizeof(a->epoch_mark));
	a->nr_rings = 0;
	a->sampling = 0;
	a->on_since_census = 0;
	a->sideband_room = 0;
	a->ksyms_end = 0;
	a->pstate_start = 0;
	a->confirmed = 0;
	a->look_at = 0;
	a->gone_how = 0;
	agent_comm_reset();
	end = wait_enabled(a);
	if (end) {
		if (end == END_GONE)
			say(a, "the device %s went away before the host enabled "
			    "tracing", a->dev.bdf);
		agent_device_close(&a->dev);
		return end;
	}
	/* the configuration is copied at open: take it as enabled */
	err = rs_region_open(&a->dev.region, a->dev.mem, a->dev.size);
	if (err && agent_device_gone(&a->dev, a->opts.sysfs)) {
		say(a, "the device %s went away before the agent attached",
		    a->dev.bdf);
		agent_device_close(&a->dev);
		return END_GONE;
	}
	if (err)
		die("region on %s: %s", a->dev.bdf, rs_error_str(err));
	a->beat_ms = agent_opts_beat_ms(&a->opts,
					rs_region_config(&a->dev.region)->data_mode);
	open_events(a);
	/* Before the marker socket and the attach: a host that sees the
	 * agent attached (or a program that finds the socket) finds the
	 * symbols complete. */
	agent_publish_identity(a);
	agent_publish_kbufs(a);
	agent_publish_pstate(a);
	census(a);
	agent_publish_symbols(a);
	agent_publish_usyms(a);
	err = agent_markers_open(&a->mk, a->opts.mark_socket);
	if (err)
		say(a, "no markers: cannot bind %s: %s", a->opts.mark_socket,
		    strerror(-err));
	agent_tsync_init(&a->ts);
	attach(a);
	say(a, "attached to the region on %s: %u rings, %u cpus, %" PRIu64 " Hz, "
	    "%s mode", a->dev.bdf, a->nr_rings, a->nr_cpus, a->ev.freq,
	    rs_region_config(&a->dev.region)->data_mode == RS_MODE_OVERWRITE ?
	    "overwrite" : "normal");
	a->look_at = 0;                 /* a full look before the loop */
	end = gone(a, agent_markers_now()) ? END_GONE : run(a);
	if (end == END_GONE) {
		agent_usyms_end();
		agent_pstate_end();
		detach_gone(a, agent_device_gone(&a->dev, a->opts.sysfs));
		mmap_summary(a);
		agent_publish_usyms_summary(a);
		agent_publish_pstate_summary(a);
		return end;
	}
	agent_usyms_end();
	agent_pstate_end();
	detach(a);
	for (i = 0; i < a->nr_rings; i++) {
		written += a->ring[i].written;
		dropped += a->ring[i].dropped;
		waits += a->ring[i].waits;
		waited += a->ring[i].waited_ms;
		fails += a->ring[i].wait_fails;
	}
	say(a, "detached: %" PRIu64 " records written, %" PRIu64 " dropped, "
	    "%" PRIu64 " markers", written, dropped, a->mk.received);
	if (waits)
		say(a, "full rings waited for their consumer %" PRIu64 " times, "
		    "%" PRIu64 " ms in all; %" PRIu64 " of them without room",
		    waits, waited, fails);
	say(a, "woke %" PRIu64 " times: %" PRIu64 " for data, %" PRIu64
	    " for markers, %" PRIu64 " for the beat alone; %" PRIu64 " beats",
	    a->wakes.data + a->wakes.markers + a->wakes.beat, a->wakes.data,
	    a->wakes.markers, a->wakes.beat, a->wakes.beats);
	mmap_summary(a);
	agent_publish_usyms_summary(a);
	agent_publish_pstate_summary(a);
	return end;
}

/* --probe: whether the device (or any) holds a ringside region, by the
 * exit status alone.  udev asks it before it starts the unit, so that
 * another ivshmem-plain device of the guest starts nothing; it must say
 * nothing either way (udev logs what a PROGRAM prints). */
static int probe(struct agent *a)
{
	struct agent_dev_scan scan;

	if (agent_device_guard())
		return 1;
	if (agent_device_open(&a->dev, a->opts.sysfs, a->opts.device, &scan))
		return 1;
	agent_device_close(&a->dev);
	return 0;
}

int main(int argc, char **argv)
{
	struct agent *a = &the_agent;
	sigset_t sigs;
	int err;

	err = agent_opts_parse(&a->opts, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (a->opts.probe)
		return probe(a);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	a->sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (a->sigfd < 0)
		die("signalfd: %s", strerror(errno));
	err = agent_device_guard();
	if (err)
		die("sigaction SIGBUS: %s", strerror(-err));
	a->mk.fd = -1;
	do {
		/* until a region's mode says which beat (agent_opts_beat_ms) */
		a->beat_ms = a->opts.tick_ms ? a->opts.tick_ms : AGENT_BEAT_MS;
		if (find_region(a))
			return 0;
	} while (session(a) == END_GONE && a->opts.follow);
	return 0;
}
