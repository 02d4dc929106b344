/* SPDX-License-Identifier: MIT */
/*
 * The agent's process state (guest-agent/linux/pstate.c) into a region,
 * read back as the host reads it (rs_pstate_read, gpstate): a process
 * described is in the table with its comm and mappings after the next
 * tick, and only then; the kernel's records rename it, exec it (its
 * mappings emptied) and add code to it, and are ignored for processes it
 * does not know; a process born (FORK) has its parent's mappings and
 * name; one that ended (EXIT) is kept, marked, until every ring has been
 * written over twice (a process never sampled goes a tick later); the
 * CPUs' records out of order (an exec before its FORK, an EXIT before it)
 * leave what is newer; a pid's next process is another; after the
 * kernel lost records, a look finds the processes gone; the model makes
 * room from the ended ones; the table bounds what it holds and counts
 * the rest.
 */
#include <check.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "ringside/introspect.h"

#define SB_PAGES 64u

/* The ticks' clock: a second apart, so that every tick prunes. */
static uint64_t clock_ns;

static uint64_t next_tick(void)
{
	return clock_ns += 1000000000ull;
}

static void *mem;
static uint64_t mem_size;
static struct rs_region region;
static struct gi_pstate g;

static void region_new(void)
{
	struct rs_region_params p;

	ck_assert_int_eq(rs_region_params_init(&p, 1, 4, 0, RS_MODE_OVERWRITE,
					       RS_MODE_OVERWRITE), 0);
	p.sideband_pages = SB_PAGES;
	ck_assert_int_eq(rs_region_size(&p, &mem_size), 0);
	mem = mmap(NULL, mem_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_int_eq(rs_region_layout(mem, mem_size, &p), 0);
	ck_assert_int_eq(rs_region_open(&region, mem, mem_size), 0);
	memset(&g, 0, sizeof(g));
}

static void region_free(void)
{
	agent_pstate_end();
	gi_pstate_fini(&g);
	munmap(mem, mem_size);
}

static void map_of(struct agent_mmap *m, uint64_t start, const char *path)
{
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->len = 0x1000;
	m->prot = PROT_READ | PROT_EXEC;
	m->flags = MAP_PRIVATE;
	m->path = path;
	m->build_id_size = 20;
	memset(m->build_id, 0x5a, 20);
}

static const struct gi_pstate_proc *proc_of(uint32_t pid)
{
	uint32_t i;

	for (i = 0; i < g.nr_procs; i++)
		if (g.procs[i].pid == pid)
			return &g.procs[i];
	return NULL;
}

/* A kernel record of @type: @body of @len bytes, @name after it. */
static void kernel(uint32_t type, uint16_t misc, const void *body, size_t len,
		   const char *name)
{
	static uint8_t rec[512] __attribute__((aligned(8)));
	struct rs_perf_header h = { .type = type, .misc = misc };
	size_t n = strlen(name) + 1;

	h.size = (uint16_t)(sizeof(h) + len + ((n + 7) & ~(size_t)7));
	memset(rec, 0, sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), body, len);
	memcpy(rec + sizeof(h) + len, name, n);
	agent_pstate_kernel((const void *)rec);
}

START_TEST(agent_to_host)
{
	uint32_t me = (uint32_t)getpid(), ids[2] = { me, me };
	const struct gi_pstate_proc *p;
	struct agent_mmap m;
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint8_t id[24];
		uint32_t prot, flags;
	} k;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 1000, 65536), 0);
	ck_assert_uint_eq(agent_pstate_gen(me), 0);
	/* begun, nothing written yet */
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_PSTATE_NONE);
	agent_pstate_proc(me, 1);
	map_of(&m, 0x400000, "/bin/prog");
	agent_pstate_map(me, &m);
	map_of(&m, 0x7f0000000000, "/lib/libc.so.6");
	agent_pstate_map(me, &m);
	ck_assert_uint_ne(agent_pstate_gen(me), 0);
	ck_assert_int_eq(agent_pstate_known(me), 1);
	/* not before the tick */
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_PSTATE_NONE);
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_PSTATE_OK);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.nr_maps, 2);
	ck_assert_uint_eq(g.st.refused, 0);
	ck_assert_uint_eq(g.procs[0].pid, me);
	ck_assert_uint_eq(g.procs[0].ppid, 0);       /* its birth not seen */
	ck_assert_uint_eq(g.procs[0].flags, 0);
	/* the kernel's name of this process (under valgrind, its tool's) */
	{
		char comm[32] = "";
		FILE *f = fopen("/proc/self/comm", "r");

		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(fgets(comm, sizeof(comm), f));
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		ck_assert_str_eq(g.procs[0].comm, comm);
	}
	ck_assert_uint_eq(g.maps[0].start, 0x400000);
	ck_assert_uint_eq(g.maps[0].build_id_len, 20);
	ck_assert_int_eq(memcmp(g.maps[1].name, "/lib/libc.so.6", 14), 0);
	/* the kernel renames it (exec: its mappings emptied), maps code, and
	 * speaks of a process the agent does not know */
	kernel(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, ids, sizeof(ids),
	       "newprog");
	memset(&k, 0, sizeof(k));
	k.pid = k.tid = me;
	k.addr = 0x500000;
	k.len = 0x3000;
	k.prot = PROT_READ | PROT_EXEC;
	kernel(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &k, sizeof(k),
	       "/bin/newprog");
	k.prot = PROT_READ;           /* data: not kept */
	k.addr = 0x600000;
	kernel(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &k, sizeof(k),
	       "/bin/newprog");
	k.pid = k.tid = me + 100000;  /* a stranger */
	k.prot = PROT_READ | PROT_EXEC;
	kernel(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &k, sizeof(k),
	       "/bin/other");
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.nr_maps, 1);
	ck_assert_str_eq(g.procs[0].comm, "newprog");
	ck_assert_uint_eq(g.maps[0].start, 0x500000);
	ck_assert_uint_eq(g.maps[0].build_id_len, 0);
	ck_assert_uint_eq(g.info.head.generation, 2);
	/* unchanged: no rewrite */
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.info.head.generation, 2);
	ck_assert_uint_eq(agent_pstate_stats()->publishes, 2);
	p = proc_of(me);
	ck_assert_ptr_nonnull(p);
	region_free();
}
END_TEST

/* The kernel's FORK or EXIT of thread @tid of process @pid, child of
 * @ppid, at @time. */
static void thread(uint32_t type, uint32_t pid, uint32_t tid, uint32_t ppid,
		   uint64_t time)
{
	struct {
		struct rs_perf_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} r = { { type, 0, sizeof(r) }, pid, ppid, tid, ppid, time };

	agent_pstate_kernel(&r.h);
}

/* ... of process @pid (its main thread). */
static void task(uint32_t type, uint32_t pid, uint32_t ppid, uint64_t time)
{
	thread(type, pid, pid, ppid, time);
}

/* The kernel's COMM of @pid: @exec, or a rename. */
static void comm(uint32_t pid, const char *name, int exec)
{
	uint32_t ids[2] = { pid, pid };

	kernel(PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, ids,
	       sizeof(ids), name);
}

/* The kernel's MMAP2 of code for @pid at @addr. */
static void code(uint32_t pid, uint64_t addr, const char *name)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint8_t id[24];
		uint32_t prot, flags;
	} k;

	memset(&k, 0, sizeof(k));
	k.pid = k.tid = pid;
	k.addr = addr;
	k.len = 0x1000;
	k.prot = PROT_READ | PROT_EXEC;
	kernel(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &k, sizeof(k), name);
}

/* A parent of pid 100 with two mappings, as mmaps gives it. */
static void parent(void)
{
	struct agent_mmap m;

	ck_assert_int_eq(agent_pstate_proc(100, 1), 0);
	map_of(&m, 0x400000, "/bin/busybox");
	agent_pstate_map(100, &m);
	map_of(&m, 0x7fff0000, "[vdso]");
	agent_pstate_map(100, &m);
	ck_assert_int_eq(agent_pstate_sampled(100), 0);
}

/* A child born under the agent's eyes has its parent's mappings (a
 * busybox applet never execs), is renamed, and once it ended stays in the
 * table, marked, with its parent, until every ring has been written over
 * twice since; mmaps reads its mappings from the model. */
START_TEST(born_and_ended)
{
	const struct gi_pstate_proc *p;
	struct agent_mmap m;
	uint64_t gen;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 65536), 0);
	parent();
	task(PERF_RECORD_FORK, 101, 100, 1000);
	/* a thread of the parent is no process */
	thread(PERF_RECORD_FORK, 100, 104, 100, 1001);
	comm(101, "awk", 0);
	gen = agent_pstate_gen(101);
	ck_assert_uint_ne(gen, 0);
	ck_assert_uint_ne(gen, agent_pstate_gen(100));
	ck_assert_int_eq(agent_pstate_known(101), 1);   /* no /proc read */
	ck_assert_int_eq(agent_pstate_map_at(101, 0, &m), 0);
	ck_assert_str_eq(m.path, "/bin/busybox");
	ck_assert_uint_eq(m.build_id_size, 20);
	ck_assert_int_eq(agent_pstate_map_at(101, 1, &m), 0);
	ck_assert_str_eq(m.path, "[vdso]");
	ck_assert_int_eq(agent_pstate_map_at(101, 2, &m), -1);
	ck_assert_int_eq(agent_pstate_sampled(101), 0);
	task(PERF_RECORD_EXIT, 101, 100, 2000);
	/* a thread's end is not its process's */
	thread(PERF_RECORD_EXIT, 100, 104, 100, 2001);
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr_procs, 2);
	p = proc_of(101);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->comm, "awk");
	ck_assert_uint_eq(p->ppid, 100);
	ck_assert_uint_eq(p->flags, RS_PSTATE_PROC_ENDED);
	ck_assert_uint_eq(p->nr_maps, 2);
	ck_assert_uint_eq(proc_of(100)->flags, 0);
	ck_assert_uint_eq(agent_pstate_stats()->ended_kept, 1);
	ck_assert_uint_eq(agent_pstate_stats()->forks, 1);
	ck_assert_uint_eq(agent_pstate_stats()->inherited, 1);
	ck_assert_int_eq(agent_pstate_has_ended(), 1);
	/* ticks alone keep it; so does the epoch it ended in */
	agent_pstate_tick(NULL, 0, next_tick());
	agent_pstate_epoch();
	ck_assert_uint_eq(agent_pstate_gen(101), gen);
	/* the next: every ring written over since it ended */
	agent_pstate_epoch();
	ck_assert_uint_eq(agent_pstate_gen(101), 0);
	ck_assert_int_eq(agent_pstate_has_ended(), 0);
	ck_assert_uint_eq(agent_pstate_stats()->expired, 1);
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.procs[0].pid, 100);
	region_free();
}
END_TEST

/* A child's mappings share their names with its parent's: they outlive
 * the parent's exec, a mapping over one of the parent's, and the parent
 * itself (valgrind, in the suite's run, would see a name freed early or
 * never). */
START_TEST(names_shared)
{
	struct agent_mmap m;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 65536), 0);
	parent();
	task(PERF_RECORD_FORK, 101, 100, 1000);
	task(PERF_RECORD_FORK, 102, 100, 1001);
	code(100, 0x7fff0000, "/lib/over-vdso.so");     /* over its [vdso] */
	comm(100, "sh", 1);                              /* its exec */
	code(100, 0x400000, "/bin/sh");
	comm(101, "gzip", 1);                            /* one child's too */
	code(101, 0x400000, "/bin/gzip");
	task(PERF_RECORD_EXIT, 100, 1, 2000);
	agent_pstate_epoch();
	agent_pstate_epoch();                            /* the parent gone */
	ck_assert_uint_eq(agent_pstate_gen(100), 0);
	ck_assert_int_eq(agent_pstate_map_at(102, 0, &m), 0);
	ck_assert_str_eq(m.path, "/bin/busybox");
	ck_assert_int_eq(agent_pstate_map_at(102, 1, &m), 0);
	ck_assert_str_eq(m.path, "[vdso]");
	ck_assert_int_eq(agent_pstate_map_at(101, 0, &m), 0);
	ck_assert_str_eq(m.path, "/bin/gzip");
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_ptr_nonnull(proc_of(102));
	ck_assert_uint_eq(proc_of(102)->nr_maps, 2);
	region_free();
}
END_TEST

/* A process never sampled that ended leaves the model a tick after;
 * never sampled and alive, it is in the table only with code. */
START_TEST(unsampled)
{
	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 65536), 0);
	parent();
	task(PERF_RECORD_FORK, 102, 100, 1000);
	task(PERF_RECORD_FORK, 103, 2, 1000);           /* no parent known */
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr_procs, 2);               /* 103 has no code */
	ck_assert_ptr_nonnull(proc_of(102));
	task(PERF_RECORD_EXIT, 102, 100, 2000);
	agent_pstate_tick(NULL, 0, next_tick());                 /* the tick after */
	ck_assert_uint_ne(agent_pstate_gen(102), 0);
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_ptr_null(proc_of(102));               /* not published */
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_uint_eq(agent_pstate_gen(102), 0);
	region_free();
}
END_TEST

/* The CPUs' buffers are read one after the other: a child's exec (on
 * one CPU) before its FORK (on another) is not undone by the FORK; an
 * EXIT before its FORK leaves the child ended, with its parent's
 * mappings; a FORK after the EXIT of its pid is another process (a new
 * number: the rings describe it anew), and that EXIT, read late, is not
 * the new one's. */
START_TEST(out_of_order)
{
	struct agent_mmap m;
	uint64_t gen;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 65536), 0);
	parent();
	/* exec'd before the FORK is read */
	comm(201, "gzip", 1);
	code(201, 0x500000, "/bin/gzip");
	task(PERF_RECORD_FORK, 201, 100, 1000);
	ck_assert_int_eq(agent_pstate_map_at(201, 0, &m), 0);
	ck_assert_str_eq(m.path, "/bin/gzip");
	ck_assert_int_eq(agent_pstate_map_at(201, 1, &m), -1);
	ck_assert_uint_eq(agent_pstate_stats()->inherited, 0);
	/* ended before the FORK is read */
	task(PERF_RECORD_EXIT, 202, 100, 3000);
	task(PERF_RECORD_FORK, 202, 100, 2500);
	ck_assert_int_eq(agent_pstate_map_at(202, 0, &m), 0);
	ck_assert_str_eq(m.path, "/bin/busybox");
	ck_assert_int_eq(agent_pstate_sampled(202), 0);
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_ptr_nonnull(proc_of(202));
	ck_assert_uint_eq(proc_of(202)->flags, RS_PSTATE_PROC_ENDED);
	/* its pid's next process: a FORK after that EXIT */
	gen = agent_pstate_gen(202);
	task(PERF_RECORD_FORK, 202, 201, 4000);
	ck_assert_uint_ne(agent_pstate_gen(202), gen);
	ck_assert_int_eq(agent_pstate_map_at(202, 0, &m), 0);
	ck_assert_str_eq(m.path, "/bin/gzip");          /* 201's */
	/* an EXIT older than that FORK: the former one's */
	task(PERF_RECORD_EXIT, 202, 100, 3500);
	ck_assert_int_eq(agent_pstate_sampled(202), 0);
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(proc_of(202)->flags, 0);
	ck_assert_uint_eq(proc_of(202)->ppid, 201);
	/* a second FORK of a pid whose end was not seen: another process */
	gen = agent_pstate_gen(202);
	task(PERF_RECORD_FORK, 202, 100, 5000);
	ck_assert_uint_ne(agent_pstate_gen(202), gen);
	ck_assert_int_eq(agent_pstate_map_at(202, 0, &m), 0);
	ck_assert_str_eq(m.path, "/bin/busybox");
	region_free();
}
END_TEST

/* After the kernel lost records, the live processes are no longer known
 * (mmaps reads /proc again) and a look, once a second, finds the ones
 * gone (a child reaped: its pid is free); no look is due otherwise. */
START_TEST(lost_then_looked)
{
	uint32_t me = (uint32_t)getpid();
	uint64_t t = 5000000000ull;
	pid_t child;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 65536), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child)
		_exit(0);
	agent_pstate_proc(me, 1);
	agent_pstate_proc((uint32_t)child, 1);
	ck_assert_int_eq(agent_pstate_sampled(me), 0);
	ck_assert_int_eq(agent_pstate_sampled((uint32_t)child), 0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	agent_pstate_tick(NULL, 0, t);                   /* no look: nothing lost */
	ck_assert_uint_eq(agent_pstate_stats()->ended, 0);
	agent_pstate_lost();
	ck_assert_int_eq(agent_pstate_known(me), 0);
	agent_pstate_tick(NULL, 0, t + 1);               /* the look */
	ck_assert_uint_eq(agent_pstate_stats()->ended, 1);
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr_procs, 2);
	ck_assert_uint_eq(proc_of(me)->flags, 0);
	ck_assert_uint_eq(proc_of((uint32_t)child)->flags, RS_PSTATE_PROC_ENDED);
	ck_assert_uint_eq(agent_pstate_stats()->lost, 1);
	/* /proc has none: ended at once (its EXIT was read already) */
	agent_pstate_proc(0x7ffffff0u, 0);
	agent_pstate_gone(0x7ffffff0u);
	ck_assert_uint_eq(agent_pstate_stats()->ended, 2);
	region_free();
}
END_TEST

/* A full model makes room from the ended processes: the ones never
 * sampled first, then the oldest end; with none ended, a new process is
 * not taken (counted). */
START_TEST(room_from_the_ended)
{
	uint32_t i;

	region_new();
	for (i = 1; i <= 4096; i++)
		ck_assert_int_eq(agent_pstate_proc(1000 + i, 0), 0);
	ck_assert_int_eq(agent_pstate_proc(999, 0), -1);
	ck_assert_uint_eq(agent_pstate_stats()->full, 1);
	ck_assert_int_eq(agent_pstate_sampled(1001), 0);
	ck_assert_int_eq(agent_pstate_sampled(1002), 0);
	task(PERF_RECORD_EXIT, 1002, 1, 10);    /* sampled, ended first */
	task(PERF_RECORD_EXIT, 1001, 1, 20);    /* sampled */
	task(PERF_RECORD_EXIT, 1003, 1, 30);    /* never sampled */
	ck_assert_int_eq(agent_pstate_proc(999, 0), 0);
	ck_assert_uint_eq(agent_pstate_gen(1003), 0);
	ck_assert_int_eq(agent_pstate_proc(998, 0), 0);
	ck_assert_uint_eq(agent_pstate_gen(1002), 0);
	ck_assert_uint_ne(agent_pstate_gen(1001), 0);
	ck_assert_uint_eq(agent_pstate_stats()->evicted, 2);
	/* every one still found by its pid after those moves */
	for (i = 1004; i <= 5096; i++)
		ck_assert_uint_ne(agent_pstate_gen(i), 0);
	region_free();
}
END_TEST

/* The table keeps up with the model, not the beat: a process born and
 * exec'd is in it at the pass's end (agent_pstate_publish), and due
 * within the pass once a ring took half its size since the last copy (a
 * ring overwrites the records of its exec one ring's size after them);
 * while nothing changed, no ring's bytes make a copy. */
START_TEST(follows_the_rings)
{
	static struct agent_ring rings[2];
	const struct gi_pstate_proc *p;
	uint64_t gen;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 65536), 0);
	memset(rings, 0, sizeof(rings));
	rings[0].prod.ring.data_size = rings[1].prod.ring.data_size = 4096;
	parent();
	task(PERF_RECORD_FORK, 101, 100, 1000);
	comm(101, "gzip", 1);
	code(101, 0x500000, "/usr/bin/gzip");
	ck_assert_int_eq(agent_pstate_sampled(101), 0);
	/* changed, but neither ring took half its size: not yet */
	rings[0].written_bytes = 2047;
	rings[1].written_bytes = 100;
	ck_assert_int_eq(agent_pstate_due(&rings[0]), 0);
	ck_assert_int_eq(agent_pstate_due(&rings[1]), 0);
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_PSTATE_NONE);
	/* ring 0 took half: due; the pass's end writes it, with no tick */
	rings[0].written_bytes = 2048;
	ck_assert_int_eq(agent_pstate_due(&rings[0]), 1);
	ck_assert_int_eq(agent_pstate_due(&rings[1]), 0);
	agent_pstate_publish(rings, 2, 5000);
	ck_assert_uint_eq(rings[0].table_mark, 2048);
	ck_assert_uint_eq(rings[1].table_mark, 100);
	ck_assert_int_eq(agent_pstate_due(&rings[0]), 0);
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_PSTATE_OK);
	p = proc_of(101);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->comm, "gzip");
	ck_assert_uint_eq(p->nr_maps, 1);
	ck_assert_uint_eq(g.info.head.time, 5000);
	gen = g.info.head.generation;
	/* unchanged: never due, however much the rings take, nor rewritten */
	rings[0].written_bytes += 1u << 20;
	ck_assert_int_eq(agent_pstate_due(&rings[0]), 0);
	agent_pstate_publish(rings, 2, 6000);
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.info.head.generation, gen);
	ck_assert_uint_eq(rings[0].table_mark, 2048);   /* no copy: kept */
	/* its end is a change, due at once: the ring is far past its mark */
	task(PERF_RECORD_EXIT, 101, 100, 2000);
	ck_assert_int_eq(agent_pstate_due(&rings[0]), 1);
	agent_pstate_publish(rings, 2, 7000);
	ck_assert_int_eq(agent_pstate_due(&rings[0]), 0);
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_uint_eq(proc_of(101)->flags, RS_PSTATE_PROC_ENDED);
	region_free();
}
END_TEST

/* A table too small for all: the processes that fit, the rest counted. */
START_TEST(bounded_and_counted)
{
	static char path[64];
	struct agent_mmap m;
	uint32_t me = (uint32_t)getpid(), i;

	region_new();
	/* two copies of 1 KiB: a 64-byte head, then 960 bytes */
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 2048), 0);
	agent_pstate_proc(me, 1);
	snprintf(path, sizeof(path), "/lib/lib%s.so", "x");
	for (i = 0; i < RS_PSTATE_MAX_MAPS + 3; i++) {
		map_of(&m, 0x10000 * (i + 1), path);
		agent_pstate_map(me, &m);
	}
	agent_pstate_proc(1, 0);
	ck_assert_int_eq(agent_pstate_sampled(1), 0);
	agent_pstate_tick(NULL, 0, next_tick());
	ck_assert_int_eq(gi_pstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_PSTATE_OK);
	/* pid 1, with no maps, fits; this one's 64 maps do not */
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.procs[0].pid, 1);
	ck_assert_uint_eq(g.info.head.flags, RS_PSTATE_TRUNCATED);
	ck_assert_uint_eq(g.info.head.procs_left_out, 1);
	ck_assert_uint_eq(g.info.head.maps_left_out, RS_PSTATE_MAX_MAPS + 3);
	ck_assert_uint_eq(agent_pstate_stats()->procs_left_out, 1);
	region_free();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent_pstate");
	TCase *tc = tcase_create("agent_pstate");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, agent_to_host);
	tcase_add_test(tc, born_and_ended);
	tcase_add_test(tc, names_shared);
	tcase_add_test(tc, unsampled);
	tcase_add_test(tc, out_of_order);
	tcase_add_test(tc, lost_then_looked);
	tcase_add_test(tc, room_from_the_ended);
	tcase_add_test(tc, bounded_and_counted);
	tcase_add_test(tc, follows_the_rings);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
