/* SPDX-License-Identifier: MIT */
/*
 * ringside capture DOMAIN: ask the host service (ringside-service) to
 * capture a domain's flight recorder now, as it does by itself when the
 * guest crashes; the capture lands in the service's capture directory
 * with reason "request" (docs/service.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ringside/service_client.h"
#include "ringside/text.h"

#include "cli.h"

#define CMD "capture"

int cmd_capture(int argc, char **argv)
{
	const char *sock = SVC_SOCKET_PATH;
	char reply[4200], said[RS_TEXT_TERM_MAX(sizeof(reply))];
	int first, ret, err;
	const struct opt opts[] = {
		OPT_STRING(0, "socket", &sock, "PATH",
			   "the service's control socket (default "
			   SVC_SOCKET_PATH ", or its configuration's socket)"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_OPERAND_CMD("DOMAIN", "a libvirt domain opted in with "
				"'ringside enable'", "which domain?"),
		.usage = "DOMAIN [--socket PATH]",
		.about = "Ask the host service (ringside-service, as root) to "
			 "capture DOMAIN's flight recorder now, into its capture "
			 "directory as DOMAIN/TIME-NNN-request.data, counted "
			 "against its per-domain rate limit, and print where.  "
			 "Without a service, 'ringside snapshot DOMAIN' takes the "
			 "same rings itself.",
		.opts = opts,
		.notes = "Exit status: 0 captured, 1 the service refused or "
			 "failed (it says why) or does not run, 2 bad usage.",
	};

	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	err = svc_client_request(sock, argv[first], reply, sizeof(reply));
	if (err == -ENOENT || err == -ECONNREFUSED) {
		cli_err(CMD, "no service listens on %s: is ringside-service "
			"running? ('ringside snapshot %s' takes the rings "
			"without it)", sock, argv[first]);
		return CLI_EXIT_FAIL;
	}
	if (err == -EACCES) {
		cli_err(CMD, "%s: permission denied: the service takes requests "
			"from root", sock);
		return CLI_EXIT_FAIL;
	}
	if (err) {
		cli_err(CMD, "asking the service on %s: %s", sock, strerror(-err));
		return CLI_EXIT_FAIL;
	}
	/* the answer came from a socket: escaped like any outside string */
	if (!strncmp(reply, "ok ", 3)) {
		printf("ringside capture: %s: captured by the service: %s\n",
		       argv[first], rs_text_str(said, sizeof(said), reply + 3, 0));
		return CLI_EXIT_OK;
	}
	cli_err(CMD, "%s: the service says: %s", argv[first],
		rs_text_str(said, sizeof(said), !strncmp(reply, "error ", 6) ?
			    reply + 6 : reply, 0));
	return CLI_EXIT_FAIL;
}
