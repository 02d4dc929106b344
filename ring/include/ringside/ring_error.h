/* SPDX-License-Identifier: MIT */
/*
 * The ring library's errors (error.c).  Every function of the library
 * returns an int: >= 0 success (or a count), < 0 the negation of an enum
 * rs_error; rs_error_str() names it.
 */
#ifndef RINGSIDE_RING_ERROR_H
#define RINGSIDE_RING_ERROR_H

#include <stdint.h>


#ifdef __cplusplus
extern "C" {
#endif

enum rs_error {
	rse_ok = 0,
	rse_internal,   /* a library invariant broke */
	rse_invalid,    /* the caller passed nonsense (NULL, a ring index the
			 * region lacks, an unknown mode, a misaligned buffer) */
	rse_magic,      /* not a ringside region */
	rse_version,    /* region of an ABI version this library does not speak */
	rse_geometry,   /* a size, count or offset that does not fit (ring
			 * count, non-power-of-two size, overlap; a region
			 * header with values no host writes) */
	rse_too_small,  /* buffer or region too small for the layout */
	rse_too_big,    /* record larger than RS_RECORD_MAX or than the ring */
	rse_no_space,   /* ring full: the record was dropped and counted */
	rse_mode,       /* not possible in this ring's mode */
	rse_corrupt,    /* shared state failed validation */
	rse_nesting,    /* unbalanced reserve/commit or AUX begin/end */
	rse_disabled,   /* the host has not enabled tracing (for agents: the
			 * library itself does not gate on config.enabled) */
	rse_absent,     /* the region has no such area (no sideband) */
	rse_busy,       /* the other side is writing it right now */
	rse_timeout,    /* the other side did not answer in time (time sync) */
	rse_max
};

/* Never NULL; "unknown error" for values out of range. */
const char *rs_error_str(int err);

/* The words of error @err in a table @names of @n entries, where the
 * error of entry i is -i (i also names it): the one lookup of every
 * library's error words (rs_error_str, pdf_error_str, pv_error_str).
 * @unknown for values out of the table or entries it leaves NULL. */
const char *rs_error_name(int err, const char *const *names, unsigned n,
			  const char *unknown);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_ERROR_H */
