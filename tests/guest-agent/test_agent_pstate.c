/* SPDX-License-Identifier: MIT */
/*
 * The agent's process state (guest-agent/linux/pstate.c) into a region,
 * read back as the host reads it (rs_pstate_read, gpstate): a process
 * described is in the table with its comm and mappings after the next
 * tick, and only then; the kernel's records rename it, exec it (its
 * mappings emptied) and add code to it, and are ignored for processes it
 * does not know; a process that ended is dropped by the tick's look; the
 * table bounds what it holds and counts the rest.
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

#include "../../guest-agent/linux/agent.h"
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
static struct gpstate g;

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
	gpstate_fini(&g);
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

static const struct gpstate_proc *proc_of(uint32_t pid)
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
	const struct gpstate_proc *p;
	struct agent_mmap m;
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint8_t id[24];
		uint32_t prot, flags;
	} k;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 1000, 65536), 0);
	ck_assert_int_eq(agent_pstate_has(me), 0);
	/* begun, nothing written yet */
	ck_assert_int_eq(gpstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GPSTATE_NONE);
	agent_pstate_proc(me);
	map_of(&m, 0x400000, "/bin/prog");
	agent_pstate_map(me, &m);
	map_of(&m, 0x7f0000000000, "/lib/libc.so.6");
	agent_pstate_map(me, &m);
	ck_assert_int_eq(agent_pstate_has(me), 1);
	/* not before the tick */
	ck_assert_int_eq(gpstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GPSTATE_NONE);
	agent_pstate_tick(next_tick());
	ck_assert_int_eq(gpstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GPSTATE_OK);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.nr_maps, 2);
	ck_assert_uint_eq(g.st.refused, 0);
	ck_assert_uint_eq(g.procs[0].pid, me);
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
	agent_pstate_tick(next_tick());
	ck_assert_int_eq(gpstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.nr_maps, 1);
	ck_assert_str_eq(g.procs[0].comm, "newprog");
	ck_assert_uint_eq(g.maps[0].start, 0x500000);
	ck_assert_uint_eq(g.maps[0].build_id_len, 0);
	ck_assert_uint_eq(g.info.head.generation, 2);
	/* unchanged: no rewrite */
	agent_pstate_tick(next_tick());
	ck_assert_int_eq(gpstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.info.head.generation, 2);
	ck_assert_uint_eq(agent_pstate_stats()->publishes, 2);
	p = proc_of(me);
	ck_assert_ptr_nonnull(p);
	region_free();
}
END_TEST

/* A child that ended (reaped: its pid is free) is dropped at the tick. */
START_TEST(ended_dropped)
{
	uint32_t me = (uint32_t)getpid();
	pid_t child;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 65536), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child)
		_exit(0);
	agent_pstate_proc(me);
	agent_pstate_proc((uint32_t)child);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	agent_pstate_tick(next_tick());
	ck_assert_int_eq(gpstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.procs[0].pid, me);
	ck_assert_uint_eq(agent_pstate_stats()->ended, 1);
	ck_assert_int_eq(agent_pstate_has((uint32_t)child), 0);
	region_free();
}
END_TEST

/* Ended processes are looked for once a second, whatever the ticks. */
START_TEST(pruned_once_a_second)
{
	uint32_t me = (uint32_t)getpid();
	uint64_t t = 5000000000ull;
	int fds[2];
	char c;
	pid_t child;

	region_new();
	ck_assert_int_eq(agent_pstate_begin(&region, 0, 65536), 0);
	ck_assert_int_eq(pipe(fds), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) < 0);
	}
	close(fds[0]);
	agent_pstate_proc(me);
	agent_pstate_proc((uint32_t)child);
	agent_pstate_tick(t);                   /* a round: both alive */
	close(fds[1]);                          /* the child ends */
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	agent_pstate_tick(t + 100000000ull);    /* ticks within the second */
	agent_pstate_tick(t + 999999999ull);
	ck_assert_int_eq(agent_pstate_has((uint32_t)child), 1);
	ck_assert_uint_eq(agent_pstate_stats()->ended, 0);
	agent_pstate_tick(t + 1000000000ull);   /* the next round */
	ck_assert_int_eq(agent_pstate_has((uint32_t)child), 0);
	ck_assert_uint_eq(agent_pstate_stats()->ended, 1);
	ck_assert_int_eq(gpstate_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.info.head.time, t + 1000000000ull);
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
	agent_pstate_proc(me);
	snprintf(path, sizeof(path), "/lib/lib%s.so", "x");
	for (i = 0; i < RS_PSTATE_MAX_MAPS + 3; i++) {
		map_of(&m, 0x10000 * (i + 1), path);
		agent_pstate_map(me, &m);
	}
	agent_pstate_proc(1);
	agent_pstate_tick(next_tick());
	ck_assert_int_eq(gpstate_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GPSTATE_OK);
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
	tcase_add_test(tc, ended_dropped);
	tcase_add_test(tc, pruned_once_a_second);
	tcase_add_test(tc, bounded_and_counted);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
