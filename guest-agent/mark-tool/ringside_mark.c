/* SPDX-License-Identifier: MIT */
/*
 * ringside-mark [--sync] ID TEXT...: one application marker from a shell.
 * Exit status: 0 sent (with --sync: in the ring), 1 not, 2 bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/mark.h"

static int usage(void)
{
	fprintf(stderr, "usage: ringside-mark [--sync] [--socket PATH] ID TEXT...\n"
		"Send a marker to the ringside guest agent.  ID: 0..%u.\n"
		"The agent takes it at its next pass (up to a second or two).\n"
		"--sync wakes the agent and waits until it has written it (up to 1 s).\n",
		RS_MARK_ID_AGENT - 1);
	return 2;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	char text[RS_MARK_TEXT_MAX + 1];
	unsigned long id;
	struct rs_marker m;
	uint32_t flags = 0;
	size_t len = 0;
	char *end;
	int i, err;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--sync"))
			flags |= RS_MARK_SYNC;
		else if (!strcmp(argv[i], "--socket") && i + 1 < argc)
			path = argv[++i];
		else
			return usage();
	}
	if (i >= argc)
		return usage();
	errno = 0;
	id = strtoul(argv[i], &end, 0);
	if (errno || *end || !argv[i][0] || id >= RS_MARK_ID_AGENT)
		return usage();
	/* the words of TEXT joined by single spaces, cut at the limit */
	text[0] = '\0';
	for (i++; i < argc && len < RS_MARK_TEXT_MAX; i++) {
		int n = snprintf(text + len, sizeof(text) - len, "%s%s",
				 len ? " " : "", argv[i]);

		len += n < 0 ? 0 : (size_t)n;
	}
	if (len > RS_MARK_TEXT_MAX)
		len = RS_MARK_TEXT_MAX;
	err = rs_mark_open(&m, path);
	if (!err)
		err = rs_mark_send(&m, (uint32_t)id, text, (uint32_t)len, flags);
	rs_mark_close(&m);
	if (err) {
		fprintf(stderr, "ringside-mark: %s%s\n", strerror(-err),
			err == -ECONNREFUSED || err == -ENOENT ?
			" (is ringside-agent running?)" : "");
		return 1;
	}
	return 0;
}
