/* SPDX-License-Identifier: MIT */
/*
 * A flight recorder of the host's view (cap_host in overwrite mode) on
 * this process, which plays the VMM with a thread named as a vCPU thread
 * that sleeps and wakes: a capture (cap_host_capture) files what its
 * buffer holds into a perf.data, read back as the thread's switches on
 * its lane; a second capture files them again (a flight recorder is not
 * drained).  Exit 77 where this host allows no per-thread perf events.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "ringside/capture.h"

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); \
		       fputc('\n', stderr); exit(1); } while (0)

static volatile int stop;

static void *vcpu(void *arg)
{
	const struct timespec ms = { 0, 1000000 };

	(void)arg;
	while (!stop)
		nanosleep(&ms, NULL);
	return NULL;
}

/* Capture @h into @path; the host records of lane 1 read back. */
static uint64_t capture(struct cap_host *h, const char *path)
{
	struct pdf_writer_params wp = { .size = sizeof(wp), .nr_rings = 2,
					.host_view = 1 };
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;
	uint64_t n = 0;
	int err;

	if (pdf_writer_open(&w, path, &wp))
		FAIL("writer");
	err = cap_host_capture(h, w);
	if (err <= 0)
		FAIL("capture: %d", err);
	if (pdf_writer_finish(w) || pdf_reader_open(&r, path))
		FAIL("file");
	pdf_reader_want_host(r, 1);
	while (pdf_reader_next(r, &ev) == 1) {
		if (ev.state)        /* the thread's name */
			continue;
		if (!ev.host)
			FAIL("a record that is not the host's");
		if (ev.ring != 1)
			FAIL("a host record on lane %u", ev.ring);
		n += ev.rec->type == PERF_RECORD_SWITCH;
	}
	pdf_reader_close(r);
	return n;
}

int main(void)
{
	struct cap_host_config c = { .pid = getpid(), .nr_lanes = 2,
				     .mode = HV_MODE_OVERWRITE };
	char path[] = "/tmp/test_cap_host_live.XXXXXX", file[64];
	struct cap_host *h;
	uint64_t a, b;
	pthread_t t;
	int err;

	if (pthread_create(&t, NULL, vcpu, NULL) ||
	    pthread_setname_np(t, "CPU 1/TCG"))
		FAIL("thread");
	err = cap_host_open(&h, &c);
	if (err == HV_ERR(hve_perm) || err == HV_ERR(hve_no_perf)) {
		printf("SKIP: %s\n", hv_err_str(err));
		return 77;
	}
	if (err)
		FAIL("cap_host_open: %s", hv_err_str(err));
	if (cap_host_stats(h)->vcpus != 1)
		FAIL("%u vCPU threads", cap_host_stats(h)->vcpus);
	usleep(100000);       /* ~100 sleeps and wakes of the vCPU thread */
	if (!mkdtemp(path))
		FAIL("mkdtemp");
	snprintf(file, sizeof(file), "%s/a.data", path);
	a = capture(h, file);
	snprintf(file, sizeof(file), "%s/b.data", path);
	b = capture(h, file);
	stop = 1;
	pthread_join(t, NULL);
	cap_host_free(h);
	snprintf(file, sizeof(file), "rm -rf '%s'", path);
	if (system(file))
		FAIL("rm");
	if (!a)
		FAIL("the capture holds no switch of the vCPU thread");
	if (b < a)
		FAIL("a second capture holds less (%llu < %llu): drained?",
		     (unsigned long long)b, (unsigned long long)a);
	printf("PASS: %llu and %llu switches of the vCPU thread captured\n",
	       (unsigned long long)a, (unsigned long long)b);
	return 0;
}
