// SPDX-License-Identifier: MIT
/*
 * Decoding with libipt's instruction decoder, reading code through a
 * pv_mem (a live guest or a capture file).  Errors are reported and the
 * decoder resynchronizes at the next PSB, like ptxed.
 */
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/pt_codec.h"

static int read_code(uint8_t *buf, size_t size, const struct pt_asid *asid,
		     uint64_t ip, void *ctx)
{
	const struct pv_mem *mem = ctx;
	const uint8_t *src;

	(void)asid;
	/* Shrink the read at the end of a mapping. */
	while (size && !(src = mem->ptr(mem->arg, ip, size)))
		size--;
	if (!size)
		return -pte_nomap;
	memcpy(buf, src, size);
	return (int)size;
}

static int emit(const struct pv_decode_params *p, struct pv_decode_item *it)
{
	return p->fn ? p->fn(p->arg, it) : 0;
}

static int on_event(const struct pv_decode_params *p, struct pv_decode_stats *st,
		    const struct pt_event *ev, uint64_t offset)
{
	struct pv_decode_item it = { .offset = offset };

	switch (ev->type) {
	case ptev_enabled:
		it.kind = PV_DEC_ENABLED;
		it.ip = ev->variant.enabled.ip;
		st->enabled++;
		break;
	case ptev_disabled:
		it.kind = PV_DEC_DISABLED;
		it.ip = ev->ip_suppressed ? 0 : ev->variant.disabled.ip;
		st->disabled++;
		break;
	case ptev_async_disabled:
		it.kind = PV_DEC_DISABLED;
		it.ip = ev->variant.async_disabled.at;
		st->disabled++;
		break;
	case ptev_async_branch:
		it.kind = PV_DEC_INTERRUPT;
		it.ip = ev->variant.async_branch.from;
		it.to = ev->variant.async_branch.to;
		st->interrupts++;
		break;
	case ptev_overflow:
		it.kind = PV_DEC_OVERFLOW;
		it.ip = ev->ip_suppressed ? 0 : ev->variant.overflow.ip;
		st->overflows++;
		break;
	default:
		return 0;
	}
	return emit(p, &it);
}

/* libipt 2.0.5's pt_insn_sync_backward finds the last PSB but leaves the
 * execution mode of its PSB+ unread (the next instruction fails to
 * decode); find the offset that way, then sync there explicitly. */
static int sync_last(struct pt_insn_decoder *dec)
{
	uint64_t off;
	int status = pt_insn_sync_backward(dec);

	if (status < 0 || pt_insn_get_sync_offset(dec, &off) < 0)
		return status;
	return pt_insn_sync_set(dec, off);
}

static int synced(const struct pv_decode_params *p, struct pv_decode_stats *st,
		  struct pt_insn_decoder *dec, int status)
{
	struct pv_decode_item it = { .kind = PV_DEC_SYNC };

	if (status < 0)
		return 0;
	pt_insn_get_sync_offset(dec, &it.offset);
	if (!st->syncs++)
		st->first_sync = it.offset;
	return emit(p, &it);
}

int pv_decode_run(const struct pv_decode_params *p, struct pv_decode_stats *st)
{
	struct pt_insn_decoder *dec = NULL;
	struct pt_image *image = NULL;
	struct pv_decode_stats local;
	struct pt_config cfg;
	uint8_t *copy;
	int status, ret = 0;

	if (!p || p->size < sizeof(*p) || !p->code.ptr || (!p->trace && p->len))
		return -pve_invalid;
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (!p->len)
		return 0;
	/* libipt wants a mutable buffer. */
	copy = malloc(p->len);
	if (!copy)
		return -pve_nomem;
	memcpy(copy, p->trace, p->len);
	pt_config_init(&cfg);
	cfg.begin = copy;
	cfg.end = copy + p->len;
	dec = pt_insn_alloc_decoder(&cfg);
	image = pt_image_alloc("guest");
	if (!dec || !image) {
		ret = -pve_nomem;
		goto out;
	}
	pt_image_set_callback(image, read_code, (void *)(uintptr_t)&p->code);
	pt_insn_set_image(dec, image);

	status = p->from_last_psb ? sync_last(dec) : pt_insn_sync_forward(dec);
	if ((ret = synced(p, st, dec, status)) < 0)
		goto out;
	for (uint64_t at = UINT64_MAX, same = 0;;) {
		struct pv_decode_item it;
		struct pt_insn insn;
		uint64_t off = 0;

		pt_insn_get_offset(dec, &off);
		if (status == -pte_eos)
			break;
		/* Progress: the trace offset moves within PV_DEC_STALL
		 * instructions, or this is an endless loop of code that
		 * needs no packet; on to the next PSB. */
		if (off != at) {
			at = off;
			same = 0;
		} else if (status >= 0 && ++same > PV_DEC_STALL) {
			status = PV_DEC_ERR_STALL;
			same = 0;
		}
		if (status < 0) {
			memset(&it, 0, sizeof(it));
			it.kind = PV_DEC_ERROR;
			it.code = status;
			it.offset = off;
			st->errors++;
			st->last_error = status;
			if ((ret = emit(p, &it)) < 0)
				goto out;
			status = pt_insn_sync_forward(dec);
			if ((ret = synced(p, st, dec, status)) < 0)
				goto out;
			continue;
		}
		if (status & pts_event_pending) {
			struct pt_event ev;

			status = pt_insn_event(dec, &ev, sizeof(ev));
			if (status >= 0 && (ret = on_event(p, st, &ev, off)) < 0)
				goto out;
			continue;
		}
		status = pt_insn_next(dec, &insn, sizeof(insn));
		if (status < 0)
			continue;
		memset(&it, 0, sizeof(it));
		it.kind = PV_DEC_INSN;
		it.ip = insn.ip;
		it.size = insn.size;
		it.iclass = (uint8_t)insn.iclass;
		memcpy(it.raw, insn.raw, sizeof(it.raw));
		it.offset = off;
		st->insns++;
		if ((ret = emit(p, &it)) < 0)
			goto out;
	}
out:
	pt_insn_free_decoder(dec);
	pt_image_free(image);
	free(copy);
	return ret;
}
