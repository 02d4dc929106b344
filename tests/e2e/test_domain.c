/* SPDX-License-Identifier: MIT */
/*
 * The libvirt opt-in without libvirt: domain_meta.c (the metadata element
 * and the region it asks for) and domain_xml.c (reading domain XML).
 */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "domain_meta.h"
#include "domain_xml.h"
#include "err.h"

#define DERR(e) (-(ERR_DOM + (e)))

static const char domain_xml[] =
	"<domain type='qemu'>\n"
	"  <name>web1</name>\n"
	"  <metadata>\n"
	"    <other:x xmlns:other='https://example.org/1' rings='7'/>\n"
	"    <ringside:region xmlns:ringside=\"https://ringside.dev/xmlns/1\" "
	"version=\"1\" rings=\"2\" data-pages=\"256\" aux-pages=\"0\" "
	"mode=\"normal\" trace=\"samples,markers\" freq=\"99\"/>\n"
	"  </metadata>\n"
	"  <vcpu placement='static'>4</vcpu>\n"
	"  <devices>\n"
	"    <shmem name='other'><model type='ivshmem-plain'/><size unit='M'>2</size></shmem>\n"
	"    <shmem name='ringside-web1'>\n"
	"      <model type='ivshmem-plain'/>\n"
	"      <size unit='M'>4</size>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x03' function='0x0'/>\n"
	"    </shmem>\n"
	"  </devices>\n"
	"</domain>\n";

static struct dom_xml *parse(const char *text)
{
	struct dom_xml *x = NULL;

	ck_assert_int_eq(dom_xml_parse(&x, text, strlen(text)), 0);
	return x;
}

START_TEST(dom_cfg_set_values)
{
	struct dom_cfg c;
	const char *bad;

	dom_cfg_default(&c);
	ck_assert_int_eq(dom_cfg_set(&c, "rings", "48", &bad), 0);
	ck_assert_int_eq(dom_cfg_set(&c, "data-pages", "1", &bad), 0);
	ck_assert_int_eq(dom_cfg_set(&c, "aux-pages", "0", &bad), 0);
	ck_assert_int_eq(dom_cfg_set(&c, "mode", "normal", &bad), 0);
	ck_assert_int_eq(dom_cfg_set(&c, "trace", "markers,aux", &bad), 0);
	ck_assert_int_eq(dom_cfg_set(&c, "freq", "100000", &bad), 0);
	ck_assert_uint_eq(c.rings, 48);
	ck_assert_uint_eq(c.data_pages, 1);
	ck_assert_uint_eq(c.mode, RS_MODE_NORMAL);
	ck_assert_uint_eq(c.trace_mask, RS_TRACE_MARKERS | RS_TRACE_AUX);
	ck_assert_uint_eq(c.freq, 100000);
}
END_TEST

START_TEST(dom_cfg_set_invalid)
{
	static const char *const cases[][2] = {
		{ "rings", "0" }, { "rings", "49" }, { "rings", "-1" },
		{ "rings", "2x" }, { "rings", "" }, { "data-pages", "3" },
		{ "data-pages", "0" }, { "data-pages", "+4" },
		{ "aux-pages", "6" }, { "mode", "Normal" }, { "trace", "" },
		{ "trace", "samples," }, { "trace", ",samples" },
		{ "trace", "samples,,markers" }, { "trace", "sample" },
		{ "freq", "0" }, { "freq", "100001" }, { "colour", "blue" },
	};
	struct dom_cfg c;
	const char *bad;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dom_cfg_default(&c);
		ck_assert_msg(dom_cfg_set(&c, cases[i][0], cases[i][1], &bad) ==
			      DERR(dome_option), "%s=%s", cases[i][0], cases[i][1]);
		ck_assert_ptr_nonnull(bad);
	}
	ck_assert_int_eq(dom_cfg_set(&c, "version", "2", &bad), DERR(dome_version));
}
END_TEST

START_TEST(dom_cfg_check_sizes)
{
	struct dom_cfg c;
	const char *bad;

	dom_cfg_default(&c);
	ck_assert_int_eq(dom_cfg_check(&c, &bad), DERR(dome_option)); /* rings 0 */
	c.rings = 2;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	ck_assert_uint_eq(c.size, 1u << 20);          /* at least 1 MiB */
	c.data_pages = 256;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	ck_assert_uint_eq(c.size, 4u << 20);          /* 2 MiB + pages, rounded */
	c.rings = 48;
	c.data_pages = 8192;                          /* 48 x 32 MiB */
	ck_assert_int_eq(dom_cfg_check(&c, &bad), DERR(dome_too_big));
	c.data_pages = 1u << 31;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), DERR(dome_too_big));
}
END_TEST

START_TEST(dom_cfg_format_roundtrip)
{
	struct dom_cfg a, b;
	const char *bad;
	char buf[512];

	dom_cfg_default(&a);
	a.rings = 3;
	a.aux_pages = 16;
	a.mode = RS_MODE_NORMAL;
	a.trace_mask = RS_TRACE_SAMPLES | RS_TRACE_TEST;
	a.freq = 4000;
	ck_assert_int_gt(dom_cfg_format(&a, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "trace='samples,test'"));
	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(dom_meta_parse(buf, &b, &bad), 0);
	ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
	ck_assert_int_eq(dom_cfg_format(&a, buf, 10), DERR(dome_invalid));
}
END_TEST

START_TEST(dom_meta_parse_invalid)
{
	struct dom_cfg c;
	const char *bad;

	dom_cfg_default(&c);
	ck_assert_int_eq(dom_meta_parse("<region rings='2'/>", &c, &bad),
			 DERR(dome_version));
	ck_assert_int_eq(dom_meta_parse("<region version='1' rings='2' x='1'/>",
					&c, &bad), DERR(dome_option));
	ck_assert_int_eq(dom_meta_parse("<other version='1'/>", &c, &bad),
			 DERR(dome_xml));
	ck_assert_int_eq(dom_meta_parse("<region version='1'", &c, &bad),
			 DERR(dome_xml));
	ck_assert_int_eq(dom_meta_parse("", &c, &bad), DERR(dome_xml));
}
END_TEST

START_TEST(dom_xml_meta_found)
{
	struct dom_xml *x = parse(domain_xml);
	struct dom_cfg c;
	const char *bad;
	uint32_t vcpus;
	char name[64];

	dom_cfg_default(&c);
	ck_assert_int_eq(dom_xml_meta(x, &c, &bad), 0);
	ck_assert_uint_eq(c.rings, 2);
	ck_assert_uint_eq(c.data_pages, 256);
	ck_assert_uint_eq(c.mode, RS_MODE_NORMAL);
	ck_assert_uint_eq(c.freq, 99);
	ck_assert_int_eq(dom_xml_vcpus(x, &vcpus), 0);
	ck_assert_uint_eq(vcpus, 4);
	ck_assert_int_eq(dom_xml_name(x, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "web1");
	ck_assert_int_eq(dom_xml_name(x, name, 4), DERR(dome_xml));
	dom_xml_free(x);
}
END_TEST

START_TEST(dom_xml_meta_absent)
{
	struct dom_xml *x = parse("<domain><name>a</name><metadata>"
				  "<r:region xmlns:r='https://ringside.dev/xmlns/2'/>"
				  "</metadata></domain>");
	struct dom_cfg c;
	const char *bad;

	dom_cfg_default(&c);
	ck_assert_int_eq(dom_xml_meta(x, &c, &bad), DERR(dome_not_enabled));
	dom_xml_free(x);
}
END_TEST

START_TEST(dom_xml_shmem_found)
{
	struct dom_xml *x = parse(domain_xml);
	uint64_t size = 0;
	char *dev = NULL;

	ck_assert_int_eq(dom_xml_shmem(x, "ringside-web1", &size, &dev), 1);
	ck_assert_uint_eq(size, 4u << 20);
	ck_assert_ptr_nonnull(strstr(dev, "<shmem name=\"ringside-web1\">"));
	ck_assert_ptr_nonnull(strstr(dev, "slot=\"0x03\""));
	free(dev);
	ck_assert_int_eq(dom_xml_shmem(x, "ringside-web2", &size, NULL), 0);
	dom_xml_free(x);
}
END_TEST

START_TEST(dom_xml_shmem_not_plain)
{
	struct dom_xml *x = parse("<domain><devices><shmem name='ringside-a'>"
				  "<model type='ivshmem-doorbell'/><size unit='M'>1"
				  "</size></shmem></devices></domain>");

	ck_assert_int_eq(dom_xml_shmem(x, "ringside-a", NULL, NULL), DERR(dome_xml));
	dom_xml_free(x);
}
END_TEST

START_TEST(dom_xml_scaled_units)
{
	uint64_t b;

	ck_assert_int_eq(dom_xml_scaled("4", "M", &b), 0);
	ck_assert_uint_eq(b, 4u << 20);
	ck_assert_int_eq(dom_xml_scaled("4096", NULL, &b), 0);
	ck_assert_uint_eq(b, 4096);
	ck_assert_int_eq(dom_xml_scaled("1", "GiB", &b), 0);
	ck_assert_uint_eq(b, 1u << 30);
	ck_assert_int_eq(dom_xml_scaled("2", "KB", &b), 0);
	ck_assert_uint_eq(b, 2000);
	ck_assert_int_eq(dom_xml_scaled("1", "parsec", &b), DERR(dome_xml));
	ck_assert_int_eq(dom_xml_scaled("-1", "M", &b), DERR(dome_xml));
	ck_assert_int_eq(dom_xml_scaled("99999999999", "TiB", &b), DERR(dome_xml));
}
END_TEST

START_TEST(dom_xml_parse_invalid)
{
	static const char xxe[] =
		"<?xml version='1.0'?>\n"
		"<!DOCTYPE domain [<!ENTITY x SYSTEM 'file:///etc/hostname'>]>\n"
		"<domain><name>&x;</name></domain>";
	struct dom_xml *x = NULL;
	char name[256];

	ck_assert_int_eq(dom_xml_parse(&x, "<domain>", 8), DERR(dome_xml));
	ck_assert_int_eq(dom_xml_parse(&x, "<network/>", 10), DERR(dome_xml));
	ck_assert_int_eq(dom_xml_parse(&x, "", 0), DERR(dome_xml));
	ck_assert_ptr_null(x);
	/* External entities are never fetched. */
	if (dom_xml_parse(&x, xxe, sizeof(xxe) - 1) == 0) {
		ck_assert_int_ne(dom_xml_name(x, name, sizeof(name)), 0);
		dom_xml_free(x);
	}
	dom_xml_free(NULL);
}
END_TEST

START_TEST(dom_name_check_names)
{
	char buf[64];

	ck_assert_int_eq(dom_name_check("web-1.example_a+b"), 0);
	ck_assert_int_eq(dom_name_check(""), DERR(dome_name));
	ck_assert_int_eq(dom_name_check(".hidden"), DERR(dome_name));
	ck_assert_int_eq(dom_name_check("-x"), DERR(dome_name));
	ck_assert_int_eq(dom_name_check("a/b"), DERR(dome_name));
	ck_assert_int_eq(dom_name_check("a b"), DERR(dome_name));
	ck_assert_int_eq(dom_name_check("a'b"), DERR(dome_name));
	ck_assert_int_eq(dom_name_check(NULL), DERR(dome_name));
	ck_assert_int_eq(dom_shm_name("web1", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ringside-web1");
	ck_assert_int_eq(dom_shm_name("web1", buf, 8), DERR(dome_name));
}
END_TEST

START_TEST(dom_errstr_all)
{
	int e;

	for (e = 0; e < dome_max; e++)
		ck_assert_ptr_nonnull(dom_errstr(-(ERR_DOM + e)));
	ck_assert_str_eq(dom_errstr(-(ERR_DOM + dome_max)), "unknown domain error");
	ck_assert_str_eq(err_str(DERR(dome_no_domain)), "no libvirt domain of that name");
	dom_detail_set("connection refused");
	ck_assert_str_eq(dom_errstr(DERR(dome_libvirt)), "libvirt: connection refused");
	dom_detail_set(NULL);
	ck_assert_str_eq(dom_errstr(DERR(dome_libvirt)), "libvirt call failed");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("domain");
	TCase *tc = tcase_create("domain");

	tcase_add_test(tc, dom_cfg_set_values);
	tcase_add_test(tc, dom_cfg_set_invalid);
	tcase_add_test(tc, dom_cfg_check_sizes);
	tcase_add_test(tc, dom_cfg_format_roundtrip);
	tcase_add_test(tc, dom_meta_parse_invalid);
	tcase_add_test(tc, dom_xml_meta_found);
	tcase_add_test(tc, dom_xml_meta_absent);
	tcase_add_test(tc, dom_xml_shmem_found);
	tcase_add_test(tc, dom_xml_shmem_not_plain);
	tcase_add_test(tc, dom_xml_scaled_units);
	tcase_add_test(tc, dom_xml_parse_invalid);
	tcase_add_test(tc, dom_name_check_names);
	tcase_add_test(tc, dom_errstr_all);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
