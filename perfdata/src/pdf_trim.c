/* SPDX-License-Identifier: MIT */
/*
 * A guest's call chains end, a quarter of the time, in a frame its
 * unwinder guessed: 0, or an address no map holds.  Readers draw such a
 * frame as a wide "??" root above every stack it ends.  Only the trailing
 * ones go (the outermost frames, after the last frame that could be
 * real): a bad frame amid good ones stays, as a reader may still place
 * the frames around it.
 */
#include <string.h>

#include "pdf_trim.h"

#define KERNEL_HALF 0xffff800000000000ull
#define USER_END    0x0000800000000000ull

enum ctx { CTX_NONE, CTX_KERNEL, CTX_USER };

void pdf_trim_mmap2(struct pdf_trim *t, const struct rs_perf_header *rec)
{
	struct rs_perf_mmap2_body m;

	if (rec->size < sizeof(*rec) + sizeof(m))
		return;
	memcpy(&m, rec + 1, sizeof(m));
	if (!m.len || m.addr + m.len < m.addr)
		return;
	if (t->nr == PDF_TRIM_MAPS) {
		t->full = 1;
		return;
	}
	t->map[t->nr].pid = m.pid;
	t->map[t->nr].start = m.addr;
	t->map[t->nr].end = m.addr + m.len;
	t->nr++;
}

/* 1 for one of the context markers perf knows (PERF_CONTEXT_*); the
 * rest of their range (-4095 and up) is no address and no marker. */
static int known_marker(uint64_t e)
{
	switch (e) {
	case PERF_CONTEXT_HV:
	case PERF_CONTEXT_KERNEL:
	case PERF_CONTEXT_USER:
	case PERF_CONTEXT_GUEST:
	case PERF_CONTEXT_GUEST_KERNEL:
	case PERF_CONTEXT_GUEST_USER:
		return 1;
	default:
		return 0;
	}
}

static enum ctx ctx_of(uint64_t marker, enum ctx cur)
{
	switch (marker) {
	case PERF_CONTEXT_KERNEL:
	case PERF_CONTEXT_GUEST_KERNEL:
		return CTX_KERNEL;
	case PERF_CONTEXT_USER:
	case PERF_CONTEXT_GUEST_USER:
		return CTX_USER;
	case PERF_CONTEXT_HV:
	case PERF_CONTEXT_GUEST:
		return CTX_NONE;
	default:
		return cur;
	}
}

/* 1: the pid has maps and none holds @a; 0: held, or nothing to say. */
static int unmapped(const struct pdf_trim *t, int have_pid, uint32_t pid,
		    uint64_t a)
{
	int seen = 0;
	uint32_t i;

	if (!t || t->full || !have_pid)
		return 0;
	for (i = 0; i < t->nr; i++) {
		if (t->map[i].pid != pid)
			continue;
		if (a >= t->map[i].start && a < t->map[i].end)
			return 0;
		seen = 1;
	}
	return seen;
}

static int bad_frame(const struct pdf_trim *t, int have_pid, uint32_t pid,
		     uint64_t a, enum ctx c)
{
	if (!a || (uint64_t)((int64_t)(a << 16) >> 16) != a)
		return 1;
	if (c == CTX_NONE)
		c = a >= KERNEL_HALF ? CTX_KERNEL : CTX_USER;
	if (c == CTX_KERNEL)
		return a < KERNEL_HALF;
	return a >= USER_END || unmapped(t, have_pid, pid, a);
}

int pdf_trim_sample(const struct pdf_trim *t, uint64_t sample_type,
		    const struct rs_perf_header *in, void *out,
		    size_t out_size, uint32_t *frames)
{
	const uint8_t *body = (const uint8_t *)(in + 1), *cc;
	static const size_t max = PDF_REC_MAX / 8;
	size_t body_len = in->size - sizeof(*in), keep, i, cut = 0;
	uint8_t ctx[PDF_REC_MAX / 8];
	struct rs_perf_header hdr;
	struct pdf_sample s;
	enum ctx c = CTX_NONE;
	size_t cc_at, cc_end;
	uint64_t e, nr;
	int err;

	*frames = 0;
	if (!(sample_type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	err = pdf_sample_parse(sample_type, body, body_len, &s);
	if (err)
		return err;
	if (!s.callchain_nr || s.callchain_nr > max)
		return 0;
	cc = s.callchain;
	for (i = 0; i < s.callchain_nr; i++) {
		memcpy(&e, cc + 8 * i, 8);
		if (e >= (uint64_t)PERF_CONTEXT_MAX)
			c = ctx_of(e, c);
		ctx[i] = (uint8_t)c;
	}
	keep = (size_t)s.callchain_nr;
	while (keep) {
		memcpy(&e, cc + 8 * (keep - 1), 8);
		if (known_marker(e)) {
			keep--;         /* a marker with nothing after it */
			continue;
		}
		/* in the markers' range but none of them: no frame */
		if (e < (uint64_t)PERF_CONTEXT_MAX &&
		    !bad_frame(t, !!(sample_type & PERF_SAMPLE_TID), s.pid, e,
			       (enum ctx)ctx[keep - 1]))
			break;
		keep--;
		cut++;
	}
	*frames = (uint32_t)cut;
	if (keep == s.callchain_nr)
		return 0;
	cc_at = (size_t)(cc - body) - 8;
	cc_end = (size_t)(cc - body) + 8 * (size_t)s.callchain_nr;
	hdr = *in;
	hdr.size = (uint16_t)(in->size - 8 * (s.callchain_nr - keep));
	if (hdr.size > out_size)
		return PDF_ERR(pdfe_too_big);
	nr = keep;
	memcpy(out, &hdr, sizeof(hdr));
	memcpy((uint8_t *)out + sizeof(hdr), body, cc_at);
	memcpy((uint8_t *)out + sizeof(hdr) + cc_at, &nr, 8);
	memcpy((uint8_t *)out + sizeof(hdr) + cc_at + 8, cc, 8 * keep);
	memcpy((uint8_t *)out + sizeof(hdr) + cc_at + 8 + 8 * keep,
	       body + cc_end, body_len - cc_end);
	return 1;
}
