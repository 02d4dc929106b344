/* SPDX-License-Identifier: MIT */
/*
 * Target: the host making a guest's identity block (struct rs_guest_info,
 * every byte the guest's) fit for a file's header (capture's
 * cap_guest_facts_from).  The input is the block, zero-padded; whatever it
 * holds, every string comes out NUL-terminated and printable and every
 * number within its bound.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "ringside/capture.h"

static void check_str(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n == size)
		abort();             /* not terminated */
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			abort();
	for (size_t i = n; i < size; i++)
		if (s[i])
			abort();     /* padding is zero */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_guest_info in;
	struct cap_guest_facts g;
	const struct pdf_guest_facts *f = &g.facts;

	memset(&in, 0, sizeof(in));
	memcpy(&in, data, size < sizeof(in) ? size : sizeof(in));
	cap_guest_facts_from(&g, &in);
	check_str(f->hostname, sizeof(f->hostname));
	check_str(f->os_release, sizeof(f->os_release));
	check_str(f->arch, sizeof(f->arch));
	check_str(f->cpu_desc, sizeof(f->cpu_desc));
	if (!f->known || f->nr_cpus_online > CAP_GUEST_FACTS_MAX_CPUS ||
	    f->nr_cpus_avail > CAP_GUEST_FACTS_MAX_CPUS ||
	    (f->nr_cpus_avail && f->nr_cpus_online > f->nr_cpus_avail) ||
	    f->mem_total_kib > CAP_GUEST_FACTS_MAX_KIB ||
	    f->sample_type_id > CAP_GUEST_FACTS_MAX_TYPE ||
	    ((f->sample_flags & RS_SAMPLE_FREQ) &&
	     f->sample_period > CAP_GUEST_FACTS_MAX_FREQ) ||
	    f->sample_period > INT64_MAX ||
	    (!f->sample_period && (f->sample_flags || f->sample_type_id ||
				   f->sample_config)))
		abort();
	return 0;
}
