/* SPDX-License-Identifier: MIT */
/*
 * The libvirt library without libvirt (libvirt/src): meta.c (the metadata
 * element and the region it asks for), xml.c (reading domain XML),
 * error.c, and what the hook does: hook.c, shm.c (the region file) and
 * hook_file.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "ringside/domain_hook.h"

#include "domain_internal.h"

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
		{ "rings", "0" }, { "rings", "1025" }, { "rings", "-1" },
		{ "rings", "2x" }, { "rings", "" }, { "data-pages", "3" },
		{ "data-pages", "0" }, { "data-pages", "+4" },
		{ "aux-pages", "6" }, { "mode", "Normal" }, { "trace", "" },
		{ "trace", "samples," }, { "trace", ",samples" },
		{ "trace", "samples,,markers" }, { "trace", "sample" },
		{ "freq", "0" }, { "freq", "100001" }, { "colour", "blue" },
		{ "sideband-pages", "16385" }, { "sideband-pages", "-1" },
		{ "sideband-pages", "" },
	};
	struct dom_cfg c;
	const char *bad;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dom_cfg_default(&c);
		ck_assert_msg(dom_cfg_set(&c, cases[i][0], cases[i][1], &bad) ==
			      -dome_option, "%s=%s", cases[i][0], cases[i][1]);
		ck_assert_ptr_nonnull(bad);
	}
	ck_assert_int_eq(dom_cfg_set(&c, "version", "2", &bad), -dome_version);
}
END_TEST

START_TEST(dom_cfg_check_sizes)
{
	struct dom_cfg c;
	const char *bad;

	dom_cfg_default(&c);
	ck_assert_int_eq(dom_cfg_check(&c, &bad), -dome_option); /* rings 0 */
	c.rings = 2;
	ck_assert_uint_eq(c.sideband_pages, DOM_SIDEBAND_PAGES_DEFAULT);
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	ck_assert_uint_eq(c.size, 8u << 20);          /* 4 MiB sideband + rings */
	c.sideband_pages = DOM_SIDEBAND_PAGES_MAX + 1;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), -dome_option);
	c.sideband_pages = 0;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	ck_assert_uint_eq(c.size, 1u << 20);          /* at least 1 MiB */
	c.data_pages = 256;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	ck_assert_uint_eq(c.size, 4u << 20);          /* 2 MiB + pages, rounded */
	c.rings = 48;
	c.data_pages = 8192;                          /* 48 x 32 MiB */
	ck_assert_int_eq(dom_cfg_check(&c, &bad), -dome_too_big);
	c.data_pages = 1u << 31;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), -dome_too_big);
}
END_TEST

/* The default budget keeps small guests' rings as they were (64 data
 * pages) and bounds large ones; a budget too small for a page a ring is
 * refused. */
START_TEST(dom_cfg_fit_budget)
{
	static const struct { uint32_t rings, pages; } want[] = {
		{ 1, 64 }, { 48, 64 }, { 192, 64 }, { 236, 64 }, { 237, 32 },
		{ 256, 32 }, { 1024, 8 },
	};
	const uint64_t budget = (uint64_t)DOM_MEMORY_DEFAULT_MIB << 20;
	struct dom_cfg c;
	const char *bad;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		dom_cfg_default(&c);
		c.rings = want[i].rings;
		ck_assert_int_eq(dom_cfg_fit(&c, budget, &bad), 0);
		ck_assert_msg(c.data_pages == want[i].pages, "%u rings: %u pages",
			      c.rings, c.data_pages);
		ck_assert_uint_le(c.size, budget);
	}
	/* 1024 rings in 8 MiB: a page of control and one of data each is
	 * 8 MiB already, with the sideband more */
	dom_cfg_default(&c);
	c.rings = 1024;
	ck_assert_int_eq(dom_cfg_fit(&c, 8u << 20, &bad), -dome_too_big);
	ck_assert_ptr_nonnull(bad);
	c.sideband_pages = 0;
	c.data_pages = 64;
	ck_assert_int_eq(dom_cfg_fit(&c, 16u << 20, &bad), 0);
	ck_assert_uint_eq(c.data_pages, 2);
	/* an invalid value is said as such, not fitted */
	c.aux_pages = 3;
	ck_assert_int_eq(dom_cfg_fit(&c, 16u << 20, &bad), -dome_option);
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
	a.sideband_pages = 77;
	ck_assert_int_gt(dom_cfg_format(&a, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "trace='samples,test'"));
	ck_assert_ptr_nonnull(strstr(buf, "sideband-pages='77'"));
	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(dom_xml_meta_parse(buf, &b, &bad), 0);
	ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
	/* an element from before sidebands: none, whatever the default */
	dom_cfg_default(&b);
	ck_assert_int_eq(dom_xml_meta_parse("<region version='1' rings='2'/>", &b,
					&bad), 0);
	ck_assert_uint_eq(b.sideband_pages, 0);
	ck_assert_int_eq(dom_cfg_format(&a, buf, 10), -dome_invalid);
}
END_TEST

START_TEST(dom_meta_parse_invalid)
{
	struct dom_cfg c;
	const char *bad;

	dom_cfg_default(&c);
	ck_assert_int_eq(dom_xml_meta_parse("<region rings='2'/>", &c, &bad),
			 -dome_version);
	ck_assert_int_eq(dom_xml_meta_parse("<region version='1' rings='2' x='1'/>",
					&c, &bad), -dome_option);
	ck_assert_int_eq(dom_xml_meta_parse("<other version='1'/>", &c, &bad),
			 -dome_xml);
	ck_assert_int_eq(dom_xml_meta_parse("<region version='1'", &c, &bad),
			 -dome_xml);
	ck_assert_int_eq(dom_xml_meta_parse("", &c, &bad), -dome_xml);
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
	ck_assert_int_eq(dom_xml_name(x, name, 4), -dome_xml);
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
	ck_assert_int_eq(dom_xml_meta(x, &c, &bad), -dome_not_enabled);
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
	/* an old device, as enable made it before: no role */
	ck_assert_int_eq(dom_xml_shmem_master(x, "ringside-web1"), 0);
	dom_xml_free(x);
}
END_TEST

/* The role QEMU's migration needs, found; other roles and none are not. */
START_TEST(dom_xml_shmem_role)
{
	static const char *const roles[] = { " role='master'", " role='peer'", "",
					     " role='masterful'" };
	char text[256];

	for (unsigned i = 0; i < 4; i++) {
		struct dom_xml *x;

		snprintf(text, sizeof(text), "<domain><devices><shmem "
			 "name='ringside-a'%s><model type='ivshmem-plain'/>"
			 "<size unit='M'>1</size></shmem></devices></domain>",
			 roles[i]);
		x = parse(text);
		ck_assert_int_eq(dom_xml_shmem_master(x, "ringside-a"), i == 0);
		ck_assert_int_eq(dom_xml_shmem_master(x, "ringside-b"), 0);
		dom_xml_free(x);
	}
}
END_TEST

START_TEST(dom_xml_shmem_not_plain)
{
	struct dom_xml *x = parse("<domain><devices><shmem name='ringside-a'>"
				  "<model type='ivshmem-doorbell'/><size unit='M'>1"
				  "</size></shmem></devices></domain>");

	ck_assert_int_eq(dom_xml_shmem(x, "ringside-a", NULL, NULL), -dome_xml);
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
	ck_assert_int_eq(dom_xml_scaled("1", "parsec", &b), -dome_xml);
	ck_assert_int_eq(dom_xml_scaled("-1", "M", &b), -dome_xml);
	ck_assert_int_eq(dom_xml_scaled("99999999999", "TiB", &b), -dome_xml);
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

	ck_assert_int_eq(dom_xml_parse(&x, "<domain>", 8), -dome_xml);
	ck_assert_int_eq(dom_xml_parse(&x, "<network/>", 10), -dome_xml);
	ck_assert_int_eq(dom_xml_parse(&x, "", 0), -dome_xml);
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

	ck_assert_int_eq(dom_shm_name_check("web-1.example_a+b"), 0);
	ck_assert_int_eq(dom_shm_name_check(""), -dome_name);
	ck_assert_int_eq(dom_shm_name_check(".hidden"), -dome_name);
	ck_assert_int_eq(dom_shm_name_check("-x"), -dome_name);
	ck_assert_int_eq(dom_shm_name_check("a/b"), -dome_name);
	ck_assert_int_eq(dom_shm_name_check("a b"), -dome_name);
	ck_assert_int_eq(dom_shm_name_check("a'b"), -dome_name);
	ck_assert_int_eq(dom_shm_name_check(NULL), -dome_name);
	ck_assert_int_eq(dom_shm_name("web1", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ringside-web1");
	ck_assert_int_eq(dom_shm_name("web1", buf, 8), -dome_name);
}
END_TEST

START_TEST(dom_errstr_all)
{
	int e;

	for (e = dome_invalid; e < dome_max; e++)
		ck_assert_str_ne(dom_error_str(-e), "unknown domain error");
	ck_assert_str_eq(dom_error_str(-dome_max), "unknown domain error");
	ck_assert_str_eq(dom_error_str(-2 * DOM_ERROR_BASE), "unknown domain error");
	ck_assert_str_eq(dom_error_str(-dome_no_domain), "no libvirt domain of that name");
	ck_assert_str_eq(dom_error_str(-ENOENT), strerror(ENOENT));
	ck_assert_str_eq(dom_error_str(0), "success");
	dom_error_detail_set("connection refused");
	ck_assert_str_eq(dom_error_str(-dome_libvirt), "libvirt: connection refused");
	dom_error_detail_set(NULL);
	ck_assert_str_eq(dom_error_str(-dome_libvirt), "libvirt call failed");
}
END_TEST

START_TEST(dom_shmem_xml_device)
{
	char buf[256];

	ck_assert_int_gt(dom_shm_xml("ringside-web1", 4u << 20, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "<shmem name='ringside-web1' role='master'>"
			 "<model type='ivshmem-plain'/><size unit='M'>4</size>"
			 "</shmem>");
	ck_assert_int_eq(dom_shm_xml("ringside-web1", 4u << 20, buf, 16),
			 -dome_invalid);
}
END_TEST

/* ---- the hook, up to the region file (the e2e scripts make that) ---- */

static char logged[1024];

static void capture(void *arg, int level, const char *fmt, va_list ap)
{
	ck_assert_int_eq(level, RS_LOG_ERR);   /* each says what failed */
	++*(int *)arg;
	vsnprintf(logged, sizeof(logged), fmt, ap);
}

/* dom_hook_run of @call on @xml as stdin; *@said counts the messages. */
static int hook_call(struct dom_hook_call *call, const char *xml, int *said)
{
	FILE *f = tmpfile();
	int err;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(xml, 1, strlen(xml), f), strlen(xml));
	ck_assert_int_eq(fflush(f), 0);
	rewind(f);
	call->xml_fd = fileno(f);
	*said = 0;
	logged[0] = '\0';
	err = dom_hook_run(call, capture, said);
	/* every operation reads libvirt's XML to its end */
	ck_assert_int_eq(lseek(call->xml_fd, 0, SEEK_CUR), (off_t)strlen(xml));
	fclose(f);
	return err;
}

static int hook(const char *domain, const char *op, const char *subop,
		const char *xml, int *said)
{
	struct dom_hook_call call = { domain, op, subop, NULL, -1 };

	return hook_call(&call, xml, said);
}

/* domain_xml with @from replaced by @to. */
static char *edited(const char *from, const char *to)
{
	const char *at = strstr(domain_xml, from);
	char *out;

	ck_assert_ptr_nonnull(at);
	out = malloc(sizeof(domain_xml) + strlen(to));
	ck_assert_ptr_nonnull(out);
	sprintf(out, "%.*s%s%s", (int)(at - domain_xml), domain_xml, to,
		at + strlen(from));
	return out;
}

/* ---- release: the rings kept before the region file goes ---- */

struct kept_call {
	int calls;
	int ret;
	char path[256];
	int same_file;   /* the descriptor given is the file at the path */
	int have_cfg;
	uint32_t rings;
};

static int fake_capture(void *arg, const char *domain, const char *path,
			int fd, const struct dom_cfg *c, rs_log_fn log,
			void *log_arg)
{
	struct kept_call *k = arg;
	struct stat a, b;

	(void)domain;
	(void)log;
	(void)log_arg;
	k->calls++;
	snprintf(k->path, sizeof(k->path), "%s", path);
	k->same_file = !fstat(fd, &a) && !stat(path, &b) &&
		       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	k->have_cfg = c != NULL;
	k->rings = c ? c->rings : 0;
	return k->ret;
}

/* dom_hook_run "release end" of @xml with fake_capture; region files of
 * the group root (what dom_shm_create(..., 0) makes). */
static int release_with(const char *domain, const char *xml,
			struct kept_call *k, int *said)
{
	struct dom_hook_call call = { domain, "release", "end", "root", -1,
				      fake_capture, k };

	return hook_call(&call, xml, said);
}

/* The region file the hook made at "prepare" for @xml's metadata (its
 * defaults when it has none that parses), as root:root 0660. */
static void region_file(const char *domain, const char *xml)
{
	char shm_name[DOM_SHM_NAME_MAX];
	struct dom_xml *x = NULL;
	struct dom_cfg c;
	const char *bad;

	ck_assert_int_eq(dom_shm_name(domain, shm_name, sizeof(shm_name)), 0);
	dom_cfg_default(&c);
	c.rings = 2;
	if (!dom_xml_parse(&x, xml, strlen(xml))) {
		struct dom_cfg m;

		dom_cfg_default(&m);
		if (!dom_xml_meta(x, &m, &bad) && !dom_cfg_check(&m, &bad))
			c = m;
		dom_xml_free(x);
	}
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	ck_assert_int_eq(dom_shm_create(DOM_SHM_DIR, shm_name, &c, 0), 0);
}

/* The hook's tests make root's files and other users' */
static void need_root(void)
{
	ck_assert_msg(geteuid() == 0, "this test runs as root (the hook does)");
}

START_TEST(dom_hook_release_keeps_rings)
{
	char name[64], xml_name[96], path[160], kept[192];
	struct kept_call k = { 0 };
	char *xml;
	int said;

	need_root();
	snprintf(name, sizeof(name), "rs-hook-test-%d", (int)getpid());
	snprintf(xml_name, sizeof(xml_name), "<name>%s</name>", name);
	snprintf(path, sizeof(path), DOM_SHM_DIR "/" DOM_SHM_PREFIX "%s", name);
	snprintf(kept, sizeof(kept), "%s" DOM_SHM_KEPT, path);
	xml = edited("<name>web1</name>", xml_name);

	/* captured, then the file goes; the metadata's layout handed over */
	region_file(name, xml);
	ck_assert_int_eq(release_with(name, xml, &k, &said), 0);
	ck_assert_int_eq(k.calls, 1);
	ck_assert_str_eq(k.path, path);
	ck_assert_int_eq(k.same_file, 1);
	ck_assert_int_eq(k.have_cfg, 1);
	ck_assert_uint_eq(k.rings, 2);
	ck_assert_int_ne(access(path, F_OK), 0);

	/* no file (it never started, or went live): nothing to capture */
	ck_assert_int_eq(release_with(name, xml, &k, &said), 0);
	ck_assert_int_eq(k.calls, 1);
	ck_assert_int_eq(said, 0);

	/* a capture that fails: the rings stay, under another name, said */
	k.ret = -ENOSPC;
	region_file(name, xml);
	ck_assert_int_eq(release_with(name, xml, &k, &said), -ENOSPC);
	ck_assert_int_eq(k.calls, 2);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(access(kept, F_OK), 0);
	ck_assert_int_ge(said, 1);
	ck_assert_ptr_nonnull(strstr(logged, kept));
	ck_assert_int_eq(unlink(kept), 0);

	/* metadata that does not parse: captured by its header (no layout) */
	k.ret = 0;
	free(xml);
	xml = edited("mode=\"normal\"", "mode=\"sideways\"");
	{
		char *named = malloc(strlen(xml) + 64), *at = strstr(xml, "web1");

		ck_assert_ptr_nonnull(named);
		sprintf(named, "%.*s%s%s", (int)(at - xml), xml, name, at + 4);
		region_file(name, named);
		ck_assert_int_eq(release_with(name, named, &k, &said), 0);
		ck_assert_int_eq(k.calls, 3);
		ck_assert_int_eq(k.have_cfg, 0);
		free(named);
	}
	ck_assert_int_ne(access(path, F_OK), 0);

	/* a domain without ringside metadata: nothing captured */
	region_file(name, "<domain/>");
	ck_assert_int_eq(release_with(name, "<domain><name>x</name></domain>",
				      &k, &said), 0);
	ck_assert_int_eq(k.calls, 3);
	ck_assert_int_ne(access(path, F_OK), 0);
	free(xml);
}
END_TEST

/* /dev/shm is every user's: a file of the region's name that another
 * user planted while it was absent (a forged guest for the capture), or a
 * link to a file only root may read, is neither captured nor removed,
 * and said. */
START_TEST(dom_hook_release_refuses_others_files)
{
	char name[64], xml_name[96], path[160], secret[64];
	struct kept_call k = { 0 };
	struct stat st;
	char *xml;
	int said, fd;

	need_root();
	snprintf(name, sizeof(name), "rs-hook-plant-%d", (int)getpid());
	snprintf(xml_name, sizeof(xml_name), "<name>%s</name>", name);
	snprintf(path, sizeof(path), DOM_SHM_DIR "/" DOM_SHM_PREFIX "%s", name);
	xml = edited("<name>web1</name>", xml_name);

	/* uid 1001's file, of the region's size, mode and group even */
	region_file(name, xml);
	ck_assert_int_eq(chown(path, 1001, 0), 0);
	ck_assert_int_eq(release_with(name, xml, &k, &said), -dome_not_ours);
	ck_assert_int_eq(k.calls, 0);
	ck_assert_int_eq(access(path, F_OK), 0);          /* left */
	ck_assert_int_ge(said, 1);
	ck_assert_ptr_nonnull(strstr(logged, "not owned by root"));
	ck_assert_ptr_nonnull(strstr(logged, "owner 1001"));
	/* for a domain without ringside metadata too: not removed */
	ck_assert_int_eq(release_with(name, "<domain><name>x</name></domain>",
				      &k, &said), -dome_not_ours);
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_int_eq(unlink(path), 0);

	/* a link to root's secret */
	snprintf(secret, sizeof(secret), "/tmp/rs-hook-secret-%d", (int)getpid());
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "secret", 6), 6);
	close(fd);
	ck_assert_int_eq(symlink(secret, path), 0);
	ck_assert_int_eq(release_with(name, xml, &k, &said), -dome_not_ours);
	ck_assert_int_eq(k.calls, 0);
	ck_assert_ptr_nonnull(strstr(logged, "a symbolic link"));
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_int_eq(S_ISLNK(st.st_mode), 1);         /* left */
	ck_assert_int_eq(stat(secret, &st), 0);
	ck_assert_uint_eq(st.st_size, 6);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(unlink(secret), 0);
	/* a link to a region ringside made: the link is not the region */
	snprintf(secret, sizeof(secret), DOM_SHM_DIR "/rs-hook-moved-%d",
		 (int)getpid());
	region_file(name, xml);
	ck_assert_int_eq(rename(path, secret), 0);
	ck_assert_int_eq(symlink(secret, path), 0);
	ck_assert_int_eq(release_with(name, xml, &k, &said), -dome_not_ours);
	ck_assert_int_eq(k.calls, 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(unlink(secret), 0);
	free(xml);
}
END_TEST

START_TEST(dom_hook_run_null)
{
	struct dom_hook_call call = { NULL, "prepare", "begin", NULL, -1 };

	ck_assert_int_eq(dom_hook_run(NULL, NULL, NULL), -dome_invalid);
	ck_assert_int_eq(dom_hook_run(&call, NULL, NULL), -dome_invalid);
}
END_TEST

START_TEST(dom_hook_run_not_ours)
{
	int said;

	/* no ringside namespace: not even parsed */
	ck_assert_int_eq(hook("web1", "prepare", "begin",
			      "<domain><name>web1</name></domain> not XML <", &said), 0);
	ck_assert_int_eq(said, 0);
	/* operations the hook has nothing to do at */
	ck_assert_int_eq(hook("web1", "start", "begin", domain_xml, &said), 0);
	ck_assert_int_eq(hook("web1", "stopped", "end", domain_xml, &said), 0);
	ck_assert_int_eq(said, 0);
	/* a name no region was ever made for */
	ck_assert_int_eq(hook("a/b", "release", "end", "", &said), 0);
	ck_assert_int_eq(said, 0);
}
END_TEST

START_TEST(dom_hook_run_refuses)
{
	char *bad_pages = edited("data-pages=\"256\"", "data-pages=\"3\"");
	char *other = edited("<name>web1</name>", "<name>web2</name>");
	char *small = edited("<size unit='M'>4</size>", "<size unit='M'>2</size>");
	char *doorbell = edited("<model type='ivshmem-plain'/>\n",
				"<model type='ivshmem-doorbell'/>\n");
	char *no_dev = edited("name='ringside-web1'", "name='ringside-x'");
	int said;

	ck_assert_int_eq(hook("web1", "prepare", "begin", bad_pages, &said),
			 -dome_option);
	ck_assert_int_eq(said, 1);
	ck_assert_str_eq(logged, "web1: ringside metadata: data-pages: a power "
			 "of two >= 1 (4 KiB pages per ring); fix it with "
			 "'ringside enable web1'");
	ck_assert_int_eq(hook("web1", "prepare", "begin", other, &said), -dome_xml);
	ck_assert_str_eq(logged, "web1: the XML on stdin is of another domain");
	ck_assert_int_eq(hook("web1", "prepare", "begin", small, &said), -dome_size);
	ck_assert_str_eq(logged, "web1: <shmem name='ringside-web1'> is 2097152 "
			 "bytes, the metadata needs 4194304; run 'ringside "
			 "enable web1' again");
	ck_assert_int_eq(hook("web1", "prepare", "begin", doorbell, &said), -dome_xml);
	ck_assert_str_eq(logged, "web1: its ringside <shmem> device is not "
			 "ivshmem-plain");
	ck_assert_int_eq(hook("web1", "prepare", "begin", no_dev, &said),
			 -dome_no_shmem);
	ck_assert_str_eq(logged + 6, dom_error_str(-dome_no_shmem));
	ck_assert_int_eq(hook("web1", "prepare", "begin", "<domain xmlns:r='"
			      DOM_XMLNS "'", &said), -dome_xml);
	ck_assert_str_eq(logged, "web1: the domain XML on stdin does not parse");
	ck_assert_int_eq(hook("a b", "prepare", "begin", domain_xml, &said),
			 -dome_name);
	ck_assert_int_eq(said, 1);
	free(bad_pages);
	free(other);
	free(small);
	free(doorbell);
	free(no_dev);
}
END_TEST

/* A private directory for region and hook files. */
static char *tmp_dir(char *buf)
{
	strcpy(buf, "/tmp/rs-test-domain.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(buf));
	return buf;
}

START_TEST(dom_shm_create_region)
{
	char dir[64], path[128];
	struct rs_region region;
	struct dom_cfg c;
	struct stat st;
	const char *bad;
	void *mem;
	int fd;

	if (geteuid() != 0)
		return;   /* the file is root's */
	tmp_dir(dir);
	dom_cfg_default(&c);
	c.rings = 2;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	ck_assert_int_eq(dom_shm_create(dir, "ringside-t", &c, 0), 0);
	snprintf(path, sizeof(path), "%s/ringside-t", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_size, c.size);
	ck_assert_uint_eq(st.st_mode & 07777, 0660);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	mem = mmap(NULL, c.size, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_int_eq(rs_region_open(&region, mem, c.size), 0);
	ck_assert_uint_eq(((const struct rs_region_header *)mem)->config.enabled, 1);
	munmap(mem, c.size);
	close(fd);
	/* made again over the old one */
	ck_assert_int_eq(dom_shm_create(dir, "ringside-t", &c, 0), 0);
	ck_assert_int_eq(dom_shm_remove(dir, "ringside-t"), 0);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(dom_shm_remove(dir, "ringside-t"), 0);   /* absent */
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(dom_shm_remove(dir, "ringside-t"), -ENODEV);
	ck_assert_int_eq(rmdir(path), 0);
	c.size = 0;
	ck_assert_int_eq(dom_shm_create(dir, "ringside-t", &c, 0), -EINVAL);
	ck_assert_int_eq(dom_shm_create(NULL, "ringside-t", &c, 0), -EINVAL);
	/* by the group's name: a group no host has is said as -ENOENT */
	ck_assert_int_eq(dom_shm_create_group(dir, "ringside-t", &c,
					      "rs-no-such-group"), -ENOENT);
	ck_assert_int_eq(dom_shm_remove(NULL, "ringside-t"), -EINVAL);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* What dom_shm_open_region takes for a region ringside made, and each
 * way a file of that name is not one. */
START_TEST(dom_shm_open_region_checks)
{
	char dir[64], path[128], other[160];
	const char *why;
	struct dom_cfg c;
	struct stat st;
	const char *bad;
	int fd;

	need_root();
	tmp_dir(dir);
	snprintf(path, sizeof(path), "%s/ringside-t", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	dom_cfg_default(&c);
	c.rings = 2;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	ck_assert_int_eq(dom_shm_open_region(dir, "ringside-t", 0, c.size, &st,
					     &why), -ENOENT);
	ck_assert_int_eq(dom_shm_create(dir, "ringside-t", &c, 0), 0);
	fd = dom_shm_open_region(dir, "ringside-t", 0, c.size, &st, &why);
	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_null(why);
	close(fd);
	fd = dom_shm_open_region(dir, "ringside-t", 0, 0, &st, &why);  /* any size */
	ck_assert_int_ge(fd, 0);
	close(fd);
#define REFUSED(what) do { \
		ck_assert_int_eq(dom_shm_open_region(dir, "ringside-t", 0, \
				 c.size, &st, &why), -dome_not_ours); \
		ck_assert_str_eq(why, what); \
	} while (0)
	ck_assert_int_eq(dom_shm_open_region(dir, "ringside-t", 1001, c.size,
					     &st, &why), -dome_not_ours);
	ck_assert_str_eq(why, "not of the region's group");
	ck_assert_int_eq(chown(path, 1001, 0), 0);
	REFUSED("not owned by root");
	ck_assert_uint_eq(st.st_uid, 1001);
	ck_assert_int_eq(chown(path, 0, 0), 0);
	ck_assert_int_eq(chmod(path, 0666), 0);
	REFUSED("not mode 0660");
	ck_assert_int_eq(chmod(path, 0660), 0);
	ck_assert_int_eq(link(path, other), 0);
	REFUSED("linked under another name too");
	ck_assert_int_eq(unlink(other), 0);
	ck_assert_int_eq(truncate(path, 8192), 0);
	REFUSED("not the region's size");
	ck_assert_int_eq(truncate(path, 12288), 0);   /* no power of two */
	ck_assert_int_eq(dom_shm_open_region(dir, "ringside-t", 0, 0, &st,
					     &why), -dome_not_ours);
	ck_assert_int_eq(rename(path, other), 0);
	ck_assert_int_eq(symlink(other, path), 0);
	REFUSED("a symbolic link");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkfifo(path, 0660), 0);
	REFUSED("not a regular file");
	ck_assert_int_eq(unlink(path), 0);
#undef REFUSED
	/* removed only while the name is still the file checked */
	ck_assert_int_eq(dom_shm_create(dir, "ringside-t", &c, 0), 0);
	fd = dom_shm_open_region(dir, "ringside-t", 0, c.size, &st, &why);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(rename(other, path), 0);        /* another file now */
	ck_assert_int_eq(dom_shm_remove_region(dir, "ringside-t", &st),
			 -dome_not_ours);
	ck_assert_int_eq(access(path, F_OK), 0);
	fd = dom_shm_open_region(dir, "ringside-t", 0, 0, &st, &why);
	ck_assert_int_eq(fd, -dome_not_ours);              /* 12288 bytes */
	ck_assert_int_eq(truncate(path, 8192), 0);
	fd = dom_shm_open_region(dir, "ringside-t", 0, 0, &st, &why);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(dom_shm_remove_region(dir, "ringside-t", &st), 0);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(dom_shm_remove_region(dir, "ringside-t", &st), 0);
	ck_assert_int_eq(dom_shm_open_region(NULL, "ringside-t", 0, 0, &st,
					     &why), -EINVAL);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(dom_hook_file_write_script)
{
	char dir[64], path[128], text[512];
	size_t n;
	FILE *f;

	tmp_dir(dir);
	snprintf(path, sizeof(path), "%s/ringside", dir);
	ck_assert_int_eq(dom_hook_file_is_ours(path), 0);
	ck_assert_int_eq(dom_hook_file_write(path, "/usr/bin/ringside-hook",
					     "kvm", NULL), 0);
	ck_assert_int_eq(dom_hook_file_is_ours(path), 1);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	ck_assert_ptr_nonnull(strstr(text, "#!/bin/sh\n" DOM_HOOK_MARK));
	ck_assert_ptr_nonnull(strstr(text, "\nexec '/usr/bin/ringside-hook' "
				     "--group 'kvm' \"$@\"\n"));
	ck_assert_int_eq(dom_hook_file_write(path, "ringside-hook", "kvm", NULL),
			 -dome_invalid);
	ck_assert_int_eq(dom_hook_file_write(path, "/a'b", "kvm", NULL),
			 -dome_invalid);
	ck_assert_int_eq(dom_hook_file_write(path, "/ab", "k'vm", NULL),
			 -dome_invalid);
	ck_assert_int_eq(dom_hook_file_write(NULL, "/ab", "kvm", NULL),
			 -dome_invalid);
	{
		struct dom_hook_keep k = { "/var/x y", 3, 100 };
		struct dom_hook_keep rel = { "var/x", 0, 0 };
		struct dom_hook_keep quote = { "/var/x'", 0, 0 };

		ck_assert_int_eq(dom_hook_file_write(path, "/ab", "kvm", &rel),
				 -dome_invalid);
		ck_assert_int_eq(dom_hook_file_write(path, "/ab", "kvm", &quote),
				 -dome_invalid);
		ck_assert_int_eq(dom_hook_file_write(path, "/ab", "kvm", &k), 0);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		ck_assert_ptr_nonnull(strstr(text, "\nexec '/ab' --group 'kvm' "
					     "--capture-dir '/var/x y' --keep 3 "
					     "--keep-mb 100 \"$@\"\n"));
	}
	ck_assert_int_eq(chmod(path, 0644), 0);   /* not executable: not a hook */
	ck_assert_int_eq(dom_hook_file_is_ours(path), 0);
	ck_assert_int_eq(dom_hook_file_is_ours(NULL), 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* How long a ring holds: the arithmetic, and the warning's condition. */
START_TEST(dom_cfg_hold_rate)
{
	struct dom_cfg c;
	struct dom_hold h;
	const char *bad;

	/* header, 5 fields, chain count, frames + 2 markers, raw: 8 B each */
	ck_assert_uint_eq(dom_cfg_sample_bytes(0), 80);
	ck_assert_uint_eq(dom_cfg_sample_bytes(32), 336);
	ck_assert_uint_eq(dom_cfg_sample_bytes(127), 1096);

	/* the default: 256 KiB, 1000 Hz, overwrite */
	dom_cfg_default(&c);
	c.rings = 2;
	ck_assert_int_eq(dom_cfg_check(&c, &bad), 0);
	dom_cfg_hold(&c, 0, &h);
	ck_assert_uint_eq(h.ring_bytes, 262144);
	ck_assert_uint_eq(h.freq, 1000);
	ck_assert_uint_eq(h.hold_us_typical, 262144ull * 1000000 / (1000 * 336));
	ck_assert_uint_eq(h.hold_us_typical, 780190);
	ck_assert_uint_eq(h.hold_us_max, 239182);
	ck_assert_uint_eq(h.need_ms, DOM_HOLD_MS + DOM_STALL_MS_DEFAULT);
	ck_assert_int_eq(h.short_of, 0);       /* overwrite: never */

	/* normal mode at the default size covers 110 ms at 127 frames */
	c.mode = RS_MODE_NORMAL;
	dom_cfg_hold(&c, 0, &h);
	ck_assert_int_eq(h.short_of, 0);
	/* 1000 * 1096 B * 110 ms = 120,560 B: 32 pages */
	ck_assert_uint_eq(h.pages_needed, 32);
	/* a stall the ring cannot cover: 239 ms held < 100 + 200 */
	dom_cfg_hold(&c, 200, &h);
	ck_assert_uint_eq(h.need_ms, 300);
	ck_assert_int_eq(h.short_of, 1);
	ck_assert_uint_eq(h.pages_needed, 128);

	/* 4 KiB at 1000 Hz: 3.7 ms */
	ck_assert_int_eq(dom_cfg_set(&c, "data-pages", "1", &bad), 0);
	dom_cfg_hold(&c, 0, &h);
	ck_assert_uint_eq(h.hold_us_max, 4096ull * 1000000 / (1000 * 1096));
	ck_assert_int_eq(h.short_of, 1);
	c.mode = RS_MODE_OVERWRITE;
	dom_cfg_hold(&c, 0, &h);
	ck_assert_int_eq(h.short_of, 0);

	/* 100 kHz at 256 KiB: 2.4 ms at full chains, normal mode warns */
	c.mode = RS_MODE_NORMAL;
	ck_assert_int_eq(dom_cfg_set(&c, "data-pages", "64", &bad), 0);
	ck_assert_int_eq(dom_cfg_set(&c, "freq", "100000", &bad), 0);
	dom_cfg_hold(&c, 0, &h);
	ck_assert_uint_eq(h.hold_us_max, 2391);
	ck_assert_int_eq(h.short_of, 1);
	/* 100000 * 1096 * 110 / 1000 = 12,056,000 B: 4096 pages (16 MiB) */
	ck_assert_uint_eq(h.pages_needed, 4096);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("domain");
	TCase *tc = tcase_create("domain");

	tcase_add_test(tc, dom_cfg_set_values);
	tcase_add_test(tc, dom_cfg_set_invalid);
	tcase_add_test(tc, dom_cfg_check_sizes);
	tcase_add_test(tc, dom_cfg_hold_rate);
	tcase_add_test(tc, dom_cfg_fit_budget);
	tcase_add_test(tc, dom_cfg_format_roundtrip);
	tcase_add_test(tc, dom_meta_parse_invalid);
	tcase_add_test(tc, dom_xml_meta_found);
	tcase_add_test(tc, dom_xml_meta_absent);
	tcase_add_test(tc, dom_xml_shmem_found);
	tcase_add_test(tc, dom_xml_shmem_not_plain);
	tcase_add_test(tc, dom_xml_shmem_role);
	tcase_add_test(tc, dom_xml_scaled_units);
	tcase_add_test(tc, dom_xml_parse_invalid);
	tcase_add_test(tc, dom_name_check_names);
	tcase_add_test(tc, dom_errstr_all);
	tcase_add_test(tc, dom_shmem_xml_device);
	tcase_add_test(tc, dom_hook_release_refuses_others_files);
	tcase_add_test(tc, dom_hook_run_null);
	tcase_add_test(tc, dom_hook_run_not_ours);
	tcase_add_test(tc, dom_hook_run_refuses);
	tcase_add_test(tc, dom_shm_create_region);
	tcase_add_test(tc, dom_shm_open_region_checks);
	tcase_add_test(tc, dom_hook_file_write_script);
	tcase_add_test(tc, dom_hook_release_keeps_rings);
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
