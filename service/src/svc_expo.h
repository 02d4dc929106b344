/* SPDX-License-Identifier: MIT */
/*
 * Private to the service: Prometheus' text exposition format (0.0.4), as
 * the metrics write it (src/svc_expo.c): each family's "# HELP" and
 * "# TYPE" lines, then its samples, label values escaped (backslash,
 * double quote, newline).  A sample's labels: domain="D" (none when
 * @domain is NULL), then ring="R" (@ring >= 0) or reason="W" (@reason).
 */
#ifndef RINGSIDE_SVC_EXPO_H
#define RINGSIDE_SVC_EXPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A family's HELP (no backslash or newline in it) and TYPE lines. */
void svc_expo_family(FILE *f, const char *name, const char *type,
		     const char *help);

/* A sample's name and labels, its value still to write. */
void svc_expo_labels(FILE *f, const char *name, const char *domain,
		     long ring, const char *reason);

/* A sample of an unsigned, a signed, a real value. */
void svc_expo_u(FILE *f, const char *name, const char *domain, long ring,
		const char *reason, uint64_t v);
void svc_expo_i(FILE *f, const char *name, const char *domain, long ring,
		int64_t v);
/* A sample labelled with its domain and vCPU. */
void svc_expo_vcpu_d(FILE *f, const char *name, const char *domain,
		     uint32_t vcpu, double v);
void svc_expo_d(FILE *f, const char *name, const char *domain,
		const char *reason, double v);

/* A family of one counter, one gauge, without labels. */
void svc_expo_counter(FILE *f, const char *name, const char *help,
		      uint64_t v);
void svc_expo_gauge(FILE *f, const char *name, const char *help, uint64_t v);

/*
 * A row of a table of families whose samples are the uint64_t members
 * of one struct: the family's name, type and HELP text, and the member
 * (SVC_EXPO_AT).
 */
struct svc_expo_def {
	const char *name, *type, *help;
	size_t off;
};

/* The offset of @member of @type, a uint64_t: any other type does not
 * build. */
#define SVC_EXPO_AT(type, member) \
	_Generic(((type *)0)->member, uint64_t: offsetof(type, member))

/* @d's member in @obj, a struct of @d's table. */
uint64_t svc_expo_value(const struct svc_expo_def *d, const void *obj);

/* @d's HELP and TYPE lines. */
void svc_expo_def_family(FILE *f, const struct svc_expo_def *d);

/* The @n families of @defs, each of one sample without labels, its value
 * from @obj. */
void svc_expo_defs(FILE *f, const struct svc_expo_def *defs, size_t n,
		   const void *obj);

#endif /* RINGSIDE_SVC_EXPO_H */
