/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_ERR_H
#define RINGSIDE_CAP_ERR_H

#include <stdint.h>

/*
 * Errors as this library hands them up.  Its modules (cap_source, drain,
 * snapper, recorder, ...) call several libraries, and each library
 * keeps its own negative codes and its own *_errstr(): the ring library's
 * -rse_*, the perf.data library's (-errno or PDF_ERR(e)), the libvirt
 * library's (-errno or -dome_*), a system call's -errno.  Those codes
 * overlap, so a module whose failures come from more than one of them
 * returns the code as the library gave it, and notes in a struct cap_err
 * which errstr names it.  Nothing is renumbered: the caller prints
 * cap_err_str(), and tests cap_err_is() or cap_err_from() to say more.  A
 * module whose errors all come from one library returns them plainly and
 * says which beside its declaration.
 *
 *	struct cap_err e = { 0 };
 *
 *	if (cap_source_open(&m, spec, 0, &e))
 *		cli_err(CMD, "cannot map %s: %s", spec, cap_err_str(&e));
 */

typedef const char *(*cap_err_fn)(int code);

struct cap_err {
	int code;                 /* < 0, as the library returned it */
	cap_err_fn str;            /* rs_error_str, pdf_error_str, dom_error_str, cap_err_sys */
};

/* strerror() of a system call's -errno. */
const char *cap_err_sys(int code);

/* @ret, a return of the library that @str names; a failure (< 0) is noted
 * in @e.  Returns @ret. */
static inline int cap_err_note(struct cap_err *e, int ret, cap_err_fn str)
{
	if (ret < 0) {
		e->code = ret;
		e->str = str;
	}
	return ret;
}

/* The words for @e; one that nothing was noted in (declared = { 0 })
 * says so. */
static inline const char *cap_err_str(const struct cap_err *e)
{
	return e->str ? e->str(e->code) : "unknown error";
}

/* 1 if @e came from the library @str names. */
static inline int cap_err_from(const struct cap_err *e, cap_err_fn str)
{
	return e->str == str;
}

/* 1 if @e is @code of the library @str names. */
static inline int cap_err_is(const struct cap_err *e, cap_err_fn str, int code)
{
	return e->str == str && e->code == code;
}

/* Which step of a record or snapshot session failed: the caller words it
 * (its source, its output, the ring) with @e's code. */
enum cap_fail {
	CAP_FAIL_NONE = 0,
	CAP_FAIL_OPEN,      /* creating the output's temporary file
			     * (PATH.tmp.XXXXXX, pdf_error_str) */
	CAP_FAIL_ATTACH,    /* a consumer on every ring (rs_error_str; -rse_mode:
			     * overwrite-mode rings, which have no tail) */
	CAP_FAIL_DRAIN,     /* a pass over the rings (rs_error_str), or any pass
			     * when no file is written */
	CAP_FAIL_WRITE,     /* a pass into the file (pdf_error_str); path is the
			     * temporary file that was discarded */
	CAP_FAIL_FINISH,    /* completing the file (pdf_error_str) */
	CAP_FAIL_COPY,      /* copying ring @ring (rs_error_str, cap_err_sys) */
	CAP_FAIL_RING,      /* filing ring @ring's records (pdf_error_str) */
	CAP_FAIL_KCODE,     /* the guest kernel's code: out of memory */
	CAP_FAIL_VCPUS,     /* filing the vCPUs' samples (pdf_error_str) */
};

struct cap_failure {
	enum cap_fail what;
	struct cap_err e;
	uint32_t ring;
	char path[4096];
};

#endif /* RINGSIDE_CAP_ERR_H */
