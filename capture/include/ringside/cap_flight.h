/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_FLIGHT_H
#define RINGSIDE_CAP_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/cap_err.h"
#include "ringside/cap_host.h"
#include "ringside/domain_hook.h"
#include "ringside/gi_kbuf.h"
#include "ringside/ring.h"

/*
 * A domain's flight recorder, kept: its region file, read by the host's
 * layout, filed as a perf.data capture (every ring, the guest kernel's
 * symbols) in DIR/DOMAIN/, the domain's oldest captures pruned to the
 * bounds.  For a stopped domain it reads the file alone: it runs in
 * libvirt's hook, which must never call libvirt.  For one whose memory
 * is still there (the service's captures) a guest-memory source adds the
 * samples the agent had not forwarded from the guest kernel's perf
 * buffers, as `ringside snapshot DOMAIN` does.  docs/operator-guide.md,
 * "The flight recorder after the domain stops".
 */
#define CAP_FLIGHT_DIR    "/var/lib/ringside/captures"
#define CAP_FLIGHT_SUFFIX ".data"
#define CAP_FLIGHT_KEEP        8u             /* captures per domain */
#define CAP_FLIGHT_KEEP_BYTES  (1ull << 30)   /* bytes of them per domain */

struct cap_flight_req {
	const char *domain;
	const char *region_path;
	const struct rs_region_params *layout; /* the host's; NULL: the
					 * header's (a damaged one fails) */
	const char *dir;              /* captures go in DIR/DOMAIN/ */
	uint32_t keep;                /* at most this many per domain (0: any) */
	uint64_t keep_bytes;          /* and this many bytes (0: any) */
	const char *buildid_dir;      /* where the symbols' table goes (NULL:
				       * perf's own cache) */
	int argc;                     /* the command line, for the header */
	char *const *argv;
	const char *reason;           /* why, in the capture's name
				       * (TIME-NNN-REASON.data): [a-z-], at
				       * most CAP_FLIGHT_REASON_MAX; NULL: none */
	struct cap_host *host;        /* NULL, or the host's flight recorder
				       * of the domain's vCPU threads: filed
				       * in the capture */
	const struct gi_kbuf_src *kbuf_src; /* NULL, or the guest's memory:
				       * its kernel's perf buffers read
				       * before the rings (gi_kbuf.h) */
};
#define CAP_FLIGHT_REASON_MAX 32u

struct cap_flight_result {
	char path[4096];              /* the capture ("" when empty) */
	int empty;                    /* the region was never written to: no
				       * capture was made */
	uint64_t bytes;               /* its size */
	uint32_t rings;
	uint64_t records;             /* records in it */
	uint64_t lost;                /* the guest's LOST claims in it */
	uint64_t overwritten;         /* overwrite rings: records the producer
				       * wrote that the ring no longer held */
	uint64_t cut_bytes;           /* bytes cut as possibly overwritten */
	uint64_t corrupt;             /* corruption events met */
	int damaged;                  /* the header differed from the layout */
	int syms_state;               /* enum gi_syms_state */
	int kbuf_state;               /* enum gi_kbuf_state (ABSENT: no
				       * kbuf_src) */
	uint64_t kbuf_records;        /* the guest kernel's buffers' records
				       * filed (the rings held the rest) */
	uint32_t kbuf_cpus_unread;    /* buffers not read: a peek failed, or
				       * past the source's max_page_reads */
	uint32_t pruned;              /* older captures removed */
	uint64_t pruned_bytes;
	int prune_err;                /* -errno: the bound may not hold */
	struct cap_failure fail;      /* where cap_flight_capture failed */
};

/*
 * Capture @q->region_path, opened without following a link (a regular
 * file only).  0, or the negative code res->fail names:
 * CAP_FAIL_OPEN (the directory or name: -errno), CAP_FAIL_COPY (the
 * region file: -errno, -ELOOP for a link, -ENODEV for no regular file,
 * or the ring library's -rse_*), or snapper's.  No
 * partial capture is left; the region file is never changed.  A region
 * the guest never wrote to (no record, AUX byte or kernel symbol) gives
 * 0 with res->empty set and no file.
 */
int cap_flight_capture(const struct cap_flight_req *q, struct cap_flight_result *res);

/* The same of the region file open in @fd (read at least; the caller's,
 * left open), which the caller checked is the one to capture (the libvirt
 * hook's dom_shm_open_region); q->region_path only names it. */
int cap_flight_capture_fd(const struct cap_flight_req *q, int fd,
			  struct cap_flight_result *res);

/* What the libvirt hook's capture is told (its arg). */
struct cap_flight_opts {
	const char *dir;              /* NULL: CAP_FLIGHT_DIR */
	uint32_t keep;
	uint64_t keep_bytes;
	const char *buildid_dir;
	int argc;
	char *const *argv;
};

/* cap_flight_capture as a dom_capture_fn (ringside/domain_hook.h), @arg a
 * struct cap_flight_opts: the outcome in one line to @log, as a hook says
 * it.  0 or cap_flight_capture's code. */
int cap_flight_hook(void *arg, const char *domain, const char *region_path,
		    int region_fd, const struct dom_cfg *c, rs_log_fn log,
		    void *log_arg);

/* Name @i of a series, written into @buf (@len bytes): snprintf's count. */
typedef int (*cap_flight_name_fn)(char *buf, size_t len, unsigned i,
				  const void *arg);

/* The first of names 0 .. @tries - 1 (@name's, given @arg) that no file
 * has, in @buf: 0; -ENAMETOOLONG, -EEXIST (every one taken).  How a
 * capture and `ringside snapshot`'s default output find a new name. */
int cap_flight_free_name(char *buf, size_t len, unsigned tries,
			 cap_flight_name_fn name, const void *arg);

/*
 * Remove the oldest captures (*.data, by name) of directory @ddir until
 * at most @keep remain and they hold at most @keep_bytes (0: no bound),
 * never @keep_path.  0 or -errno, -ENOMEM; counts in *@removed, *@freed.
 */
int cap_flight_prune(const char *ddir, const char *keep_path, uint32_t keep,
		     uint64_t keep_bytes, uint32_t *removed, uint64_t *freed);

#endif /* RINGSIDE_CAP_FLIGHT_H */
