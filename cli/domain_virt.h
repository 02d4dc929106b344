/* SPDX-License-Identifier: MIT */
/*
 * The libvirt calls ringside makes, on one domain.  Every failure is an
 * -(ERR_DOM + e) code; libvirt's own words for the last one are kept for
 * dom_detail() (libvirt's default handler, which prints, is replaced).
 *
 * @uri NULL means libvirt's default (LIBVIRT_DEFAULT_URI, else
 * qemu:///system for root).  Every change goes to the persistent
 * configuration only (VIR_DOMAIN_AFFECT_CONFIG): it applies at the next
 * start, never to a running guest.
 */
#ifndef RINGSIDE_CLI_DOMAIN_VIRT_H
#define RINGSIDE_CLI_DOMAIN_VIRT_H

struct dom_virt;

/* Connect and look @name up.  -(ERR_DOM + dome_no_domain | dome_libvirt |
 * dome_no_libvirt), -ENOMEM. */
int dom_virt_open(struct dom_virt **dp, const char *uri, const char *name,
		  int readonly);

/* Accepts NULL. */
void dom_virt_close(struct dom_virt *d);

/* 1 yes, 0 no.  -(ERR_DOM + dome_libvirt). */
int dom_virt_active(struct dom_virt *d);
int dom_virt_persistent(struct dom_virt *d);

/* The domain XML (persistent with @inactive, else live), malloc'ed.
 * -(ERR_DOM + dome_libvirt). */
int dom_virt_xml(struct dom_virt *d, int inactive, char **xml);

/* ringside's metadata element, malloc'ed (persistent with @inactive).
 * -(ERR_DOM + dome_not_enabled | dome_libvirt). */
int dom_virt_meta_get(struct dom_virt *d, int inactive, char **xml);

/* Set (@xml, as dom_cfg_format writes it) or remove (NULL) ringside's
 * metadata element.  -(ERR_DOM + dome_libvirt). */
int dom_virt_meta_set(struct dom_virt *d, const char *xml);

/* Add or remove a device.  -(ERR_DOM + dome_libvirt). */
int dom_virt_attach(struct dom_virt *d, const char *xml);
int dom_virt_detach(struct dom_virt *d, const char *xml);

/* Pause the guest's vCPUs: 1 paused here, 0 it was paused already (leave
 * it paused).  Resume them.  -(ERR_DOM + dome_not_running | dome_libvirt). */
int dom_virt_suspend(struct dom_virt *d);
int dom_virt_resume(struct dom_virt *d);

#endif /* RINGSIDE_CLI_DOMAIN_VIRT_H */
