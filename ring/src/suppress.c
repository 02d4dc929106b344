/* SPDX-License-Identifier: MIT */
/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS, docs/abi.md): a producer
 * whose doorbell is due rings it only when the ring's consumer has not
 * said that it polls; a consumer says so, and before it sleeps takes it
 * back and looks at the heads once more (barrier.h, W/C against A/X).
 */
#include "barrier.h"
#include "ring_internal.h"

int rs_doorbell_decide(struct rs_producer *p)
{
	if (!p->suppress ||
	    rs_consumer_state_read(&p->ring.ctrl->host.consumer) !=
	    RS_CONSUMER_POLLING)
		return 1;
	p->suppressed++;
	rs_store_hint(&p->ring.ctrl->ext.suppressed, p->suppressed);
	return 0;
}

/* A head that moved past @tail by at most a ring.  One that is nonsense
 * (behind, or more than a ring ahead) does not keep a consumer awake: the
 * drain ignores it, and a guest must not make the host spin with it. */
static int moved(uint64_t head, uint64_t tail, uint64_t size)
{
	return head != tail && head - tail <= size;
}

int rs_ring_sleep_prepare(const struct rs_ring *ring, uint64_t tail,
			  uint64_t aux_tail)
{
	struct rs_ctrl_page *c;

	if (!ring || !ring->ctrl)
		return -rse_invalid;
	c = ring->ctrl;
	rs_consumer_state_sleep(&c->host.consumer);
	if (ring->data_mode == RS_MODE_NORMAL &&
	    moved(rs_read_head(c), tail, ring->data_size))
		return 1;
	if (ring->aux_size && ring->aux_mode == RS_MODE_NORMAL &&
	    moved(rs_read_aux_head(c), aux_tail, ring->aux_size))
		return 1;
	return 0;
}

int rs_ring_awake(const struct rs_ring *ring)
{
	if (!ring || !ring->ctrl)
		return -rse_invalid;
	rs_consumer_state_poll(&ring->ctrl->host.consumer);
	return 0;
}

int rs_consumer_sleep_prepare(struct rs_consumer *c)
{
	if (!c)
		return -rse_invalid;
	return rs_ring_sleep_prepare(&c->ring, c->tail, c->aux_tail);
}

int rs_consumer_awake(struct rs_consumer *c)
{
	if (!c)
		return -rse_invalid;
	return rs_ring_awake(&c->ring);
}
