/* SPDX-License-Identifier: MIT */
/*
 * ringside's opt-in of a libvirt domain: what its <metadata> element says
 * (struct dom_cfg), how that is written and read back, the region it asks
 * for, and the parts of libvirt's domain XML ringside reads.  Needs the
 * ring and opt libraries and libxml2; never libvirt (that is domain_virt.h).
 *
 *   <ringside:region xmlns:ringside="https://ringside.dev/xmlns/1"
 *       version="1" rings="2" data-pages="64" aux-pages="0"
 *       mode="overwrite" trace="samples,markers" freq="1000"
 *       sideband-pages="1024"/>
 *
 * The region lives in /dev/shm/ringside-DOMAIN, shared with the guest by an
 * ivshmem-plain <shmem name="ringside-DOMAIN"> device of dom_cfg.size bytes.
 *
 * Errors: every function that can fail returns a negative code, either
 * -errno (1 .. 4095) from a system call or an allocation, or -dome_*
 * (enum dom_error).  dom_error_str() names both.  The library never prints
 * and never exits.
 */
#ifndef RINGSIDE_DOMAIN_H
#define RINGSIDE_DOMAIN_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"

#define DOM_XMLNS        "https://ringside.dev/xmlns/1"
#define DOM_XMLNS_KEY    "ringside"   /* the namespace prefix libvirt writes */
#define DOM_META_ELEMENT "region"
#define DOM_META_VERSION 1u
#define DOM_SHM_PREFIX   "ringside-"
#define DOM_SHM_DIR      "/dev/shm"
/* A region file whose rings could not be kept when its domain stopped is
 * renamed DOM_SHM_PREFIX DOMAIN DOM_SHM_KEPT ('~' is in no domain name). */
#define DOM_SHM_KEPT     "~kept"
#define DOM_NAME_MAX     200u         /* domain name bytes we accept */
#define DOM_SHM_NAME_MAX (DOM_NAME_MAX + sizeof(DOM_SHM_PREFIX))
#define DOM_REGION_MIN   (1ull << 20) /* QEMU's ivshmem minimum */
#define DOM_REGION_MAX   (1ull << 30) /* ringside's own ceiling */
/* The region's default budget (enable --memory): 64 MiB keeps the
 * default 64 data pages a ring up to 192 vCPUs and bounds larger guests
 * (docs/operator-guide.md, "Memory"). */
#define DOM_MEMORY_DEFAULT_MIB 64u
#define DOM_FREQ_MAX     100000u
/* The sideband (the guest kernel's symbols, docs/abi.md): 4 MiB.  Debian
 * 12's 6.1 kernel has 1.9 MiB of /proc/kallsyms lines perf reads (49,674
 * functions, no module loaded); twice that leaves room for modules. */
#define DOM_SIDEBAND_PAGES_DEFAULT 1024u
#define DOM_SIDEBAND_PAGES_MAX     ((uint32_t)(RS_SIDEBAND_MAX / RS_PAGE_SIZE))
#define DOM_XML_MAX      (16u << 20)  /* bytes of domain XML we accept */

/* The guest's samples: what a Linux agent asks its kernel for. */
#define DOM_SAMPLE_TYPE (RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID | \
			 RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_CPU | \
			 RS_PERF_SAMPLE_PERIOD | RS_PERF_SAMPLE_CALLCHAIN | \
			 RS_PERF_SAMPLE_RAW)

/*
 * The library's own failures.  They start at DOM_ERROR_BASE, above every
 * errno, so that one negative int carries either; dom_error_str() names both.
 */
#define DOM_ERROR_BASE 12288

enum dom_error {
	dome_ok = 0,
	dome_invalid = DOM_ERROR_BASE, /* caller passed nonsense */
	dome_option,       /* a value out of range (*bad names the key) */
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
	dome_libvirt,      /* a libvirt call failed (dom_error_str() says why) */
	dome_no_libvirt,   /* the library was built without libvirt */
	dome_internal,     /* a broken invariant of this library */
	dome_not_tcg,      /* PT asked of a domain not run by QEMU's TCG */
	dome_not_ours,     /* a file in the region's place ringside did not
			    * make (dom_shm_open_region): left as it is */
	dome_max
};

/*
 * Never NULL.  Takes a code as returned (negative): strerror() for -errno,
 * the library's words for -dome_*; for -dome_libvirt libvirt's own message
 * for the last failure when there is one ("libvirt: ...").  >= 0 is
 * "success".  The text of -dome_libvirt lives until the next libvirt call.
 */
const char *dom_error_str(int err);

/* --- the metadata element, cfg.c (pure: no XML library, no I/O) ---------- */

struct dom_cfg {
	uint32_t rings;       /* 1 .. RS_MAX_RINGS, normally the vCPU count */
	uint32_t data_pages;  /* power of two >= 1 */
	uint32_t aux_pages;   /* power of two, or 0 */
	uint32_t mode;        /* enum rs_mode, for data and AUX */
	uint64_t trace_mask;  /* enum rs_trace_bit */
	uint32_t freq;        /* samples per second and vCPU, 1 .. DOM_FREQ_MAX */
	uint64_t size;        /* region bytes, set by dom_cfg_check() */
	uint32_t sideband_pages; /* 0 .. DOM_SIDEBAND_PAGES_MAX; 0: none */
};

/* Defaults: rings 0 (= the vCPU count), 64 data pages, no AUX, overwrite,
 * samples and markers, 1000 Hz, DOM_SIDEBAND_PAGES_DEFAULT sideband pages.
 * Metadata read back from XML has no sideband unless it says so (an
 * element written before sidebands existed describes a region without). */
void dom_cfg_default(struct dom_cfg *c);

/*
 * Set one attribute from its text (the names of the XML above, e.g.
 * "data-pages", "mode", "trace").  Sets *@bad to a static description of
 * what is wrong on failure, NULL on success.
 * -dome_option (a value out of range, an unknown key), -dome_version
 * ("version" other than DOM_META_VERSION).
 */
int dom_cfg_set(struct dom_cfg *c, const char *key, const char *value,
		const char **bad);

/*
 * Check every value and their sum, and set c->size: the layout rounded up
 * to a power of two, at least DOM_REGION_MIN.  *@bad as above.
 * -dome_option, -dome_too_big (more than DOM_REGION_MAX).
 */
int dom_cfg_check(struct dom_cfg *c, const char **bad);

/*
 * dom_cfg_check, with c->data_pages halved (from what @c holds) until
 * the region fits @budget bytes; at least one page.  -dome_too_big when
 * one page a ring does not fit, else as dom_cfg_check.
 */
int dom_cfg_fit(struct dom_cfg *c, uint64_t budget, const char **bad);

/* The region parameters for rs_region_layout (after dom_cfg_check). */
void dom_cfg_params(const struct dom_cfg *c, struct rs_region_params *p);

/*
 * The metadata element, without namespace prefix (libvirt adds it), as
 * virDomainSetMetadata takes it.  Returns its length.
 * -dome_invalid: @len is too small.
 */
int dom_cfg_format(const struct dom_cfg *c, char *buf, size_t len);

/* "samples,markers" for a trace mask; @buf >= 64 bytes.  Returns @buf. */
const char *dom_cfg_trace_names(uint64_t mask, char *buf, size_t len);

/* --- how long a ring holds at the sample rate, cfg.c (pure) --------------- */

/*
 * The arithmetic of docs/operator-guide.md, "How long the rings hold".  A
 * sample of DOM_SAMPLE_TYPE with a call chain of F frames takes
 * dom_cfg_sample_bytes(F) bytes of a ring: the header, IP, TID, TIME, CPU and
 * PERIOD (8 bytes each), the chain (its count, F frames and a context
 * marker each for the kernel's and the user's part) and RAW (empty for
 * the agent's cpu-clock event: a size word padded to 8).  The agent
 * forwards the kernel's samples at its beat or when a kernel buffer holds
 * three quarters of a ring, so a ring takes at most that at once; in
 * normal mode it must hold DOM_HOLD_MS of samples (`ringside record`'s
 * pass) and the longest time the host takes `record` away from its CPU
 * (a stall) on top of it.
 */
#define DOM_CHAIN_FRAMES_TYPICAL 32u   /* a deep kernel + user stack */
#define DOM_CHAIN_FRAMES_MAX     127u  /* Linux's perf_event_max_stack */
#define DOM_HOLD_MS              100u  /* record's pass, as operator-guide.md says */
#define DOM_STALL_MS_DEFAULT     10u   /* bench/stalls' longest step here
					* (9.7 ms, docs/benchmarks.md) */
#define DOM_STALL_MS_MAX         60000u

uint32_t dom_cfg_sample_bytes(uint32_t frames);

struct dom_hold {
	uint64_t ring_bytes;      /* one ring's data area */
	uint32_t freq;            /* samples per second and vCPU */
	uint32_t bytes_typical;   /* a sample, DOM_CHAIN_FRAMES_TYPICAL frames */
	uint32_t bytes_max;       /* a sample, DOM_CHAIN_FRAMES_MAX frames */
	uint64_t hold_us_typical; /* how long the ring holds, microseconds */
	uint64_t hold_us_max;     /* ... at the largest samples */
	uint32_t need_ms;         /* what a normal ring must hold: the
				   * agent's period + the stall */
	int short_of;             /* normal mode, hold_us_max < need_ms */
	uint32_t pages_needed;    /* the fewest data pages (a power of two)
				   * that hold need_ms at the largest samples */
};

/* How long each of @c's rings holds at @c->freq, and whether a normal
 * ring covers @stall_ms (0: DOM_STALL_MS_DEFAULT).  @c as dom_cfg_check
 * left it. */
void dom_cfg_hold(const struct dom_cfg *c, uint32_t stall_ms,
		  struct dom_hold *h);

/* --- the region file's name and device, shm.c (pure) ---------------------- */

/*
 * The <shmem name=@shm_name role='master'> ivshmem-plain device of @size
 * bytes (a power of two >= 1 MiB), as `ringside enable` attaches it: the
 * master role makes the region migratable (save, managedsave, migration).  Returns its length.
 * -dome_invalid: @len is too small.
 */
int dom_shm_xml(const char *shm_name, uint64_t size, char *buf, size_t len);

/* 0 if @name may be part of the region's file name.  -dome_name. */
int dom_shm_name_check(const char *name);

/* "ringside-NAME" into @buf (DOM_SHM_NAME_MAX bytes always do).
 * -dome_name: a bad name, or @len too small. */
int dom_shm_name(const char *domain, char *buf, size_t len);

/* --- reading and editing domain XML, xml.c (libxml2) ----------------------
 * The parts ringside needs: name, vCPU count, ringside's <metadata>
 * element, the ringside <shmem> device.  Used on libvirt's persistent XML
 * and by the hook on the XML libvirt hands it, which it must never ask
 * libvirt for.  Parsed without network access and without entity
 * expansion.
 */

struct dom_xml;

/* Parse @len bytes of a <domain> document into *@xp (NULL on failure).
 * -dome_xml (not XML, not a <domain>, empty, more than DOM_XML_MAX),
 * -ENOMEM. */
int dom_xml_parse(struct dom_xml **xp, const char *text, size_t len);

/* Accepts NULL. */
void dom_xml_free(struct dom_xml *x);

/* <name> into @buf.  -dome_xml: missing, empty or longer than @len. */
int dom_xml_name(const struct dom_xml *x, char *buf, size_t len);

/* <vcpu> (the maximum).  -dome_xml: missing, 0 or not a number. */
int dom_xml_vcpus(const struct dom_xml *x, uint32_t *nr);

/*
 * ringside's <metadata> element into @c (on top of what @c holds).
 * -dome_not_enabled when there is none; dom_cfg_set()'s errors with *@bad
 * set; -dome_version with *@bad set when "version" is missing; -ENOMEM.
 */
int dom_xml_meta(const struct dom_xml *x, struct dom_cfg *c, const char **bad);

/* The same for the element alone, as virDomainGetMetadata returns it.
 * Also -dome_xml: not XML, or not a <region> element. */
int dom_xml_meta_parse(const char *text, struct dom_cfg *c, const char **bad);

/*
 * The <shmem name=@name> device: 1 found (its size in *@size when not
 * NULL, its XML in *@xml, malloc'ed, when not NULL), 0 none.
 * dom_xml_shmem_master: 1 when that device has role='master' (QEMU
 * migrates its bytes), 0 when it has another role, none, or is absent.
 * -dome_xml: a device of that name that is not ivshmem-plain, or whose
 * size does not parse.  -ENOMEM.
 */
int dom_xml_shmem(const struct dom_xml *x, const char *name, uint64_t *size,
		  char **xml);
int dom_xml_shmem_master(const struct dom_xml *x, const char *name);

/* "4" + "M" -> bytes, libvirt's scaled units (@unit NULL or "" = bytes).
 * -dome_xml: not a number, an unknown unit, or more than 64 bits. */
int dom_xml_scaled(const char *value, const char *unit, uint64_t *bytes);

/* <domain type='...'> into @buf ("qemu", "kvm", ...).  -dome_xml. */
int dom_xml_type(const struct dom_xml *x, char *buf, size_t len);

/* 0 if the domain runs on QEMU's TCG (type 'qemu'), where the plugin sees
 * the guest's code.  -dome_not_tcg (kvm, xen, ...), -dome_xml. */
int dom_xml_tcg(const struct dom_xml *x);

/* Take out a <metadata> element with nothing but blanks in it (what
 * removing ringside's metadata leaves in a domain libvirt parsed from
 * text).  Returns the elements taken out. */
int dom_xml_metadata_tidy(struct dom_xml *x);

/* The document as text, malloc'ed, for virDomainDefineXML.  -ENOMEM. */
int dom_xml_format(const struct dom_xml *x, char **text);

/* --- PT: ringside's QEMU TCG plugin on the domain's command line, pt.c -----
 * `ringside enable --trace pt` adds two arguments through libvirt's QEMU
 * passthrough, after any the operator has there:
 *
 *   <domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
 *     <qemu:commandline>
 *       <qemu:arg value='-plugin'/>
 *       <qemu:arg value='/usr/lib/.../ringside-qemu-pt.so,region=/dev/shm/ringside-web1,filter=kernel'/>
 *     </qemu:commandline>
 *
 * ringside's pair is a "-plugin" argument followed by one whose options
 * include region=DOM_SHM_DIR/ringside-DOMAIN: no other plugin maps that
 * file.  The namespace is found by its URI, never by its prefix.
 */
#define DOM_QEMU_XMLNS     "http://libvirt.org/schemas/domain/qemu/1.0"
#define DOM_PT_PLUGIN_FILE "ringside-qemu-pt.so"
/* AUX pages per ring when --trace pt is asked without --aux-pages: 1 MiB
 * per vCPU, a few hundred thousand kernel branches of PT. */
#define DOM_PT_AUX_PAGES_DEFAULT 256u
/* Intel PT's PSB periods (2 KiB << PSBFreq), up to 1 MiB: the largest
 * the plugin takes (pt-virt/qemu/plugin.c); QEMU would not start with more. */
#define DOM_PT_PSB_MIN     2048ull
#define DOM_PT_PSB_MAX     (2048ull << 9)
#define DOM_PT_ARG_MAX     4200u      /* bytes of the plugin's argument */

struct dom_pt {
	const char *plugin;   /* absolute path of the plugin */
	int all;              /* 0: filter=kernel (the default), 1: filter=all */
	uint64_t psb;         /* bytes between PSB+; 0: the plugin's default */
};

/*
 * Check @pt: an absolute plugin path without ',' (QEMU's option separator)
 * of at most PATH_MAX bytes, a PSB period 0 or a power of two from
 * DOM_PT_PSB_MIN to DOM_PT_PSB_MAX.  -dome_option with *@bad set.
 */
int dom_pt_check(const struct dom_pt *pt, const char **bad);

/* The plugin's argument for the domain whose region file is @shm_name
 * (dom_shm_name()): "PLUGIN,region=/dev/shm/SHM,filter=kernel[,psb=N]".
 * Returns its length.  -dome_option (dom_pt_check), -dome_invalid (@len
 * too small). */
int dom_pt_arg(const struct dom_pt *pt, const char *shm_name, char *buf,
	       size_t len);

/*
 * ringside's plugin argument (the one after "-plugin") for region file
 * @shm_name: 1 found (its value malloc'ed into *@arg when not NULL), 0
 * none.  -ENOMEM.
 */
int dom_pt_xml_arg(const struct dom_xml *x, const char *shm_name, char **arg);

/*
 * Take every ringside pair for @shm_name out of the document's
 * <qemu:commandline> elements, leaving every other argument, environment
 * variable and element as it was (a <qemu:commandline> left empty goes, as
 * libvirt drops it); then, with @arg, append "-plugin" and @arg to the
 * first <qemu:commandline> (one is made, and the namespace declared on
 * <domain>, when there is none).  Returns the pairs taken out.
 * -dome_xml (no <domain>), -ENOMEM.
 */
int dom_pt_xml_set(struct dom_xml *x, const char *shm_name, const char *arg);

#endif /* RINGSIDE_DOMAIN_H */
