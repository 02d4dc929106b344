/* SPDX-License-Identifier: MIT */
/*
 * Test producer for the cli suite: creates regions and writes into them
 * through the ring library's producer API, then says what it attempted.
 *
 *   producer create PATH [--rings N] [--data-pages P] [--aux-pages A]
 *                        [--overwrite] [--aux-overwrite] [--sample-type T]
 *                        [--freq F]
 *   producer write PATH [--records N] [--fill F] [--samples K] [--markers K]
 *                       [--aux K] [--aux-size B] [--burst B] [--rate R]
 *                       [--comm NAME] [--mmap2 FILE] [--guest] [--ready FILE]
 *                       [--hold FILE] [--flush-timeout S]
 *   producer poke PATH --abi-version V
 *   producer sideband PATH --kallsyms FILE [--build-id HEX] [--torn]
 *                          [--lie-length N]
 *   producer identity PATH --release R [--host H]
 *   producer now
 *
 * --tsync NS (write): act as a guest agent whose clock is the host's
 * CLOCK_MONOTONIC + NS: attach (agent kind "host test"), stamp every
 * record with that clock, and answer the host's time synchronization
 * (rs_tsync_guest_*) from a thread while writing and for --linger S
 * seconds after; with --mute it attaches but never answers (a hung
 * guest).  --until FILE instead of --linger: answer (or stay attached,
 * --mute) until FILE exists, so that a script ends the agent when what it
 * checks has happened, however slowly anything runs.  --synced FILE: FILE
 * is created once the first ping was answered (a host's sync reached this
 * agent).  `now` prints the host's CLOCK_MONOTONIC in ns (for
 * scripts that bracket a recording).
 * --done FILE (write): created once every record is written, every loss
 * flushed and the stats lines are on stdout.
 *
 * write: per ring, N sequence records (RS_RECORD_SEQ), plus K samples,
 * K markers and K AUX outputs spread among them.  Samples are pid 4242,
 * tid 4243, in user mode; --comm first names that thread NAME in every ring
 * (a PERF_RECORD_COMM as the kernel writes one at exec); --mmap2 then maps
 * FILE at 0x400000 (0x100000 bytes from offset 0) for pid 4242 in every
 * ring, where the samples' IPs are (a PERF_RECORD_MMAP2 without build id,
 * misc USER); --guest marks samples, COMM and MMAP2 records as a guest's
 * (misc GUEST_USER).  The first B records per
 * ring go in at once (so a small ring overflows before anybody drains it),
 * then --ready FILE is created, then (with --hold FILE, once FILE exists)
 * the rest at R records/s per ring (0: as fast as possible).  Pending
 * LOST records are flushed before exit.
 * --kernel-ip A: samples are kernel-mode (misc KERNEL, as the Linux agent
 * forwards its kernel's), at A, A + 1, ... A + 15.
 * identity: who the guest is, as the Linux agent publishes it in the
 * header's guest info block: host H (default rs-guest, any bytes), release
 * R, x86_64, 2 CPUs online of 4, MemTotal 2014276 kB, model name "ringside
 * test CPU", cpu-clock at 1000 Hz.
 * create --sideband-pages P: a sideband area of P pages.
 * sideband: FILE's lines into the sideband, as the Linux agent writes its
 * kernel's symbols (TRUNCATED when they do not fit); --torn stops before
 * the commit (seq stays odd), --lie-length N then claims N bytes.
 * --hostile (write): after the records, per ring, the claims of a lying
 * guest (issue 13): LOST 2219460346403425822, LOST 2^64-1, LOST 7 (the
 * one honest count), LOST_SAMPLES 2^64-1, an AUX record of 2^62 bytes,
 * and last a marker stamped 2^64-1 ns; before --ready.
 * --corrupt (write): the header of each ring's last sequence record is
 * overwritten with size 12 (not a multiple of 8) after it was committed:
 * a consumer loses framing there and discards the rest of its batch.
 * One line per ring on stdout:
 *   ring I attempted A lost L seq S samples X markers M aux R aux_bytes B comms C
 *     mmaps P
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ringside/ring.h"

struct opts {
	uint32_t rings, data_pages, aux_pages, overwrite, aux_overwrite;
	uint64_t sample_type;
	uint64_t freq;            /* create: the region's sample_freq */
	uint64_t records, fill, samples, markers, aux, aux_size, burst, rate;
	uint64_t kernel_ip, lie_length;
	uint32_t sideband_pages;
	const char *kallsyms, *build_id;
	const char *release, *host;
	int torn;
	double flush_timeout;
	const char *ready;
	const char *hold;         /* the rest of the records once it exists */
	const char *comm;
	const char *mmap2;
	int guest;
	int hostile;
	int corrupt;
	int abi_version;
	int tsync;                /* --tsync given */
	int mute;                 /* attached, but never answers */
	uint64_t clock_offset;    /* its NS */
	double linger;
	const char *until;        /* linger until this file exists */
	const char *synced;       /* created at the first answer */
	const char *done;         /* created once everything is written */
};

/* The producer's clock: the host's CLOCK_MONOTONIC + this (--tsync). */
static uint64_t clock_offset;

struct ring_state {
	struct rs_producer p;
	uint64_t attempted, seq, samples, markers, aux, aux_bytes, comms, mmaps;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
	       clock_offset;
}

/* The answering side of time sync, as an agent's loop would run it. */
struct answerer {
	struct rs_region *region;
	volatile int stop;
	int mute;
	uint64_t answers;
	const char *synced;       /* touched at the first answer */
};

static void touch(const char *path);

static uint64_t tsync_now(void *arg)
{
	(void)arg;
	return now_ns();
}

static void *answer_main(void *arg)
{
	struct answerer *a = arg;
	const struct rs_tsync_clock clk = { tsync_now, NULL, NULL };
	struct rs_tsync_guest g;

	rs_tsync_guest_init(&g, RS_TSYNC_CLOCK_MONOTONIC);
	while (!a->stop) {
		struct timespec ts = { 0, 1000000 };
		int n = 0;

		if (!a->mute && rs_tsync_guest_pending(a->region) == 1)
			n = rs_tsync_guest_answer(&g, a->region, &clk, 50000000ull);
		if (n > 0 && !a->answers && a->synced)
			touch(a->synced);
		if (n > 0)
			a->answers += (uint64_t)n;
		else
			nanosleep(&ts, NULL);
	}
	return NULL;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "producer: %s: %s\n", what,
		err < 0 ? rs_error_str(-err) : strerror(err));
	exit(1);
}

static void *map_file(const char *path, uint64_t *size, int create,
		      uint64_t want)
{
	int fd = open(path, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0660);
	struct stat st;
	void *mem;

	if (fd < 0)
		die(path, errno);
	if (create && ftruncate(fd, (off_t)want))
		die("ftruncate", errno);
	if (fstat(fd, &st))
		die("fstat", errno);
	*size = (uint64_t)st.st_size;
	mem = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		die("mmap", errno);
	close(fd);
	return mem;
}

static int create(const char *path, const struct opts *o)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = o->rings,
		.data_pages = o->data_pages,
		.aux_pages = o->aux_pages,
		.data_mode = o->overwrite ? RS_MODE_OVERWRITE : RS_MODE_NORMAL,
		.aux_mode = o->aux_overwrite ? RS_MODE_OVERWRITE : RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST | RS_TRACE_SAMPLES | RS_TRACE_MARKERS,
		.sample_type = o->sample_type,
		.sample_freq = o->freq,
		.sideband_pages = o->sideband_pages,
	};
	uint64_t size, mapped;
	void *mem;
	int err;

	err = rs_region_size(&params, &size);
	if (err)
		die("rs_region_size", err);
	mem = map_file(path, &mapped, 1, size);
	err = rs_region_layout(mem, mapped, &params);
	if (err)
		die("rs_region_layout", err);
	err = rs_region_enable(mem);
	if (err)
		die("rs_region_enable", err);
	return 0;
}

static void put_seq(struct ring_state *r, uint32_t ring, uint32_t fill)
{
	_Alignas(8) uint8_t buf[RS_RECORD_MAX];
	int size = rs_seq_build(buf, r->seq++, now_ns(), ring, fill);

	if (size < 0)
		die("rs_seq_build", size);
	r->attempted++;
	rs_producer_output(&r->p, RS_RECORD_SEQ, 0, buf + 8, (uint32_t)size - 8);
}

static void put_sample(struct ring_state *r, uint64_t type, int guest,
		       uint64_t kernel_ip)
{
	uint64_t body[9], n = 0;
	uint16_t misc = guest ? RS_PERF_MISC_GUEST_USER : RS_PERF_MISC_USER;

	if (kernel_ip)
		misc = RS_PERF_MISC_KERNEL;
	if (type & RS_PERF_SAMPLE_IP)
		body[n++] = kernel_ip ? kernel_ip + r->samples % 16 :
			    0x401000 + r->samples;
	if (type & RS_PERF_SAMPLE_TID)
		body[n++] = 4242u | (uint64_t)4243u << 32;
	if (type & RS_PERF_SAMPLE_TIME)
		body[n++] = now_ns();
	if (type & RS_PERF_SAMPLE_PERIOD)
		body[n++] = 1;
	if (type & RS_PERF_SAMPLE_CALLCHAIN) {
		/* user context, the ip, a caller; every 4th chain ends in a
		 * frame the unwinder guessed (0), which the writer cuts */
		int guessed = r->samples % 4 == 0;

		body[n++] = guessed ? 4 : 3;
		body[n++] = (uint64_t)-512;      /* PERF_CONTEXT_USER */
		body[n++] = 0x401000 + r->samples;
		body[n++] = 0x402000;
		if (guessed)
			body[n++] = 0;
	}
	r->samples++;
	r->attempted++;
	rs_producer_output(&r->p, RS_PERF_RECORD_SAMPLE, misc, body,
			   (uint32_t)(n * 8));
}

/* PERF_RECORD_COMM for the samples' thread: pid, tid, the name padded
 * with NULs to 8 bytes; misc COMM_EXEC (1 << 13) and the CPU mode. */
static void put_comm(struct ring_state *r, const char *name, int guest)
{
	struct {
		uint32_t pid, tid;
		char comm[16];
	} body = { 4242, 4243, { 0 } };
	size_t n = strlen(name) < 15 ? strlen(name) : 15;
	uint16_t misc = (uint16_t)((1u << 13) | (guest ? RS_PERF_MISC_GUEST_USER : 0));

	memcpy(body.comm, name, n);
	r->comms++;
	r->attempted++;
	rs_producer_output(&r->p, 3 /* PERF_RECORD_COMM */, misc, &body,
			   (uint32_t)(8 + ((n + 1 + 7) & ~(size_t)7)));
}

/* PERF_RECORD_MMAP2 of @file for pid 4242: the kernel's layout, with
 * device and inode (zero) instead of a build id. */
static void put_mmap2(struct ring_state *r, const char *file, int guest)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
		char name[256];
	} body = { 4242, 4242, 0x400000, 0x100000, 0, 0, 0, 0, 0,
		   5 /* PROT_READ | PROT_EXEC */, 2 /* MAP_PRIVATE */, { 0 } };
	size_t n = strlen(file) < 255 ? strlen(file) : 255;

	memcpy(body.name, file, n);
	r->mmaps++;
	r->attempted++;
	rs_producer_output(&r->p, 10 /* PERF_RECORD_MMAP2 */,
			   guest ? RS_PERF_MISC_GUEST_USER : RS_PERF_MISC_USER,
			   &body, (uint32_t)(64 + ((n + 1 + 7) & ~(size_t)7)));
}

static void put_marker(struct ring_state *r)
{
	struct {
		struct rs_rec_marker m;
		char text[24];
	} rec;
	int len = snprintf(rec.text, sizeof(rec.text), "marker %" PRIu64, r->markers);

	memset(&rec.m, 0, sizeof(rec.m));
	rec.m.time = now_ns();
	rec.m.pid = 4242;
	rec.m.tid = 4243;
	rec.m.id = (uint32_t)r->markers++;
	rec.m.len = (uint32_t)len;
	r->attempted++;
	rs_producer_output(&r->p, RS_RECORD_MARKER, 0, (uint8_t *)&rec + 8,
			   (uint32_t)(sizeof(rec.m) - 8 + (uint32_t)len));
}

static void put_aux(struct ring_state *r, uint64_t size)
{
	static uint8_t bytes[1 << 16];
	struct rs_aux_handle h;
	int64_t n;

	if (rs_aux_begin(&r->p, &h, size) < 0)
		die("rs_aux_begin", -rse_mode);
	n = rs_aux_write(&r->p, &h, bytes, size < sizeof(bytes) ? size : sizeof(bytes));
	if (n > 0)
		r->aux_bytes += (uint64_t)n;
	r->aux++;
	r->attempted++;
	rs_aux_end(&r->p, &h, 0);
}

/* The hostile claims of --hostile, in one ring (the order matters: the
 * marker's time is the one every later record of the ring is filed at). */
static void put_hostile(struct ring_state *r, uint32_t ring)
{
	static const uint64_t lost[] = { 2219460346403425822ull, UINT64_MAX, 7 };
	uint64_t body[3];
	struct {
		struct rs_rec_marker m;
		char text[8];
	} mk;
	unsigned i;

	for (i = 0; i < 3; i++) {
		body[0] = ring;
		body[1] = lost[i];
		rs_producer_output(&r->p, RS_PERF_RECORD_LOST, 0, body, 16);
	}
	body[0] = UINT64_MAX;
	rs_producer_output(&r->p, 13 /* PERF_RECORD_LOST_SAMPLES */, 0, body, 8);
	body[0] = 0;
	body[1] = 1ull << 62;
	body[2] = 0;
	rs_producer_output(&r->p, RS_PERF_RECORD_AUX, 0, body, 24);
	memset(&mk, 0, sizeof(mk));
	mk.m.time = UINT64_MAX;
	mk.m.len = 4;
	memcpy(mk.text, "late", 4);
	rs_producer_output(&r->p, RS_RECORD_MARKER, 0, (uint8_t *)&mk + 8,
			   (uint32_t)(sizeof(mk.m) - 8 + 4));
}

/* --corrupt: the committed sequence record at ring position @pos gets a
 * header size no record can have. */
static void corrupt_at(struct ring_state *r, uint64_t pos)
{
	struct rs_perf_header *h = (struct rs_perf_header *)(void *)
		(r->p.ring.data + (pos & (r->p.ring.data_size - 1)));

	h->size = 12;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die(path, errno);
	fclose(f);
}

/* Whether record @i of @total gets a companion: @k of them, spread evenly. */
static int due(uint64_t i, uint64_t total, uint64_t k)
{
	return k && (i * k / total) != ((i + 1) * k / total);
}

static void pace(uint64_t start, uint64_t done, uint64_t rate)
{
	uint64_t target, now;

	if (!rate)
		return;
	target = start + done * 1000000000u / rate;
	now = now_ns();
	if (target > now) {
		struct timespec ts = { (time_t)((target - now) / 1000000000u),
				       (long)((target - now) % 1000000000u) };

		nanosleep(&ts, NULL);
	}
}

static int write_records(const char *path, const struct opts *o)
{
	struct ring_state *rs;
	struct rs_region region;
	const struct rs_region_header *hdr;
	uint64_t size, i, start = 0, deadline;
	struct answerer ans = { 0 };
	pthread_t answer_thread;
	struct rs_config cfg;
	uint32_t nr, j;
	void *mem;
	int err;

	mem = map_file(path, &size, 0, 0);
	err = rs_region_open(&region, mem, size);
	if (err)
		die("rs_region_open", err);
	hdr = mem;
	nr = rs_region_nr_rings(&region); /* the ring table's too */
	rs = calloc(nr, sizeof(*rs));
	if (!rs)
		die("calloc", ENOMEM);
	for (j = 0; j < nr; j++) {
		err = rs_producer_init(&rs[j].p, &region, j);
		if (err)
			die("rs_producer_init", err);
	}
	if (o->tsync) {
		err = rs_guest_attach(&region, RS_AGENT_HOST_TEST, nr, &cfg);
		if (err < 0)
			die("rs_guest_attach", err);
		ans.region = &region;
		ans.mute = o->mute;
		ans.synced = o->synced;
		if (pthread_create(&answer_thread, NULL, answer_main, &ans))
			die("pthread_create", EAGAIN);
	}
	for (j = 0; j < nr && o->comm; j++)
		put_comm(&rs[j], o->comm, o->guest);
	for (j = 0; j < nr && o->mmap2; j++)
		put_mmap2(&rs[j], o->mmap2, o->guest);
	for (i = 0; i < o->records; i++) {
		if (i == o->burst) {
			struct timespec step = { 0, 10000000 };

			if (o->ready)
				touch(o->ready);
			while (o->hold && access(o->hold, F_OK))
				nanosleep(&step, NULL);
			start = now_ns();
		}
		if (i >= o->burst)
			pace(start, i - o->burst, o->rate);
		for (j = 0; j < nr; j++) {
			struct ring_state *r = &rs[j];

			put_seq(r, j, (uint32_t)o->fill);
			if (due(i, o->records, o->samples))
				put_sample(r, hdr->config.sample_type, o->guest,
					   o->kernel_ip);
			if (due(i, o->records, o->markers))
				put_marker(r);
			if (due(i, o->records, o->aux))
				put_aux(r, o->aux_size);
		}
	}
	for (j = 0; j < nr && o->corrupt; j++) {
		uint64_t pos = rs[j].p.head;   /* where the next record goes */

		put_seq(&rs[j], j, 0);
		corrupt_at(&rs[j], pos);
	}
	for (j = 0; j < nr && o->hostile; j++)
		put_hostile(&rs[j], j);
	if (o->ready && o->burst >= o->records)
		touch(o->ready);
	/* Every loss must be on record before we say what we lost. */
	deadline = now_ns() + (uint64_t)(o->flush_timeout * 1e9);
	for (j = 0; j < nr; j++) {
		while ((err = rs_producer_flush_lost(&rs[j].p)) != 0) {
			struct timespec ts = { 0, 1000000 };

			if (err > 0)
				continue;
			if (now_ns() > deadline) {
				fprintf(stderr, "producer: ring %u: LOST record not "
					"flushed within %.1f s\n", j, o->flush_timeout);
				return 1;
			}
			nanosleep(&ts, NULL);
		}
	}
	for (j = 0; j < nr; j++)
		printf("ring %u attempted %" PRIu64 " lost %" PRIu64 " seq %" PRIu64
		       " samples %" PRIu64 " markers %" PRIu64 " aux %" PRIu64
		       " aux_bytes %" PRIu64 " comms %" PRIu64 " mmaps %" PRIu64
		       "\n", j, rs[j].attempted, rs_producer_lost(&rs[j].p),
		       rs[j].seq, rs[j].samples, rs[j].markers, rs[j].aux,
		       rs[j].aux_bytes, rs[j].comms, rs[j].mmaps);
	fflush(stdout);
	if (o->done)
		touch(o->done);
	if (o->tsync) {
		struct timespec ts = { (time_t)o->linger,
				       (long)((o->linger - (double)(time_t)o->linger) * 1e9) };
		struct timespec step = { 0, 10000000 };

		if (!o->until)
			nanosleep(&ts, NULL);
		while (o->until && access(o->until, F_OK))
			nanosleep(&step, NULL);
		ans.stop = 1;
		pthread_join(answer_thread, NULL);
		rs_guest_detach(&region);
		printf("tsync answers %" PRIu64 "\n", ans.answers);
	}
	free(rs);
	return 0;
}

static int poke(const char *path, const struct opts *o)
{
	uint64_t size;
	struct rs_region_header *h = map_file(path, &size, 0, 0);

	if (o->abi_version >= 0)
		h->abi_version = (uint32_t)o->abi_version;
	return 0;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	       c - 'a' + 10 : -1;
}

static int sideband(const char *path, const struct opts *o)
{
	struct rs_sideband_writer w;
	struct rs_region region;
	struct rs_region_header *h;
	uint8_t id[RS_SIDEBAND_BUILD_ID_MAX];
	uint32_t id_len = 0;
	char line[4096];
	uint64_t size;
	void *mem;
	FILE *f;
	int err;

	mem = map_file(path, &size, 0, 0);
	err = rs_region_open(&region, mem, size);
	if (err)
		die("rs_region_open", err);
	f = fopen(o->kallsyms, "r");
	if (!f)
		die(o->kallsyms, errno);
	err = rs_sideband_begin(&region, &w);
	if (err)
		die("rs_sideband_begin", err);
	while (fgets(line, sizeof(line), f))
		rs_sideband_append(&w, line, strlen(line));
	fclose(f);
	for (const char *p = o->build_id; p && p[0] && p[1] &&
	     id_len < sizeof(id); p += 2) {
		if (hexval(p[0]) < 0 || hexval(p[1]) < 0)
			die("--build-id", EINVAL);
		id[id_len++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
	}
	rs_sideband_set_build_id(&w, id, id_len);
	if (o->torn)
		return 0;
	err = rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS);
	if (err)
		die("rs_sideband_commit", err);
	h = mem;
	if (o->lie_length)
		h->sideband.length = o->lie_length;
	printf("sideband length %" PRIu64 " wanted %" PRIu64 "\n", w.length,
	       w.wanted);
	return 0;
}

static int identity(const char *path, const struct opts *o)
{
	struct rs_guest_info gi = {
		.nr_cpus_online = 2,
		.nr_cpus_avail = 4,
		.mem_total_kib = 2014276,
		.sample_period = 1000,
		.sample_flags = RS_SAMPLE_FREQ,
		.sample_type_id = 1,      /* PERF_TYPE_SOFTWARE */
		.sample_config = 0,       /* PERF_COUNT_SW_CPU_CLOCK */
		.arch = "x86_64",
		.cpu_desc = "ringside test CPU",
	};
	const char *host = o->host ? o->host : "rs-guest";
	struct rs_region region;
	uint64_t size;
	void *mem;
	int err;

	/* NUL-padded, a whole field without a NUL when that long */
	memcpy(gi.hostname, host, strnlen(host, sizeof(gi.hostname)));
	memcpy(gi.os_release, o->release,
	       strnlen(o->release, sizeof(gi.os_release)));
	mem = map_file(path, &size, 0, 0);
	err = rs_region_open(&region, mem, size);
	if (err)
		die("rs_region_open", err);
	err = rs_guest_info_publish(&region, &gi);
	if (err)
		die("rs_guest_info_publish", err);
	return 0;
}

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*end) {
		fprintf(stderr, "producer: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.rings = 2, .data_pages = 4, .records = 1000, .fill = 24,
		.aux_size = 512, .flush_timeout = 10.0, .abi_version = -1,
		.sample_type = RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID |
			       RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_PERIOD,
	};
	int i;

	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%" PRIu64 "\n", now_ns());
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: producer create|write|poke|sideband|identity PATH "
			"[options]\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(a, "--overwrite")) { o.overwrite = 1; continue; }
		if (!strcmp(a, "--aux-overwrite")) { o.aux_overwrite = 1; continue; }
		if (!strcmp(a, "--guest")) { o.guest = 1; continue; }
		if (!strcmp(a, "--torn")) { o.torn = 1; continue; }
		if (!strcmp(a, "--mute")) { o.mute = 1; continue; }
		if (!strcmp(a, "--hostile")) { o.hostile = 1; continue; }
		if (!strcmp(a, "--corrupt")) { o.corrupt = 1; continue; }
		i++;
		if (!strcmp(a, "--rings")) o.rings = (uint32_t)num(v);
		else if (!strcmp(a, "--data-pages")) o.data_pages = (uint32_t)num(v);
		else if (!strcmp(a, "--aux-pages")) o.aux_pages = (uint32_t)num(v);
		else if (!strcmp(a, "--sample-type")) o.sample_type = num(v);
		else if (!strcmp(a, "--freq")) o.freq = num(v);
		else if (!strcmp(a, "--records")) o.records = num(v);
		else if (!strcmp(a, "--fill")) o.fill = num(v);
		else if (!strcmp(a, "--samples")) o.samples = num(v);
		else if (!strcmp(a, "--markers")) o.markers = num(v);
		else if (!strcmp(a, "--aux")) o.aux = num(v);
		else if (!strcmp(a, "--aux-size")) o.aux_size = num(v);
		else if (!strcmp(a, "--burst")) o.burst = num(v);
		else if (!strcmp(a, "--rate")) o.rate = num(v);
		else if (!strcmp(a, "--ready")) o.ready = v;
		else if (!strcmp(a, "--hold")) o.hold = v;
		else if (!strcmp(a, "--comm")) o.comm = v;
		else if (!strcmp(a, "--mmap2")) o.mmap2 = v;
		else if (!strcmp(a, "--flush-timeout")) o.flush_timeout = (double)num(v);
		else if (!strcmp(a, "--abi-version")) o.abi_version = (int)num(v);
		else if (!strcmp(a, "--kernel-ip")) o.kernel_ip = num(v);
		else if (!strcmp(a, "--sideband-pages")) o.sideband_pages = (uint32_t)num(v);
		else if (!strcmp(a, "--kallsyms")) o.kallsyms = v;
		else if (!strcmp(a, "--build-id")) o.build_id = v;
		else if (!strcmp(a, "--release")) o.release = v;
		else if (!strcmp(a, "--host")) o.host = v;
		else if (!strcmp(a, "--lie-length")) o.lie_length = num(v);
		else if (!strcmp(a, "--tsync")) { o.tsync = 1; o.clock_offset = num(v); }
		else if (!strcmp(a, "--linger")) o.linger = (double)num(v);
		else if (!strcmp(a, "--until")) o.until = v;
		else if (!strcmp(a, "--synced")) o.synced = v;
		else if (!strcmp(a, "--done")) o.done = v;
		else {
			fprintf(stderr, "producer: unknown option '%s'\n", a);
			return 2;
		}
	}
	if (!strcmp(argv[1], "create"))
		return create(argv[2], &o);
	if (!strcmp(argv[1], "write")) {
		clock_offset = o.clock_offset;
		return write_records(argv[2], &o);
	}
	if (!strcmp(argv[1], "poke"))
		return poke(argv[2], &o);
	if (!strcmp(argv[1], "sideband") && o.kallsyms)
		return sideband(argv[2], &o);
	if (!strcmp(argv[1], "identity") && o.release)
		return identity(argv[2], &o);
	fprintf(stderr, "producer: unknown command '%s'\n", argv[1]);
	return 2;
}
