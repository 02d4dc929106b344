/* SPDX-License-Identifier: MIT */
/*
 * A reader's half of perf's ring buffer contract (C and D in barrier.h),
 * for rings whose writer is not this library: the Linux agent drains the
 * guest kernel's own perf buffers with it.
 */
#include "ringside/barrier.h"
#include "ring_internal.h"

uint64_t rs_perf_page_read_head(const struct rs_ctrl_page *page)
{
	return rs_read_head(&page->data_head);
}

void rs_perf_page_publish_tail(struct rs_ctrl_page *page, uint64_t tail)
{
	rs_publish_tail(&page->data_tail, tail);
}
