/* SPDX-License-Identifier: MIT */
/*
 * The region header's protocol: rs_region_params_init, rs_region_enable,
 * rs_region_disable, rs_region_note_reset (host); rs_guest_config_read,
 * rs_guest_enabled, rs_guest_attach, rs_guest_heartbeat, rs_guest_detach
 * (guest);
 * rs_perf_page_*, ringside/shared.h and rs_is_pow2.  What the helpers
 * wrote is checked in shared memory, through the ABI.
 */
#include <string.h>

#include "fixture.h"
#include "ringside/shared.h"

/* Two rings, both kinds of area, a doorbell: every config field set. */
static void params_full(struct rs_region_params *p)
{
	ck_assert_int_eq(rs_region_params_init(p, 2, 4, 2, RS_MODE_NORMAL,
					       RS_MODE_OVERWRITE), 0);
	p->data_watermark = 4096;
	p->aux_watermark = 2048;
	p->trace_mask = RS_TRACE_TEST | RS_TRACE_SAMPLES;
	p->sample_type = RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TIME;
	p->sample_freq = 997;
	p->doorbell_addr = 0xfee00000u;
}

START_TEST(params_init_fills)
{
	struct rs_region_params p;

	memset(&p, 0xa5, sizeof(p));
	ck_assert_int_eq(rs_region_params_init(&p, 3, 8, 16, RS_MODE_OVERWRITE,
					       RS_MODE_NORMAL), 0);
	ck_assert_uint_eq(p.size, sizeof(p));
	ck_assert_uint_eq(p.nr_rings, 3);
	ck_assert_uint_eq(p.data_pages, 8);
	ck_assert_uint_eq(p.aux_pages, 16);
	ck_assert_uint_eq(p.data_mode, RS_MODE_OVERWRITE);
	ck_assert_uint_eq(p.aux_mode, RS_MODE_NORMAL);
	ck_assert_uint_eq(p.data_watermark, 0);
	ck_assert_uint_eq(p.aux_watermark, 0);
	ck_assert_uint_eq(p.trace_mask, 0);
	ck_assert_uint_eq(p.sample_type, 0);
	ck_assert_uint_eq(p.sample_freq, 0);
	ck_assert_uint_eq(p.doorbell_addr, 0);
}
END_TEST

START_TEST(params_init_refuses)
{
	struct rs_region_params p;

	ck_assert_int_eq(rs_region_params_init(NULL, 1, 1, 0, 0, 0), -rse_invalid);
	ck_assert_int_eq(rs_region_params_init(&p, 1, 1, 0, 2, 0), -rse_invalid);
	ck_assert_int_eq(rs_region_params_init(&p, 1, 1, 0, 0, 7), -rse_invalid);
	ck_assert_int_eq(rs_region_params_init(&p, 0, 1, 0, 0, 0), -rse_geometry);
	ck_assert_int_eq(rs_region_params_init(&p, RS_MAX_RINGS + 1, 1, 0, 0, 0),
			 -rse_geometry);
	ck_assert_int_eq(rs_region_params_init(&p, 1, 3, 0, 0, 0), -rse_geometry);
	ck_assert_int_eq(rs_region_params_init(&p, 1, 0, 0, 0, 0), -rse_geometry);
	ck_assert_int_eq(rs_region_params_init(&p, 1, 1, 6, 0, 0), -rse_geometry);
	/* filled all the same, so a caller can report what it asked for */
	ck_assert_uint_eq(p.size, sizeof(p));
	ck_assert_uint_eq(p.aux_pages, 6);
}
END_TEST

/* The layout writes the whole host configuration, the doorbell included,
 * and leaves tracing off; enable and disable flip only the flag. */
START_TEST(layout_then_enable)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_region_header *h, before;

	params_full(&p);
	fx_region_init(&f, &p, FX_NO_OPEN);
	h = fx_header(&f);
	ck_assert_uint_eq(h->magic, RS_REGION_MAGIC);
	ck_assert_uint_eq(h->nr_rings, 2);
	ck_assert_uint_eq(h->config.enabled, 0);
	ck_assert_uint_eq(h->config.data_mode, RS_MODE_NORMAL);
	ck_assert_uint_eq(h->config.aux_mode, RS_MODE_OVERWRITE);
	ck_assert_uint_eq(h->config.data_watermark, 4096);
	ck_assert_uint_eq(h->config.aux_watermark, 2048);
	ck_assert_uint_eq(h->config.trace_mask, RS_TRACE_TEST | RS_TRACE_SAMPLES);
	ck_assert_uint_eq(h->config.sample_type,
			  RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TIME);
	ck_assert_uint_eq(h->config.sample_freq, 997);
	ck_assert_uint_eq(h->config.doorbell_addr, 0xfee00000u);
	for (uint32_t i = 0; i < 2; i++) {
		const struct rs_ctrl_page *c = fx_ctrl(&f, i);

		ck_assert_uint_eq(c->index, i);
		ck_assert_uint_eq(c->size, sizeof(*c));
		ck_assert_uint_eq(c->data_size, 4 * RS_PAGE_SIZE);
		ck_assert_uint_eq(c->aux_size, 2 * RS_PAGE_SIZE);
		ck_assert_uint_eq(c->data_offset,
				  h->rings[i].data_offset - h->rings[i].ctrl_offset);
		ck_assert_uint_eq(c->aux_offset,
				  h->rings[i].aux_offset - h->rings[i].ctrl_offset);
		ck_assert_uint_eq(c->data_head, 0);
		ck_assert_uint_eq(c->data_tail, 0);
	}

	memcpy(&before, h, sizeof(before));
	ck_assert_int_eq(rs_region_enable(f.mem), 0);
	ck_assert_uint_eq(h->config.enabled, 1);
	before.config.enabled = 1;
	ck_assert_mem_eq(h, &before, sizeof(before));
	ck_assert_int_eq(rs_region_enable(f.mem), 0);
	ck_assert_uint_eq(h->config.enabled, 1);
	ck_assert_int_eq(rs_region_disable(f.mem), 0);
	before.config.enabled = 0;
	ck_assert_mem_eq(h, &before, sizeof(before));
	fx_region_fini(&f);
}
END_TEST

START_TEST(enable_refuses)
{
	struct rs_region_params p;
	struct fx_region f;

	ck_assert_int_eq(rs_region_enable(NULL), -rse_invalid);
	ck_assert_int_eq(rs_region_disable(NULL), -rse_invalid);
	fx_params(&p, 1, 0);
	fx_region_init(&f, &p, FX_NO_OPEN);
	ck_assert_int_eq(rs_region_enable(f.mem + 8), -rse_invalid);
	ck_assert_int_eq(rs_region_disable(f.mem + 8), -rse_invalid);
	ck_assert_uint_eq(fx_header(&f)->config.enabled, 0);
	fx_region_fini(&f);
}
END_TEST

/* The guest sees the switch and what the host changes while it runs. */
START_TEST(config_read_follows_host)
{
	struct rs_region_params p;
	struct rs_config cfg;
	struct fx_region f;

	params_full(&p);
	fx_region_init(&f, &p, FX_NO_OPEN);
	fx_region_reopen(&f);
	ck_assert_int_eq(rs_guest_enabled(&f.region), 0);
	memset(&cfg, 0xa5, sizeof(cfg));
	ck_assert_int_eq(rs_guest_config_read(&f.region, &cfg), 0);
	ck_assert_uint_eq(cfg.enabled, 0);
	ck_assert_uint_eq(cfg.trace_mask, RS_TRACE_TEST | RS_TRACE_SAMPLES);
	ck_assert_uint_eq(cfg.doorbell_addr, 0xfee00000u);
	ck_assert_uint_eq(cfg.sample_freq, 997);
	/* every feature but the ring table, which only more rings need */
	ck_assert_uint_eq(cfg.features,
			  RS_FEATURES_KNOWN & ~(uint32_t)RS_FEATURE_RING_TABLE);
	ck_assert_uint_eq(cfg.reserved[8], 0);

	ck_assert_int_eq(rs_region_enable(f.mem), 0);
	fx_header(&f)->config.trace_mask = RS_TRACE_MARKERS;
	ck_assert_int_eq(rs_guest_enabled(&f.region), 1);
	ck_assert_int_eq(rs_guest_config_read(&f.region, &cfg), 0);
	ck_assert_uint_eq(cfg.enabled, 1);
	ck_assert_uint_eq(cfg.trace_mask, RS_TRACE_MARKERS);
	/* the copy taken at open is not the live configuration */
	ck_assert_uint_eq(rs_region_config(&f.region)->enabled, 0);

	ck_assert_int_eq(rs_guest_config_read(NULL, &cfg), -rse_invalid);
	ck_assert_int_eq(rs_guest_config_read(&f.region, NULL), -rse_invalid);
	ck_assert_int_eq(rs_guest_enabled(NULL), -rse_invalid);
	fx_region_fini(&f);
}
END_TEST

START_TEST(attach_publishes_status)
{
	struct rs_region_params p;
	struct rs_guest_status st;
	struct rs_config cfg;
	struct fx_region f;
	uint32_t enabled;

	params_full(&p);
	fx_region_init(&f, &p, 0);
	ck_assert_int_eq(rs_guest_attach(&f.region, RS_AGENT_LINUX, 2, &cfg), 1);
	ck_assert_uint_eq(cfg.enabled, 1);
	ck_assert_uint_eq(cfg.trace_mask, RS_TRACE_TEST | RS_TRACE_SAMPLES);
	ck_assert_int_eq(rs_region_status_read(&f.region, &st, &enabled), 0);
	ck_assert_uint_eq(st.attached, 1);
	ck_assert_uint_eq(st.abi_version, RS_ABI_VERSION);
	ck_assert_uint_eq(st.agent_kind, RS_AGENT_LINUX);
	ck_assert_uint_eq(st.rings_used, 2);
	ck_assert_uint_eq(st.heartbeat, 0);
	ck_assert_uint_eq(enabled, 1);
	/* the raw header, at the ABI's offsets */
	ck_assert_uint_eq(*(const uint32_t *)(f.mem + 192), 1);
	ck_assert_uint_eq(*(const uint32_t *)(f.mem + 196), RS_ABI_VERSION);
	ck_assert_uint_eq(*(const uint32_t *)(f.mem + 208), 2);
	ck_assert_uint_eq(*(const uint32_t *)(f.mem + 212), RS_AGENT_LINUX);

	ck_assert_int_eq(rs_guest_detach(&f.region), 0);
	ck_assert_int_eq(rs_region_status_read(&f.region, &st, NULL), 0);
	ck_assert_uint_eq(st.attached, 0);
	ck_assert_uint_eq(st.agent_kind, RS_AGENT_LINUX);
	ck_assert_int_eq(rs_guest_detach(NULL), -rse_invalid);
	fx_region_fini(&f);
}
END_TEST

/* Attached while the host has not enabled tracing: 0, status published. */
START_TEST(attach_disabled)
{
	struct rs_region_params p;
	struct rs_config cfg;
	struct fx_region f;

	fx_params(&p, 1, 0);
	fx_region_init(&f, &p, FX_NO_OPEN);
	fx_region_reopen(&f);
	ck_assert_int_eq(rs_guest_attach(&f.region, RS_AGENT_FREESTANDING, 1,
					 &cfg), 0);
	ck_assert_uint_eq(cfg.enabled, 0);
	ck_assert_uint_eq(fx_header(&f)->status.attached, 1);
	ck_assert_uint_eq(fx_header(&f)->status.agent_kind, RS_AGENT_FREESTANDING);
	fx_region_fini(&f);
}
END_TEST

/* What a refused attach must leave: no status at all. */
static void check_no_status(const struct fx_region *f)
{
	static const struct rs_guest_status zero;

	ck_assert_mem_eq(&fx_header(f)->status, &zero, sizeof(zero));
}

START_TEST(attach_refuses_caller_nonsense)
{
	struct rs_region_params p;
	struct rs_config cfg;
	struct fx_region f;

	params_full(&p);
	fx_region_init(&f, &p, 0);
	ck_assert_int_eq(rs_guest_attach(NULL, RS_AGENT_LINUX, 1, &cfg), -rse_invalid);
	ck_assert_int_eq(rs_guest_attach(&f.region, RS_AGENT_LINUX, 1, NULL),
			 -rse_invalid);
	ck_assert_int_eq(rs_guest_attach(&f.region, 0, 1, &cfg), -rse_invalid);
	ck_assert_int_eq(rs_guest_attach(&f.region, 4, 1, &cfg), -rse_invalid);
	ck_assert_int_eq(rs_guest_attach(&f.region, RS_AGENT_LINUX, 0, &cfg),
			 -rse_invalid);
	ck_assert_int_eq(rs_guest_attach(&f.region, RS_AGENT_LINUX, 3, &cfg),
			 -rse_invalid);
	check_no_status(&f);
	fx_region_fini(&f);
}
END_TEST

/* Configurations no host writes, or not the one the rings were opened
 * with: refused with -rse_geometry, nothing published. */
enum bad_cfg { BAD_DATA_MODE, BAD_AUX_MODE, CHANGED_DATA_MODE, CHANGED_AUX_MODE,
	       CHANGED_DATA_WM, CHANGED_AUX_WM, NR_BAD_CFG };

START_TEST(attach_refuses_bad_config)
{
	struct rs_region_params p;
	struct rs_config cfg;
	struct fx_region f;
	struct rs_config *c;

	params_full(&p);
	fx_region_init(&f, &p, 0);
	c = &fx_header(&f)->config;
	switch (_i) {
	case BAD_DATA_MODE: c->data_mode = 2; break;
	case BAD_AUX_MODE: c->aux_mode = 0xffffffffu; break;
	case CHANGED_DATA_MODE: c->data_mode = RS_MODE_OVERWRITE; break;
	case CHANGED_AUX_MODE: c->aux_mode = RS_MODE_NORMAL; break;
	case CHANGED_DATA_WM: c->data_watermark = 8; break;
	case CHANGED_AUX_WM: c->aux_watermark = 0; break;
	}
	ck_assert_int_eq(rs_guest_attach(&f.region, RS_AGENT_LINUX, 1, &cfg),
			 -rse_geometry);
	check_no_status(&f);
	/* the host puts its configuration back (or the agent re-opens) */
	fx_region_fini(&f);
}
END_TEST

START_TEST(attach_after_reopen)
{
	struct rs_region_params p;
	struct rs_config cfg;
	struct fx_region f;

	params_full(&p);
	fx_region_init(&f, &p, 0);
	fx_header(&f)->config.data_watermark = 8;
	ck_assert_int_eq(rs_guest_attach(&f.region, RS_AGENT_LINUX, 1, &cfg),
			 -rse_geometry);
	fx_region_reopen(&f);
	ck_assert_int_eq(rs_guest_attach(&f.region, RS_AGENT_LINUX, 1, &cfg), 1);
	ck_assert_uint_eq(cfg.data_watermark, 8);
	fx_region_fini(&f);
}
END_TEST

START_TEST(heartbeat_advances)
{
	struct rs_region_params p;
	struct rs_guest_status st;
	struct fx_region f;

	fx_params(&p, 1, 0);
	fx_region_init(&f, &p, 0);
	for (int i = 1; i <= 1000; i++) {
		ck_assert_int_eq(rs_guest_heartbeat(&f.region), 0);
		FX_CHECK(fx_header(&f)->status.heartbeat == (uint64_t)i,
			 "heartbeat %d", i);
	}
	ck_assert_int_eq(rs_region_status_read(&f.region, &st, NULL), 0);
	ck_assert_uint_eq(st.heartbeat, 1000);
	ck_assert_uint_eq(st.attached, 0);   /* beating is not attaching */
	/* wraps like any counter */
	fx_header(&f)->status.heartbeat = UINT64_MAX;
	ck_assert_int_eq(rs_guest_heartbeat(&f.region), 0);
	ck_assert_uint_eq(fx_header(&f)->status.heartbeat, 0);
	ck_assert_int_eq(rs_guest_heartbeat(NULL), -rse_invalid);
	fx_region_fini(&f);
}
END_TEST

/* The boots the host counts (header offset 48: 1 at layout, + 1 at each
 * reset it notes) and the one the agent says its status is of (status
 * offset 24): copied at attach, followed at the next heartbeat after a
 * reset, and nothing else written by either. */
START_TEST(boot_gen_follows_resets)
{
	struct rs_region_params p;
	struct rs_guest_status st;
	struct rs_config cfg;
	struct fx_region f;
	uint8_t before[RS_PAGE_SIZE];
	uint64_t gen;

	fx_params(&p, 1, 0);
	fx_region_init(&f, &p, 0);
	ck_assert_uint_eq(*(const uint64_t *)(f.mem + 48), 1);
	ck_assert_uint_eq(rs_region_boot_gen(&f.region), 1);
	ck_assert_int_ge(rs_guest_attach(&f.region, RS_AGENT_LINUX, 1, &cfg), 0);
	ck_assert_uint_eq(*(const uint64_t *)(f.mem + 192 + 24), 1);
	/* the guest resets: the host counts it, one word */
	memcpy(before, f.mem, sizeof(before));
	ck_assert_int_eq(rs_region_note_reset(f.mem, &gen), 0);
	ck_assert_uint_eq(gen, 2);
	ck_assert_uint_eq(rs_region_boot_gen(&f.region), 2);
	for (size_t i = 0; i < sizeof(before); i++)
		if (i < 48 || i >= 56)
			FX_CHECK(f.mem[i] == before[i], "byte %zu", i);
	/* the status is the boot before's until an agent beats or attaches */
	ck_assert_int_eq(rs_region_status_read(&f.region, &st, NULL), 0);
	ck_assert_uint_eq(st.boot_gen, 1);
	ck_assert_int_eq(rs_guest_heartbeat(&f.region), 0);
	ck_assert_int_eq(rs_region_status_read(&f.region, &st, NULL), 0);
	ck_assert_uint_eq(st.boot_gen, 2);
	ck_assert_uint_eq(st.heartbeat, 1);
	ck_assert_int_eq(rs_region_note_reset(f.mem, &gen), 0);
	ck_assert_int_ge(rs_guest_attach(&f.region, RS_AGENT_LINUX, 1, &cfg), 0);
	ck_assert_uint_eq(fx_header(&f)->status.boot_gen, 3);
	/* guest-writable: whatever it holds, one more, never 0 */
	fx_header(&f)->boot_gen = UINT64_MAX;
	ck_assert_int_eq(rs_region_note_reset(f.mem, &gen), 0);
	ck_assert_uint_eq(gen, 1);
	ck_assert_int_eq(rs_region_note_reset(NULL, &gen), -rse_invalid);
	ck_assert_int_eq(rs_region_note_reset(f.mem + 8, &gen), -rse_invalid);
	ck_assert_uint_eq(rs_region_boot_gen(NULL), 0);
	fx_region_fini(&f);
}
END_TEST

/* The consumer's half of perf's contract on a page laid out like the
 * kernel's: head at 1024, tail at 1032. */
START_TEST(perf_page_head_tail)
{
	static _Alignas(4096) uint8_t page[RS_PAGE_SIZE];
	struct rs_ctrl_page *pg = (struct rs_ctrl_page *)page;
	uint64_t v = 0x1122334455667788ull;

	memcpy(page + 1024, &v, sizeof(v));
	ck_assert_uint_eq(rs_perf_page_read_head(pg), v);
	rs_perf_page_publish_tail(pg, 4096 + 24);
	memcpy(&v, page + 1032, sizeof(v));
	ck_assert_uint_eq(v, 4096 + 24);
}
END_TEST

START_TEST(shared_words)
{
	uint64_t w = 5;
	uint32_t w32 = 0;

	rs_shared_store32(&w32, 7);
	ck_assert_uint_eq(w32, 7);
	ck_assert_uint_eq(rs_shared_load32(&w32), 7);
	rs_shared_store(&w, 1ull << 40);
	ck_assert_uint_eq(rs_shared_load(&w), 1ull << 40);
	rs_shared_add(&w, 3);
	ck_assert_uint_eq(w, (1ull << 40) + 3);
	rs_shared_add(&w, UINT64_MAX);
	ck_assert_uint_eq(w, (1ull << 40) + 2);
}
END_TEST

START_TEST(is_pow2)
{
	ck_assert_int_eq(rs_is_pow2(0), 0);
	ck_assert_int_eq(rs_is_pow2(1), 1);
	ck_assert_int_eq(rs_is_pow2(2), 1);
	ck_assert_int_eq(rs_is_pow2(3), 0);
	ck_assert_int_eq(rs_is_pow2(4096), 1);
	ck_assert_int_eq(rs_is_pow2(4097), 0);
	ck_assert_int_eq(rs_is_pow2(1ull << 63), 1);
	ck_assert_int_eq(rs_is_pow2(UINT64_MAX), 0);
	for (int i = 2; i < 64; i++) {
		FX_CHECK(rs_is_pow2(1ull << i), "2^%d", i);
		FX_CHECK(!rs_is_pow2((1ull << i) + 1), "2^%d + 1", i);
		FX_CHECK(!rs_is_pow2((1ull << i) - 1), "2^%d - 1", i);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("header");
	TCase *tc = fx_tcase(s, "header");

	tcase_add_test(tc, params_init_fills);
	tcase_add_test(tc, params_init_refuses);
	tcase_add_test(tc, layout_then_enable);
	tcase_add_test(tc, enable_refuses);
	tcase_add_test(tc, config_read_follows_host);
	tcase_add_test(tc, attach_publishes_status);
	tcase_add_test(tc, attach_disabled);
	tcase_add_test(tc, attach_refuses_caller_nonsense);
	tcase_add_loop_test(tc, attach_refuses_bad_config, 0, NR_BAD_CFG);
	tcase_add_test(tc, attach_after_reopen);
	tcase_add_test(tc, heartbeat_advances);
	tcase_add_test(tc, boot_gen_follows_resets);
	tcase_add_test(tc, perf_page_head_tail);
	tcase_add_test(tc, shared_words);
	tcase_add_test(tc, is_pow2);
	return fx_run(s);
}
