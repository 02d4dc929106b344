/* SPDX-License-Identifier: MIT */
/*
 * Target: the domain XML ringside reads (libvirt's, or what libvirt hands
 * the hook) and its metadata element.  The first byte picks which: a
 * whole <domain> document (name, vCPUs, metadata, the shmem device), or
 * the <region> element alone as virDomainGetMetadata returns it.  Whatever
 * parses is then checked, formatted and turned into region parameters, as
 * enable and the hook do; and ringside's QEMU plugin pair is looked for,
 * put in, formatted, parsed again and taken out, as enable --trace pt and
 * disable do.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "ringside/domain.h"

static void use_cfg(struct dom_cfg *c)
{
	struct rs_region_params p;
	const char *bad = NULL;
	char buf[1024];

	if (dom_cfg_check(c, &bad) < 0)
		return;
	dom_cfg_params(c, &p);
	dom_cfg_format(c, buf, sizeof(buf));
}

/* enable --trace pt, then disable, on whatever the document holds. */
static void pt_args(struct dom_xml *x, const char *shm)
{
	struct dom_xml *y = NULL;
	char *arg = NULL, *out = NULL;

	dom_xml_tcg(x);
	if (dom_pt_xml_arg(x, shm, &arg) == 1)
		free(arg);
	if (dom_pt_xml_set(x, shm, "/p/ringside-qemu-pt.so,region=/dev/shm/x") < 0 ||
	    dom_xml_format(x, &out) < 0)
		return;
	if (dom_xml_parse(&y, out, strlen(out)) == 0) {
		dom_pt_xml_set(y, shm, NULL);
		dom_xml_metadata_tidy(y);
		dom_xml_free(y);
	}
	free(out);
}

static void whole_domain(const char *text, size_t len)
{
	struct dom_xml *x = NULL;
	char name[256], shm[300];
	const char *bad = NULL;
	struct dom_cfg c;
	uint64_t size;
	uint32_t vcpus;
	char *dev = NULL;

	if (dom_xml_parse(&x, text, len) < 0)
		return;
	dom_xml_vcpus(x, &vcpus);
	dom_cfg_default(&c);
	if (dom_xml_meta(x, &c, &bad) == 0)
		use_cfg(&c);
	if (dom_xml_name(x, name, sizeof(name)) == 0 &&
	    dom_shm_name_check(name) == 0 &&
	    dom_shm_name(name, shm, sizeof(shm)) == 0 &&
	    dom_xml_shmem(x, shm, &size, &dev) == 1)
		free(dev);
	pt_args(x, "ringside-web1");
	dom_xml_free(x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *bad = NULL;
	struct dom_cfg c;
	char *text;

	if (size < 1)
		return 0;
	/* NUL-terminated: dom_xml_meta_parse takes a string. */
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1) {
		dom_cfg_default(&c);
		if (dom_xml_meta_parse(text, &c, &bad) == 0)
			use_cfg(&c);
	} else {
		whole_domain(text, size - 1);
	}
	free(text);
	return 0;
}
