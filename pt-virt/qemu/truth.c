// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test mode (truth=FILE): the file a ground-truth test decodes against
 * (format: ringside/pt_truth.h).  Code bytes are appended as blocks are
 * translated; of each vCPU's instructions the first truth_max / 2 and the
 * latest truth_max - truth_max / 2 are kept and written at exit.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/pt_truth.h"
#include "qpt.h"

static int put(int fd, const void *buf, uint64_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			return -pve_io;
		p += n;
		len -= (uint64_t)n;
	}
	return 0;
}

static int record(int fd, uint32_t type, uint32_t vcpu, uint64_t addr,
		  const void *a, uint64_t alen, const void *b, uint64_t blen)
{
	struct pv_truth_rec r = { type, vcpu, addr, alen + blen };
	static const uint8_t pad[8];
	int ret;

	if ((ret = put(fd, &r, sizeof(r))) < 0 || (ret = put(fd, a, alen)) < 0 ||
	    (ret = put(fd, b, blen)) < 0)
		return ret;
	return put(fd, pad, (8 - (alen + blen) % 8) % 8);
}

int qpt_truth_open(struct qpt *q)
{
	/* a new file, never one or a link another user put at that name
	 * (its directory may be world-writable); the guest's code: 0600 */
	q->truth_fd = open(q->o.truth, O_WRONLY | O_CREAT | O_EXCL |
			   O_NOFOLLOW | O_CLOEXEC, 0600);
	if (q->truth_fd < 0)
		return -pve_io;
	if (pthread_mutex_init(&q->truth_lock, NULL))
		return -pve_internal;
	for (unsigned i = 0; i < q->nvcpus; i++) {
		q->v[i].truth = calloc(q->o.truth_max, sizeof(uint64_t));
		if (!q->v[i].truth)
			return -pve_nomem;
	}
	return put(q->truth_fd, PV_TRUTH_MAGIC, 8);
}

void qpt_truth_code(struct qpt *q, const struct qpt_tb *tb, unsigned vcpu)
{
	uint64_t mark = vcpu < q->nvcpus ? q->v[vcpu].ntruth : 0;

	pthread_mutex_lock(&q->truth_lock);
	if (record(q->truth_fd, PV_TRUTH_CODE, vcpu, tb->start, &mark,
		   sizeof(mark), tb->bytes, tb->nbytes) < 0)
		q->truth_failed = true;
	q->truth_code_bytes += tb->nbytes;
	pthread_mutex_unlock(&q->truth_lock);
}

void qpt_truth_fault(struct qpt_vcpu *v, uint64_t index)
{
	if (v->nfaults == v->faults_cap) {
		uint64_t cap = v->faults_cap ? 2 * v->faults_cap : 64;
		uint64_t *n = realloc(v->faults, cap * sizeof(*n));

		if (!n)
			return;
		v->faults = n;
		v->faults_cap = cap;
	}
	v->faults[v->nfaults++] = index;
}

int qpt_truth_close(struct qpt *q)
{
	int ret = q->truth_failed ? -pve_io : 0;

	for (unsigned i = 0; i < q->nvcpus && ret == 0; i++) {
		struct qpt_vcpu *v = &q->v[i];
		uint64_t head = q->o.truth_max / 2, size = q->o.truth_max - head;
		uint64_t *ring = v->truth + head;
		uint64_t n = v->ntruth, first = n < head ? n : head;
		uint64_t rest = n - first, kept = rest < size ? rest : size;
		uint64_t start = n - kept, cut = (start - head) % size;

		if (!n)
			continue;
		ret = record(q->truth_fd, PV_TRUTH_FAULTS, i, 0, v->faults,
			     v->nfaults * 8, NULL, 0);
		/* The first ones, then the latest ones, oldest first. */
		if (ret == 0)
			ret = record(q->truth_fd, PV_TRUTH_IPS, i, 0, v->truth,
				     first * 8, NULL, 0);
		if (ret == 0 && kept)
			ret = record(q->truth_fd, PV_TRUTH_IPS, i, start,
				     ring + cut, (kept < size ? kept :
						  size - cut) * 8,
				     ring, (kept < size ? 0 : cut) * 8);
	}
	if (close(q->truth_fd) < 0 && ret == 0)
		ret = -pve_io;
	return ret;
}
