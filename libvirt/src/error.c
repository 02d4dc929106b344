/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "domain_internal.h"

static char detail[512];

const char *dom_error_str(int err)
{
	static const char *const msg[dome_max - DOM_ERROR_BASE] = {
#define M(e) [(e) - DOM_ERROR_BASE]
		M(dome_invalid)     = "invalid argument",
		M(dome_option)      = "invalid ringside option",
		M(dome_too_big)     = "the trace region would be larger than 1 GiB",
		M(dome_name)        = "a domain name ringside cannot use in a file "
				      "name (letters, digits, '.', '_', '+', '-')",
		M(dome_xml)         = "malformed domain XML",
		M(dome_version)     = "ringside metadata of another version",
		M(dome_no_domain)   = "no libvirt domain of that name",
		M(dome_not_enabled) = "the domain is not enabled for ringside "
				      "(no ringside metadata; see 'ringside enable')",
		M(dome_no_shmem)    = "the domain has ringside metadata but no "
				      "ringside <shmem> device; run 'ringside enable' again",
		M(dome_size)        = "the <shmem> size does not match the ringside "
				      "metadata; run 'ringside enable' again",
		M(dome_transient)   = "a transient domain has no persistent XML to change",
		M(dome_not_running) = "the domain is not running, so it has no trace region",
		M(dome_libvirt)     = "libvirt call failed",
		M(dome_no_libvirt)  = "this ringside was built without libvirt",
		M(dome_internal)    = "internal error of ringside's libvirt library",
		M(dome_not_tcg)     = "the domain does not run on QEMU's TCG "
				      "(<domain type='qemu'>): PT comes from a TCG "
				      "plugin, which KVM does not run",
		M(dome_not_ours)    = "not a region file ringside made",
#undef M
	};
	static char with_detail[600];

	if (err >= 0)
		return "success";
	if (err > -DOM_ERROR_BASE)
		return strerror(-err);
	if (err <= -dome_max || !msg[-err - DOM_ERROR_BASE])
		return "unknown domain error";
	if (err == -dome_libvirt && detail[0]) {
		snprintf(with_detail, sizeof(with_detail), "libvirt: %s", detail);
		return with_detail;
	}
	return msg[-err - DOM_ERROR_BASE];
}

void dom_error_detail_set(const char *msg)
{
	snprintf(detail, sizeof(detail), "%s", msg ? msg : "");
}
