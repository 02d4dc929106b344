/* SPDX-License-Identifier: MIT */
/* Private to the service: the recordings' metrics (src/svc_metrics_rec.c). */
#ifndef RINGSIDE_SVC_METRICS_REC_H
#define RINGSIDE_SVC_METRICS_REC_H

#include <stdio.h>

#include "ringside/service.h"

/* The recordings of all domains together: their families into @f. */
void svc_metrics_rec_totals(FILE *f, const struct svc_rec_stats *r);

/* Each of @st's recorded domains (st->rec_domains): its recorder's
 * families into @f. */
void svc_metrics_rec_domains(FILE *f, const struct svc_stats *st);

#endif /* RINGSIDE_SVC_METRICS_REC_H */
