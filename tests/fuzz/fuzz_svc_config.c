/* SPDX-License-Identifier: MIT */
/*
 * Target: the service's configuration file (svc_config_parse over the
 * defaults, every key of it), the text whole.  Whatever it holds: 0 with
 * no line named, or -EINVAL naming a line of the text and why, or
 * -ENOMEM; what it took is within the keys' bounds; the same text again
 * over what it made gives the same verdict (a key given twice replaces
 * its value, and leaks none: svc_config_fini frees all).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "ringside/service_config.h"
#include "ringside/service_http.h"

static void check(const struct svc_config *c)
{
	uint32_t ip;
	uint16_t port;

	if (c->burst < 1 || c->burst > 1000 || c->window_s < 1 ||
	    c->window_s > 604800 || c->hang_after_s < 1 ||
	    c->hang_after_s > 86400 ||
	    (c->capture_on & ~(uint32_t)(SVC_ON_CRASH | SVC_ON_WATCHDOG |
					 SVC_ON_HANG)))
		abort();
	if (c->capture_dir && c->capture_dir[0] != '/')
		abort();
	if (c->socket && c->socket[0] && c->socket[0] != '/')
		abort();
	if (c->metrics && c->metrics[0] &&
	    (svc_http_addr(c->metrics, &ip, &port) || !port))
		abort();
	if (c->rec.nr_domains && !c->rec.domains)
		abort();
	for (uint32_t i = 0; i < c->rec.nr_domains; i++)
		if (!c->rec.domains[i])
			abort();
}

static int parse(struct svc_config *c, const char *text, size_t len)
{
	unsigned line = 12345, lines = 1;
	const char *why = NULL;
	int err = svc_config_parse(c, text, len, &line, &why);

	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	if (err == 0) {
		if (line != 0)
			abort();
		check(c);
	} else if (err == -EINVAL) {
		if (!why || !*why || line < 1 || line > lines)
			abort();
	} else if (err != -ENOMEM) {
		abort();
	}
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct svc_config c;
	int first, again;

	svc_config_default(&c);
	first = parse(&c, (const char *)data, size);
	again = parse(&c, (const char *)data, size);
	if (first != -ENOMEM && again != -ENOMEM && first != again)
		abort();
	svc_config_fini(&c);
	return 0;
}
