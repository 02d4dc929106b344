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
#include "agent_opts.h"
#include "ringside/mark_wire.h"

struct agent {
	struct agent_opts opts;
	struct agent_dev dev;
	struct rs_config cfg;        /* the host's, as last read */
	struct agent_events ev;
	struct agent_markers mk;
	struct agent_tsync ts;
	uint32_t nr_rings;            /* rings used */
	uint32_t nr_cpus;             /* CPUs sampled (kbuf[0..nr_cpus)) */
	uint64_t sideband_room;       /* for the symbols: the kbuf table follows */
	uint64_t ksyms_end;           /* bytes of kallsyms text at its start */
	uint64_t pstate_start;        /* the process state table's, 0: none */
	int sigfd;
	int sampling;                 /* events enabled right now */
	uint64_t confirmed;           /* records written when the device was
				       * last seen present */
	uint64_t look_at;             /* when the device's sysfs entry is
				       * looked at next (agent_markers_now) */
	int gone_how;                 /* AGENT_DEV_* once a look saw it gone */
	struct agent_ring ring[RS_MAX_RINGS];
	uint64_t epoch_mark[RS_MAX_RINGS]; /* each ring's written_bytes when
					    * the last epoch began */
	struct kbuf *kbuf[AGENT_MAX_CPUS];
};

static struct agent the_agent;

/* How a wait or a session ended. */
enum { END_SIGNAL = 1, END_GONE = 2 };

static void say(const struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct agent *a, const char *fmt, ...)
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

	return poll(&p, 1, (int)a->opts.tick_ms) > 0;
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
 * is looked at once every AGENT_DEV_LOOK_NS.  An unplug revokes the
 * mapping, so the pass's next write faults: the stat is for a removal
 * that did not, or another device at the same address.  Returns 0 or
 * AGENT_DEV_*; *@looked: the entry was looked at. */
static int dev_gone(struct agent *a, uint64_t now, int *looked)
{
	int look = now >= a->look_at;

	if (look)
		a->look_at = now + AGENT_DEV_LOOK_NS;
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

/* Where the kernel's perf buffers are in guest-physical memory, for a host
 * that reads the samples the agent had no time to copy (a panic stops our
 * vCPU first).  Once, before the symbols, which end before the table. */
static void publish_kbufs(struct agent *a)
{
	struct rs_kbuf_info info = { .data_pages = a->ev.buf_pages,
				     .sample_type = a->ev.sample_type };
	uint64_t words = RS_KBUF_ROW_WORDS(a->ev.buf_pages), *rows;
	uint32_t i;
	int fd, err = 0;

	if (!rs_sideband_size(&a->dev.region))
		return;
	if (a->ev.buf_pages > RS_KBUF_MAX_PAGES) {
		say(a, "kernel perf buffers: not published: %u pages per CPU, "
		    "the table takes at most %u", a->ev.buf_pages,
		    RS_KBUF_MAX_PAGES);
		return;
	}
	rows = calloc((size_t)(a->nr_cpus * words), sizeof(*rows));
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (!rows || fd < 0) {
		say(a, "kernel perf buffers: not published: %s",
		    !rows ? "out of memory" : strerror(errno));
		goto out;
	}
	/* the table holds RS_KBUF_MAX_CPUS rows: the first CPUs' buffers */
	for (i = 0; i < a->nr_cpus && !err && info.nr_cpus < RS_KBUF_MAX_CPUS;
	     i++) {
		uint64_t *row = rows + (uint64_t)info.nr_cpus * words;

		if (!a->kbuf[i])
			continue;
		row[0] = i;
		err = agent_kbuf_gpas(a->kbuf[i], fd, row + 1);
		if (err)
			say(a, "kernel perf buffers: not published: CPU %u: %s", i,
			    err == -ENOENT ? "a page is not present" :
			    err == -EPERM ? "no page frame numbers (not root)" :
			    strerror(-err));
		info.nr_cpus++;
	}
	if (!err && info.nr_cpus) {
		err = rs_kbuf_publish(&a->dev.region, &info, rows);
		if (err)
			say(a, "kernel perf buffers: not published: %s",
			    rs_error_str(err));
		else
			a->sideband_room = info.table_offset;
	}
	if (!err && info.nr_cpus)
		say(a, "kernel perf buffers: %u CPUs x %u pages published "
		    "(%" PRIu64 " bytes at the sideband's end)", info.nr_cpus,
		    info.data_pages, info.table_len);
out:
	if (fd >= 0)
		close(fd);
	free(rows);
}

/* Where the symbols must end: the process state table, else the perf
 * buffer table, else the area's end (0: the area's end). */
static uint64_t symbols_room(const struct agent *a)
{
	return a->pstate_start ? a->pstate_start : a->sideband_room;
}

/* The kernel's symbols into the sideband, once, before the attach; what
 * went wrong is said
 * here and, for the host, in the sideband (TRUNCATED, an empty table). */
static void publish_symbols(struct agent *a)
{
	struct agent_ksyms k;
	char id[2 * RS_SIDEBAND_BUILD_ID_MAX + 1] = "none";
	uint32_t i;
	int err;

	if (a->opts.no_symbols)
		return;
	err = agent_ksyms_publish(&a->dev.region, &a->opts.ksyms,
				  symbols_room(a), &k);
	if (err == -ENXIO) {
		say(a, "kernel symbols: the region has no sideband area "
		    "(ringside enable --sideband-pages N)");
		return;
	}
	if (err) {
		say(a, "kernel symbols: %s: %s", a->opts.ksyms.kallsyms,
		    strerror(-err));
		return;
	}
	a->ksyms_end = k.length;
	for (i = 0; i < k.build_id_len; i++)
		snprintf(id + 2 * i, 3, "%02x", k.build_id[i]);
	say(a, "kernel symbols: %" PRIu64 " lines published (%" PRIu64
	    " bytes; the functions and the text bounds of %" PRIu64 " lines, "
	    "all perf names samples by), build id %s", k.kept - k.cut,
	    k.length, k.lines, id);
	if (k.cut)
		say(a, "kernel symbols truncated: %" PRIu64 " of %" PRIu64
		    " bytes fit the sideband; ask the host for more "
		    "(--sideband-pages)", k.length, k.wanted);
	if (k.zero_addrs)
		say(a, "kernel symbols: %" PRIu64 " with a zero address left out "
		    "(kernel.kptr_restrict %d hides them)", k.zero_addrs,
		    k.kptr_restrict);
	if (k.build_id_err)
		say(a, "kernel build id: %s: %s", a->opts.ksyms.notes,
		    strerror(-k.build_id_err));
	if (k.read_err)
		say(a, "kernel symbols: reading %s failed midway",
		    a->opts.ksyms.kallsyms);
	if (k.tries > 1 || k.mod_dropped)
		say(a, "kernel symbols: read %u times (modules loading or "
		    "unloading: %u of %u not settled at the last); %" PRIu64
		    " lines of modules left out (.init symbols, or modules "
		    "that came or went during the read)", k.tries, k.unsettled,
		    k.modules, k.mod_dropped);
	if (k.modules_err && k.modules_err != -ENOENT)
		say(a, "kernel symbols: %s: %s; modules' lines published "
		    "unchecked", a->opts.ksyms.modules, strerror(-k.modules_err));
}

/* The process state table (--process-state), before the symbols take
 * the area: at its end, before the perf buffer table, at most a quarter
 * of the area (the kernel's symbols come first for the rest). */
static void publish_pstate(struct agent *a)
{
	uint64_t size = rs_sideband_size(&a->dev.region);
	uint64_t end = a->sideband_room ? a->sideband_room : size;
	uint64_t pst = (uint64_t)a->opts.pstate_kib * 1024u;
	int err;

	if (!pst || !size)
		return;
	end &= ~(uint64_t)7u;
	if (pst > end / 4u)
		pst = (end / 4u) & ~(uint64_t)7u;
	err = agent_pstate_begin(&a->dev.region, end - pst, pst);
	if (err) {
		say(a, "process state: not kept: %s (--sideband-pages)",
		    rs_error_str(err));
		return;
	}
	a->pstate_start = end - pst;
	if (pst < (uint64_t)a->opts.pstate_kib * 1024u)
		say(a, "process state: %" PRIu64 " of %u KiB (a quarter of the "
		    "sideband; --sideband-pages)", pst / 1024u,
		    a->opts.pstate_kib);
}

/* The user symbol table, between the kernel's symbols and the process
 * state table, bounded by --user-symbols: filled as processes are
 * described. */
static void publish_usyms(struct agent *a)
{
	uint64_t start = (a->ksyms_end + 7u) & ~(uint64_t)7u;
	uint64_t end = symbols_room(a) ? symbols_room(a) :
		       rs_sideband_size(&a->dev.region);
	uint64_t size = (uint64_t)a->opts.usyms_kib * 1024u;
	int err;

	if (!a->opts.usyms_kib || !rs_sideband_size(&a->dev.region))
		return;
	if (start >= end) {
		say(a, "user symbols: no room left in the sideband "
		    "(--sideband-pages)");
		return;
	}
	if (size > end - start)
		size = end - start;
	err = agent_usyms_begin(&a->dev.region, start, size);
	if (err)
		say(a, "user symbols: %s", rs_error_str(err));
	else
		agent_vdso_usyms();
}

static void pstate_summary(const struct agent *a)
{
	const struct agent_pstate_stats *p = agent_pstate_stats();

	if (!p->table_size)
		return;
	say(a, "process state: %u processes (%u ended), %u mappings in the "
	    "last of %" PRIu64 " copies (%" PRIu64 " bytes, two copies); left "
	    "out: %u processes, %u mappings; %" PRIu64 " births seen (%"
	    PRIu64 " given their parent's mappings), %" PRIu64 " ends, %"
	    PRIu64 " dropped once the rings were written over, %" PRIu64
	    " for room; %" PRIu64 " not taken (the model was full), %" PRIu64
	    " kernel losses", p->procs, p->ended_kept, p->maps, p->publishes,
	    p->table_size, p->procs_left_out, p->maps_left_out, p->forks,
	    p->inherited, p->ended, p->expired, p->evicted, p->full, p->lost);
}

static void usyms_summary(const struct agent *a)
{
	const struct agent_usyms_stats *u = agent_usyms_stats();

	if (!u->table_size)
		return;
	say(a, "user symbols: %" PRIu64 " binaries published (%" PRIu64
	    " symbols, %" PRIu64 " of %" PRIu64 " bytes, largest %" PRIu64
	    ", %" PRIu64 " with symbols left out); not published: %" PRIu64
	    " that did not fit (%" PRIu64 " bytes), %" PRIu64 " without "
	    "symbols, %" PRIu64 " unreadable (%" PRIu64 " reads failed, "
	    "tried again), %" PRIu64 " past the set of build ids",
	    u->published, u->symbols, u->bytes, u->table_size, u->largest,
	    u->cut, u->no_room, u->no_room_bytes, u->no_symbols,
	    u->unreadable, u->failed_reads, u->ids_full);
}

/* Who this guest is and how it samples, for the host's files: once per
 * session, before the attach, like the symbols. */
static void publish_identity(struct agent *a)
{
	static const struct agent_ginfo_paths paths = {
		.meminfo = "/proc/meminfo",
		.cpuinfo = "/proc/cpuinfo",
	};
	struct rs_guest_info gi;
	int err = agent_ginfo_fill(&gi, &a->ev, &paths);

	if (err)
		say(a, "guest identity: partly unknown: %s", strerror(-err));
	err = rs_guest_info_publish(&a->dev.region, &gi);
	if (err)
		say(a, "guest identity: not published: %s", rs_error_str(err));
}

/* Events on or off as the host's switches say. */
static void follow_config(struct agent *a, uint64_t now)
{
	int want, i;

	if (config_read(a, now))
		return;   /* the loop sees the device gone */
	want = a->cfg.enabled && (a->cfg.trace_mask & RS_TRACE_SAMPLES);
	if (want == a->sampling)
		return;
	for (i = 0; i < (int)a->nr_cpus; i++)
		if (a->kbuf[i])
			agent_kbuf_enable(a->kbuf[i], want);
	a->sampling = want;
	if (want)   /* the processes' records of the time off were missed */
		agent_pstate_lost();
	agent_markers_put(&a->ring[0], RS_MARK_AGENT_CONFIG, (uint32_t)getpid(),
			 (uint32_t)getpid(), now,
			 want ? "sampling on" : "sampling off", want ? 11 : 12);
}

static void fwd(const struct rs_perf_header *rec, uint32_t cpu, void *arg)
{
	struct agent *a = arg;

	agent_forward(&a->ring[cpu % a->nr_rings], a->ev.sample_type, rec);
}

static void drain(struct agent *a)
{
	uint32_t i;

	/* in time order across the CPUs: a process's FORK on one reaches
	 * pstate before its samples on another */
	agent_kbuf_drain_all(a->kbuf, a->nr_cpus, fwd, a);
	agent_markers_drain(&a->mk, &a->ring[0],
			    a->cfg.enabled && (a->cfg.trace_mask & RS_TRACE_MARKERS));
	/* The end of a pass: the host sees all of it. */
	for (i = 0; i < a->nr_rings; i++)
		agent_ring_publish(&a->ring[i]);
}

/* Every ring written over once since the last epoch began: a new one
 * (pstate drops the ended processes whose samples no ring can hold). */
static void ring_epoch(struct agent *a)
{
	uint32_t i;

	for (i = 0; i < a->nr_rings; i++)
		if (a->ring[i].written_bytes - a->epoch_mark[i] <
		    a->ring[i].prod.ring.data_size)
			return;
	for (i = 0; i < a->nr_rings; i++)
		a->epoch_mark[i] = a->ring[i].written_bytes;
	agent_pstate_epoch();
}

/* Once a tick, @now the pass's agent_markers_now(): the clock is read once a
 * pass, and whatever the tick stamps takes that reading. */
static void tick(struct agent *a, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < a->nr_rings; i++) {
		agent_comm_flush(&a->ring[i]);
		agent_ring_publish(&a->ring[i]);
	}
	if (agent_pstate_has_ended())
		ring_epoch(a);
	agent_pstate_tick(now);
	rs_guest_heartbeat(&a->dev.region);
	follow_config(a, now);
}

/* Until a signal (END_SIGNAL) or the device went away (END_GONE). */
static int run(struct agent *a)
{
	struct pollfd p[2 + AGENT_MAX_CPUS];
	uint64_t next = agent_markers_now(), period = a->opts.tick_ms * 1000000ull;
	uint32_t i, n;

	for (;;) {
		uint64_t now = agent_markers_now();
		int timeout;

		if (now >= next) {
			tick(a, now);
			next = now + period;
		}
		timeout = (int)((next - now) / 1000000ull) + 1;
		if (timeout > AGENT_TSYNC_POLL_MS)   /* the host's sync windows */
			timeout = AGENT_TSYNC_POLL_MS;
		n = 0;
		p[n++] = (struct pollfd){ .fd = a->sigfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = a->mk.fd, .events = POLLIN };
		for (i = 0; i < a->nr_cpus; i++)
			if (a->kbuf[i])
				p[n++] = (struct pollfd){ .fd = a->kbuf[i]->fd,
							  .events = POLLIN };
		if (poll(p, n, timeout) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		drain(a);
		agent_tsync_poll(&a->ts, &a->dev.region);
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
	for (i = 0; i < a->nr_rings; i++)
		agent_comm_flush(&a->ring[i]);
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

/* One device, attached until a signal or until it goes: END_SIGNAL,
 * END_GONE. */
static int session(struct agent *a)
{
	uint64_t written = 0, dropped = 0;
	uint32_t i;
	int err, end;

	memset(a->ring, 0, sizeof(a->ring));
	memset(a->epoch_mark, 0, sizeof(a->epoch_mark));
	a->nr_rings = 0;
	a->sampling = 0;
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
	open_events(a);
	/* Before the marker socket and the attach: a host that sees the
	 * agent attached (or a program that finds the socket) finds the
	 * symbols complete. */
	publish_identity(a);
	publish_kbufs(a);
	publish_pstate(a);
	publish_symbols(a);
	publish_usyms(a);
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
		usyms_summary(a);
		pstate_summary(a);
		return end;
	}
	agent_usyms_end();
	agent_pstate_end();
	detach(a);
	for (i = 0; i < a->nr_rings; i++) {
		written += a->ring[i].written;
		dropped += a->ring[i].dropped;
	}
	say(a, "detached: %" PRIu64 " records written, %" PRIu64 " dropped, "
	    "%" PRIu64 " markers", written, dropped, a->mk.received);
	mmap_summary(a);
	usyms_summary(a);
	pstate_summary(a);
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
		if (find_region(a))
			return 0;
	} while (session(a) == END_GONE && a->opts.follow);
	return 0;
}
