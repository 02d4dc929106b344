/* SPDX-License-Identifier: MIT */
/*
 * How long a domain's recorder sleeps between passes over its rings
 * (src/svc_idle.c, pure).  Watching an idle domain must cost close to
 * nothing, so a recorder backs off while its rings are idle: after a pass
 * that took something it sleeps the configured interval (100 ms), after
 * each pass that found nothing twice as long as the sleep before, up to
 * the longest sleep its rings allow (svc_idle_bound), and back to the
 * interval as soon as a pass finds data.  What must react at once wakes
 * the recorder whatever it sleeps (its stop: a domain stopped or
 * disabled, the service's end), or does not run on it at all (hang and
 * panic detection, the control socket, the host's view: the service's
 * loop); its rotation by age and its retries on a full disk cut the
 * sleep short (src/svc_rec.c).
 * `ringside record` without doorbells (a DOMAIN: ivshmem has no
 * interrupt) and without --interval follows the same rule from its own
 * 10 ms interval, its sleeps also bounded by what its host view's
 * buffers hold (cli/cmd_record.c).
 *
 * The bound is `ringside enable`'s arithmetic (docs/operator-guide.md,
 * "How long the rings hold", ringside/domain.h's dom_cfg_hold) turned
 * around: a normal-mode ring must hold DOM_HOLD_MS of samples plus the
 * host's longest stall between two passes, and a ring of B bytes holds
 * B / (freq x the largest sample, DOM_CHAIN_FRAMES_MAX frames) seconds.
 * A recorder that sleeps no longer than that hold time less the stall
 * wakes before a ring that was empty when it fell asleep can fill, even
 * if its guest began sampling at the region's full rate with the deepest
 * call chains the moment it slept: the backoff never loses a record the
 * 100 ms pass would have kept.  Sleeps never exceed SVC_IDLE_MAX_MS, nor
 * go below the interval (a ring too small for even that loses what it
 * lost before).  Where the region says nothing that bounds its rate (no
 * sampling frequency, samples not traced) or a ring has a normal-mode
 * AUX area (PT bytes come at no rate the region states), the recorder
 * does not back off.  Markers and the process table's records come on
 * top of the samples, at no rate the region states either, as they do
 * for `enable`'s check.
 */
#ifndef RINGSIDE_SERVICE_IDLE_H
#define RINGSIDE_SERVICE_IDLE_H

#include <stdint.h>

struct rs_region;

/* The longest sleep whatever the rings hold: what a recorder does on its
 * own clock besides draining (the late symbols, 0.25 s; the user
 * symbols, 1 s; the metrics' live counts, 0.25 s; time sync retries)
 * comes at most this late while its domain is idle. */
#define SVC_IDLE_MAX_MS 1000u

/* What the backoff's bound is made of: a region as the host opened it. */
struct svc_idle_rings {
	uint64_t min_data_bytes;  /* the smallest data area of its rings */
	uint64_t sample_freq;     /* samples per second and vCPU; 0: not said */
	int samples;              /* it traces samples (RS_TRACE_SAMPLES) */
	int aux_normal;           /* a ring has an AUX area in normal mode */
};

/* How long (ms) one of @r's rings holds samples at the region's rate
 * with the largest samples; UINT32_MAX when nothing bounds the rate
 * (no frequency or no samples), 0 for no ring. */
uint32_t svc_idle_hold_ms(const struct svc_idle_rings *r);

/* @region's rings as a recorder drains them, into @r: the smallest data
 * area of the rings it opens (one it cannot open is skipped, as the
 * drain skips it), whether one has an AUX area in normal mode, and the
 * rate and trace mask its configuration says.  The host's own layout
 * where the host opened the region by it; a region opened by its header
 * says what its writer put there (a guest that claims a lower rate than
 * it samples at loses its own records, nobody else's). */
void svc_idle_rings_of(const struct rs_region *region,
		       struct svc_idle_rings *r);

/* The longest sleep (ms) of an idle recorder of @r's rings polled every
 * @interval_ms, with @stall_ms of the host's longest stall (0:
 * DOM_STALL_MS_DEFAULT): the hold time less the stall, at most
 * SVC_IDLE_MAX_MS, never below @interval_ms; @interval_ms itself where
 * nothing bounds the rings' rate or an AUX area is drained. */
uint32_t svc_idle_bound(const struct svc_idle_rings *r, uint32_t interval_ms,
			uint32_t stall_ms);

/* The sleep after a pass: @interval_ms when it found something (@found)
 * or when @last_ms, the sleep before it (0: none yet), was shorter than
 * the interval; else twice @last_ms, at most @bound_ms (taken as
 * @interval_ms when below it). */
uint32_t svc_idle_next(uint32_t last_ms, int found, uint32_t interval_ms,
		       uint32_t bound_ms);

#endif /* RINGSIDE_SERVICE_IDLE_H */
