/* SPDX-License-Identifier: MIT */
/*
 * hostview's readers alone, on bytes made here: thread names, /proc
 * lines and directories, tracepoint formats, perf records, buffer walks;
 * hostile and short input of each, and a NULL case per public function.
 * Needs no privilege.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "rec_build.h"
#include "ringside/hv_parse.h"
#include "ringside/hv_rec.h"
#include "ringside/hv_track.h"

/* ---- names ---- */

START_TEST(classify_qemu_names)
{
	struct hv_thread_id t;

	ck_assert_int_eq(hv_thread_classify("CPU 0/KVM", 0, &t), HV_KIND_VCPU);
	ck_assert_int_eq(t.vcpu, 0);
	ck_assert_str_eq(t.accel, "KVM");
	ck_assert_int_eq(hv_thread_classify("CPU 17/TCG", 0, &t), HV_KIND_VCPU);
	ck_assert_int_eq(t.vcpu, 17);
	ck_assert_str_eq(t.accel, "TCG");
	ck_assert_int_eq(hv_thread_classify("CPU 1023/KVM", 0, &t), HV_KIND_VCPU);
	ck_assert_int_eq(t.vcpu, 1023);
	ck_assert_int_eq(hv_thread_classify("qemu-system-x86", 1, &t),
			 HV_KIND_EMULATOR);
	ck_assert_int_eq(t.vcpu, -1);
	ck_assert_str_eq(t.accel, "");
	ck_assert_int_eq(hv_thread_classify("IO io1", 0, &t), HV_KIND_IO);
	ck_assert_int_eq(hv_thread_classify("IO mon_iothread0", 0, &t),
			 HV_KIND_IO);
	ck_assert_str_eq(t.comm, "IO mon_iothread");  /* 15 bytes kept */
	ck_assert_int_eq(hv_thread_classify("call_rcu", 0, &t), HV_KIND_OTHER);
	ck_assert_int_eq(hv_thread_classify("worker", 0, &t), HV_KIND_OTHER);
	/* a vCPU name wins over being the main thread */
	ck_assert_int_eq(hv_thread_classify("CPU 0/KVM", 1, &t), HV_KIND_VCPU);
}
END_TEST

START_TEST(classify_hostile_names)
{
	static const char *const not_vcpu[] = {
		"CPU", "CPU ", "CPU /KVM", "CPU 1/", "CPU 1", "CPU x/KVM",
		"CPU -1/KVM", "CPU 1/KV M", "CPU 1/KVM/", "CPU 1234567890/KVM",
		"CPU 1/ABCDEFGH", "cpu 1/KVM", "CPU 1//KVM", "IO ", "IO", "",
	};
	struct hv_thread_id t;

	for (size_t i = 0; i < sizeof(not_vcpu) / sizeof(not_vcpu[0]); i++) {
		int k = hv_thread_classify(not_vcpu[i], 0, &t);

		ck_assert_msg(k == HV_KIND_OTHER, "'%s' is %d", not_vcpu[i], k);
		ck_assert_int_eq(t.vcpu, -1);
	}
	/* longer than a comm: cut at 15 bytes, then classified */
	ck_assert_int_eq(hv_thread_classify("CPU 1/KVMXXXXXXXXX", 0, &t),
			 HV_KIND_OTHER);
	ck_assert_int_eq(strlen(t.comm), 15);
}
END_TEST

START_TEST(classify_null)
{
	struct hv_thread_id t;

	ck_assert_int_eq(hv_thread_classify(NULL, 0, &t), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_thread_classify("x", 0, NULL), HV_ERR(hve_invalid));
}
END_TEST

/* ---- /proc lines ---- */

#define STAT_TAIL " S 1 2 3 0 -1 4194560 10 0 0 0 5 6 0 0 20 0 4 0 " \
		  "781499 3133440 362 18446744073709551615\n"

START_TEST(parse_stat_names)
{
	const char *lines[] = {
		"42 (CPU 0/KVM)" STAT_TAIL,
		"42 (a) b (c))" STAT_TAIL,        /* ')' and spaces in a name */
		"42 ()" STAT_TAIL,
	};
	uint64_t start;
	char state;

	for (size_t i = 0; i < 3; i++) {
		start = 0;
		ck_assert_int_eq(hv_thread_parse_stat(lines[i], strlen(lines[i]),
						      &start, &state), 0);
		ck_assert_uint_eq(start, 781499);
		ck_assert_int_eq(state, 'S');
	}
	ck_assert_int_eq(hv_thread_parse_stat(lines[0], strlen(lines[0]),
					      &start, NULL), 0);
}
END_TEST

START_TEST(parse_stat_short)
{
	const char *line = "42 (CPU 0/KVM)" STAT_TAIL;
	const char *bad[] = {
		"", "42", "42 (x", "42 (x)", "42 (x) ", "42 (x) S 1 2",
		"42 (x) S 1 2 3 0 -1 4194560 10 0 0 0 5 6 0 0 20 0 4 0 x12 3",
		"42 (x) S 1 2 3 0 -1 4194560 10 0 0 0 5 6 0 0 20 0 4 0 "
			"99999999999999999999999 1",
	};
	uint64_t start;
	size_t stop;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(hv_thread_parse_stat(bad[i], strlen(bad[i]), &start,
						   NULL) == HV_ERR(hve_short),
			      "'%s'", bad[i]);
	/* Every prefix that ends before field 22 is whole. */
	stop = (size_t)(strstr(line, "781499") - line);
	for (size_t n = 0; n <= stop; n++)
		ck_assert_int_eq(hv_thread_parse_stat(line, n, &start, NULL),
				 HV_ERR(hve_short));
}
END_TEST

START_TEST(parse_stat_null)
{
	uint64_t start;

	ck_assert_int_eq(hv_thread_parse_stat(NULL, 4, &start, NULL),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_thread_parse_stat("x", 1, NULL, NULL),
			 HV_ERR(hve_invalid));
}
END_TEST

START_TEST(schedstat_lines)
{
	struct hv_schedstat s;
	const char *line = "123456 7890 12\n";

	ck_assert_int_eq(hv_thread_schedstat_parse(line, strlen(line), &s), 0);
	ck_assert_uint_eq(s.run_ns, 123456);
	ck_assert_uint_eq(s.wait_ns, 7890);
	ck_assert_uint_eq(s.slices, 12);
	for (size_t n = 0; n < strlen(line) - 1; n++)
		if (n < 13)      /* up to the last number's last digit */
			ck_assert_int_eq(
				hv_thread_schedstat_parse(line, n, &s),
				HV_ERR(hve_short));
	ck_assert_int_eq(hv_thread_schedstat_parse("1 x 3\n", 6, &s),
			 HV_ERR(hve_short));
	ck_assert_int_eq(hv_thread_schedstat_parse("1 -2 3\n", 7, &s),
			 HV_ERR(hve_short));
	ck_assert_int_eq(hv_thread_schedstat_parse(NULL, 1, &s),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_thread_schedstat_parse("1 2 3", 5, NULL),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_thread_schedstat_read(NULL, 0, 1, &s),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_thread_schedstat_read(NULL, 1, 1, NULL),
			 HV_ERR(hve_invalid));
}
END_TEST

/* A fake /proc: DIR/PID/task/TID/{comm,stat}. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void fake_thread(const char *proc, int pid, int tid, const char *comm,
			int with_stat)
{
	char dir[512], stat[256];

	snprintf(dir, sizeof(dir), "%s/%d/task/%d", proc, pid, tid);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(stat, sizeof(stat), "%d (%s)" STAT_TAIL, tid, comm);
	put_file(dir, "comm", comm);
	if (with_stat)
		put_file(dir, "stat", stat);
	else
		put_file(dir, "stat", "junk");
}

START_TEST(scan_fake_proc)
{
	char proc[] = "/tmp/hv-proc-XXXXXX";
	char path[512];
	struct hv_thread_id t[8];
	uint32_t found;

	ck_assert_ptr_nonnull(mkdtemp(proc));
	snprintf(path, sizeof(path), "%s/500", proc);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/500/task", proc);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	fake_thread(proc, 500, 500, "qemu-system-x86\n", 1);
	fake_thread(proc, 500, 501, "call_rcu\n", 1);
	fake_thread(proc, 500, 502, "CPU 0/KVM\n", 1);
	fake_thread(proc, 500, 503, "CPU 1/KVM\n", 1);
	fake_thread(proc, 500, 504, "IO iothread0\n", 1);
	fake_thread(proc, 500, 505, "CPU 2/KVM\n", 0);   /* ended: no stat */
	snprintf(path, sizeof(path), "%s/500/task/notatid", proc);
	ck_assert_int_eq(mkdir(path, 0700), 0);

	ck_assert_int_eq(hv_thread_scan(proc, 500, HV_KIND_DEFAULT, t, 8,
					&found), 0);
	ck_assert_uint_eq(found, 4);
	for (uint32_t i = 0; i < found; i++) {
		ck_assert_int_eq(t[i].pid, 500);
		ck_assert_uint_eq(t[i].start, 781499);
		if (t[i].tid == 500)
			ck_assert_uint_eq(t[i].kind, HV_KIND_EMULATOR);
		else if (t[i].tid == 504)
			ck_assert_uint_eq(t[i].kind, HV_KIND_IO);
		else
			ck_assert_int_eq(t[i].vcpu, t[i].tid - 502);
	}
	ck_assert_int_eq(hv_thread_scan(proc, 500, HV_KIND_VCPU, t, 8, &found), 0);
	ck_assert_uint_eq(found, 2);
	ck_assert_int_eq(hv_thread_scan(proc, 500, HV_KIND_ALL, t, 8, &found), 0);
	ck_assert_uint_eq(found, 5);
	/* more than the caller holds: counted, @max filled */
	ck_assert_int_eq(hv_thread_scan(proc, 500, HV_KIND_ALL, t, 2, &found), 0);
	ck_assert_uint_eq(found, 5);
	ck_assert_int_eq(hv_thread_scan(proc, 500, HV_KIND_ALL, NULL, 0, &found), 0);
	ck_assert_uint_eq(found, 5);
	/* a process that is not there */
	ck_assert_int_eq(hv_thread_scan(proc, 501, HV_KIND_ALL, t, 8, &found),
			 -ESRCH);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proc);
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

START_TEST(scan_self)
{
	struct hv_thread_id t[4];
	uint32_t found;

	ck_assert_int_eq(hv_thread_scan(NULL, getpid(), HV_KIND_ALL, t, 4,
					&found), 0);
	ck_assert_uint_ge(found, 1);
	ck_assert_int_eq(t[0].pid, getpid());
	ck_assert_uint_gt(t[0].start, 0);
}
END_TEST

START_TEST(scan_null)
{
	struct hv_thread_id t;
	uint32_t found;

	ck_assert_int_eq(hv_thread_scan(NULL, 0, HV_KIND_ALL, &t, 1, &found),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_thread_scan(NULL, 1, HV_KIND_ALL, &t, 1, NULL),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_thread_scan(NULL, 1, HV_KIND_ALL, NULL, 1, &found),
			 HV_ERR(hve_invalid));
}
END_TEST

/* ---- tracepoint formats ---- */

/* kvm_exit as Linux 6.x has it (its print fmt cut short). */
static const char kvm_exit_fmt[] =
	"name: kvm_exit\n"
	"ID: 103\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %u reason %s\", REC->vcpu_id, REC->exit_reason\n";

static const char *const exit_names[] = { "exit_reason", "isa", "common_pid",
					  "nothere" };

START_TEST(tp_parse_kvm_exit)
{
	struct hv_tp tp;

	ck_assert_int_eq(hv_tp_parse(kvm_exit_fmt, strlen(kvm_exit_fmt),
				     exit_names, 4, &tp), 0);
	ck_assert_uint_eq(tp.id, 103);
	ck_assert_uint_eq(tp.nfields, 4);
	ck_assert_uint_eq(tp.f[0].offset, 8);
	ck_assert_uint_eq(tp.f[0].size, 4);
	ck_assert_uint_eq(tp.f[1].offset, 24);
	ck_assert_uint_eq(tp.f[2].offset, 4);
	ck_assert_uint_eq(tp.f[2].is_signed, 1);
	ck_assert_uint_eq(tp.f[3].size, 0);          /* absent */
	ck_assert_int_eq(hv_tp_parse(kvm_exit_fmt, strlen(kvm_exit_fmt),
				     NULL, 0, &tp), 0);
}
END_TEST

START_TEST(tp_parse_hostile)
{
	static const char *const comm[] = { "comm" };
	static const char *const reason[] = { "exit_reason" };
	struct hv_tp tp;
	char buf[sizeof(kvm_exit_fmt)];
	const char *bad_size = "ID: 7\n\tfield:unsigned int exit_reason;"
			       "\toffset:8;\tsize:3;\tsigned:0;\n";
	const char *huge = "ID: 7\n\tfield:unsigned int exit_reason;"
			   "\toffset:99999999999;\tsize:4;\tsigned:0;\n";
	const char *no_id = "\tfield:unsigned int exit_reason;\toffset:8;"
			    "\tsize:4;\tsigned:0;\n";
	const char *junk = "ID: 9\nfield:\nfield:;\nfield:x;offset:;size:\n"
			   "field:int ;offset:1;size:4;\n\n\n";

	/* an array field of size 16: not a number this library reads */
	ck_assert_int_eq(hv_tp_parse(kvm_exit_fmt, strlen(kvm_exit_fmt), comm, 1,
				     &tp), HV_ERR(hve_format));
	ck_assert_int_eq(hv_tp_parse(bad_size, strlen(bad_size), reason, 1, &tp),
			 HV_ERR(hve_format));
	ck_assert_int_eq(hv_tp_parse(huge, strlen(huge), reason, 1, &tp), 0);
	ck_assert_uint_eq(tp.f[0].size, 0);      /* line passed over */
	ck_assert_int_eq(hv_tp_parse(no_id, strlen(no_id), reason, 1, &tp),
			 HV_ERR(hve_format));
	ck_assert_int_eq(hv_tp_parse(junk, strlen(junk), reason, 1, &tp), 0);
	ck_assert_uint_eq(tp.id, 9);
	ck_assert_uint_eq(tp.f[0].size, 0);
	/* every prefix parses or fails cleanly, never reads past it */
	for (size_t n = 0; n < sizeof(kvm_exit_fmt); n++) {
		char *copy = malloc(n ? n : 1);

		memcpy(copy, kvm_exit_fmt, n);
		hv_tp_parse(copy, n, exit_names, 4, &tp);
		free(copy);
	}
	/* no NUL needed */
	memcpy(buf, kvm_exit_fmt, sizeof(buf));
	ck_assert_int_eq(hv_tp_parse(buf, strlen(kvm_exit_fmt), reason, 1, &tp), 0);
}
END_TEST

START_TEST(tp_parse_null)
{
	static const char *const names[] = { "a", NULL };
	struct hv_tp tp;

	ck_assert_int_eq(hv_tp_parse(NULL, 1, NULL, 0, &tp), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_parse("ID: 1\n", 6, NULL, 0, NULL),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_parse("ID: 1\n", 6, NULL, 1, &tp),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_parse("ID: 1\n", 6, names, 2, &tp),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_parse("ID: 1\n", 6, names, HV_TP_FIELDS + 1, &tp),
			 HV_ERR(hve_invalid));
}
END_TEST

START_TEST(tp_get_bounds)
{
	struct hv_tpfield f = { .offset = 8, .size = 4 };
	uint8_t raw[16] = { 0 };
	uint64_t v;

	raw[8] = 0xfe;
	raw[9] = 0xff;
	raw[10] = 0xff;
	raw[11] = 0xff;
	ck_assert_int_eq(hv_tp_get(&f, raw, 12, &v), 0);
	ck_assert_uint_eq(v, 0xfffffffeu);
	f.is_signed = 1;
	ck_assert_int_eq(hv_tp_get(&f, raw, 12, &v), 0);
	ck_assert_int_eq((int64_t)v, -2);
	f.size = 1;
	ck_assert_int_eq(hv_tp_get(&f, raw, 12, &v), 0);
	ck_assert_int_eq((int64_t)v, -2);
	f.size = 2;
	f.is_signed = 0;
	ck_assert_int_eq(hv_tp_get(&f, raw, 12, &v), 0);
	ck_assert_uint_eq(v, 0xfffe);
	f.size = 8;
	ck_assert_int_eq(hv_tp_get(&f, raw, 16, &v), 0);
	ck_assert_int_eq(hv_tp_get(&f, raw, 15, &v), HV_ERR(hve_short));
	f.size = 4;
	ck_assert_int_eq(hv_tp_get(&f, raw, 11, &v), HV_ERR(hve_short));
	f.offset = UINT32_MAX - 1;
	ck_assert_int_eq(hv_tp_get(&f, raw, 16, &v), HV_ERR(hve_short));
	f.offset = 0;
	f.size = 0;                  /* absent field */
	ck_assert_int_eq(hv_tp_get(&f, raw, 16, &v), HV_ERR(hve_short));
	f.size = 3;
	ck_assert_int_eq(hv_tp_get(&f, raw, 16, &v), HV_ERR(hve_short));
	ck_assert_int_eq(hv_tp_get(NULL, raw, 16, &v), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_get(&f, NULL, 16, &v), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_get(&f, raw, 16, NULL), HV_ERR(hve_invalid));
}
END_TEST

START_TEST(tp_load_fake_tracefs)
{
	static const char *const names[] = { "exit_reason", "isa" };
	char dir[] = "/tmp/hv-tfs-XXXXXX";
	char path[512];
	struct hv_tp tp;
	char found[256];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(hv_tp_load(dir, "kvm", "kvm_exit", names, 2, &tp),
			 HV_ERR(hve_no_tracefs));
	snprintf(path, sizeof(path), "%s/events", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(hv_tp_load(dir, "kvm", "kvm_exit", names, 2, &tp),
			 HV_ERR(hve_no_tp));
	snprintf(path, sizeof(path), "%s/events/kvm", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/events/kvm/kvm_exit", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(hv_tp_load(dir, "kvm", "kvm_exit", names, 2, &tp),
			 HV_ERR(hve_no_tp));
	put_file(path, "format", kvm_exit_fmt);
	ck_assert_int_eq(hv_tp_load(dir, "kvm", "kvm_exit", names, 2, &tp), 0);
	ck_assert_uint_eq(tp.id, 103);
	ck_assert_uint_eq(tp.f[1].offset, 24);
	/* names never leave the tree */
	ck_assert_int_eq(hv_tp_load(dir, "kvm/../..", "x", names, 2, &tp),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_load(dir, "kvm", "../kvm_exit", names, 2, &tp),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_load(dir, NULL, "x", names, 2, &tp),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_load(dir, "kvm", "kvm_exit", names, 2, NULL),
			 HV_ERR(hve_invalid));
	/* the host's own, when it has one */
	if (hv_tp_tracefs_find(found, sizeof(found)) == 0)
		ck_assert(!strncmp(found, "/sys/kernel/", 12));
	ck_assert_int_eq(hv_tp_tracefs_find(NULL, 8), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_tp_tracefs_find(found, 0), HV_ERR(hve_invalid));
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/* ---- records ---- */

START_TEST(decode_each_type)
{
	struct hv_layout l;
	struct hv_ev ev;
	uint8_t rec[256];
	uint32_t n;

	test_layout(&l);
	n = rec_switch(rec, SW_IN, 7, 1000, 3);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_SWITCH_IN);
	ck_assert_uint_eq(ev.tid, 7);
	ck_assert_uint_eq(ev.time, 1000);
	ck_assert_uint_eq(ev.cpu, 3);
	ck_assert_uint_eq(ev.id, ID_SWITCH);
	n = rec_switch(rec, SW_OUT, 7, 1001, 3);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_SWITCH_OUT);
	n = rec_switch(rec, SW_PREEMPT, 7, 1002, 3);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_PREEMPT);
	n = rec_lost(rec, 42, 7, 1003);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_LOST);
	ck_assert_uint_eq(ev.count, 42);
	ck_assert_uint_eq(ev.time, 1003);
	n = rec_task(rec, PERF_RECORD_EXIT, 7, 7, 1004);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_EXIT);
	ck_assert_uint_eq(ev.time, 1004);
	n = rec_task(rec, PERF_RECORD_FORK, 7, 9, 1005);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_FORK);
	ck_assert_uint_eq(ev.count, 9);
	n = rec_sample(rec, ID_MIGRATE, 7, 1006, 1, 0, 0, 0);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_MIGRATE);
	ck_assert_uint_eq(ev.cpu, 1);
	n = rec_sample(rec, ID_EXIT, 7, 1007, 1, 64, 30, HV_ISA_VMX);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_KVM_EXIT);
	ck_assert_uint_eq(ev.reason, 30);
	ck_assert_uint_eq(ev.isa, HV_ISA_VMX);
	n = rec_sample(rec, ID_ENTRY, 7, 1008, 1, 28, 0, 0);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_KVM_ENTRY);
	n = rec_sample(rec, ID_UEXIT, 7, 1009, 1, 16, 2, 0);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_KVM_UEXIT);
	ck_assert_uint_eq(ev.reason, 2);
	n = rec_sample(rec, ID_UEXIT, 7, 1010, 1, 16, 2, (uint32_t)-EINTR);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.reason, HV_UEXIT_ERRNO | EINTR);
	ck_assert_str_eq(hv_name_exit(HV_EV_KVM_UEXIT, 0, ev.reason), "restart");
	/* old kernels: no isa field, the layout's own */
	l.exit_isa.size = 0;
	l.isa = HV_ISA_SVM;
	n = rec_sample(rec, ID_EXIT, 7, 1011, 1, 64, 0x7b, 0);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.isa, HV_ISA_SVM);
	ck_assert_str_eq(hv_name_exit(ev.type, ev.isa, ev.reason), "io");
}
END_TEST

START_TEST(decode_unknown)
{
	struct hv_layout l;
	struct hv_ev ev;
	uint8_t rec[256];
	uint32_t n;

	test_layout(&l);
	/* a sample of an id this buffer never opened */
	n = rec_sample(rec, 999, 7, 5, 1, 0, 0, 0);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_OTHER);
	/* a record type not decoded (COMM), read by its trailer */
	n = rec_switch(rec, SW_IN, 7, 6, 1);
	((struct perf_event_header *)(void *)rec)->type = PERF_RECORD_COMM;
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_OTHER);
	ck_assert_uint_eq(ev.time, 6);
	/* id 0 is never an event's */
	l.id[HV_SRC_MIGRATE] = 0;
	n = rec_sample(rec, 0, 7, 5, 1, 0, 0, 0);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), 0);
	ck_assert_uint_eq(ev.type, HV_EV_OTHER);
}
END_TEST

/* Every record cut short at every length is refused, never read past. */
START_TEST(decode_short)
{
	struct hv_layout l;
	struct hv_ev ev;
	uint8_t rec[256];
	uint32_t sizes[8], n = 0;
	uint8_t recs[8][256];

	test_layout(&l);
	sizes[n] = rec_switch(recs[n], SW_IN, 7, 1, 1); n++;
	sizes[n] = rec_lost(recs[n], 1, 7, 1); n++;
	sizes[n] = rec_task(recs[n], PERF_RECORD_EXIT, 7, 7, 1); n++;
	sizes[n] = rec_task(recs[n], PERF_RECORD_FORK, 7, 8, 1); n++;
	sizes[n] = rec_sample(recs[n], ID_MIGRATE, 7, 1, 1, 0, 0, 0); n++;
	sizes[n] = rec_sample(recs[n], ID_EXIT, 7, 1, 1, 64, 1, 1); n++;
	sizes[n] = rec_sample(recs[n], ID_UEXIT, 7, 1, 1, 16, 1, 0); n++;
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t len = 0; len < sizes[i]; len++) {
			uint8_t *copy = malloc(len ? len : 1);

			/* a header that says the cut size, and one that
			 * says the whole: both refused */
			memcpy(copy, recs[i], len);
			ck_assert_int_lt(hv_decode(&l, copy, len, &ev), 0);
			if (len >= 8) {
				((struct perf_event_header *)(void *)copy)->size =
					(uint16_t)len;
				ck_assert_int_lt(hv_decode(&l, copy, len, &ev), 0);
			}
			free(copy);
		}
	}
	/* raw size past the record */
	n = rec_sample(rec, ID_EXIT, 7, 1, 1, 64, 1, 1);
	put32(rec + 40, 200);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), HV_ERR(hve_corrupt));
	put32(rec + 40, UINT32_MAX);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), HV_ERR(hve_corrupt));
	/* raw too short for the field */
	n = rec_sample(rec, ID_EXIT, 7, 1, 1, 8, 0, 0);
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), HV_ERR(hve_short));
	n = rec_sample(rec, ID_EXIT, 7, 1, 1, 20, 0, 0);   /* isa past it */
	ck_assert_int_eq(hv_decode(&l, rec, n, &ev), HV_ERR(hve_short));
	/* a header size that is not the length handed in */
	n = rec_switch(rec, SW_IN, 7, 1, 1);
	ck_assert_int_eq(hv_decode(&l, rec, n + 8, &ev), HV_ERR(hve_short));
}
END_TEST

START_TEST(decode_null)
{
	struct hv_layout l;
	struct hv_ev ev;
	uint8_t rec[64];

	test_layout(&l);
	rec_switch(rec, SW_IN, 1, 1, 1);
	ck_assert_int_eq(hv_decode(NULL, rec, 40, &ev), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_decode(&l, NULL, 40, &ev), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_decode(&l, rec, 40, NULL), HV_ERR(hve_invalid));
}
END_TEST

/* ---- buffer walks ---- */

struct got {
	uint32_t n;
	uint64_t times[64];
	int stop_at;
};

static int got_one(void *arg, const void *rec, uint32_t len)
{
	struct got *g = arg;
	struct hv_layout l;
	struct hv_ev ev;

	test_layout(&l);
	ck_assert_int_eq(hv_decode(&l, rec, len, &ev), 0);
	if (g->n < 64)
		g->times[g->n] = ev.time;
	g->n++;
	return g->stop_at && (int)g->n == g->stop_at ? 99 : 0;
}

/* Writes @rec at free-running position @pos of a @size area. */
static void ring_put(uint8_t *data, uint64_t size, uint64_t pos,
		     const uint8_t *rec, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		data[(pos + i) & (size - 1)] = rec[i];
}

START_TEST(walk_forward_wraps)
{
	uint8_t data[256] = { 0 }, rec[64];
	uint64_t tail = 200, pos = tail;   /* the third record wraps */
	struct hv_walk w;
	struct got g = { 0 };

	for (int i = 0; i < 5; i++) {
		uint32_t n = rec_switch(rec, i & 1, 7, 100 + (uint64_t)i, 0);

		ring_put(data, sizeof(data), pos, rec, n);
		pos += n;
	}
	ck_assert_int_eq(hv_ring_walk_forward(data, sizeof(data), tail, pos,
					      got_one, &g, &w), 0);
	ck_assert_uint_eq(g.n, 5);
	ck_assert_uint_eq(w.records, 5);
	ck_assert_uint_eq(w.bytes, 200);
	ck_assert_uint_eq(w.end, pos);
	ck_assert_uint_eq(w.corrupt, 0);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(g.times[i], 100 + (uint64_t)i);
	/* the callback stops it */
	memset(&g, 0, sizeof(g));
	g.stop_at = 2;
	ck_assert_int_eq(hv_ring_walk_forward(data, sizeof(data), tail, pos,
					      got_one, &g, &w), 99);
	ck_assert_uint_eq(w.end, tail + 80);
	/* nothing there */
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(hv_ring_walk_forward(data, sizeof(data), pos, pos,
					      got_one, &g, &w), 0);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_uint_eq(w.end, pos);
}
END_TEST

START_TEST(walk_forward_hostile)
{
	uint8_t data[256] = { 0 }, rec[64];
	struct perf_event_header h;
	struct hv_walk w;
	struct got g = { 0 };
	uint32_t n = rec_switch(rec, SW_IN, 7, 1, 0);

	ring_put(data, sizeof(data), 0, rec, n);
	/* a head more than a buffer ahead: skipped whole, corrupt */
	ck_assert_int_eq(hv_ring_walk_forward(data, sizeof(data), 0, 1000,
					      got_one, &g, &w), 0);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_uint_eq(w.corrupt, 1);
	ck_assert_uint_eq(w.end, 1000);
	/* a record running past head */
	ck_assert_int_eq(hv_ring_walk_forward(data, sizeof(data), 0, 32,
					      got_one, &g, &w), 0);
	ck_assert_uint_eq(w.corrupt, 1);
	ck_assert_uint_eq(w.end, 32);
	/* sizes 0, 4, 12 */
	for (uint16_t s = 0; s < 16; s += 4) {
		if (s == 8)
			continue;
		h = (struct perf_event_header){ .type = 14, .size = s };
		memcpy(data + 40, &h, sizeof(h));
		memset(&g, 0, sizeof(g));
		ck_assert_int_eq(hv_ring_walk_forward(data, sizeof(data), 0, 80,
						      got_one, &g, &w), 0);
		ck_assert_uint_eq(g.n, 1);
		ck_assert_uint_eq(w.corrupt, 1);
		ck_assert_uint_eq(w.end, 80);
	}
	/* less than a header left */
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(hv_ring_walk_forward(data, sizeof(data), 0, 44,
					      got_one, &g, &w), 0);
	ck_assert_uint_eq(w.corrupt, 1);
	ck_assert_int_eq(hv_ring_walk_forward(data, 100, 0, 0, got_one, &g, &w),
			 HV_ERR(hve_invalid));     /* no power of two */
}
END_TEST

START_TEST(walk_backward_wraps)
{
	uint8_t data[256] = { 0 }, rec[64];
	uint64_t head = 0;
	struct hv_walk w;
	struct got g = { 0 };

	/* The kernel writes downward from 0: 10 records of 40 bytes into
	 * 256 wrap it; the newest is at head. */
	for (int i = 0; i < 10; i++) {
		uint32_t n = rec_switch(rec, i & 1, 7, 100 + (uint64_t)i, 0);

		head -= n;
		ring_put(data, sizeof(data), head, rec, n);
	}
	/* all it holds: 6 whole (240 bytes), the 7th cut by the newest */
	ck_assert_int_eq(hv_ring_walk_backward(data, sizeof(data), head,
					       sizeof(data), got_one, &g, &w), 0);
	ck_assert_uint_eq(g.n, 6);
	ck_assert_uint_eq(w.corrupt, 0);
	for (int i = 0; i < 6; i++)
		ck_assert_uint_eq(g.times[i], 109 - (uint64_t)i);
	/* only what is new since head+80: two records */
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(hv_ring_walk_backward(data, sizeof(data), head, 80,
					       got_one, &g, &w), 0);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(w.end, head + 80);
	/* a limit past the area is the area */
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(hv_ring_walk_backward(data, sizeof(data), head, 1 << 20,
					       got_one, &g, &w), 0);
	ck_assert_uint_eq(g.n, 6);
	/* stopped by the callback */
	memset(&g, 0, sizeof(g));
	g.stop_at = 1;
	ck_assert_int_eq(hv_ring_walk_backward(data, sizeof(data), head, 256,
					       got_one, &g, &w), 99);
}
END_TEST

START_TEST(walk_backward_fresh_and_hostile)
{
	uint8_t data[256] = { 0 }, rec[64];
	struct perf_event_header h = { .type = 14, .size = 12 };
	uint64_t head = 0;
	struct hv_walk w;
	struct got g = { 0 };

	/* two records, never wrapped: the zeros after are never written */
	for (int i = 0; i < 2; i++) {
		uint32_t n = rec_switch(rec, SW_IN, 7, (uint64_t)i, 0);

		head -= n;
		ring_put(data, sizeof(data), head, rec, n);
	}
	ck_assert_int_eq(hv_ring_walk_backward(data, sizeof(data), head, 256,
					       got_one, &g, &w), 0);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(w.corrupt, 0);
	/* a size no kernel writes */
	ring_put(data, sizeof(data), head + 40, (const uint8_t *)&h, sizeof(h));
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(hv_ring_walk_backward(data, sizeof(data), head, 256,
					       got_one, &g, &w), 0);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(w.corrupt, 1);
	ck_assert_int_eq(hv_ring_walk_backward(NULL, 256, 0, 0, got_one, &g, &w),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_ring_walk_backward(data, 256, 0, 0, NULL, &g, &w),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_ring_walk_backward(data, 256, 0, 0, got_one, &g, NULL),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_ring_walk_backward(data, 4, 0, 0, got_one, &g, &w),
			 HV_ERR(hve_invalid));
}
END_TEST

START_TEST(walk_forward_null)
{
	uint8_t data[64];
	struct hv_walk w;
	struct got g;

	ck_assert_int_eq(hv_ring_walk_forward(NULL, 64, 0, 0, got_one, &g, &w),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_ring_walk_forward(data, 64, 0, 0, NULL, &g, &w),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_ring_walk_forward(data, 64, 0, 0, got_one, &g, NULL),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_ring_walk_forward(data, 0, 0, 0, got_one, &g, &w),
			 HV_ERR(hve_invalid));
}
END_TEST

/* ---- the recorder's refusals that need no perf event ---- */

START_TEST(rec_options_refused)
{
	struct hv_rec_opts o;
	struct hv_rec *r;

	memset(&o, 0, sizeof(o));
	o.sources = HV_SRC_BIT(HV_SRC_SWITCH);
	o.data_pages = 3;
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_invalid));
	ck_assert_ptr_null(r);
	o.data_pages = HV_PAGES_MAX * 2;
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_invalid));
	o.data_pages = 0;
	o.exit_pages = 6;
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_invalid));
	o.exit_pages = 0;
	o.mode = 2;
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_invalid));
	o.mode = 0;
	o.sources = 1u << 20;
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_invalid));
	o.sources = HV_SRC_BIT(HV_SRC_SWITCH);
	o.max_threads = HV_THREADS_MAX + 1;
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_invalid));
	o.max_threads = 0;
	o.kinds = 1u << 9;
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_invalid));
	o.kinds = 0;
	/* a kvm source on a tracefs without it: said, distinctly */
	o.sources = HV_SRC_DEFAULT;
	o.tracefs = "/nonexistent-tracefs";
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_no_tracefs));
	/* switches alone need no tracefs */
	o.sources = HV_SRC_BIT(HV_SRC_SWITCH);
	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	ck_assert_uint_eq(hv_rec_count(r), 0);
	hv_rec_free(r);
	ck_assert_int_eq(hv_rec_new(NULL, NULL), HV_ERR(hve_invalid));
}
END_TEST

START_TEST(rec_null)
{
	struct hv_rec_opts o = { .sources = HV_SRC_BIT(HV_SRC_SWITCH) };
	struct hv_thread_id id = { .tid = 0 };
	struct hv_thread_stats st;
	struct hv_rec_totals tot;
	struct hv_refresh rf;
	struct pollfd pfd;
	struct hv_probe p;
	struct hv_rec *r;

	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	hv_rec_free(NULL);
	ck_assert_int_eq(hv_rec_add(NULL, &id), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_add(r, NULL), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_add(r, &id), HV_ERR(hve_invalid));   /* tid 0 */
	ck_assert_int_eq(hv_rec_follow(NULL, 1), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_follow(r, 0), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_refresh(NULL, &rf), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_refresh(r, NULL), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_refresh(r, &rf), HV_ERR(hve_invalid)); /* none */
	ck_assert_int_eq(hv_rec_read(NULL, HV_READ_NEW, NULL, NULL),
			 HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_read(r, 7, NULL, NULL), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_read(r, HV_READ_NEW, NULL, NULL), 0);
	ck_assert_uint_eq(hv_rec_count(NULL), 0);
	ck_assert_int_eq(hv_rec_stats(NULL, 0, &st), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_stats(r, 0, &st), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_rec_stats(r, 0, NULL), HV_ERR(hve_invalid));
	hv_rec_totals(NULL, &tot);
	ck_assert_uint_eq(tot.threads, 0);
	hv_rec_totals(r, NULL);
	hv_rec_totals(r, &tot);
	ck_assert_uint_eq(tot.fds, 0);
	ck_assert_uint_eq(hv_rec_pollfds(NULL, &pfd, 1), 0);
	ck_assert_uint_eq(hv_rec_pollfds(r, NULL, 1), 0);
	ck_assert_int_eq(hv_probe(&o, 0, NULL), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_probe(&o, -1, &p), HV_ERR(hve_invalid));
	/* a process that does not exist: its threads are not there */
	ck_assert_int_eq(hv_rec_follow(r, 0x7ffffff0), -ESRCH);
	hv_rec_free(r);
}
END_TEST

/* ---- words ---- */

START_TEST(names_and_errors)
{
	ck_assert_str_eq(hv_err_str(0), "success");
	ck_assert_ptr_nonnull(strstr(hv_err_str(HV_ERR(hve_perm)), "paranoid"));
	ck_assert_str_eq(hv_err_str(-ENOENT), strerror(ENOENT));
	ck_assert_str_eq(hv_err_str(HV_ERR(hve_max)), "unknown error");
	ck_assert_str_eq(hv_err_str(-2147483647 - 1), "unknown error");
	ck_assert_str_eq(hv_err_str(5), "unknown error");
	for (int e = 0; e < hve_max; e++)
		ck_assert_ptr_nonnull(hv_err_str(HV_ERR(e)));
	ck_assert_str_eq(hv_name_src(HV_SRC_KVM_EXIT), "kvm_exit");
	ck_assert_ptr_null(hv_name_src(HV_SRC_MAX));
	ck_assert_str_eq(hv_name_ev(HV_EV_PREEMPT), "preempt");
	ck_assert_str_eq(hv_name_ev(1000), "unknown");
	ck_assert_str_eq(hv_track_state_name(HV_ST_RUNNABLE), "runnable");
	ck_assert_str_eq(hv_track_state_name(99), "invalid");
	ck_assert_str_eq(hv_name_exit(HV_EV_KVM_EXIT, HV_ISA_VMX, 30),
			 "IO_INSTRUCTION");
	ck_assert_str_eq(hv_name_exit(HV_EV_KVM_EXIT, HV_ISA_VMX,
				      0x80000021u), "INVALID_STATE");
	ck_assert_str_eq(hv_name_exit(HV_EV_KVM_EXIT, HV_ISA_SVM, 0x60),
			 "interrupt");
	ck_assert_str_eq(hv_name_exit(HV_EV_KVM_EXIT, HV_ISA_SVM, 0x400), "npf");
	ck_assert_ptr_null(hv_name_exit(HV_EV_KVM_EXIT, HV_ISA_SVM, 0x500));
	ck_assert_ptr_null(hv_name_exit(HV_EV_KVM_EXIT, HV_ISA_VMX, 35));
	ck_assert_ptr_null(hv_name_exit(HV_EV_KVM_EXIT, HV_ISA_UNKNOWN, 1));
	ck_assert_str_eq(hv_name_exit(HV_EV_KVM_UEXIT, 0, 10), "INTR");
	ck_assert_ptr_null(hv_name_exit(HV_EV_KVM_UEXIT, 0, 1000));
	ck_assert_str_eq(hv_name_exit(HV_EV_KVM_UEXIT, 0, HV_UEXIT_ERRNO | 14),
			 "error");
	ck_assert_ptr_null(hv_name_exit(HV_EV_SWITCH_IN, 0, 0));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hostview_parse");
	TCase *c = tcase_create("parse");

	tcase_add_test(c, classify_qemu_names);
	tcase_add_test(c, classify_hostile_names);
	tcase_add_test(c, classify_null);
	tcase_add_test(c, parse_stat_names);
	tcase_add_test(c, parse_stat_short);
	tcase_add_test(c, parse_stat_null);
	tcase_add_test(c, schedstat_lines);
	tcase_add_test(c, scan_fake_proc);
	tcase_add_test(c, scan_self);
	tcase_add_test(c, scan_null);
	tcase_add_test(c, tp_parse_kvm_exit);
	tcase_add_test(c, tp_parse_hostile);
	tcase_add_test(c, tp_parse_null);
	tcase_add_test(c, tp_get_bounds);
	tcase_add_test(c, tp_load_fake_tracefs);
	tcase_add_test(c, decode_each_type);
	tcase_add_test(c, decode_unknown);
	tcase_add_test(c, decode_short);
	tcase_add_test(c, decode_null);
	tcase_add_test(c, walk_forward_wraps);
	tcase_add_test(c, walk_forward_hostile);
	tcase_add_test(c, walk_backward_wraps);
	tcase_add_test(c, walk_backward_fresh_and_hostile);
	tcase_add_test(c, walk_forward_null);
	tcase_add_test(c, rec_options_refused);
	tcase_add_test(c, rec_null);
	tcase_add_test(c, names_and_errors);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
