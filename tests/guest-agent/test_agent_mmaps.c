/* SPDX-License-Identifier: MIT */
/*
 * The Linux agent's mappings (guest-agent/linux/mmaps.c) alone: maps lines,
 * ELF notes and build ids read from hostile files, the MMAP2 records it
 * writes, once per process and ring, renewed in an overwrite ring; the
 * kernel's MMAP2 records (forward.c) tell usyms of the files they map.
 * It links the agent's library; its ring is a stub of the test's own
 * (agent_ring_put, which the library's is then not linked for) that keeps
 * the records.
 */
#include <check.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

#define MAX_RECS 256

static struct { uint32_t type; uint16_t misc; uint32_t len; uint8_t body[8192]; }
	recs[MAX_RECS];
static unsigned nr_recs;
static int refuse;

int agent_ring_put(struct agent_ring *r, uint32_t type, uint16_t misc,
		   const void *body, uint32_t len)
{
	if (refuse || nr_recs == MAX_RECS || len > sizeof(recs[0].body))
		return -1;
	recs[nr_recs].type = type;
	recs[nr_recs].misc = misc;
	recs[nr_recs].len = len;
	memcpy(recs[nr_recs].body, body, len);
	nr_recs++;
	r->written++;
	r->written_bytes += 8 + len;
	return 0;
}

/* A run as the ring would take it: its records in order. */
int agent_ring_put_run(struct agent_ring *r, const uint8_t *run,
		       uint32_t len, uint32_t nr)
{
	uint32_t off = 0, n = 0;

	while (off < len) {
		const struct rs_perf_header *h = (const void *)(run + off);

		ck_assert_int_eq(agent_ring_put(r, h->type, h->misc, h + 1,
						h->size - 8u), 0);
		off += h->size;
		n++;
	}
	ck_assert_uint_eq(n, nr);
	return 0;
}

static struct agent_ring ring;

/* forward.c's: the threads sampled (comm.c), not looked at here */
void agent_comm_note(struct agent_ring *r, uint32_t pid, uint32_t tid)
{
	(void)r;
	(void)pid;
	(void)tid;
}

void agent_comm_kernel(const struct rs_perf_header *rec)
{
	(void)rec;
}

static void setup(void)
{
	agent_pstate_end();          /* the model empty */
	memset(&ring, 0, sizeof(ring));
	nr_recs = 0;
	refuse = 0;
	agent_mmaps_forget();
}

START_TEST(maps_lines)
{
	char l1[] = "00400000-00401000 r-xp 00001000 fd:01 1234     /bin/rs workload";
	char l2[] = "7fff0000-7fff2000 r-xp 00000000 00:00 0        [vdso]";
	char l3[] = "7f000000-7f001000 r-xp 00000000 00:00 0 ";
	char l4[] = "00400000-00401000 r--p 00000000 fd:01 1234     /bin/x";
	char l5[] = "00401000-00400000 r-xp 00000000 fd:01 1234     /bin/x";
	char l6[] = "garbage";
	char l7[] = "7f000000-7f001000 rwxs 00000000 00:05 9        [heap]";
	struct agent_maps_line m;

	ck_assert_int_eq(agent_mmaps_parse_line(l1, &m), 0);
	ck_assert_uint_eq(m.start, 0x400000);
	ck_assert_uint_eq(m.end, 0x401000);
	ck_assert_uint_eq(m.pgoff, 0x1000);
	ck_assert_uint_eq(m.maj, 0xfd);
	ck_assert_uint_eq(m.min, 1);
	ck_assert_uint_eq(m.ino, 1234);
	ck_assert_uint_eq(m.prot, PROT_READ | PROT_EXEC);
	ck_assert_uint_eq(m.flags, MAP_PRIVATE);
	ck_assert_str_eq(m.path, "/bin/rs workload");
	ck_assert_int_eq(agent_mmaps_parse_line(l2, &m), 0);
	ck_assert_str_eq(m.path, "[vdso]");
	ck_assert_int_eq(agent_mmaps_parse_line(l3, &m), -1);    /* anonymous code */
	ck_assert_int_eq(agent_mmaps_parse_line(l4, &m), -1);    /* not executable */
	ck_assert_int_eq(agent_mmaps_parse_line(l5, &m), -1);    /* end before start */
	ck_assert_int_eq(agent_mmaps_parse_line(l6, &m), -1);
	ck_assert_int_eq(agent_mmaps_parse_line(l7, &m), -1);    /* [heap]: no file */
}
END_TEST

/* A note list: GNU build id @id of @len bytes after a note of another
 * owner, aligned to @align. */
static size_t make_notes(uint8_t *p, const uint8_t *id, uint32_t len, size_t align)
{
	Elf64_Nhdr n = { 8, 4, 1 };
	size_t off = 0;

	memcpy(p + off, &n, sizeof(n));
	off += sizeof(n);
	memcpy(p + off, "Linux\0\0\0", 8);
	off += 8;
	memset(p + off, 0, (4 + align - 1) & ~(align - 1));
	off += (4 + align - 1) & ~(align - 1);
	n = (Elf64_Nhdr){ 4, len, NT_GNU_BUILD_ID };
	memcpy(p + off, &n, sizeof(n));
	off += sizeof(n);
	memcpy(p + off, "GNU", 4);
	off += (4 + align - 1) & ~(align - 1);
	memcpy(p + off, id, len);
	off += (len + align - 1) & ~(align - 1);
	return off;
}

START_TEST(note_lists)
{
	static const uint8_t id[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
					13, 14, 15, 16, 17, 18, 19, 20 };
	uint8_t p[256], out[20];
	Elf64_Nhdr n;
	size_t len;

	len = make_notes(p, id, 20, 4);
	ck_assert_uint_eq(agent_mmaps_note_build_id(p, len, 4, out), 20);
	ck_assert_mem_eq(out, id, 20);
	len = make_notes(p, id, 20, 8);
	ck_assert_uint_eq(agent_mmaps_note_build_id(p, len, 8, out), 20);
	len = make_notes(p, id, 8, 4);
	ck_assert_uint_eq(agent_mmaps_note_build_id(p, len, 4, out), 8);
	/* cut anywhere: never read past the end */
	len = make_notes(p, id, 20, 4);
	for (size_t cut = 0; cut < len; cut++)
		ck_assert_uint_eq(agent_mmaps_note_build_id(p, cut, 4, out), 0);
	/* an id over 20 bytes, a name size past the list */
	len = make_notes(p, id, 20, 4);
	n = (Elf64_Nhdr){ 4, 21, NT_GNU_BUILD_ID };
	memcpy(p + 24, &n, sizeof(n));
	ck_assert_uint_eq(agent_mmaps_note_build_id(p, len, 4, out), 0);
	n = (Elf64_Nhdr){ 0xfffffff0u, 4, 1 };
	memcpy(p, &n, sizeof(n));
	ck_assert_uint_eq(agent_mmaps_note_build_id(p, len, 4, out), 0);
}
END_TEST

/* An ELF file at @path: a header, @phnum program headers, the last a
 * PT_NOTE of @notes_len bytes of notes at @note_off. */
static int write_elf(const char *path, uint16_t phnum, uint64_t note_off,
		     uint64_t note_len, const uint8_t *notes, size_t len)
{
	uint8_t buf[8192];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	FILE *f;
	uint16_t i;

	memset(buf, 0, sizeof(buf));
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = phnum;
	memcpy(buf, &eh, sizeof(eh));
	for (i = 0; i < phnum && sizeof(eh) + (i + 1u) * sizeof(ph) <= 4096; i++) {
		memset(&ph, 0, sizeof(ph));
		ph.p_type = i + 1u == phnum ? PT_NOTE : PT_LOAD;
		ph.p_offset = note_off;
		ph.p_filesz = note_len;
		ph.p_align = 4;
		memcpy(buf + sizeof(eh) + i * sizeof(ph), &ph, sizeof(ph));
	}
	memcpy(buf + 4096, notes, len);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(buf, 1, 4096 + len, f);
	return fclose(f);
}

START_TEST(elf_files)
{
	static const uint8_t id[20] = { 0xab, 0xcd };
	char path[] = "/tmp/rs-mmaps-XXXXXX";
	uint8_t notes[256], out[20];
	size_t len = make_notes(notes, id, 20, 4);
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(write_elf(path, 3, 4096, len, notes, len), 0);
	fd = open(path, O_RDONLY);
	ck_assert_uint_eq(agent_mmaps_elf_build_id(fd, out), 20);
	ck_assert_mem_eq(out, id, 20);
	close(fd);
	/* notes past the end of the file, too many headers, a huge note */
	ck_assert_int_eq(write_elf(path, 3, 1u << 30, len, notes, len), 0);
	fd = open(path, O_RDONLY);
	ck_assert_uint_eq(agent_mmaps_elf_build_id(fd, out), 0);
	close(fd);
	ck_assert_int_eq(write_elf(path, AGENT_PHDRS_MAX + 1, 4096, len, notes, len), 0);
	fd = open(path, O_RDONLY);
	ck_assert_uint_eq(agent_mmaps_elf_build_id(fd, out), 0);
	close(fd);
	ck_assert_int_eq(write_elf(path, 2, 4096, AGENT_NOTE_MAX + 1, notes, len), 0);
	fd = open(path, O_RDONLY);
	ck_assert_uint_eq(agent_mmaps_elf_build_id(fd, out), 0);
	close(fd);
	/* not an ELF file at all */
	fd = open("/proc/self/maps", O_RDONLY);
	ck_assert_uint_eq(agent_mmaps_elf_build_id(fd, out), 0);
	close(fd);
	unlink(path);
}
END_TEST

START_TEST(mmap2_record)
{
	static char name[5000];
	struct agent_mmap m = { .start = 0x401000, .len = 0x2000, .pgoff = 0x1000,
				.maj = 8, .min = 1, .ino = 99, .prot = 5,
				.flags = MAP_PRIVATE, .path = "/bin/sh" };
	struct agent_mmap2_body b;

	ck_assert_int_eq(agent_mmaps_put(&ring, 7, 8, &m), 0);
	ck_assert_uint_eq(recs[0].type, PERF_RECORD_MMAP2);
	ck_assert_uint_eq(recs[0].misc, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(recs[0].len, 64 + 8);
	memcpy(&b, recs[0].body, recs[0].len);
	ck_assert_uint_eq(b.m.pid, 7);
	ck_assert_uint_eq(b.m.tid, 8);
	ck_assert_uint_eq(b.m.u.file.maj, 8);
	ck_assert_uint_eq(b.m.u.file.ino, 99);
	ck_assert_str_eq(b.name, "/bin/sh");
	/* with a build id; a name longer than perf's PATH_MAX is cut */
	m.build_id_size = 20;
	memset(m.build_id, 0x5a, 20);
	memset(name, 'a', sizeof(name) - 1);
	name[0] = '/';
	m.path = name;
	ck_assert_int_eq(agent_mmaps_put(&ring, 7, 8, &m), 0);
	ck_assert_uint_eq(recs[1].misc, PERF_RECORD_MISC_USER |
			  PERF_RECORD_MISC_MMAP_BUILD_ID);
	ck_assert_uint_eq(recs[1].len, 64 + 4096);
	ck_assert_uint_eq(recs[1].body[32], 20);
	ck_assert_uint_eq(recs[1].body[36], 0x5a);
	ck_assert_uint_eq(strnlen((const char *)recs[1].body + 64, 4096), 4095);
}
END_TEST

START_TEST(own_process)
{
	uint32_t pid = (uint32_t)getpid();
	unsigned i, n, exe = 0;
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(len, 0);
	self[len] = '\0';
	agent_mmaps_note(&ring, pid);
	n = nr_recs;
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(ring.mmap_stats.records, n);
	ck_assert_uint_eq(ring.mmap_stats.pids, 1);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(recs[i].type, PERF_RECORD_MMAP2);
		ck_assert_uint_eq(recs[i].len % 8, 0);
		if (!strcmp((const char *)recs[i].body + 64, self)) {
			exe++;
			ck_assert(recs[i].misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
		}
	}
	ck_assert_uint_eq(exe, 1);
	/* once per process and ring; never the idle task */
	agent_mmaps_note(&ring, pid);
	agent_mmaps_note(&ring, 0);
	ck_assert_uint_eq(nr_recs, n);
	/* a process that is gone: counted */
	agent_mmaps_note(&ring, 0x7ffffff0u);
	ck_assert_uint_eq(ring.mmap_stats.unreadable, 1);
	/* a ring that refuses: the mappings are counted as not described */
	refuse = 1;
	memset(ring.mmap_pid, 0, sizeof(ring.mmap_pid));
	ring.nr_mmap_pids = 0;
	agent_mmaps_note(&ring, pid);
	ck_assert_uint_eq(ring.mmap_stats.skipped, n);
}
END_TEST

/* The processes running at the agent's start are in the model from its
 * census: one that ends before the agent reaches its samples (its /proc
 * entry gone) is still described, from the model, with its own code. */
START_TEST(census_outlives)
{
	struct agent_mmap_stats st = { 0 };
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	unsigned i, exe = 0;
	int go[2];
	pid_t child;
	char c;

	ck_assert_int_gt(len, 0);
	self[len] = '\0';
	ck_assert_int_eq(pipe(go), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		close(go[1]);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	ck_assert_uint_eq(agent_mmaps_census("/nonexistent-proc", &st), 0);
	ck_assert_uint_ge(agent_mmaps_census("/proc", &st), 2);
	ck_assert_int_eq(agent_pstate_known((uint32_t)child), 1);
	ck_assert_int_eq(agent_pstate_known((uint32_t)getpid()), 1);
	/* it ends, and is reaped: /proc has it no more */
	close(go[1]);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	agent_mmaps_note(&ring, (uint32_t)child);
	ck_assert_uint_eq(ring.mmap_stats.unreadable, 0);
	ck_assert_uint_gt(nr_recs, 0);
	for (i = 0; i < nr_recs; i++) {
		ck_assert_uint_eq(recs[i].type, PERF_RECORD_MMAP2);
		/* the body's pid is the child's */
		ck_assert_uint_eq(*(const uint32_t *)recs[i].body,
				  (uint32_t)child);
		exe += !strcmp((const char *)recs[i].body + 64, self);
	}
	ck_assert_uint_eq(exe, 1);
}
END_TEST

START_TEST(overwrite_renewal)
{
	uint32_t pid = (uint32_t)getpid();
	unsigned n;

	ring.prod.ring.data_mode = RS_MODE_OVERWRITE;
	ring.prod.ring.data_size = 1u << 16;
	agent_mmaps_note(&ring, pid);
	n = nr_recs;
	/* its own records never renew it */
	agent_mmaps_note(&ring, pid);
	ck_assert_uint_eq(nr_recs, n);
	ring.written_bytes += (1u << 15) - 8;      /* other records */
	agent_mmaps_note(&ring, pid);
	ck_assert_uint_eq(nr_recs, n);
	ring.written_bytes += 8;                   /* half the ring */
	agent_mmaps_note(&ring, pid);
	ck_assert_uint_eq(nr_recs, 2 * n);
	ck_assert_uint_eq(ring.mmap_stats.refreshes, 1);
	agent_mmaps_note(&ring, pid);
	ck_assert_uint_eq(nr_recs, 2 * n);
	/* a normal ring: never */
	ring.prod.ring.data_mode = RS_MODE_NORMAL;
	ring.written_bytes += 1u << 20;
	agent_mmaps_note(&ring, pid);
	ck_assert_uint_eq(nr_recs, 2 * n);
}
END_TEST

START_TEST(pid_set_bound)
{
	uint32_t i;

	/* more pids than the set holds: it empties, never overflows */
	for (i = 1; i <= 4 * AGENT_MMAP_PIDS; i++)
		ck_assert_int_eq(agent_mmaps_seen(&ring, i, 7), 0);
	ck_assert_uint_lt(ring.nr_mmap_pids, AGENT_MMAP_PIDS);
	ck_assert_int_eq(agent_mmaps_seen(&ring, 4 * AGENT_MMAP_PIDS, 7), 1);
	/* the same pid, another process: not seen, and now it is */
	ck_assert_int_eq(agent_mmaps_seen(&ring, 4 * AGENT_MMAP_PIDS, 8), 0);
	ck_assert_int_eq(agent_mmaps_seen(&ring, 4 * AGENT_MMAP_PIDS, 8), 1);
}
END_TEST

/* The kernel's MMAP2 of @self's executable mapping in this process, as
 * the kernel writes it after an exec: with @id (misc MMAP_BUILD_ID) when
 * @id_len, else with the file's device and inode. */
static size_t kernel_mmap2(uint8_t *buf, const char *self, const uint8_t *id,
			   uint8_t id_len, uint32_t prot)
{
	struct rs_perf_header h = { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 0 };
	struct agent_mmap2_body b;
	struct agent_maps_line ml;
	char line[4200];
	size_t n = strlen(self), len;
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !agent_mmaps_parse_line(line, &ml) && !strcmp(ml.path, self);
	}
	fclose(f);
	ck_assert(found);
	memset(&b, 0, sizeof(b));
	b.m.pid = b.m.tid = (uint32_t)getpid();
	b.m.addr = ml.start;
	b.m.len = ml.end - ml.start;
	b.m.pgoff = ml.pgoff;
	if (id_len) {
		h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		b.m.u.build_id.size = id_len;
		memcpy(b.m.u.build_id.id, id, id_len);
	} else {
		b.m.u.file.maj = ml.maj;
		b.m.u.file.min = ml.min;
		b.m.u.file.ino = ml.ino;
	}
	b.m.prot = prot;
	b.m.flags = MAP_PRIVATE;
	memcpy(b.name, self, n + 1);
	len = 64 + ((n + 1 + 7) & ~(size_t)7);
	h.size = (uint16_t)(sizeof(h) + len);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &b, len);
	return sizeof(h) + len;
}

/* This test program's path into @self (4096 bytes) and its build id into
 * @id: the id's length, never 0. */
static uint8_t self_build_id(char *self, uint8_t *id)
{
	ssize_t len = readlink("/proc/self/exe", self, 4095);
	uint8_t id_len;
	int fd;

	ck_assert_int_gt(len, 0);
	self[len] = '\0';
	fd = open(self, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	id_len = agent_mmaps_elf_build_id(fd, id);
	close(fd);
	ck_assert_uint_gt(id_len, 0);
	return id_len;
}

/* A region of private memory with a sideband, opened into @region, its
 * size in *@size, usyms begun on it: the memory, for munmap. */
static void *usyms_region(struct rs_region *region, uint64_t *size)
{
	struct rs_region_params p;
	void *mem;

	ck_assert_int_eq(rs_region_params_init(&p, 1, 4, 0, RS_MODE_NORMAL,
					       RS_MODE_NORMAL), 0);
	p.sideband_pages = 64;
	ck_assert_int_eq(rs_region_size(&p, size), 0);
	mem = mmap(NULL, *size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_int_eq(rs_region_layout(mem, *size, &p), 0);
	ck_assert_int_eq(rs_region_open(region, mem, *size), 0);
	ck_assert_int_eq(agent_usyms_begin(region, 0, 32 * RS_PAGE_SIZE), 0);
	return mem;
}

/* A process described before its exec (a shell's child, sampled while it
 * still ran the shell) is not described again: the kernel's MMAP2 of the
 * program it runs now is how its symbols reach usyms, once per build id;
 * a file whose id is not the record's is not taken for it. */
START_TEST(exec_after_described)
{
	void *region_mem;
	uint32_t pid = (uint32_t)getpid();
	uint8_t rec[8 + 64 + 4104], id[AGENT_BUILD_ID_MAX], other[AGENT_BUILD_ID_MAX];
	struct { struct rs_perf_header h; uint32_t pid, tid; } sample;
	struct rs_region region;
	uint64_t size;
	char self[4096];
	uint8_t id_len = self_build_id(self, id);

	region_mem = usyms_region(&region, &size);

	/* described already (before its exec): its samples describe
	 * nothing more, and usyms has not met this program */
	ck_assert_int_eq(agent_mmaps_seen(&ring, pid, 0), 0);
	memset(&sample, 0, sizeof(sample));
	sample.h.type = PERF_RECORD_SAMPLE;
	sample.h.size = sizeof(sample);
	sample.pid = sample.tid = pid;
	agent_forward(&ring, PERF_SAMPLE_TID, &sample.h);
	ck_assert_uint_eq(nr_recs, 1);
	ck_assert_uint_eq(agent_usyms_stats()->published, 0);

	/* a record that says another id of this file: not taken for it */
	memcpy(other, id, id_len);
	other[0] ^= 0xff;
	kernel_mmap2(rec, self, other, id_len, PROT_READ | PROT_EXEC);
	agent_forward(&ring, PERF_SAMPLE_TID, (const void *)rec);
	ck_assert_uint_eq(agent_usyms_stats()->published, 0);
	ck_assert_int_eq(agent_usyms_wants(other, id_len), 1);
	/* not executable: nothing to name */
	kernel_mmap2(rec, self, id, id_len, PROT_READ);
	agent_forward(&ring, PERF_SAMPLE_TID, (const void *)rec);
	ck_assert_uint_eq(agent_usyms_stats()->published, 0);

	/* the kernel's MMAP2 of its exec: forwarded, and its symbols
	 * published, once */
	kernel_mmap2(rec, self, id, id_len, PROT_READ | PROT_EXEC);
	agent_forward(&ring, PERF_SAMPLE_TID, (const void *)rec);
	ck_assert_uint_eq(nr_recs, 4);
	ck_assert_uint_eq(recs[3].type, PERF_RECORD_MMAP2);
	ck_assert_uint_eq(agent_usyms_stats()->published, 1);
	ck_assert_int_eq(agent_usyms_wants(id, id_len), 0);
	agent_forward(&ring, PERF_SAMPLE_TID, (const void *)rec);
	ck_assert_uint_eq(agent_usyms_stats()->published, 1);
	ck_assert_uint_eq(ring.mmap_stats.records, 0);   /* none described */

	/* a kernel without build ids in MMAP2: the file's, by its inode */
	agent_usyms_end();
	ck_assert_int_eq(agent_usyms_begin(&region, 0, 32 * RS_PAGE_SIZE), 0);
	kernel_mmap2(rec, self, NULL, 0, PROT_READ | PROT_EXEC);
	agent_forward(&ring, PERF_SAMPLE_TID, (const void *)rec);
	ck_assert_uint_eq(agent_usyms_stats()->published, 1);
	ck_assert_int_eq(agent_usyms_wants(id, id_len), 0);
	agent_usyms_end();
	munmap(region_mem, size);
}
END_TEST

/* A process the census met before the user symbols' table began (the
 * agent describes the running processes, then publishes the kernel's
 * symbols, and only then begins that table): its program's symbols are
 * published at its first sample, described from the model, once. */
START_TEST(census_symbols_at_sample)
{
	struct agent_mmap_stats st = { 0 };
	struct agent_ring other;
	struct rs_region region;
	uint8_t id[AGENT_BUILD_ID_MAX], id_len;
	void *region_mem;
	uint64_t size, published;
	char self[4096];

	id_len = self_build_id(self, id);
	ck_assert_uint_ge(agent_mmaps_census("/proc", &st), 1);
	ck_assert_int_eq(agent_pstate_known((uint32_t)getpid()), 1);
	region_mem = usyms_region(&region, &size);
	ck_assert_int_eq(agent_usyms_wants(id, id_len), 1);

	agent_mmaps_note(&ring, (uint32_t)getpid());
	ck_assert_uint_eq(ring.mmap_stats.from_model, 1);
	ck_assert_uint_eq(ring.mmap_stats.pids, 0);      /* no /proc read */
	ck_assert_uint_gt(nr_recs, 0);
	published = agent_usyms_stats()->published;
	ck_assert_uint_ge(published, 1);
	ck_assert_int_eq(agent_usyms_wants(id, id_len), 0);
	/* described in another ring: nothing published again */
	memset(&other, 0, sizeof(other));
	agent_mmaps_note(&other, (uint32_t)getpid());
	ck_assert_uint_eq(other.mmap_stats.from_model, 1);
	ck_assert_uint_eq(agent_usyms_stats()->published, published);
	agent_usyms_end();
	munmap(region_mem, size);
}
END_TEST

/* The kernel's FORK (or EXIT) of process @pid, child of @ppid, at @time,
 * as forward.c gets it. */
static void task(uint32_t type, uint32_t pid, uint32_t ppid, uint64_t time)
{
	struct {
		struct rs_perf_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} r = { { type, 0, sizeof(r) }, pid, ppid, pid, ppid, time };

	agent_forward(&ring, PERF_SAMPLE_TID, &r.h);
}

/* A sample of @pid, as forward.c gets it. */
static void sample_of(uint32_t pid)
{
	struct { struct rs_perf_header h; uint32_t pid, tid; } r = {
		{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) },
		pid, pid };

	agent_forward(&ring, PERF_SAMPLE_TID, &r.h);
}

/* The MMAP2 records from @from on: how many, all of @pid, and whether
 * one names @path. */
static unsigned mmaps_of(unsigned from, uint32_t pid, const char *path,
			 int *found)
{
	unsigned i, n = 0;

	*found = 0;
	for (i = from; i < nr_recs; i++) {
		struct agent_mmap2_body b;

		if (recs[i].type != PERF_RECORD_MMAP2)
			continue;
		memcpy(&b, recs[i].body, recs[i].len);
		ck_assert_uint_eq(b.m.pid, pid);
		*found |= !strcmp(b.name, path);
		n++;
	}
	return n;
}

/* A process that lived less than a tick, gone before its sample is read
 * (no /proc left): born under the agent's eyes, its FORK gave it its
 * parent's mappings, and its first sample in the ring is preceded by
 * them, read from the model, not from /proc; after its EXIT too.  Its
 * pid's next process is described again in the same ring. */
START_TEST(short_lived_described)
{
	uint32_t me = (uint32_t)getpid(), child = 0x7ffffff1u;
	unsigned n, before;
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int found;

	ck_assert_int_gt(len, 0);
	self[len] = '\0';
	/* the parent: unknown to the model, read at its child's FORK */
	task(PERF_RECORD_FORK, child, me, 1000);
	ck_assert_uint_eq(nr_recs, 0);           /* FORK is not forwarded */
	ck_assert_int_eq(agent_pstate_known(me), 1);
	task(PERF_RECORD_EXIT, child, me, 2000);
	sample_of(child);
	n = mmaps_of(0, child, self, &found);
	ck_assert_uint_gt(n, 0);
	ck_assert(found);
	ck_assert_uint_eq(nr_recs, n + 1);      /* the MMAP2s, then the sample */
	ck_assert_uint_eq(recs[n].type, PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(ring.mmap_stats.from_model, 1);
	ck_assert_uint_eq(ring.mmap_stats.unreadable, 0);
	ck_assert_uint_eq(ring.mmap_stats.pids, 0);  /* no /proc read */
	/* once in the ring */
	sample_of(child);
	ck_assert_uint_eq(nr_recs, n + 2);
	/* its pid's next process (a FORK after that EXIT): again */
	task(PERF_RECORD_FORK, child, me, 3000);
	before = nr_recs;
	sample_of(child);
	ck_assert_uint_eq(mmaps_of(before, child, self, &found), n);
	ck_assert(found);
	ck_assert_uint_eq(ring.mmap_stats.from_model, 2);
}
END_TEST

/* A run of samples of two processes, as the kernel's buffer holds them:
 * each process described before the run, once, then the run's samples in
 * their order. */
START_TEST(run_described_first)
{
	uint32_t me = (uint32_t)getpid(), child = 0x7ffffff3u;
	struct { struct rs_perf_header h; uint32_t pid, tid; } run[4];
	uint32_t pids[4] = { me, me, child, me };
	const struct kbuf_thread thr[3] = { { me, me }, { child, child },
					    { me, me } };
	unsigned i, n, mine, base;
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int found;

	ck_assert_int_gt(len, 0);
	self[len] = '\0';
	task(PERF_RECORD_FORK, child, me, 1000);   /* the model knows it */
	for (i = 0; i < 4; i++) {
		run[i].h = (struct rs_perf_header){ PERF_RECORD_SAMPLE,
						    PERF_RECORD_MISC_USER,
						    sizeof(run[i]) };
		run[i].pid = run[i].tid = pids[i];
	}
	agent_forward_samples(&ring, thr, 3, (const uint8_t *)run,
			      sizeof(run), 4);
	/* mine, then the child's (from the model), then the four samples */
	for (mine = 0; mine < nr_recs && recs[mine].type == PERF_RECORD_MMAP2 &&
	     !memcmp(recs[mine].body, &me, 4); mine++)
		;
	ck_assert_uint_gt(mine, 0);
	for (n = mine; n < nr_recs && recs[n].type == PERF_RECORD_MMAP2; n++)
		;
	ck_assert_uint_gt(n, mine);
	ck_assert_uint_eq(mmaps_of(mine, child, self, &found), n - mine);
	ck_assert(found);
	ck_assert_uint_eq(nr_recs, n + 4);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(recs[n + i].type, PERF_RECORD_SAMPLE);
		ck_assert(!memcmp(recs[n + i].body, &pids[i], 4));
	}
	/* again: described already, the samples alone */
	base = nr_recs;
	agent_forward_samples(&ring, thr, 3, (const uint8_t *)run,
			      sizeof(run), 4);
	ck_assert_uint_eq(nr_recs, base + 4);
}
END_TEST

/* A process met first at its sample, gone by then: nothing to describe,
 * counted, and the model takes it as ended (its EXIT was read before). */
START_TEST(gone_at_sample)
{
	uint64_t ended = agent_pstate_stats()->ended;

	sample_of(0x7ffffff2u);
	ck_assert_uint_eq(nr_recs, 1);
	ck_assert_uint_eq(ring.mmap_stats.unreadable, 1);
	ck_assert_uint_eq(agent_pstate_stats()->ended, ended + 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent_mmaps");
	TCase *tc = tcase_create("mmaps");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, maps_lines);
	tcase_add_test(tc, note_lists);
	tcase_add_test(tc, elf_files);
	tcase_add_test(tc, mmap2_record);
	tcase_add_test(tc, own_process);
	tcase_add_test(tc, census_outlives);
	tcase_add_test(tc, census_symbols_at_sample);
	tcase_add_test(tc, overwrite_renewal);
	tcase_add_test(tc, pid_set_bound);
	tcase_add_test(tc, exec_after_described);
	tcase_add_test(tc, short_lived_described);
	tcase_add_test(tc, gone_at_sample);
	tcase_add_test(tc, run_described_first);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
