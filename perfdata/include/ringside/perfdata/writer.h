/* SPDX-License-Identifier: MIT */
/*
 * Writing a file of ring records (perfdata/src/pdf_writer.c): record,
 * snapshot, run.
 */
#ifndef RINGSIDE_PERFDATA_WRITER_H
#define RINGSIDE_PERFDATA_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"
#include "ringside/perfdata/clock.h"
#include "ringside/perfdata/host.h"
#include "ringside/perfdata/kernel.h"
#include "ringside/perfdata/kcore.h"
#include "ringside/perfdata/uelf.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The file is built aside as PATH.tmp.XXXXXX (pdf_aside_open: a random
 * name, O_EXCL|O_NOFOLLOW, mode 0600) and renamed to PATH by
 * pdf_writer_finish() once it is complete, so a file at PATH is always
 * whole; any failure, or pdf_writer_discard(), removes it.
 */
struct pdf_writer;

struct pdf_writer_params {
	uint32_t size;            /* sizeof(struct pdf_writer_params) */
	uint32_t nr_rings;        /* written as the number of CPUs */
	uint64_t sample_type;     /* the region's sample_type (guest samples) */
	int argc;                 /* the command line, for HEADER_CMDLINE */
	char *const *argv;
	/* Optional: the guest kernel's symbols, so that plain `perf report`
	 * and `perf script` name its kernel samples (docs/perfdata.md, "Guest
	 * kernel symbols").  The text of its /proc/kallsyms, its build id if
	 * known. */
	const void *guest_kallsyms;
	size_t guest_kallsyms_len;
	const uint8_t *guest_build_id;
	uint32_t guest_build_id_len;  /* 0: unknown */
	/* The build-id cache the guest's kernel symbols and code and its
	 * user binaries' symbols go to (NULL: the file's own,
	 * pdf_cache_dir_of(path)); never perf's own cache, which the
	 * writer refuses (ksyms_err, ubins_err: pdfe_cache_unsafe). */
	const char *buildid_dir;
	/* What the rings' AUX areas hold (enum pdf_aux_format): with one,
	 * the file starts with an AUXTRACE_INFO saying so, and
	 * pdf_writer_add_aux() stores AUX bytes as AUXTRACE records. */
	uint32_t aux_format;
	/* Who the guest is and how it sampled, as its agent claimed (NULL or
	 * known 0: unknown; copied).  The file's identity features and the
	 * guest sample event's attr describe it (pdf_writer_set_guest). */
	const struct pdf_guest_facts *guest;
	/* 1: the file will hold the host's view of the vCPU threads
	 * (pdf_writer_add_host): one more event, ringside:host */
	int host_view;
};

/*
 * An exit of a vCPU thread (PERF_RECORD_SAMPLE of ringside:host): its RAW
 * bytes, 28 (+ perf's 4-byte size: 8-aligned).
 */
enum pdf_host_exit_type {
	PDF_HOST_KVM_EXIT = 1,    /* from guest mode into KVM (kvm:kvm_exit) */
	PDF_HOST_KVM_UEXIT = 2,   /* from KVM_RUN to the VMM
				   * (kvm:kvm_userspace_exit) */
};
struct pdf_host_exit {
	uint32_t type;            /* enum pdf_host_exit_type */
	uint32_t isa;             /* KVM_EXIT: 1 VMX, 2 SVM */
	uint32_t reason;          /* exit reason, KVM_EXIT_* */
	char name[16];            /* the reason's name, NUL-padded ("" none):
				   * what perf script's dump shows */
};
_Static_assert(sizeof(struct pdf_host_exit) == 28, "host exit RAW");

/*
 * One record of the host's view of a vCPU thread (docs/hostview.md, "In
 * perf.data"): a context switch as the kernel wrote it, a count of host
 * records lost, or an exit (PERF_RECORD_SAMPLE with @exit).  Filed on CPU @lane (the vCPU's index, the lane of
 * its guest samples) as thread @tid (PDF_HOST_TID), at host
 * CLOCK_MONOTONIC @time; the host CPU goes in the CPU word's second half.
 */
struct pdf_host_rec {
	uint32_t type;            /* PERF_RECORD_SWITCH, _LOST or _SAMPLE */
	uint16_t misc;            /* SWITCH: PERF_RECORD_MISC_SWITCH_OUT and
				   * _OUT_PREEMPT as the kernel wrote them */
	uint16_t reserved;
	uint32_t lane;
	uint32_t host_cpu;
	uint32_t tid;
	uint32_t reserved2;
	uint64_t time;
	uint64_t lost;            /* LOST: records the host lost */
	struct pdf_host_exit exit; /* SAMPLE: the exit */
	uint32_t reserved3;
};

/* The thread a vCPU's host records are filed under: above Linux's
 * PID_MAX_LIMIT, so that no truthful guest pid meets it. */
#define PDF_HOST_TID(lane) (0x40000000u + (uint32_t)(lane))

/* What AUX bytes are, for perf (docs/perfdata.md, "AUX data"). */
enum pdf_aux_format {
	PDF_AUX_NONE = 0,         /* no AUX data in the file */
	PDF_AUX_INTEL_PT,         /* Intel PT packets: perf's intel_pt decoder */
	PDF_AUX_OPAQUE,           /* bytes ringside cannot name: stored for
				   * the file's reader, never decoded */
	PDF_AUX_FORMAT_MAX
};

/*
 * Who the guest is and how it sampled, as its agent claimed (the region's
 * struct rs_guest_info, checked and NUL-terminated by the caller): the
 * file's identity features (HEADER_HOSTNAME, OSRELEASE, ARCH, NRCPUS,
 * CPUDESC, TOTAL_MEM) and its sampling event's attr describe the guest,
 * never the host that read the rings.  Not known: those features say
 * nothing rather than the host's.
 */
struct pdf_guest_facts {
	uint32_t known;           /* 0: the guest said nothing; the rest is 0 */
	uint32_t nr_cpus_online;
	uint32_t nr_cpus_avail;
	uint32_t sample_flags;    /* enum rs_sample_flag */
	uint64_t mem_total_kib;
	uint64_t sample_period;   /* or frequency, with RS_SAMPLE_FREQ */
	uint32_t sample_type_id;  /* perf_event_attr.type of the guest's event */
	uint32_t reserved;
	uint64_t sample_config;   /* perf_event_attr.config of it */
	char hostname[65];        /* NUL-terminated, printable */
	char os_release[65];
	char arch[17];
	char cpu_desc[65];
};

struct pdf_writer_stats {
	uint64_t records;         /* ring records written */
	uint64_t aux_bytes;       /* AUX bytes stored (AUXTRACE payloads) */
	uint64_t bytes;           /* data section bytes */
	/* Guest samples' call chains cut of their trailing frames the
	 * guest's unwinder could not stand behind (0, non-canonical, a user
	 * address under none of its process's maps, a kernel one outside the
	 * kernel half): frames cut, chains cut (docs/perfdata.md). */
	uint64_t frames_trimmed;
	uint64_t chains_trimmed;
	/* Guest kernel symbols: 0 when none were given or all went well;
	 * else why perf will not name the guest's kernel samples (the
	 * pdf_ksyms_parse() or pdf_ksyms_cache_put() error).  The file is
	 * written either way. */
	int ksyms_err;
	uint8_t build_id[PDF_BUILD_ID_SIZE]; /* the kernel's, in the file */
	uint32_t build_id_len;    /* 0: none */
	/* Guest user binaries (pdf_writer_add_ubins): in the cache and the
	 * file; not put in the cache (an error); kept out because the
	 * cache held other bytes under their build id. */
	uint32_t ubins;
	uint32_t ubins_failed;
	uint32_t ubins_other;
	int ubins_err;            /* the last error of ubins_failed */
};

/*
 * Create PATH.tmp.XXXXXX and write the header and attrs.  -errno (the
 * open or write failed; nothing is left behind), PDF_ERR(pdfe_invalid).
 */
int pdf_writer_open(struct pdf_writer **wp, const char *path,
		    const struct pdf_writer_params *params);

/*
 * The guest kernel's symbols for a writer opened without them (a recording
 * that began before the guest published them): @params' guest_kallsyms,
 * guest_kallsyms_len, guest_build_id and guest_build_id_len, taken as
 * pdf_writer_open takes them, the other fields ignored (the cache is the
 * one chosen at open).  Their
 * maps go into the data section here (perf still has them before any
 * sample: they carry time 0, which perf does not queue), the build id into
 * the header at pdf_writer_finish; what went wrong with them is in the
 * stats, as at open.  Once per writer.  0; -EALREADY (given already, at
 * open or here), PDF_ERR(pdfe_invalid), or a write error (as
 * pdf_writer_add's).
 */
int pdf_writer_add_ksyms(struct pdf_writer *w,
			 const struct pdf_writer_params *params);

/*
 * Append ring record @rec of ring @ring, filed at @time.
 * PDF_ERR(pdfe_too_big): the record cannot be carried and was not written
 * (the file stays usable); -errno: a write failed, the file is lost
 * (discard).  PDF_ERR(pdfe_invalid).
 */
int pdf_writer_add(struct pdf_writer *w, uint32_t ring, uint64_t time,
		   const struct rs_perf_header *rec);

/*
 * Append a COMM or MMAP2 record that the host wrote from the guest's
 * process table, filed at @time on ring @ring's CPU: perf takes it as
 * any other, ringside's readers tell it from the rings' records
 * (pdf_event.state).  Not among stats.records.  Errors as pdf_writer_add's,
 * and PDF_ERR(pdfe_format) for a record perf could not take
 * (pdf_rrec_perf_body() 0: a name pdf_rrec_mmap2_name_ok() refuses, say):
 * nothing written, the file stays usable; the caller counts it.
 */
int pdf_writer_add_state(struct pdf_writer *w, uint32_t ring, uint64_t time,
			 const struct rs_perf_header *rec);

/*
 * Append host record @h (a writer opened with host_view).  Not among
 * stats.records; times are host CLOCK_MONOTONIC and a time sync leaves
 * them as they are.  PDF_ERR(pdfe_invalid) (no host_view, a lane of
 * RS_MAX_RINGS or more, another type); -errno: a write failed.
 */
int pdf_writer_add_host(struct pdf_writer *w, const struct pdf_host_rec *h);

/*
 * Store @len bytes of ring @ring's AUX area, which began at position
 * @offset of its AUX stream, as one PERF_RECORD_AUXTRACE (the bytes
 * follow the record, padded to 8).  @data may be memory another party
 * writes meanwhile: it is copied once, never interpreted.
 * PDF_ERR(pdfe_invalid) (no aux_format at open, a ring of RS_MAX_RINGS or
 * more, NULL data), -errno: a write failed, the file is lost.
 */
int pdf_writer_add_aux(struct pdf_writer *w, uint32_t ring, uint64_t offset,
		       const void *data, uint64_t len);

/*
 * The same for a read that wrapped: @len bytes at @data then @len2 at
 * @data2, one PERF_RECORD_AUXTRACE.  perf (64-bit) decodes each AUXTRACE
 * on its own and does not join a packet split across two of them: one
 * read, one record, as perf record writes them.
 */
int pdf_writer_add_aux2(struct pdf_writer *w, uint32_t ring, uint64_t offset,
			const void *data, uint64_t len, const void *data2,
			uint64_t len2);

/* 1 when the build-id cache entry of the writer's kernel symbols already
 * holds a kcore (an earlier read of the same kernel, same boot), else 0. */
int pdf_writer_has_kcore(const struct pdf_writer *w);

/*
 * The guest code ranges of the writer's kernel symbols
 * (pdf_kernel_code_ranges()), for the caller to read from the guest and
 * give to pdf_writer_add_kcore().  Returns how many (0: no symbols, or
 * they were refused).
 */
int pdf_writer_code_ranges(const struct pdf_writer *w,
			   struct pdf_code_range *r, unsigned max);

/*
 * The guest kernel's code bytes (@nr segments, as pdf_kcore_image takes
 * them, normally within pdf_writer_code_ranges()), put beside the
 * kallsyms of the file's build-id cache entry as "kcore" and "modules",
 * so that `perf script --itrace` decodes the kernel's PT.  Like the
 * symbols, never replaces what the entry holds.  0 (there now, or there
 * already with the same bytes); 1 (the entry had other code: kept);
 * -ENOENT (the writer put no symbols in the cache), -errno,
 * PDF_ERR(pdfe_invalid).  The file itself does not depend on it.
 */
int pdf_writer_add_kcore(struct pdf_writer *w, const struct pdf_kcore_seg *segs,
			 uint32_t nr);

const struct pdf_writer_stats *pdf_writer_stats(const struct pdf_writer *w);

/* The temporary path being written (for messages). */
const char *pdf_writer_tmp_path(const struct pdf_writer *w);

/*
 * Write the features and the final header, sync, rename the temporary
 * file to PATH.  Frees @w in all cases; on failure the temporary file is
 * removed.  -errno,
 * PDF_ERR(pdfe_invalid).
 */
int pdf_writer_finish(struct pdf_writer *w);

/*
 * Say which clock the file's times are in (before pdf_writer_finish).
 * With state PDF_CLOCK_SYNCED, finish converts every record's time from
 * the guest's clock to host CLOCK_MONOTONIC (pdf_clock_to_host), marks the
 * events use_clockid/CLOCK_MONOTONIC and writes HEADER_CLOCKID and
 * HEADER_CLOCK_DATA; any state other than NONE is kept in ringside's
 * clock feature.  PDF_ERR(pdfe_invalid): NULL, or a state or point count
 * out of range.
 */
int pdf_writer_set_clock(struct pdf_writer *w, const struct pdf_clock_sync *cs);

/*
 * What the host observed while reading the rings, kept in ringside's host
 * feature (before pdf_writer_finish; NULL or kind NONE: nothing said).
 * PDF_ERR(pdfe_invalid): a kind or ring count out of range.
 */
int pdf_writer_set_host(struct pdf_writer *w, const struct pdf_host_facts *h);

/*
 * Who the guest is, for a writer opened without it (an agent that spoke
 * after the file was opened), or to replace what was given: @g is
 * copied (NULL or known 0: unknown).  The identity features are written
 * at pdf_writer_finish, the attrs rewritten in place then.
 * PDF_ERR(pdfe_invalid): NULL @w.
 */
int pdf_writer_set_guest(struct pdf_writer *w, const struct pdf_guest_facts *g);

/*
 * pdf_writer_finish, but a failure to write the tail leaves @w as it was
 * (nothing renamed, the temporary file there): the caller discards it,
 * or salvages it and tries again.  A failure of the last close or
 * rename removes the temporary file (salvage then refuses: discard).
 * 0 frees @w.
 */
int pdf_writer_try_finish(struct pdf_writer *w);

/* A part of the data section: its bytes, its ring records, of them the
 * LOST records and the sum of their counts. */
struct pdf_writer_part {
	uint64_t bytes;
	uint64_t records;
	uint64_t lost_records;
	uint64_t lost;
};

/*
 * After a write failed (a full disk): cut the data section back to the
 * end of the last whole addition (record, AUX record, symbols' maps)
 * that is on disk, and drop what was after it, written in part or
 * waiting in the writer's buffer.  What stays (*@kept) and what went
 * (*@dropped: consumed from the rings, lost) may be NULL.  Then
 * pdf_writer_try_finish completes a file perf reads up to that point,
 * with less room than the part dropped needed (the features, a few KiB).
 * 0, -errno (ftruncate), PDF_ERR(pdfe_invalid).
 */
int pdf_writer_salvage(struct pdf_writer *w, struct pdf_writer_part *kept,
		       struct pdf_writer_part *dropped);

/* Remove the temporary file and free @w.  Accepts NULL. */
void pdf_writer_discard(struct pdf_writer *w);

/*
 * Put each of @nr binaries in the writer's build-id cache (its
 * buildid_dir) and name them in the file's HEADER_BUILD_ID (misc USER,
 * the binary's path), once per build id, before pdf_writer_finish; may
 * be called again with more.  Returns how many went into the cache now
 * (those there already with the same bytes count); the others are
 * counted in the stats (ubins_failed, ubins_other).  PDF_ERR(pdfe_invalid).
 */
int pdf_writer_add_ubins(struct pdf_writer *w, const struct pdf_ubin *b,
			 uint32_t nr);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_WRITER_H */
