/* SPDX-License-Identifier: MIT */
/*
 * ringside-pprof: a guest's CPU samples as a pprof profile (profile.proto,
 * gzipped), what Pyroscope, Parca and `go tool pprof` read.  docs/pprof.md
 * describes what a profile holds.
 *
 *   pprof_pb_*       a minimal protobuf encoder: varints, length-delimited
 *                    fields (pprof_pb.c)
 *   pprof_profile_*  a profile being built: string table, mappings,
 *                    functions, locations, samples with labels, encoded
 *                    (pprof_profile.c)
 *   pprof_gzip       gzipped (pprof_gzip.c)
 *   pprof_file_write a ringside perf.data file read with ringside-perfdata's
 *                    reader and written as a profile (pprof_file.c), its
 *                    guest's kernel and user functions named from the
 *                    build-id cache (pprof_names.c, pprof_uelf.c)
 *
 * Every function returning int returns >= 0 on success, or a negative
 * code: -errno, or a perfdata code (pdf_error_str() names both).  Nothing
 * here prints or exits.
 */
#ifndef RINGSIDE_PPROF_H
#define RINGSIDE_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- protobuf encoding (pprof_pb_*) --------------------------------------- */

/* Wire types. */
enum {
	PPROF_PB_VARINT = 0,
	PPROF_PB_LEN = 2,
};

/* Append a base-128 varint. */
void pprof_pb_varint(struct pdf_buf *b, uint64_t v);
/* Append field @field's key and varint @v (also for int64: two's
 * complement, 10 bytes when negative). */
void pprof_pb_uint(struct pdf_buf *b, uint32_t field, uint64_t v);
/* Append field @field as a length-delimited run of @len bytes. */
void pprof_pb_bytes(struct pdf_buf *b, uint32_t field, const void *data,
		    size_t len);
/* Append @nr varints as one packed field (nothing when @nr is 0). */
void pprof_pb_packed(struct pdf_buf *b, uint32_t field, const uint64_t *v,
		     size_t nr);

/* ---- a profile being built (pprof_profile_*) ------------------------------ */

struct pprof;

/* Bounds: past them an add returns -E2BIG and the profile stays valid. */
#define PPROF_MAX_STRINGS   (1u << 22)
#define PPROF_MAX_MAPPINGS  (1u << 16)
#define PPROF_MAX_FUNCTIONS (1u << 21)
#define PPROF_MAX_LOCATIONS (1u << 22)
#define PPROF_MAX_FRAMES    1024u      /* locations of one sample */
#define PPROF_MAX_VALUES    4u         /* sample types */
#define PPROF_MAX_LABELS    8u         /* labels of one sample */
#define PPROF_STEAL_MIN_NS  1000000ull /* a host preemption that labels
					* the samples after it */
#define PPROF_MAX_STEALS    65536u     /* of them kept, all vCPUs */

/* 0, -ENOMEM. */
int pprof_profile_new(struct pprof **pp);
/* Accepts NULL. */
void pprof_profile_free(struct pprof *p);

/* The index of @s in the string table, added when new ("" is 0).
 * -E2BIG, -ENOMEM, -EINVAL (NULL). */
int64_t pprof_profile_string(struct pprof *p, const char *s);

/* Add a sample type (type and unit, e.g. "cpu", "nanoseconds"); every
 * sample carries one value per type, in this order.  -E2BIG past
 * PPROF_MAX_VALUES, or once a sample was added. */
int pprof_profile_sample_type(struct pprof *p, const char *type,
			      const char *unit);

/* The informational fields: start (UTC ns), duration, the period's type
 * and value (@type NULL: none). */
int pprof_profile_set_period(struct pprof *p, const char *type,
			     const char *unit, int64_t period);
void pprof_profile_set_time(struct pprof *p, int64_t time_nanos,
			    int64_t duration_nanos);

/* A mapping (an address range of a file).  @build_id: its hex string or
 * NULL; @has_functions: its locations' functions are named here (pprof
 * does not symbolize them again).  The same arguments give the same id.
 * Returns the id (>= 1), -E2BIG, -ENOMEM. */
int64_t pprof_profile_mapping(struct pprof *p, uint64_t start,
			      uint64_t limit, uint64_t offset,
			      const char *file, const char *build_id,
			      int has_functions);

/* A function named @name (in @file, NULL: none): the same name and file
 * give the same id.  Returns the id (>= 1), -E2BIG, -ENOMEM, -EINVAL. */
int64_t pprof_profile_function(struct pprof *p, const char *name,
			       const char *file);

/* A location: @address in mapping @mapping (0: none), in function
 * @function (0: not named).  The same mapping and address give the same
 * id (the function of the first call).  Returns the id (>= 1), -E2BIG,
 * -ENOMEM. */
int64_t pprof_profile_location(struct pprof *p, uint64_t mapping,
			       uint64_t address, uint64_t function);

/* A label: @str (not NULL) or @num with @unit (NULL: none). */
struct pprof_label {
	const char *key;
	const char *str;
	int64_t num;
	const char *unit;
};

/* A sample: @nr_locs location ids, leaf first; one value per sample type;
 * up to PPROF_MAX_LABELS labels.  0, -EINVAL (a count that does not
 * match), -E2BIG, -ENOMEM. */
int pprof_profile_sample(struct pprof *p, const uint64_t *locs,
			 size_t nr_locs, const int64_t *values,
			 size_t nr_values, const struct pprof_label *labels,
			 size_t nr_labels);

/* Counts so far. */
struct pprof_profile_counts {
	uint64_t samples;
	uint32_t strings, mappings, functions, locations;
};
void pprof_profile_counts(const struct pprof *p,
			  struct pprof_profile_counts *c);

/* The Profile message, not compressed, appended to @out.  0, -ENOMEM. */
int pprof_profile_encode(const struct pprof *p, struct pdf_buf *out);

/* @len bytes at @data as one gzip member, appended to @out.  0, -ENOMEM,
 * -EIO (zlib failed). */
int pprof_gzip(const void *data, size_t len, struct pdf_buf *out);

/* ---- a perf.data file as a profile (pprof_file_write) -------------------- */

struct pprof_params {
	uint32_t size;            /* sizeof(struct pprof_params) */
	/* The domain's name for the "domain" label (NULL: no such label). */
	const char *domain;
	/* The build-id cache where the guest kernel's kallsyms and its user
	 * binaries' symbol files are (NULL: the file's own, beside it,
	 * pdf_cache_dir_of(); never perf's, which holds the host's). */
	const char *buildid_dir;
	/* The guest's sampling interval in ns, the cpu value of a sample
	 * that carries no period (0: unknown, such samples count 0 ns). */
	uint64_t interval_ns;
};

struct pprof_stats {
	uint64_t samples;         /* guest samples in the profile */
	uint64_t bad_samples;     /* sample records that did not parse */
	uint64_t frames;          /* their locations, leaf to root */
	uint64_t frames_cut;      /* past PPROF_MAX_FRAMES, or not added */
	uint64_t kernel_frames;   /* frames in the kernel half */
	uint64_t kernel_unnamed;  /* of them, no guest kernel symbol */
	uint64_t user_frames;
	uint64_t user_unmapped;   /* of them, under no MMAP2 of the process */
	uint64_t user_unnamed;    /* mapped, no symbol file or no symbol */
	uint32_t functions, locations, mappings;
	/* Why no kernel frame is named: 0 (named from the cache), -ENODATA
	 * (no kernel build id in the file), -ENOENT (no kallsyms for it in
	 * the cache), a pdf_ksyms_parse() error. */
	int ksyms_err;
	uint32_t ubins;           /* user binaries named from the cache */
	uint32_t ubins_missing;   /* mapped binaries with no usable file */
	uint64_t maps_dropped;    /* MMAP2 records past the bounds */
	uint64_t comms_dropped;   /* COMM records past the bounds */
	uint64_t bytes;           /* of the gzipped profile */
	/* The host's view in the file: its preemptions of a vCPU thread of
	 * PPROF_STEAL_MIN_NS or more (past PPROF_MAX_STEALS: dropped), and
	 * the samples labelled after_steal_ms */
	uint64_t steals, steals_dropped, after_steal;
};

/*
 * Read ringside perf.data file @perf_data and write its guest samples to
 * @out as a gzipped pprof profile, mode 0600 (written aside as
 * OUT.tmp.XXXXXX and renamed into place, pdf_aside_open).  Sample types samples/count and cpu/nanoseconds; one sample
 * per guest sample with its call chain (leaf first, context markers
 * dropped) and labels domain, vcpu (the ring), pid, tid and comm (from
 * the file's COMM records); a sample of vCPU N taken within one
 * interval_ns (10 ms when 0) after the host ran N's thread again from a
 * preemption of PPROF_STEAL_MIN_NS or more (the file's host view) also
 * after_steal_ms, the preemption's length in whole ms.  @st (may be NULL) says what was written and
 * what could not be named.  -errno, PDF_ERR(...) of the reader.
 */
int pprof_file_write(const char *perf_data, const char *out,
		     const struct pprof_params *params, struct pprof_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PPROF_H */
