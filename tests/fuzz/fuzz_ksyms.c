/* SPDX-License-Identifier: MIT */
/*
 * Target: the guest kernel's symbol text (its /proc/kallsyms as the guest
 * agent put it in the sideband), parsed as record and snapshot parse it,
 * then looked up and written back out as they use it.
 */
#include "fuzz_input.h"
#include "ringside/perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pdf_ksyms *k = NULL;
	struct pdf_buf out;
	struct fz_in in;
	uint64_t addr;

	/* The first 8 bytes are an address to look up; the rest is the text. */
	fz_in_init(&in, data, size);
	addr = fz_u64(&in);
	if (pdf_ksyms_parse(&k, in.p, in.left) < 0)
		return 0;
	pdf_ksyms_stats(k);
	{
		struct pdf_ksym sym;
		uint8_t id[PDF_BUILD_ID_SIZE];

		pdf_ksyms_find(k, addr, &sym);
		pdf_ksyms_content_id(k, id);
	}
	pdf_buf_init(&out);
	pdf_ksyms_text(k, &out);
	pdf_buf_fini(&out);
	pdf_ksyms_free(k);
	return 0;
}
