/* SPDX-License-Identifier: MIT */
/*
 * The room the recordings take on disk (src/svc_room.c): the retention
 * bounds (the oldest complete recordings removed first, per domain and
 * of all domains together) and, on a full disk, the oldest removed until
 * there is room again.  Captures and files being written are never
 * touched; one pruner runs at a time in the process.
 */
#ifndef RINGSIDE_SERVICE_ROOM_H
#define RINGSIDE_SERVICE_ROOM_H

#include <stdint.h>

#define SVC_REC_ROOM_INODES   64u      /* ... and this many inodes */

/* What svc_room_prune and svc_room_make removed. */
struct svc_room_freed {
	uint32_t removed;         /* data files removed (with their .json) */
	uint64_t freed;           /* bytes */
	/* NULL, or called for each file removed: its domain (the name of
	 * its directory) and its bytes */
	void (*each)(void *arg, const char *domain, uint64_t bytes);
	void *arg;
};

/*
 * Remove the oldest complete recordings (rec-*.data, by name, each with
 * its .json and .pb.gz) of @dir/@domain until they hold at most
 * @keep_bytes, then of every @dir/<domain>/ until all hold at most
 * @total_bytes (0: no bound), never @keep_path nor a domain's newest
 * file.  0 or -errno; counts added to @p.
 */
int svc_room_prune(const char *dir, const char *domain, const char *keep_path,
		   uint64_t keep_bytes, uint64_t total_bytes,
		   struct svc_room_freed *p);

/*
 * A full disk: remove the oldest complete recordings of @domain (never
 * its newest, nor @keep_path), then the oldest of every domain under
 * @dir (never one's newest), until @room bytes and SVC_REC_ROOM_INODES
 * inodes (on a file system that counts them) are free on @dir's file
 * system.  1 when there is that room at the end, 0 when not (nothing
 * more to remove), or -errno; the bytes free in *@free_bytes either way.
 */
int svc_room_make(const char *dir, const char *domain, const char *keep_path,
		  uint64_t room, struct svc_room_freed *p,
		  uint64_t *free_bytes);

#endif /* RINGSIDE_SERVICE_ROOM_H */
