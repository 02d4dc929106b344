/* SPDX-License-Identifier: MIT */
/*
 * Target: the metrics endpoint's request parser (svc_http_request), as
 * the endpoint calls it: on what a connection has read so far, up to
 * SVC_HTTP_REQUEST_MAX bytes.  Its verdict is 0 until the head is whole,
 * then an answer (200, 400, 404, 405, 431) that no later byte changes;
 * 200 only for GET or HEAD of /metrics (HEAD said so).  The input is the
 * bytes a client sends.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "ringside/service_http.h"

static int verdict(const char *buf, size_t len, int *head)
{
	int v = svc_http_request(buf, len, head);

	if (v != 0 && v != 200 && v != 400 && v != 404 && v != 405 &&
	    v != 431)
		abort();
	if (v == 200 && !(*head ? !strncmp(buf, "HEAD /metrics", 13) :
			  !strncmp(buf, "GET /metrics", 12)))
		abort();
	if (v != 200 && *head)
		abort();
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t len = size < SVC_HTTP_REQUEST_MAX ? size : SVC_HTTP_REQUEST_MAX;
	int head, whole = verdict(buf, len, &head), first = 0, checks = 0;

	if (size < SVC_HTTP_REQUEST_MAX && len == size && whole == 431)
		abort();
	/* a verdict can only come with a newline: check the prefixes that
	 * end just past one (the first 64) */
	for (size_t k = 1; k <= len && checks < 64; k++) {
		int v, h;

		if (k < len && buf[k - 1] != '\n')
			continue;
		checks++;
		v = verdict(buf, k, &h);
		if (!first)
			first = v;
		else if (v != first)
			abort();     /* a later byte changed the answer */
	}
	if (first && whole != first)
		abort();
	return 0;
}
