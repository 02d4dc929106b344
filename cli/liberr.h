/* SPDX-License-Identifier: MIT */
/*
 * Errors as the command's helpers hand them up.  The helpers (region_map,
 * drain, snapper, recorder, ...) call several libraries, and each library
 * keeps its own negative codes and its own *_errstr(): the ring library's
 * -rse_*, the perf.data library's (-errno or PDF_ERR(e)), the libvirt
 * library's (-errno or -dome_*), a system call's -errno.  Those codes
 * overlap, so a helper whose failures come from more than one of them
 * returns the code as the library gave it, and notes in a struct liberr
 * which errstr names it.  Nothing is renumbered: the command prints
 * liberr_str(), and tests liberr_is() or liberr_from() to say more.  A
 * helper whose errors all come from one library returns them plainly and
 * says which beside its declaration.
 *
 *	struct liberr e = { 0 };
 *
 *	if (rmap_open(&m, spec, 0, &e))
 *		cli_err(CMD, "cannot map %s: %s", spec, liberr_str(&e));
 */
#ifndef RINGSIDE_CLI_LIBERR_H
#define RINGSIDE_CLI_LIBERR_H

typedef const char *(*liberr_fn)(int code);

struct liberr {
	int code;                 /* < 0, as the library returned it */
	liberr_fn str;            /* rs_errstr, pdf_errstr, dom_errstr, liberr_sys */
};

/* strerror() of a system call's -errno. */
const char *liberr_sys(int code);

/* @ret, a return of the library that @str names; a failure (< 0) is noted
 * in @e.  Returns @ret. */
static inline int liberr_note(struct liberr *e, int ret, liberr_fn str)
{
	if (ret < 0) {
		e->code = ret;
		e->str = str;
	}
	return ret;
}

/* The words for @e; one that nothing was noted in (declared = { 0 })
 * says so. */
static inline const char *liberr_str(const struct liberr *e)
{
	return e->str ? e->str(e->code) : "unknown error";
}

/* 1 if @e came from the library @str names. */
static inline int liberr_from(const struct liberr *e, liberr_fn str)
{
	return e->str == str;
}

/* 1 if @e is @code of the library @str names. */
static inline int liberr_is(const struct liberr *e, liberr_fn str, int code)
{
	return e->str == str && e->code == code;
}

#endif /* RINGSIDE_CLI_LIBERR_H */
