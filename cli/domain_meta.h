/* SPDX-License-Identifier: MIT */
/*
 * ringside's opt-in of a libvirt domain: what its <metadata> element says
 * (struct dom_cfg), how that is written and read back, and the region it
 * asks for.  Pure: no libvirt, no XML library, no I/O.
 *
 *   <ringside:region xmlns:ringside="https://ringside.dev/xmlns/1"
 *       version="1" rings="2" data-pages="64" aux-pages="0"
 *       mode="overwrite" trace="samples,markers" freq="1000"/>
 *
 * The region lives in /dev/shm/ringside-DOMAIN, shared with the guest by an
 * ivshmem-plain <shmem name="ringside-DOMAIN"> device of dom_cfg.size bytes.
 */
#ifndef RINGSIDE_CLI_DOMAIN_META_H
#define RINGSIDE_CLI_DOMAIN_META_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"

#define DOM_XMLNS        "https://ringside.dev/xmlns/1"
#define DOM_XMLNS_KEY    "ringside"   /* the namespace prefix libvirt writes */
#define DOM_META_ELEMENT "region"
#define DOM_META_VERSION 1u
#define DOM_SHM_PREFIX   "ringside-"
#define DOM_SHM_DIR      "/dev/shm"
#define DOM_NAME_MAX     200u         /* domain name bytes we accept */
#define DOM_REGION_MIN   (1ull << 20) /* QEMU's ivshmem minimum */
#define DOM_REGION_MAX   (1ull << 30) /* ringside's own ceiling */
#define DOM_FREQ_MAX     100000u

/* The guest's samples: what a Linux agent asks its kernel for. */
#define DOM_SAMPLE_TYPE (RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID | \
			 RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_CPU | \
			 RS_PERF_SAMPLE_PERIOD | RS_PERF_SAMPLE_CALLCHAIN | \
			 RS_PERF_SAMPLE_RAW)

struct dom_cfg {
	uint32_t rings;       /* 1 .. RS_MAX_RINGS, normally the vCPU count */
	uint32_t data_pages;  /* power of two >= 1 */
	uint32_t aux_pages;   /* power of two, or 0 */
	uint32_t mode;        /* enum rs_mode, for data and AUX */
	uint64_t trace_mask;  /* enum rs_trace_bit */
	uint32_t freq;        /* samples per second and vCPU, 1 .. DOM_FREQ_MAX */
	uint64_t size;        /* region bytes, set by dom_cfg_check() */
};

/* Errors of this module and of domain_xml/domain_virt, as
 * -(ERR_DOM + e); dom_errstr() names them. */
enum dom_error {
	dome_ok = 0,
	dome_invalid,      /* caller passed nonsense */
	dome_option,       /* a value out of range (message names the key) */
	dome_too_big,      /* the region would exceed DOM_REGION_MAX */
	dome_name,         /* a domain name ringside cannot use in a file name */
	dome_xml,          /* XML that does not parse or lacks what it must have */
	dome_version,      /* metadata of another version of this namespace */
	dome_no_domain,    /* libvirt has no domain of that name */
	dome_not_enabled,  /* the domain has no ringside metadata */
	dome_no_shmem,     /* metadata without its <shmem> device */
	dome_size,         /* <shmem> size does not match the metadata */
	dome_transient,    /* a transient domain: no persistent XML to change */
	dome_not_running,  /* the domain is not running: it has no region */
	dome_libvirt,      /* a libvirt call failed (dom_virt_detail() says why) */
	dome_no_libvirt,   /* this ringside was built without libvirt */
	dome_max
};

/* Never NULL.  Takes the code as returned (negative, with ERR_DOM); for
 * dome_libvirt it includes libvirt's own message (dom_detail()). */
const char *dom_errstr(int err);

/* libvirt's words for the last failure, kept by domain_virt ("" if none). */
void dom_detail_set(const char *msg);
const char *dom_detail(void);

/* Defaults: rings 0 (= the vCPU count), 64 data pages, no AUX, overwrite,
 * samples and markers, 1000 Hz. */
void dom_cfg_default(struct dom_cfg *c);

/*
 * Set one attribute from its text (the names of the XML above, e.g.
 * "data-pages", "mode", "trace").  Sets *@bad to a static description of
 * what is wrong on failure.  -(ERR_DOM + dome_option | dome_version).
 */
int dom_cfg_set(struct dom_cfg *c, const char *key, const char *value,
		const char **bad);

/*
 * Check every value and their sum, and set c->size: the layout rounded up
 * to a power of two, at least DOM_REGION_MIN.  *@bad as above.
 * -(ERR_DOM + dome_option | dome_too_big).
 */
int dom_cfg_check(struct dom_cfg *c, const char **bad);

/* The region parameters for rs_region_layout (after dom_cfg_check). */
void dom_cfg_params(const struct dom_cfg *c, struct rs_region_params *p);

/* The metadata element, without namespace prefix (libvirt adds it), as
 * virDomainSetMetadata takes it.  Returns the length; -(ERR_DOM +
 * dome_invalid) when @len is too small. */
int dom_cfg_format(const struct dom_cfg *c, char *buf, size_t len);

/* "samples,markers" for a trace mask; @buf >= 64 bytes. */
const char *dom_trace_names(uint64_t mask, char *buf, size_t len);

/* 0 if @name may be part of the region's file name, else -(ERR_DOM +
 * dome_name). */
int dom_name_check(const char *name);

/* "ringside-NAME" into @buf.  -(ERR_DOM + dome_name). */
int dom_shm_name(const char *domain, char *buf, size_t len);

#endif /* RINGSIDE_CLI_DOMAIN_META_H */
