/* SPDX-License-Identifier: MIT */
/*
 * Test driver for the service's continuous recording without libvirt:
 * records region file REGION as domain DOMAIN into DIR until file UNTIL
 * exists, then stops it ("stop") and waits for every file to be complete
 * and handed to the post-command.
 *
 *   svc-rec-drive DIR DOMAIN REGION UNTIL ROTATE_BYTES ROTATE_S KEEP_BYTES
 *                 [POST_COMMAND]
 *
 * Then one line: files F rotations R records N lost L post_ok P
 * post_failed Q post_run X pruned Y, and one per domain the recorder
 * counted (svc_recstats_domains): domain NAME files F rotations R pruned P
 * pruned_bytes B started S failed X recording 0|1, then for each ring
 * "ring I records N bytes B lost L corrupt C".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/service_record.h"

static void logf_(void *arg, int level, const char *fmt, va_list ap)
{
	(void)arg;
	(void)level;
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void nap(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	const struct svc_env env = { logf_, NULL, argc, argv };
	struct svc_rec_config c;
	struct svc_rec_stats st;
	struct svc_rec_domain *d = NULL;
	struct svc_rec *rp;
	size_t nd = 0;
	int err;

	if (argc < 8 || argc > 9) {
		fprintf(stderr, "usage: svc-rec-drive DIR DOMAIN REGION UNTIL "
			"ROTATE_BYTES ROTATE_S KEEP_BYTES [POST_COMMAND]\n");
		return 2;
	}
	svc_rec_config_default(&c);
	c.rotate_bytes = strtoull(argv[5], NULL, 0);
	c.rotate_s = (uint32_t)strtoul(argv[6], NULL, 0);
	c.keep_bytes = strtoull(argv[7], NULL, 0);
	c.post_command = argc > 8 ? argv[8] : NULL;
	c.interval_ms = 10;
	err = svc_rec_new(&rp, &c, argv[1], &env);
	if (!err)
		err = svc_rec_start(rp, argv[2], "00000000-0000-4000-8000-000000000001",
				    argv[3], NULL);
	if (err) {
		fprintf(stderr, "svc-rec-drive: cannot record %s: %d\n", argv[3], err);
		return 1;
	}
	while (access(argv[4], F_OK)) {
		svc_rec_poll(rp, cap_time_now_ns());
		nap();
	}
	svc_rec_stop(rp, argv[2], "stop");
	/* the recorder completes its file by itself; the loop reaps it */
	for (;;) {
		svc_rec_poll(rp, cap_time_now_ns());
		svc_recstats_get(svc_rec_counts(rp), &st);
		if (!st.recording && !svc_rec_post_pending(rp))
			break;
		nap();
	}
	err = svc_recstats_domains(svc_rec_counts(rp), &d, &nd);
	svc_rec_free(rp, "shutdown");
	printf("files %" PRIu64 " rotations %" PRIu64 " records %" PRIu64
	       " lost %" PRIu64 " post_ok %" PRIu64 " post_failed %" PRIu64
	       " post_run %" PRIu64 " pruned %" PRIu64 " failed %" PRIu64 "\n",
	       st.files, st.rotations, st.records, st.lost, st.post_ok,
	       st.post_failed, st.post_run, st.pruned, st.failed);
	for (size_t i = 0; i < nd; i++) {
		printf("domain %s files %" PRIu64 " rotations %" PRIu64
		       " pruned %" PRIu64 " pruned_bytes %" PRIu64 " started %"
		       PRIu64 " failed %" PRIu64 " recording %d", d[i].domain,
		       d[i].files, d[i].rotations, d[i].pruned,
		       d[i].pruned_bytes, d[i].started, d[i].failed,
		       d[i].recording);
		for (uint32_t k = 0; k < d[i].nr_rings; k++)
			printf(" ring %u records %" PRIu64 " bytes %" PRIu64
			       " lost %" PRIu64 " corrupt %" PRIu64, k,
			       d[i].ring[k].records, d[i].ring[k].bytes,
			       d[i].ring[k].lost, d[i].ring[k].corrupt);
		printf("\n");
	}
	svc_recstats_domains_free(d, nd);
	c.post_command = NULL;
	svc_rec_config_fini(&c);
	return st.failed || err ? 1 : 0;
}
