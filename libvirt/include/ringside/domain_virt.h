/* SPDX-License-Identifier: MIT */
/*
 * The libvirt calls ringside makes on one domain, and what `ringside
 * record|snapshot|stat DOMAIN` build on them.  This part links libvirt;
 * built without it, every call fails with -dome_no_libvirt.  libvirt's
 * default error handler, which prints, is replaced: its words for the last
 * failure are what dom_error_str(-dome_libvirt) says.
 *
 * @uri NULL means libvirt's default (LIBVIRT_DEFAULT_URI, else
 * qemu:///system for root).  Every change goes to the persistent
 * configuration only (VIR_DOMAIN_AFFECT_CONFIG): it applies at the next
 * start, never to a running guest; the *_in() calls say where a change
 * goes, the running domain included (`enable --live`, `disable --live`).
 *
 * Errors as in domain.h: -errno or -dome_*.  Every call below that talks
 * to libvirt can also fail with -dome_libvirt (libvirt refused) and
 * -dome_no_libvirt.
 */
#ifndef RINGSIDE_DOMAIN_VIRT_H
#define RINGSIDE_DOMAIN_VIRT_H

#include <stddef.h>

#include "ringside/domain.h"

struct dom_virt;

/* Connect and look @name up into *@dp (NULL on failure).
 * -dome_no_domain, -ENOMEM. */
int dom_virt_open(struct dom_virt **dp, const char *uri, const char *name,
		  int readonly);

/* Accepts NULL. */
void dom_virt_close(struct dom_virt *d);

/* 1 yes, 0 no. */
int dom_virt_active(struct dom_virt *d);
int dom_virt_persistent(struct dom_virt *d);

/* The domain XML (persistent with @inactive, else live), malloc'ed. */
int dom_virt_xml(struct dom_virt *d, int inactive, char **xml);

/* The persistent XML with its secrets, malloc'ed: the text to edit and
 * give back to dom_virt_define().  Needs a read-write connection. */
int dom_virt_xml_define(struct dom_virt *d, char **xml);

/* Define the domain anew from @xml (its persistent configuration; a
 * running domain keeps its own until it restarts). */
int dom_virt_define(struct dom_virt *d, const char *xml);

/* The domain XML parsed: the live one (@which 0), the persistent one (1),
 * or what dom_virt_xml_define gives (DOM_VIRT_XML_DEFINE).  *@xp is NULL
 * on failure; dom_xml_free() it. */
#define DOM_VIRT_XML_DEFINE 2
int dom_virt_xml_parse(struct dom_virt *d, int which, struct dom_xml **xp);

/* Put ringside's QEMU plugin argument @arg for region file @shm_name on
 * the persistent definition's command line, or with @arg NULL take it
 * off (dom_pt_xml_set), and define the domain anew when that changed
 * it.  1 defined anew, 0 nothing to change; the errors of the calls. */
int dom_virt_pt_set(struct dom_virt *d, const char *shm_name,
		    const char *arg);

/* ringside's metadata element, malloc'ed (persistent with @inactive).
 * -dome_not_enabled. */
int dom_virt_meta_get(struct dom_virt *d, int inactive, char **xml);

/* Set (@xml, as dom_cfg_format writes it) or remove (NULL) ringside's
 * metadata element. */
int dom_virt_meta_set(struct dom_virt *d, const char *xml);

/* Add or remove a device (@xml as dom_shm_xml or dom_xml_shmem give it). */
int dom_virt_attach(struct dom_virt *d, const char *xml);
int dom_virt_detach(struct dom_virt *d, const char *xml);

/* --- changes to the running domain ---------------------------------------- */

/* Where a change goes: the persistent configuration, the running domain
 * (VIR_DOMAIN_AFFECT_CONFIG, _LIVE), or both. */
#define DOM_VIRT_CONFIG 1u
#define DOM_VIRT_LIVE   2u

/* dom_virt_meta_set, dom_virt_attach and dom_virt_detach @where.  A live
 * attach hot-plugs the device into the running guest (QEMU's device_add:
 * it returns once QEMU has the device, before the guest's kernel saw
 * it).  A live detach asks the guest to let the device go (ACPI eject)
 * and returns once it did or libvirt stopped waiting for it (seconds):
 * dom_virt_has_device() tells which.  -dome_not_running (LIVE on a domain
 * that is not running), -dome_invalid (@where 0 or unknown bits). */
int dom_virt_meta_set_in(struct dom_virt *d, const char *xml, unsigned where);
int dom_virt_attach_in(struct dom_virt *d, const char *xml, unsigned where);
int dom_virt_detach_in(struct dom_virt *d, const char *xml, unsigned where);

/* 1 if the running domain (the live XML) has the <shmem name=@shm_name>
 * device, 0 if not.  -dome_xml (one of that name that is not
 * ivshmem-plain). */
int dom_virt_has_device(struct dom_virt *d, const char *shm_name);

/* Pause the guest's vCPUs: 1 paused here, 0 it was paused already (leave
 * it paused).  Resume them.  -dome_not_running. */
int dom_virt_suspend(struct dom_virt *d);
int dom_virt_resume(struct dom_virt *d);

/* dom_virt_suspend in its two steps, so that a caller can time the pause
 * itself: whether the domain runs (1), is stopped already (0, leave it),
 * or cannot be paused (-dome_not_running); then the suspend request alone
 * (1 once QEMU has stopped the vCPUs). */
int dom_virt_can_suspend(struct dom_virt *d);
int dom_virt_suspend_now(struct dom_virt *d);

/* The guest's largest RAM, bytes (libvirt's maxMem). */
int dom_virt_ram_bytes(struct dom_virt *d, unsigned long long *bytes);

/* Read @len bytes (at most DOM_PEEK_MAX per call: libvirt's remote
 * driver's limit) of guest-physical memory at @gpa into @buf: QEMU's
 * pmemsave, read-only.  -EINVAL (@len beyond the limit). */
#define DOM_PEEK_MAX 65536u
int dom_virt_peek_phys(struct dom_virt *d, unsigned long long gpa, size_t len,
		       void *buf);

/* The same at guest-virtual address @gva, translated by QEMU through the
 * page tables of the guest's first vCPU (the kernel's half is the same in
 * all of them). */
int dom_virt_peek_virt(struct dom_virt *d, unsigned long long gva, size_t len,
		       void *buf);

/* Every vCPU's registers as QEMU's monitor prints them ("info registers
 * -a": "CPU#N" then "RIP=..." lines), malloc'ed into *@text.  Needs a
 * read-write connection; libvirt logs the domain as tainted by a monitor
 * command. */
int dom_virt_vcpu_registers(struct dom_virt *d, char **text);

/* --- a domain's trace region --------------------------------------------- */

/*
 * 1 if REGION @spec names a libvirt domain rather than a file: no '/', not
 * "fd:N", and no file of that name in the current directory.  Else 0.
 */
int dom_region_is_domain(const char *spec);

/*
 * The region file of running domain @name, found through libvirt: its
 * ringside metadata, then its <shmem> device, then /dev/shm/NAME.
 * -dome_name, -dome_no_domain, -dome_not_running, -dome_not_enabled,
 * -dome_version, -dome_option, -dome_xml, -dome_no_shmem, -ENAMETOOLONG,
 * -ENOMEM.
 */
int dom_region_path(const char *name, char *path, size_t len);

/*
 * dom_region_path, and the params the hook laid the region out with (from
 * the same live metadata, rings resolved to the vCPU count as the hook
 * does) into @params: the geometry without the guest-writable header.
 * Errors as dom_region_path.
 */
int dom_region_layout(const char *name, char *path, size_t len,
		      struct rs_region_params *params);

/* ringside's QEMU plugin argument on running domain @name's command line
 * (the live XML): 1 (malloc'ed into *@arg), 0 none. */
int dom_region_pt(const char *name, char **arg);

/* Where a domain is in its life, for a recording that outlives a save
 * (dom_virt_life). */
enum dom_life {
	DOM_LIFE_RUNNING = 1,  /* active, its vCPUs running */
	DOM_LIFE_PAUSED,       /* active, its vCPUs stopped (paused, being
				* restored or migrated in, crashed and kept) */
	DOM_LIFE_SAVED,        /* shut off with its memory saved: `virsh save`
				* or a managed save; it may run on */
	DOM_LIFE_OFF,          /* shut off otherwise */
};

/* The domain's enum dom_life now, read only (virDomainGetState, and
 * whether a managed save image exists).  -dome_no_domain once it is gone
 * (a transient domain that was saved is gone). */
int dom_virt_life(struct dom_virt *d);

#endif /* RINGSIDE_DOMAIN_VIRT_H */
