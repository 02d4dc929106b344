// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The region file and each vCPU's output path: the plugin maps the
 * domain's region (the file the ivshmem device maps), opens it by its
 * header with the ring library, and builds, in its own memory, a ToPA
 * over vCPU i's AUX area of ring i.  The output engine then writes through
 * that ToPA exactly as for the ringside VMM, and pv_aux publishes aux_head
 * without PERF_RECORD_AUX records: the data ring is the guest agent's.
 *
 * The engine addresses "guest-physical" memory through a pv_mem; here that
 * space is private to the plugin: the tables at TABLE_GPA, the AUX area at
 * AUX_GPA.  Neither is guest memory, so the guest cannot touch the tables;
 * the AUX area is the region's own (guest-writable, only ever written).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "qpt.h"

#define TABLE_GPA 0x100000000000ull
#define AUX_GPA   0x200000000000ull
/* ToPA regions of 64 KiB (fewer when the AUX area is smaller). */
#define TOPA_REGION (64u * 1024)

static void *space(void *arg, uint64_t gpa, uint64_t len)
{
	struct qpt_vcpu *v = arg;

	if (gpa >= TABLE_GPA && gpa - TABLE_GPA <= v->tables_size &&
	    len <= v->tables_size - (gpa - TABLE_GPA))
		return (uint8_t *)v->tables + (gpa - TABLE_GPA);
	if (gpa >= AUX_GPA && gpa - AUX_GPA <= v->prod.ring.aux_size &&
	    len <= v->prod.ring.aux_size - (gpa - AUX_GPA))
		return v->prod.ring.aux + (gpa - AUX_GPA);
	return NULL;
}

int qpt_output_open(struct qpt *q, char *err, size_t size)
{
	struct stat st;
	int fd, ret;

	fd = open(q->o.region, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, size, "%s: %s", q->o.region, strerror(errno));
		return -pve_io;
	}
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		snprintf(err, size, "%s: not a region file", q->o.region);
		close(fd);
		return -pve_io;
	}
	q->mem_size = (uint64_t)st.st_size;
	q->mem = mmap(NULL, q->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0);
	close(fd);
	if (q->mem == MAP_FAILED) {
		q->mem = NULL;
		snprintf(err, size, "%s: mmap: %s", q->o.region, strerror(errno));
		return -pve_io;
	}
	ret = rs_region_open(&q->region, q->mem, q->mem_size);
	if (ret < 0) {
		snprintf(err, size, "%s: not a ringside region: %s",
			 q->o.region, rs_error_str(-ret));
		return -pve_invalid;
	}
	q->region_ok = true;
	return 0;
}

int qpt_output_vcpu(struct qpt *q, struct qpt_vcpu *v, char *err, size_t size)
{
	struct pv_topa_params tp = { .size = sizeof(tp) };
	struct pv_mem mem = { space, v };
	struct rs_ring_state st;
	uint64_t base, mask;
	int ret;

	if (!q->region_ok)
		return -pve_invalid;
	if (v->index >= rs_region_nr_rings(&q->region)) {
		snprintf(err, size, "vCPU %u: the region has %u rings: not traced",
			 v->index, rs_region_nr_rings(&q->region));
		return -pve_invalid;
	}
	ret = rs_producer_init_aux(&v->prod, &q->region, v->index);
	if (ret < 0) {
		snprintf(err, size, "vCPU %u: ring %u has no AUX area "
			 "(aux_pages 0): not traced", v->index, v->index);
		return -pve_invalid;
	}
	tp.region_size = v->prod.ring.aux_size < TOPA_REGION ?
			 v->prod.ring.aux_size : TOPA_REGION;
	tp.table_gpa = TABLE_GPA;
	tp.aux_gpa = AUX_GPA;
	tp.aux_size = v->prod.ring.aux_size;
	tp.watermark = rs_region_config(&q->region)->aux_watermark;
	if (v->prod.ring.aux_mode == RS_MODE_OVERWRITE)
		tp.flags |= PV_TOPA_SNAPSHOT;
	if ((ret = pv_topa_table_bytes(&tp, &v->tables_size)) < 0)
		goto fail;
	v->tables = aligned_alloc(4096, (v->tables_size + 4095) & ~4095ull);
	if (!v->tables) {
		ret = -pve_nomem;
		goto fail;
	}
	pv_msr_init(&v->msr, NULL);
	pv_out_init(&v->out, &v->msr, &mem, NULL, NULL);
	tp.flags &= ~PV_TOPA_SNAPSHOT;     /* pv_aux_init sets it by the mode */
	ret = pv_aux_init(&v->aux, &v->prod, &v->out, AUX_GPA, &tp, v->tables,
			  v->tables_size);
	if (ret < 0)
		goto fail;
	pv_aux_no_records(&v->aux);
	if ((ret = pv_aux_output_msrs(&v->aux, &base, &mask)) < 0)
		goto fail;
	/* The MSRs a driver would program; the engine only checks
	 * TraceEn and ToPA. */
	v->msr.output_base = base;
	v->msr.output_mask = mask;
	v->msr.ctl = PV_CTL_TRACEEN | PV_CTL_TOPA | PV_CTL_OS | PV_CTL_BRANCHEN |
		     PV_CTL_TSCEN | (q->o.filter_all ? PV_CTL_USER : 0);
	v->out_ok = true;
	v->tail0 = rs_ring_state_read(&v->prod.ring, &st) == 0 ? st.aux_tail : 0;
	return 0;
fail:
	snprintf(err, size, "vCPU %u: AUX output: %s", v->index, pv_error_str(ret));
	return ret;
}

void qpt_output_close(struct qpt *q)
{
	for (unsigned i = 0; i < q->nvcpus; i++) {
		struct qpt_vcpu *v = &q->v[i];

		if (v->out_ok)
			pv_aux_flush(&v->aux, 0);
	}
	if (q->mem)
		msync(q->mem, q->mem_size, MS_SYNC);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * wait=: a lossless capture.  The ToPA stops output at the end of the
 * last region the consumer has left whole, (aux_tail + aux_size) rounded
 * down to a region; bytes that would cross it are lost (OVF).  Instead,
 * the vCPU waits here until they fit below it, publishing first so the
 * consumer sees what it must take.  Only once a consumer has moved
 * aux_tail: before that nobody drains, and a guest that waited would
 * never run (the ring fills and stops as without wait=).  Only in normal
 * mode: a flight recorder overwrites.  The limit is strict, so the region
 * never fills and the ToPA never stops: no OVF without a loss.
 */
void qpt_output_wait(struct qpt *q, struct qpt_vcpu *v, uint64_t len)
{
	struct pv_aux *a = &v->aux;
	uint64_t r = a->topa.region_size, t0 = 0;
	struct rs_ring_state st;
	struct timespec nap = { 0, 50000 };

	if (!q->o.wait_s || !v->out_ok || a->snapshot || a->head + len < v->room_limit)
		return;
	for (;;) {
		if (rs_ring_state_read(&v->prod.ring, &st) < 0)
			break;
		if (!v->consumer && st.aux_tail == v->tail0)
			break;
		v->consumer = true;
		/* A tail ahead of head or a lap behind: a consumer that lies
		 * gets the ToPA's STOP, not a vCPU waiting for it. */
		if (a->head - st.aux_tail > a->aux_size)
			break;
		/* The ToPA's STOP moves only at a flush, to where the tail
		 * is then (this one or later): after it, the limit below
		 * holds.  The flush also publishes what the consumer must
		 * take before there is room. */
		pv_aux_flush(a, 0);
		v->room_limit = (st.aux_tail + a->aux_size) / r * r;
		if (a->head + len < v->room_limit)
			break;
		if (!t0) {
			t0 = now_ns();
			v->waits++;
		} else if (now_ns() - t0 >= q->o.wait_s * 1000000000u) {
			v->wait_gaveup++;
			break;
		}
		nanosleep(&nap, NULL);
	}
	if (t0)
		v->wait_ns += now_ns() - t0;
}
