/* SPDX-License-Identifier: MIT */
/*
 * The JSON sidecar the service writes beside each file of its own (a
 * recording's, a capture's): FILE.json, one object, what the host
 * observed apart from what the guest claims (src/svc_sidecar.c).
 */
#ifndef RINGSIDE_SERVICE_SIDECAR_H
#define RINGSIDE_SERVICE_SIDECAR_H

#include <stddef.h>
#include <stdint.h>

/* What a sidecar says about one file the service wrote. */
struct svc_sidecar {
	const char *domain;
	const char *uuid;         /* libvirt's; NULL or "": not known */
	const char *host;         /* the host's name (uname) */
	const char *reason;       /* rotation, stop, shutdown, panic, ... */
	const char *file;         /* the data file's name, no directory */
	uint64_t start_ns;        /* host CLOCK_MONOTONIC: the file's window */
	uint64_t end_ns;
	int64_t wall_offset_ns;   /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t bytes;           /* the data file's size */
	uint32_t rings;
	uint64_t records;         /* in the file, all kinds */
	uint64_t lost_records;    /* of them, LOST records */
	/* what the host observed */
	uint64_t corrupt;         /* corruption events */
	uint64_t corrupt_bytes;   /* ring bytes discarded for them */
	uint64_t not_written;     /* records perf.data cannot carry */
	uint64_t overwritten;     /* a capture: records no longer held */
	uint64_t disk_lost;       /* records drained for the file that a full
				   * disk kept out of it (lost), LOST
				   * records aside */
	uint64_t disk_lost_lost;  /* the counts of the LOST records it kept
				   * out (guest claims) */
	/* what the guest claims (never summed with the host's) */
	uint64_t lost;            /* LOST counts */
	uint64_t lost_samples;    /* LOST_SAMPLES counts */
	uint64_t aux_truncated;
	uint64_t flagged;         /* claims no honest guest makes: left out */
};

/* @sc as one JSON object and a newline into @buf: its length, or
 * -ENOSPC when it does not fit. */
int svc_sidecar_text(const struct svc_sidecar *sc, char *buf, size_t len);

/* Write @sc as @data_path.json, mode 0600 (written aside, then renamed:
 * pdf_aside_open).  0 or -errno. */
int svc_sidecar_write(const char *data_path, const struct svc_sidecar *sc);

/* Remove the sidecars (*.data.json) and profiles (*.data.pb.gz) in
 * directory @ddir whose data file is gone (a capture pruned).  0 or
 * -errno; how many in *@removed. */
int svc_sidecar_orphans(const char *ddir, uint32_t *removed);

/* CLOCK_REALTIME - CLOCK_MONOTONIC now (svc_sidecar.wall_offset_ns). */
int64_t svc_sidecar_wall_offset(void);

#endif /* RINGSIDE_SERVICE_SIDECAR_H */
