/* SPDX-License-Identifier: MIT */
/* `ringside run`: its options (cmd_run_opts.c) and its per-ring table
 * (cmd_run_out.c).  Part of the command layer. */
#ifndef RINGSIDE_CLI_CMD_RUN_H
#define RINGSIDE_CLI_CMD_RUN_H

#include "ringside/capture.h"
#include "ringside/vmm.h"

struct run_opts {
	struct vmm_params params;
	const char *payload;
	const char *control;       /* --control SOCKET: serve, do not consume */
	const char *output;        /* -o FILE, or NULL */
	double duration;           /* 0: until the vCPUs stop (or Ctrl-C) */
	int quiet;
};

/* 0 to go on, -1 after --help, else CLI_EXIT_USAGE (message printed). */
int run_opts_parse(int argc, char **argv, struct run_opts *o);

/* One line per ring: vCPU state, records produced, delivered and lost
 * (from @t, the records consumed here; NULL with --control), doorbells
 * (read by @rec, rung by the guest), exits to user space.  Returns the
 * rings where a finished guest's records do not balance. */
uint32_t run_print_rings(const struct run_opts *o, struct vmm *vm,
		     const struct cap_tally *t, const struct cap_recorder *rec,
		     double seconds);

/* The same check without the table (--quiet): the rings where a finished
 * guest's records do not balance; 0 when nothing was consumed here. */
uint32_t run_balance(struct vmm *vm, const struct cap_tally *t,
		     const struct cap_recorder *rec);

#endif /* RINGSIDE_CLI_CMD_RUN_H */
