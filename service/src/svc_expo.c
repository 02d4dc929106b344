/* SPDX-License-Identifier: MIT */
/* Prometheus' text exposition format, written (svc_expo.h). */
#include "svc_expo.h"

void svc_expo_family(FILE *f, const char *name, const char *type,
		     const char *help)
{
	/* HELP texts here hold no backslash or newline to escape */
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, escaped as the format asks. */
static void value_escaped(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\')
			fputs("\\\\", f);
		else if (*v == '"')
			fputs("\\\"", f);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

void svc_expo_labels(FILE *f, const char *name, const char *domain,
		     long ring, const char *reason)
{
	fputs(name, f);
	if (!domain)
		return;
	fputs("{domain=\"", f);
	value_escaped(f, domain);
	fputc('"', f);
	if (ring >= 0)
		fprintf(f, ",ring=\"%ld\"", ring);
	if (reason) {
		fputs(",reason=\"", f);
		value_escaped(f, reason);
		fputc('"', f);
	}
	fputc('}', f);
}

void svc_expo_u(FILE *f, const char *name, const char *domain, long ring,
		const char *reason, uint64_t v)
{
	svc_expo_labels(f, name, domain, ring, reason);
	fprintf(f, " %llu\n", (unsigned long long)v);
}

void svc_expo_i(FILE *f, const char *name, const char *domain, long ring,
		int64_t v)
{
	svc_expo_labels(f, name, domain, ring, NULL);
	fprintf(f, " %lld\n", (long long)v);
}

void svc_expo_d(FILE *f, const char *name, const char *domain,
		const char *reason, double v)
{
	svc_expo_labels(f, name, domain, -1, reason);
	fprintf(f, " %.6f\n", v);
}

void svc_expo_vcpu_d(FILE *f, const char *name, const char *domain,
		     uint32_t vcpu, double v)
{
	fputs(name, f);
	fputs("{domain=\"", f);
	value_escaped(f, domain);
	fprintf(f, "\",vcpu=\"%u\"} %.6f\n", vcpu, v);
}

void svc_expo_counter(FILE *f, const char *name, const char *help,
		      uint64_t v)
{
	svc_expo_family(f, name, "counter", help);
	svc_expo_u(f, name, NULL, -1, NULL, v);
}

void svc_expo_gauge(FILE *f, const char *name, const char *help, uint64_t v)
{
	svc_expo_family(f, name, "gauge", help);
	svc_expo_u(f, name, NULL, -1, NULL, v);
}

uint64_t svc_expo_value(const struct svc_expo_def *d, const void *obj)
{
	return *(const uint64_t *)(const void *)((const char *)obj + d->off);
}

void svc_expo_def_family(FILE *f, const struct svc_expo_def *d)
{
	svc_expo_family(f, d->name, d->type, d->help);
}

void svc_expo_defs(FILE *f, const struct svc_expo_def *defs, size_t n,
		   const void *obj)
{
	for (size_t i = 0; i < n; i++) {
		svc_expo_def_family(f, &defs[i]);
		svc_expo_u(f, defs[i].name, NULL, -1, NULL,
			   svc_expo_value(&defs[i], obj));
	}
}
