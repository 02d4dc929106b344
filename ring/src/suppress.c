/* SPDX-License-Identifier: MIT */
/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS, docs/abi.md): a producer
 * whose doorbell is due rings it only when the ring's consumer has not
 * said that it polls; a consumer says so, and before it sleeps takes it
 * back and looks at the heads once more (barrier.h, W/C against A/X).
 */
#include "barrier.h"
#include "ring_internal.h"

int rs_producer_doorbell(struct rs_producer *p)
{
	if (!p->suppress ||
	    rs_consumer_state_read(&p->ring.ctrl->host.consumer) !=
	    RS_CONSUMER_POLLING)
		return 1;
	p->suppressed++;
	rs_store_hint(&p->ring.ctrl->ext.suppressed, p->suppressed);
	return 0;
}

/*
 * Whether a doorbell may have fallen due, and been suppressed, between
 * @tail (consumed) and @head: the producer decides at the first
 * publication past each multiple of the watermark, so one lies in
 * (tail, head].  A head that is nonsense (behind, or more than a ring
 * ahead) does not keep a consumer awake: the drain ignores it, and a guest
 * must not make the host spin with it.
 */
static int due_since(uint64_t head, uint64_t tail, uint64_t size, uint32_t wm)
{
	if (head == tail || head - tail > size)
		return 0;
	return head / wm != tail / wm;
}

int rs_consumer_sleep_prepare(struct rs_consumer *c)
{
	const struct rs_ring *ring;
	struct rs_ctrl_page *ctrl;

	if (!c || !c->ring.ctrl)
		return -rse_invalid;
	ring = &c->ring;
	ctrl = ring->ctrl;
	rs_consumer_state_sleep(&ctrl->host.consumer);
	if (ring->data_mode == RS_MODE_NORMAL &&
	    due_since(rs_read_head(ctrl), c->tail, ring->data_size,
		      c->watermark))
		return 1;
	if (ring->aux_size && ring->aux_mode == RS_MODE_NORMAL &&
	    due_since(rs_read_aux_head(ctrl), c->aux_tail, ring->aux_size,
		      c->aux_watermark))
		return 1;
	return 0;
}

int rs_consumer_awake(struct rs_consumer *c)
{
	if (!c || !c->ring.ctrl)
		return -rse_invalid;
	rs_consumer_state_poll(&c->ring.ctrl->host.consumer);
	return 0;
}
