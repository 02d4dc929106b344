/* SPDX-License-Identifier: MIT */
/*
 * PT on a libvirt domain's command line (libvirt/src/pt_args.c), without
 * libvirt: the plugin's argument, the TCG check, and putting ringside's
 * "-plugin" pair into and taking it out of <qemu:commandline> in domain
 * XML an operator may have written any way libvirt accepts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <libxml/parser.h>

#include "domain_internal.h"

#define QNS "http://libvirt.org/schemas/domain/qemu/1.0"
#define SHM "ringside-web1"
#define OURS "/opt/rs/ringside-qemu-pt.so,region=/dev/shm/ringside-web1,filter=kernel"

static const char plain_xml[] =
	"<domain type='qemu'>\n"
	"  <name>web1</name>\n"
	"  <vcpu>2</vcpu>\n"
	"  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator></devices>\n"
	"</domain>\n";

/* The operator's own passthrough, with a plugin of theirs, in the
 * namespace under the prefix libvirt writes. */
static const char operator_xml[] =
	"<domain type='qemu' xmlns:qemu='" QNS "'>\n"
	"  <name>web1</name>\n"
	"  <devices/>\n"
	"  <qemu:commandline>\n"
	"    <qemu:arg value='-plugin'/>\n"
	"    <qemu:arg value='/usr/lib/theirs.so,arg=region=/dev/shm/ringside-web1'/>\n"
	"    <qemu:arg value='-d'/>\n"
	"    <qemu:arg value='plugin'/>\n"
	"    <qemu:env name='QEMU_X' value='1'/>\n"
	"  </qemu:commandline>\n"
	"</domain>\n";

static struct dom_xml *parse(const char *text)
{
	struct dom_xml *x = NULL;

	ck_assert_int_eq(dom_xml_parse(&x, text, strlen(text)), 0);
	return x;
}

static char *format(const struct dom_xml *x)
{
	char *t = NULL;

	ck_assert_int_eq(dom_xml_format(x, &t), 0);
	ck_assert_ptr_nonnull(t);
	return t;
}

/* Parse, format: the text libvirt would be given for an unchanged doc. */
static char *reformat(const char *text)
{
	struct dom_xml *x = parse(text);
	char *t = format(x);

	dom_xml_free(x);
	return t;
}

/* The <qemu:arg> values of @text in document order, by namespace URI
 * (whatever prefix), joined by '|'. */
static void arg_values(const char *text, char *out, size_t len)
{
	xmlDocPtr doc = xmlReadMemory(text, (int)strlen(text), "t.xml", NULL,
				      XML_PARSE_NONET);
	xmlNode *r, *cl, *n;
	size_t used = 0;

	ck_assert_ptr_nonnull(doc);
	out[0] = '\0';
	r = xmlDocGetRootElement(doc);
	for (cl = r->children; cl; cl = cl->next) {
		if (cl->type != XML_ELEMENT_NODE || !cl->ns ||
		    strcmp((const char *)cl->ns->href, QNS) ||
		    strcmp((const char *)cl->name, "commandline"))
			continue;
		for (n = cl->children; n; n = n->next) {
			xmlChar *v;

			if (n->type != XML_ELEMENT_NODE ||
			    strcmp((const char *)n->name, "arg"))
				continue;
			v = xmlGetNoNsProp(n, (const xmlChar *)"value");
			used += (size_t)snprintf(out + used, len - used, "%s%s",
						 used ? "|" : "", (const char *)v);
			ck_assert_uint_lt(used, len);
			xmlFree(v);
		}
	}
	xmlFreeDoc(doc);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

START_TEST(pt_arg_format)
{
	struct dom_pt pt = { .plugin = "/opt/rs/ringside-qemu-pt.so" };
	char buf[DOM_PT_ARG_MAX];

	ck_assert_int_eq(dom_pt_arg(&pt, SHM, buf, sizeof(buf)),
			 (int)strlen(OURS));
	ck_assert_str_eq(buf, OURS);
	pt.all = 1;
	pt.psb = 8192;
	ck_assert_int_gt(dom_pt_arg(&pt, SHM, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/opt/rs/ringside-qemu-pt.so,region=/dev/shm/"
			 "ringside-web1,filter=all,psb=8192");
	ck_assert_int_eq(dom_pt_arg(&pt, SHM, buf, 20), -dome_invalid);
}
END_TEST

START_TEST(pt_check_refuses)
{
	static const char *const plugins[] = {
		"ringside-qemu-pt.so", "./x.so", "", "/a,b/x.so", NULL
	};
	static const uint64_t psbs[] = {
		1024, 3000, 4096 + 1, DOM_PT_PSB_MAX * 2, 1ull << 63
	};
	struct dom_pt pt = { .plugin = "/x.so" };
	const char *bad;
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++) {
		pt.plugin = plugins[i];
		ck_assert_int_eq(dom_pt_check(&pt, &bad), -dome_option);
		ck_assert_ptr_nonnull(strstr(bad, "pt-plugin"));
		ck_assert_int_eq(dom_pt_arg(&pt, SHM, buf, sizeof(buf)),
				 -dome_option);
	}
	pt.plugin = "/x.so";
	for (i = 0; i < sizeof(psbs) / sizeof(psbs[0]); i++) {
		pt.psb = psbs[i];
		ck_assert_int_eq(dom_pt_check(&pt, &bad), -dome_option);
		ck_assert_ptr_nonnull(strstr(bad, "pt-psb"));
	}
	pt.psb = DOM_PT_PSB_MIN;
	ck_assert_int_eq(dom_pt_check(&pt, &bad), 0);
	pt.psb = DOM_PT_PSB_MAX;
	ck_assert_int_eq(dom_pt_check(&pt, &bad), 0);
	ck_assert_ptr_null(bad);
}
END_TEST

START_TEST(pt_tcg_only)
{
	static const struct {
		const char *xml;
		int want;
	} cases[] = {
		{ "<domain type='qemu'><name>a</name></domain>", 0 },
		{ "<domain type='kvm'><name>a</name></domain>", -dome_not_tcg },
		{ "<domain type='xen'><name>a</name></domain>", -dome_not_tcg },
		{ "<domain type=''><name>a</name></domain>", -dome_xml },
		{ "<domain><name>a</name></domain>", -dome_xml },
	};
	char type[8];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dom_xml *x = parse(cases[i].xml);

		ck_assert_int_eq(dom_xml_tcg(x), cases[i].want);
		dom_xml_free(x);
	}
	{
		struct dom_xml *x = parse(cases[1].xml);

		ck_assert_int_eq(dom_xml_type(x, type, sizeof(type)), 0);
		ck_assert_str_eq(type, "kvm");
		ck_assert_int_eq(dom_xml_type(x, type, 3), -dome_xml);
		dom_xml_free(x);
	}
	ck_assert_ptr_nonnull(strstr(dom_error_str(-dome_not_tcg), "TCG"));
}
END_TEST

/* A domain without passthrough: the namespace and the element are made,
 * found again after libvirt's round trip (text), and taken out. */
START_TEST(pt_set_plain)
{
	struct dom_xml *x = parse(plain_xml), *y;
	char *t, *arg = NULL, vals[512];

	ck_assert_int_eq(dom_pt_xml_arg(x, SHM, &arg), 0);
	ck_assert_ptr_null(arg);
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, OURS), 0);
	t = format(x);
	dom_xml_free(x);
	ck_assert_ptr_nonnull(strstr(t, "xmlns:qemu=\"" QNS "\""));
	arg_values(t, vals, sizeof(vals));
	ck_assert_str_eq(vals, "-plugin|" OURS);

	y = parse(t);
	free(t);
	ck_assert_int_eq(dom_pt_xml_arg(y, SHM, &arg), 1);
	ck_assert_str_eq(arg, OURS);
	free(arg);
	ck_assert_int_eq(dom_pt_xml_arg(y, "ringside-web2", NULL), 0);
	ck_assert_int_eq(dom_pt_xml_set(y, SHM, NULL), 1);
	t = format(y);
	ck_assert_int_eq(count(t, "commandline"), 0);
	ck_assert_int_eq(count(t, "-plugin"), 0);
	ck_assert_int_eq(dom_pt_xml_arg(y, SHM, NULL), 0);
	/* nothing more to take out */
	ck_assert_int_eq(dom_pt_xml_set(y, SHM, NULL), 0);
	dom_xml_free(y);
	free(t);
}
END_TEST

/* The operator's arguments (their own -plugin, whose options happen to
 * mention our file, and an env) stay in place and in order; ours go
 * after them; enable twice leaves one pair; disable gives back exactly
 * the document there was. */
START_TEST(pt_set_keeps_operator_args)
{
	char *before = reformat(operator_xml), *t, *t2, vals[1024];
	struct dom_xml *x = parse(operator_xml), *y;

	ck_assert_int_eq(dom_pt_xml_arg(x, SHM, NULL), 0);
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, OURS), 0);
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, OURS), 1);   /* replaced */
	t = format(x);
	dom_xml_free(x);
	arg_values(t, vals, sizeof(vals));
	ck_assert_str_eq(vals, "-plugin|/usr/lib/theirs.so,arg=region=/dev/shm/"
			 "ringside-web1|-d|plugin|-plugin|" OURS);
	ck_assert_int_eq(count(t, "commandline>"), 2);      /* one element */
	ck_assert_int_eq(count(t, "xmlns:qemu"), 1);
	ck_assert_ptr_nonnull(strstr(t, "<qemu:env name=\"QEMU_X\" value=\"1\"/>"));

	y = parse(t);
	ck_assert_int_eq(dom_pt_xml_set(y, SHM, NULL), 1);
	t2 = format(y);
	ck_assert_str_eq(t2, before);
	dom_xml_free(y);
	free(t);
	free(t2);
	free(before);
}
END_TEST

/* The QEMU namespace under another prefix, and "qemu" bound to another
 * namespace: elements are matched by URI, written in the operator's own
 * element, and a look-alike in the other namespace is left alone. */
START_TEST(pt_set_other_prefixes)
{
	static const char odd_xml[] =
		"<domain type='qemu' xmlns:qemu='urn:not-qemu'>\n"
		"  <name>web1</name>\n"
		"  <qemu:commandline>\n"
		"    <qemu:arg value='-plugin'/>\n"
		"    <qemu:arg value='/x.so,region=/dev/shm/ringside-web1'/>\n"
		"  </qemu:commandline>\n"
		"  <q:commandline xmlns:q='" QNS "'>\n"
		"    <q:arg value='-S'/>\n"
		"  </q:commandline>\n"
		"</domain>\n";
	static const char clash_xml[] =
		"<domain type='qemu' xmlns:qemu='urn:not-qemu'>\n"
		"  <name>web1</name>\n"
		"  <qemu:commandline><qemu:arg value='-S'/></qemu:commandline>\n"
		"</domain>\n";
	char *before = reformat(odd_xml), *t, *t2, vals[512];
	struct dom_xml *x = parse(odd_xml), *y;

	/* the look-alike is not ringside's */
	ck_assert_int_eq(dom_pt_xml_arg(x, SHM, NULL), 0);
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, OURS), 0);
	t = format(x);
	dom_xml_free(x);
	arg_values(t, vals, sizeof(vals));
	ck_assert_str_eq(vals, "-S|-plugin|" OURS);
	ck_assert_ptr_nonnull(strstr(t, "<q:arg value=\"-plugin\"/>"));
	/* the other namespace's element keeps both its arguments */
	ck_assert_int_eq(count(t, "<qemu:arg"), 2);
	y = parse(t);
	ck_assert_int_eq(dom_pt_xml_arg(y, SHM, NULL), 1);
	ck_assert_int_eq(dom_pt_xml_set(y, SHM, NULL), 1);
	t2 = format(y);
	ck_assert_str_eq(t2, before);
	dom_xml_free(y);
	free(t);
	free(t2);
	free(before);

	/* nothing of QEMU's, and "qemu" taken: a prefix of ringside's own */
	x = parse(clash_xml);
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, OURS), 0);
	t = format(x);
	dom_xml_free(x);
	ck_assert_ptr_nonnull(strstr(t, "xmlns:ringside-qemu=\"" QNS "\""));
	arg_values(t, vals, sizeof(vals));
	ck_assert_str_eq(vals, "-plugin|" OURS);
	ck_assert_ptr_nonnull(strstr(t, "<qemu:arg value=\"-S\"/>"));
	y = parse(t);
	ck_assert_int_eq(dom_pt_xml_arg(y, SHM, NULL), 1);
	dom_xml_free(y);
	free(t);
}
END_TEST

/* What is not ringside's pair: another domain's region, a region name
 * that only starts like ours, region= as the plugin's path, a "-plugin"
 * with nothing after it or an <env> after it. */
START_TEST(pt_set_not_ours)
{
	static const char xml[] =
		"<domain type='qemu' xmlns:qemu='" QNS "'>\n"
		"  <name>web1</name>\n"
		"  <qemu:commandline>\n"
		"    <qemu:arg value='-plugin'/>\n"
		"    <qemu:arg value='/p.so,region=/dev/shm/ringside-web2'/>\n"
		"    <qemu:arg value='-plugin'/>\n"
		"    <qemu:arg value='/p.so,region=/dev/shm/ringside-web1x'/>\n"
		"    <qemu:arg value='-plugin'/>\n"
		"    <qemu:arg value='region=/dev/shm/ringside-web1'/>\n"
		"    <qemu:arg value='-plugin'/>\n"
		"    <qemu:env name='A' value='/p.so,region=/dev/shm/ringside-web1'/>\n"
		"    <qemu:arg value='-plugin'/>\n"
		"  </qemu:commandline>\n"
		"</domain>\n";
	char *before = reformat(xml), *t;
	struct dom_xml *x = parse(xml);

	ck_assert_int_eq(dom_pt_xml_arg(x, SHM, NULL), 0);
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, NULL), 0);
	t = format(x);
	ck_assert_str_eq(t, before);
	free(t);
	/* ours after theirs, and off again: theirs as they were */
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, OURS), 0);
	ck_assert_int_eq(dom_pt_xml_arg(x, "ringside-web2", NULL), 1);
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, NULL), 1);
	t = format(x);
	ck_assert_str_eq(t, before);
	free(t);
	free(before);
	dom_xml_free(x);
}
END_TEST

/* Two <qemu:commandline> elements, ringside's pair in each (a document
 * edited by hand): both pairs go, the operator's element stays, the one
 * left empty goes; a new pair lands in the first. */
START_TEST(pt_set_two_elements)
{
	static const char xml[] =
		"<domain type='qemu' xmlns:qemu='" QNS "'>\n"
		"  <name>web1</name>\n"
		"  <qemu:commandline>\n"
		"    <!-- the operator's -->\n"
		"    <qemu:arg value='-S'/>\n"
		"    <qemu:arg value='-plugin'/>\n"
		"    <qemu:arg value='" OURS "'/>\n"
		"  </qemu:commandline>\n"
		"  <qemu:commandline>\n"
		"    <qemu:arg value='-plugin'/>\n"
		"    <qemu:arg value='/old.so,region=/dev/shm/ringside-web1,filter=all'/>\n"
		"  </qemu:commandline>\n"
		"</domain>\n";
	struct dom_xml *x = parse(xml);
	char *t, vals[512];

	ck_assert_int_eq(dom_pt_xml_set(x, SHM, NULL), 2);
	t = format(x);
	arg_values(t, vals, sizeof(vals));
	ck_assert_str_eq(vals, "-S");
	ck_assert_int_eq(count(t, "<qemu:commandline>"), 1);
	ck_assert_ptr_nonnull(strstr(t, "the operator's"));
	free(t);
	ck_assert_int_eq(dom_pt_xml_set(x, SHM, OURS), 0);
	t = format(x);
	arg_values(t, vals, sizeof(vals));
	ck_assert_str_eq(vals, "-S|-plugin|" OURS);
	free(t);
	dom_xml_free(x);
}
END_TEST

/* XML that tries more than it should: an external entity (never
 * loaded: no network, no expansion) and a value with markup in it,
 * written back escaped. */
START_TEST(pt_set_hostile)
{
	static const char xml[] =
		"<?xml version='1.0'?>\n"
		"<!DOCTYPE domain [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>\n"
		"<domain type='qemu' xmlns:qemu='" QNS "'>\n"
		"  <name>web1&e;</name>\n"
		"  <qemu:commandline>\n"
		"    <qemu:arg value='&quot;/&gt;&lt;qemu:arg value=&quot;-S'/>\n"
		"  </qemu:commandline>\n"
		"</domain>\n";
	struct dom_xml *x = parse(xml);
	char *t, vals[512];

	ck_assert_int_eq(dom_pt_xml_set(x, SHM, OURS), 0);
	t = format(x);
	ck_assert_ptr_null(strstr(t, "root:"));
	arg_values(t, vals, sizeof(vals));
	ck_assert_str_eq(vals, "\"/><qemu:arg value=\"-S|-plugin|" OURS);
	free(t);
	dom_xml_free(x);
	/* not a domain: nothing to edit */
	ck_assert_int_eq(dom_pt_xml_set(NULL, SHM, OURS), -dome_xml);
}
END_TEST

/* An empty <metadata> goes, one with anything in it stays. */
START_TEST(pt_metadata_tidy)
{
	static const char xml[] =
		"<domain type='qemu'><name>a</name><metadata>\n  </metadata>"
		"<metadata><!-- kept --></metadata>"
		"<metadata><x:y xmlns:x='urn:x'/></metadata></domain>";
	struct dom_xml *x = parse(xml);
	char *t;

	ck_assert_int_eq(dom_xml_metadata_tidy(x), 1);
	ck_assert_int_eq(dom_xml_metadata_tidy(x), 0);
	t = format(x);
	ck_assert_int_eq(count(t, "<metadata>"), 2);
	ck_assert_ptr_nonnull(strstr(t, "kept"));
	free(t);
	dom_xml_free(x);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("domain_pt");
	TCase *tc = tcase_create("domain_pt");

	tcase_add_test(tc, pt_arg_format);
	tcase_add_test(tc, pt_check_refuses);
	tcase_add_test(tc, pt_tcg_only);
	tcase_add_test(tc, pt_set_plain);
	tcase_add_test(tc, pt_set_keeps_operator_args);
	tcase_add_test(tc, pt_set_other_prefixes);
	tcase_add_test(tc, pt_set_not_ours);
	tcase_add_test(tc, pt_set_two_elements);
	tcase_add_test(tc, pt_set_hostile);
	tcase_add_test(tc, pt_metadata_tidy);
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
