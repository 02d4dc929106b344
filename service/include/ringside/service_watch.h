/* SPDX-License-Identifier: MIT */
/*
 * What the service watches of a running opted-in domain besides
 * libvirt's events: its region file, that it is still the one laid out,
 * and its agent's heartbeat, stale after a threshold (a hang)
 * (src/svc_watch.c); and its guest's resets, libvirt's reboot events
 * merged (src/svc_resets.c).
 */
#ifndef RINGSIDE_SERVICE_WATCH_H
#define RINGSIDE_SERVICE_WATCH_H

#include <stddef.h>
#include <stdint.h>

/* ... at the least: the Linux agent beats every second or two (three
 * seconds apart at most while its kernel buffers' watermarks carry the
 * beat), the service looks every half second, so a threshold of a few
 * such gaps never takes a live agent for a hung one */
#define SVC_HANG_MIN_S   8u
/* libvirt's reboot events of a domain less than this apart are one reset
 * (libvirt 9.0 reports an on_crash restart three times, within 40 ms) */
#define SVC_RESET_MERGE_S 2u

/* ---- the region and hang watch (src/svc_watch.c) ---- */
struct svc_watch;

/* Watch regions, and their heartbeats against a threshold of @after_s
 * seconds (0: never stale; at least SVC_HANG_MIN_S otherwise). */
int svc_watch_new(struct svc_watch **wp, uint32_t after_s);
void svc_watch_free(struct svc_watch *w);

/* Watch domain @name's region file @path (its header page mapped
 * read-only, the file's identity kept; a link is refused), replacing an
 * earlier watch of it; the heartbeat's age starts at @now_ns.  0 or
 * -errno. */
int svc_watch_add(struct svc_watch *w, const char *name, const char *path,
		  uint64_t now_ns);
void svc_watch_del(struct svc_watch *w, const char *name);
size_t svc_watch_count(const struct svc_watch *w);

/* 1 if @name is watched. */
int svc_watch_has(struct svc_watch *w, const char *name);

/* 1 if @name is watched in the file @path names now (the same file: not
 * one laid out under the name since). */
int svc_watch_same(struct svc_watch *w, const char *name, const char *path);

/* The region file of a watched domain is gone (@replaced 0: `disable
 * --live` removed it) or another one has its name (1: laid out anew,
 * `enable --live`): its watch has ended. */
typedef void (*svc_watch_gone_fn)(void *arg, const char *name, int replaced);

/* Look at every watched region's name (an lstat each, no libvirt) and end
 * the watch of those that are not the file watched any more, calling
 * @gone for each. */
void svc_watch_check(struct svc_watch *w, svc_watch_gone_fn gone, void *arg);

/* @name's guest reset at @now_ns: its heartbeat's age starts again and
 * the status as it stands, an agent's of the boot before, is not judged
 * until it changes; the header's boot_gen + 1 (rs_region_note_reset,
 * through a writable mapping of the same file), the new value in *@gen.
 * 0, -ENOENT (not watched), -ESTALE (its file was replaced), -errno. */
int svc_watch_reset(struct svc_watch *w, const char *name, uint64_t now_ns,
		    uint64_t *gen);

/* @name's attached agent has not beaten for @secs: 1 if that is a hang
 * (reported; not again until it beats), 0 if not (the wait restarts). */
typedef int (*svc_watch_stale_fn)(void *arg, const char *name, uint64_t secs);

void svc_watch_poll(struct svc_watch *w, uint64_t now_ns,
		    svc_watch_stale_fn stale, void *arg);

/* ---- guest resets (src/svc_resets.c) ---- */
struct svc_resets;

/* Merge reboot events less than @merge_s apart (0: SVC_RESET_MERGE_S). */
int svc_resets_new(struct svc_resets **rp, uint32_t merge_s);
void svc_resets_free(struct svc_resets *r);

/* A reboot event of @domain at @now_ns (monotonic): 1 if it is a reset
 * of its own, 0 if one more report of the reset before it (less than the
 * merge time after the domain's previous event), -ENOMEM. */
int svc_resets_note(struct svc_resets *r, const char *domain,
		    uint64_t now_ns);

#endif /* RINGSIDE_SERVICE_WATCH_H */
