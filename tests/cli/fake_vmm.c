/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for a ringside VMM's control socket, for the cli suite (no KVM
 * needed): it serves a region file a test producer wrote, as `ringside run
 * --control` serves its memfd, and answers REGION with the layout read
 * from the header at start, before the test scribbles over it, as the real
 * VMM answers with the params it laid the region out with.
 *
 *   fake_vmm SOCKET REGION [--refused N | --vcpu-threads N]
 *
 * Serves one client after another until SIGTERM.  --refused N: REGION
 * says the header guard refused N guest writes.  --vcpu-threads N: N
 * threads named as a VMM names its vCPU threads ("CPU i/KVM") that spin
 * and never block, for the host's view of them (cli_host.sh), and N
 * vCPUs running (STATUS), so that a recording goes on until its
 * duration.  Else nr_vcpus is 0 (STATUS has nothing to report).  PAUSE
 * and RESUME succeed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ringside/abi.h"
#include "ringside/vmm_client.h"
#include "ringside/vmm_control.h"

static uint32_t nr_vcpus;   /* --vcpu-threads */

/* The layout, from the header while it is whole. */
static int layout_of(int fd, struct rs_ctl_region *r)
{
	struct rs_region_header h;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.magic != RS_REGION_MAGIC || !h.nr_rings || h.nr_rings > RS_MAX_RINGS)
		return -1;
	memset(r, 0, sizeof(*r));
	r->region_size = h.region_size;
	r->nr_rings = h.nr_rings;
	r->data_pages = (uint32_t)(h.rings[0].data_size / RS_PAGE_SIZE);
	r->aux_pages = (uint32_t)(h.rings[0].aux_size / RS_PAGE_SIZE);
	r->data_mode = h.config.data_mode;
	r->aux_mode = h.config.aux_mode;
	r->data_watermark = h.config.data_watermark;
	r->aux_watermark = h.config.aux_watermark;
	r->sideband_pages = (uint32_t)(h.sideband_size / RS_PAGE_SIZE);
	r->trace_mask = h.config.trace_mask;
	r->sample_type = h.config.sample_type;
	r->sample_freq = h.config.sample_freq;
	r->doorbell_addr = h.config.doorbell_addr;
	r->header_guarded = 1;
	return 0;
}

static void serve(int c, int region_fd, const struct rs_ctl_region *r,
		  const int *bells)
{
	struct rs_ctl_msg m;
	int fds[RS_CTL_MAX_FDS];

	while (recv(c, &m, sizeof(m), 0) == (ssize_t)sizeof(m)) {
		switch (m.op) {
		case RS_CTL_HELLO: {
			struct rs_ctl_hello h = {
				.region_size = r->region_size,
				.nr_rings = r->nr_rings,
				.nr_vcpus = nr_vcpus,
				.nr_fds = 1 + r->nr_rings,
			};

			fds[0] = region_fd;
			memcpy(fds + 1, bells, sizeof(int) * r->nr_rings);
			vmm_ctl_reply(c, m.op, 0, &h, sizeof(h), fds, h.nr_fds);
			break;
		}
		case RS_CTL_REGION:
			vmm_ctl_reply(c, m.op, 0, r, sizeof(*r), NULL, 0);
			break;
		case RS_CTL_STATUS: {
			struct rs_vmm_vcpu_info v = {
				.id = m.arg, .state = RS_VCPU_RUNNING,
			};

			if (m.arg >= nr_vcpus)
				vmm_ctl_reply(c, m.op, -EINVAL, NULL, 0, NULL, 0);
			else
				vmm_ctl_reply(c, m.op, 0, &v, sizeof(v), NULL, 0);
			break;
		}
		case RS_CTL_PAUSE:
		case RS_CTL_RESUME:
			vmm_ctl_reply(c, m.op, 0, NULL, 0, NULL, 0);
			break;
		default:
			vmm_ctl_reply(c, m.op, -EOPNOTSUPP, NULL, 0, NULL, 0);
		}
	}
}

static void *spin(void *arg)
{
	volatile uint64_t x = (uint64_t)(uintptr_t)arg;

	for (;;)
		x = x * 6364136223846793005ull + 1;
	return NULL;
}

/* @n threads named "CPU i/KVM", spinning until the process ends. */
static int vcpu_threads(unsigned long n)
{
	char name[16];
	pthread_t t;

	for (unsigned long i = 0; i < n && i < RS_MAX_RINGS; i++) {
		if (pthread_create(&t, NULL, spin, (void *)(uintptr_t)i))
			return -1;
		snprintf(name, sizeof(name), "CPU %lu/KVM", i);
		pthread_setname_np(t, name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int bells[RS_MAX_RINGS];
	struct rs_ctl_region r;
	int region_fd, ls;

	if (argc != 3 && !(argc == 5 && (!strcmp(argv[3], "--refused") ||
					 !strcmp(argv[3], "--vcpu-threads")))) {
		fprintf(stderr, "usage: fake_vmm SOCKET REGION [--refused N | "
			"--vcpu-threads N]\n");
		return 2;
	}
	region_fd = open(argv[2], O_RDWR | O_CLOEXEC);
	if (region_fd < 0 || layout_of(region_fd, &r)) {
		fprintf(stderr, "fake_vmm: %s: not a whole region\n", argv[2]);
		return 1;
	}
	if (argc == 5 && !strcmp(argv[3], "--refused"))
		r.header_refused = strtoull(argv[4], NULL, 10);
	if (argc == 5 && !strcmp(argv[3], "--vcpu-threads"))
		nr_vcpus = (uint32_t)strtoul(argv[4], NULL, 10);
	if (nr_vcpus && vcpu_threads(nr_vcpus)) {
		fprintf(stderr, "fake_vmm: cannot start the vCPU threads\n");
		return 1;
	}
	for (uint32_t i = 0; i < r.nr_rings; i++)
		bells[i] = eventfd(0, EFD_CLOEXEC);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
	ls = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(ls, 4)) {
		perror("fake_vmm: socket");
		return 1;
	}
	for (;;) {
		int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			continue;
		serve(c, region_fd, &r, bells);
		close(c);
	}
}
