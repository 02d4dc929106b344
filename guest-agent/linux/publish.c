/* SPDX-License-Identifier: MIT */
/*
 * What ringside-agent publishes into the region's sideband once per
 * session, before the attach: the kernel's perf buffers' places, the
 * process state table's and the user symbols' room, the kernel's symbols,
 * the guest's identity; and the summaries of those tables at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_main.h"

/* Where the kernel's perf buffers are in guest-physical memory, for a host
 * that reads the samples the agent had no time to copy (a panic stops our
 * vCPU first).  Once, before the symbols, which end before the table. */
void agent_publish_kbufs(struct agent *a)
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
void agent_publish_symbols(struct agent *a)
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
void agent_publish_pstate(struct agent *a)
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
void agent_publish_usyms(struct agent *a)
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

void agent_publish_pstate_summary(const struct agent *a)
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

void agent_publish_usyms_summary(const struct agent *a)
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
void agent_publish_identity(struct agent *a)
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
