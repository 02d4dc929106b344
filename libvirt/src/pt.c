/* SPDX-License-Identifier: MIT */
/*
 * ringside's QEMU TCG plugin in a domain's <qemu:commandline>: the
 * argument it takes, finding ringside's "-plugin" pair among the
 * operator's own arguments, and replacing or removing exactly that pair.
 * Domain XML is the operator's: anything not ringside's pair is left as it
 * was, whatever prefix its namespaces use.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "domain_internal.h"

#define PLUGIN_OPT "-plugin"

int dom_pt_check(const struct dom_pt *pt, const char **bad)
{
	size_t n = pt && pt->plugin ? strlen(pt->plugin) : 0;

	*bad = NULL;
	if (!n || pt->plugin[0] != '/' || n >= PATH_MAX)
		*bad = "pt-plugin: an absolute path of the plugin file";
	else if (strchr(pt->plugin, ','))
		*bad = "pt-plugin: a path without ',' (QEMU's option separator)";
	else if (pt->psb && (pt->psb < DOM_PT_PSB_MIN ||
			     pt->psb > DOM_PT_PSB_MAX || (pt->psb & (pt->psb - 1))))
		*bad = "pt-psb: bytes between PSBs, a power of two from 2048 to "
		       "1048576";
	return *bad ? -dome_option : 0;
}

int dom_pt_arg(const struct dom_pt *pt, const char *shm_name, char *buf,
	       size_t len)
{
	const char *bad;
	char psb[40] = "";
	int n;

	if (dom_pt_check(pt, &bad))
		return -dome_option;
	if (pt->psb)
		snprintf(psb, sizeof(psb), ",psb=%" PRIu64, pt->psb);
	n = snprintf(buf, len, "%s,region=%s/%s,filter=%s%s", pt->plugin,
		     DOM_SHM_DIR, shm_name, pt->all ? "all" : "kernel", psb);
	return (n < 0 || (size_t)n >= len) ? -dome_invalid : n;
}

/* An element of libvirt's QEMU namespace named @name. */
static int is_qemu(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
	       !strcmp((const char *)n->ns->href, DOM_QEMU_XMLNS) &&
	       !strcmp((const char *)n->name, name);
}

static xmlNode *next_elem(xmlNode *n)
{
	for (n = n ? n->next : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE)
			return n;
	return NULL;
}

/* <qemu:arg value=@want/>? */
static int arg_is(const xmlNode *n, const char *want)
{
	xmlChar *v;
	int ret;

	if (!is_qemu(n, "arg"))
		return 0;
	v = xmlGetNoNsProp(n, (const xmlChar *)"value");
	ret = v && !strcmp((const char *)v, want);
	xmlFree(v);
	return ret;
}

/* Does the plugin argument @v map region file @shm_name?  Its first field
 * is the plugin's path (or file=PATH); an option region=FILE after it
 * names the region. */
static int value_is_ours(const char *v, const char *shm_name)
{
	char want[DOM_SHM_NAME_MAX + sizeof(DOM_SHM_DIR) + 16];
	size_t wn;
	const char *s;

	snprintf(want, sizeof(want), "region=%s/%s", DOM_SHM_DIR, shm_name);
	wn = strlen(want);
	for (s = strchr(v, ','); s; s = strchr(s + 1, ','))
		if (!strncmp(s + 1, want, wn) && (s[1 + wn] == ',' ||
						   s[1 + wn] == '\0'))
			return 1;
	return 0;
}

/* The argument after "-plugin" at @n, when it is ringside's. */
static xmlNode *ours_after(xmlNode *n, const char *shm_name)
{
	xmlNode *v = next_elem(n);
	xmlChar *val;
	int ours;

	if (!arg_is(n, PLUGIN_OPT) || !is_qemu(v, "arg"))
		return NULL;
	val = xmlGetNoNsProp(v, (const xmlChar *)"value");
	ours = val && value_is_ours((const char *)val, shm_name);
	xmlFree(val);
	return ours ? v : NULL;
}

int dom_pt_xml_arg(const struct dom_xml *x, const char *shm_name,
		    char **arg)
{
	xmlNode *r = dom_xml_domain(x), *cl, *n, *v;

	if (arg)
		*arg = NULL;
	for (cl = r ? r->children : NULL; cl; cl = cl->next) {
		if (!is_qemu(cl, "commandline"))
			continue;
		for (n = cl->children; n; n = n->next) {
			if (!(v = ours_after(n, shm_name)))
				continue;
			if (arg) {
				xmlChar *val = xmlGetNoNsProp(v, (const xmlChar *)"value");

				*arg = val ? strdup((const char *)val) : NULL;
				xmlFree(val);
				if (!*arg)
					return -ENOMEM;
			}
			return 1;
		}
	}
	return 0;
}

static int has_elem_child(const xmlNode *n)
{
	for (n = n->children; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE)
			return 1;
	return 0;
}

/* Unlink and free ringside's pairs under one <qemu:commandline>. */
static int remove_pairs(xmlNode *cl, const char *shm_name)
{
	xmlNode *n = cl->children, *v, *next;
	int removed = 0;

	while (n) {
		v = ours_after(n, shm_name);
		if (!v) {
			n = n->next;
			continue;
		}
		next = v->next;
		xmlUnlinkNode(n);
		xmlFreeNode(n);
		xmlUnlinkNode(v);
		xmlFreeNode(v);
		removed++;
		n = next;
	}
	return removed;
}

/* The namespace to write new elements in: the URI's declaration in scope
 * at <domain>, or a new one there under a prefix not bound to another. */
static xmlNs *qemu_ns(xmlNode *root)
{
	static const char *const prefixes[] = { "qemu", "ringside-qemu",
						"ringside-qemu1" };
	xmlNs *ns = xmlSearchNsByHref(root->doc, root,
				      (const xmlChar *)DOM_QEMU_XMLNS);
	size_t i;

	if (ns)
		return ns;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!xmlSearchNs(root->doc, root, (const xmlChar *)prefixes[i]))
			return xmlNewNs(root, (const xmlChar *)DOM_QEMU_XMLNS,
					(const xmlChar *)prefixes[i]);
	return NULL;
}

static int add_arg(xmlNode *cl, const char *value)
{
	xmlNode *n = xmlNewChild(cl, cl->ns, (const xmlChar *)"arg", NULL);

	if (!n || !xmlNewProp(n, (const xmlChar *)"value",
			      (const xmlChar *)value))
		return -ENOMEM;
	return 0;
}

int dom_pt_xml_set(struct dom_xml *x, const char *shm_name, const char *arg)
{
	xmlNode *r = dom_xml_domain(x), *cl, *next, *first = NULL;
	int removed = 0, k, err;

	if (!r || !shm_name)
		return -dome_xml;
	for (cl = r->children; cl; cl = next) {
		next = cl->next;
		if (!is_qemu(cl, "commandline"))
			continue;
		k = remove_pairs(cl, shm_name);
		if (k) {
			removed += k;
			if (!has_elem_child(cl)) {
				xmlUnlinkNode(cl);
				xmlFreeNode(cl);
				continue;
			}
		}
		if (!first)
			first = cl;
	}
	if (!arg)
		return removed;
	if (!first) {
		xmlNs *ns = qemu_ns(r);

		if (!ns)
			return -ENOMEM;
		first = xmlNewChild(r, ns, (const xmlChar *)"commandline", NULL);
		if (!first)
			return -ENOMEM;
	}
	err = add_arg(first, PLUGIN_OPT);
	if (!err)
		err = add_arg(first, arg);
	return err ? err : removed;
}
