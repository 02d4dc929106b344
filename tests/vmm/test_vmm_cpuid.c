// SPDX-License-Identifier: MIT
/*
 * vmm/cpuid.c without KVM: overrides merged into a CPUID table of any size
 * (larger than KVM's own 256-entry limit too), and a fetch that grows its
 * buffer for as long as KVM says E2BIG.
 */
#include <check.h>
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>

#include "vmm_internal.h"

#define BIG 300u   /* more entries than the old fixed buffer held */

/* BIG entries: basic leaves but 0x14 (as on AMD), leaf 0xd with
 * sub-leaves 0 .. 2, then extended leaves. */
static struct kvm_cpuid_entry2 *table(uint32_t room, uint32_t *nent)
{
	struct kvm_cpuid_entry2 *e = calloc(room, sizeof(*e));
	uint32_t n = 0;

	ck_assert_ptr_nonnull(e);
	for (uint32_t f = 0; f < BIG - 2; f++) {
		uint32_t subs = f == 0xd ? 3 : 1, leaf = f < 0x14 ? f : f + 1;

		for (uint32_t s = 0; s < subs; s++, n++) {
			e[n].function = leaf < 0x100 ? leaf : 0x80000000u + leaf;
			e[n].index = s;
			e[n].flags = subs > 1 ? KVM_CPUID_FLAG_SIGNIFCANT_INDEX : 0;
			e[n].eax = 0xa0000000u | n;
			e[n].ebx = 0xb0000000u | n;
			e[n].ecx = 0xc0000000u | n;
			e[n].edx = 0xd0000000u | n;
		}
	}
	ck_assert_uint_eq(n, BIG);
	*nent = n;
	return e;
}

static struct vmm_cpuid set_bits(uint32_t function, uint32_t index,
				    uint32_t reg, uint32_t value, uint32_t mask)
{
	struct vmm_cpuid o;

	memset(&o, 0, sizeof(o));
	o.function = function;
	o.index = index;
	o.significant_index = index != 0;
	o.value[reg] = value;
	o.mask[reg] = mask;
	return o;
}

START_TEST(merge_big_table)
{
	struct vmm_cpuid o[5];
	struct kvm_cpuid_entry2 *e, *orig;
	uint32_t nent, n;

	e = table(BIG + 5, &nent);
	orig = table(BIG, &n);
	/* bits of leaf 7, of the last entry (past 256), of sub-leaf 0xd.2;
	 * two leaves the table lacks (PT's 0x14.0 and 0x14.1) */
	o[0] = set_bits(7, 0, 1, 1u << 25, 1u << 25);
	o[1] = set_bits(0x80000000u + BIG - 2, 0, 2, 0x5, 0xf);
	o[2] = set_bits(0xd, 2, 0, 0x12345678, 0xffffffff);
	o[3] = set_bits(0x14, 0, 1, 0x3, 0xffffffff);
	o[4] = set_bits(0x14, 1, 0, 0x2, 0xffffffff);
	n = vmm_cpuid_merge(e, nent, o, 5);
	ck_assert_uint_eq(n, BIG + 2);
	ck_assert_uint_eq(e[7].ebx, orig[7].ebx | 1u << 25);
	ck_assert_uint_eq(e[BIG - 1].ecx, (orig[BIG - 1].ecx & ~0xfu) | 0x5);
	ck_assert_uint_eq(e[0xf].eax, 0x12345678);   /* 0xd.2, after 0xd.0, .1 */
	ck_assert_uint_eq(e[0xf].function, 0xd);
	ck_assert_uint_eq(e[0xf].index, 2);
	ck_assert_uint_eq(e[BIG].function, 0x14);
	ck_assert_uint_eq(e[BIG].index, 0);
	ck_assert_uint_eq(e[BIG].ebx, 0x3);
	ck_assert_uint_eq(e[BIG].eax, 0);
	ck_assert_uint_eq(e[BIG].flags, 0);
	ck_assert_uint_eq(e[BIG + 1].function, 0x14);
	ck_assert_uint_eq(e[BIG + 1].index, 1);
	ck_assert_uint_eq(e[BIG + 1].eax, 0x2);
	ck_assert_uint_eq(e[BIG + 1].flags, KVM_CPUID_FLAG_SIGNIFCANT_INDEX);
	/* nothing else moved */
	for (uint32_t i = 0; i < BIG; i++)
		if (i != 7 && i != BIG - 1 && i != 0xf)
			ck_assert_mem_eq(&e[i], &orig[i], sizeof(e[i]));
	free(e);
	free(orig);
}
END_TEST

/* Sub-leaves are told apart; bits outside the mask are kept. */
START_TEST(merge_subleaf_and_mask)
{
	struct vmm_cpuid o[2];
	struct kvm_cpuid_entry2 *e;
	uint32_t nent;

	e = table(BIG + 2, &nent);
	o[0] = set_bits(0xd, 1, 3, 0xffffffff, 0x00ff0000);
	o[1] = set_bits(0xd, 1, 3, 0, 0x000f0000);   /* on top of o[0] */
	ck_assert_uint_eq(vmm_cpuid_merge(e, nent, o, 2), BIG);
	ck_assert_uint_eq(e[0xd].edx, 0xd000000du);   /* 0xd.0 untouched */
	ck_assert_uint_eq(e[0xe].edx, 0xd0f0000eu);
	ck_assert_uint_eq(e[0xf].edx, 0xd000000fu);
	free(e);
}
END_TEST

/* An override the table lacks, twice: appended once, then changed. */
START_TEST(merge_appended_twice)
{
	struct vmm_cpuid o[2];
	struct kvm_cpuid_entry2 e[2];

	memset(e, 0x55, sizeof(e));
	o[0] = set_bits(0x14, 0, 0, 0x1, 0xff);
	o[1] = set_bits(0x14, 0, 0, 0x20, 0xf0);
	ck_assert_uint_eq(vmm_cpuid_merge(e, 0, o, 2), 1);
	ck_assert_uint_eq(e[0].function, 0x14);
	ck_assert_uint_eq(e[0].eax, 0x21);
	ck_assert_uint_eq(e[0].ebx, 0);
	ck_assert_uint_eq(vmm_cpuid_merge(e, 1, o, 0), 1);
}
END_TEST

/* A KVM whose table has @want entries: E2BIG until there is room, as
 * KVM_GET_SUPPORTED_CPUID does. */
struct fake_kvm {
	uint32_t want;
	uint32_t calls;
	int lie;      /* claim more entries than there was room for */
};

static int fake_get(void *arg, struct kvm_cpuid2 *c)
{
	struct fake_kvm *k = arg;

	k->calls++;
	if (c->nent < k->want)
		return -E2BIG;
	for (uint32_t i = 0; i < k->want; i++)
		c->entries[i].function = i;
	c->nent = k->lie ? c->nent + 1 : k->want;
	return 0;
}

START_TEST(fetch_grows)
{
	const uint32_t sizes[] = { 1, 56, 64, 65, BIG, 4097 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct fake_kvm k = { .want = sizes[i] };
		struct kvm_cpuid2 *c = NULL;

		ck_assert_int_eq(vmm_cpuid_fetch(fake_get, &k, &c), 0);
		ck_assert_ptr_nonnull(c);
		ck_assert_uint_eq(c->nent, sizes[i]);
		ck_assert_uint_eq(c->entries[sizes[i] - 1].function, sizes[i] - 1);
		free(c);
	}
}
END_TEST

START_TEST(fetch_bounded)
{
	struct fake_kvm k = { .want = UINT32_MAX };
	struct kvm_cpuid2 *c = (void *)&k;

	ck_assert_int_eq(vmm_cpuid_fetch(fake_get, &k, &c), -E2BIG);
	ck_assert_ptr_null(c);
	ck_assert_uint_eq(k.calls, 11);    /* 64 .. 65536 */
	k = (struct fake_kvm){ .want = 10, .lie = 1 };
	ck_assert_int_eq(vmm_cpuid_fetch(fake_get, &k, &c), -EOVERFLOW);
	ck_assert_ptr_null(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm_cpuid");
	TCase *tc = tcase_create("cpuid");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, merge_big_table);
	tcase_add_test(tc, merge_subleaf_and_mask);
	tcase_add_test(tc, merge_appended_twice);
	tcase_add_test(tc, fetch_grows);
	tcase_add_test(tc, fetch_bounded);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
