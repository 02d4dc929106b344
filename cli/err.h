/* SPDX-License-Identifier: MIT */
/*
 * One space of negative error codes for the ringside command's modules:
 *
 *   -1 .. -4095         -errno from a system call
 *   -(ERR_RING + e)     enum rs_error e from the ring library
 *   -(ERR_PDF + e)      enum pdf_error e from the perf.data library: its
 *                       own PDF_ERR(e) (ringside/perfdata.h), unchanged
 *   -e, e >= ERR_DOM    enum dom_error e of the libvirt library
 *                       (libvirt/include/ringside/domain.h), as it returns
 *                       them: its codes start at ERR_DOM (DOM_ERROR_BASE)
 *
 * err_str() names any of them; only the cmd_* layer prints it.
 */
#ifndef RINGSIDE_CLI_ERR_H
#define RINGSIDE_CLI_ERR_H

#define ERR_RING 4096
#define ERR_PDF  8192
#define ERR_DOM  12288

/* A ring library return (>= 0 or -rse_*) mapped into this space. */
static inline int err_from_ring(int ret)
{
	return ret < 0 ? -(ERR_RING - ret) : ret;
}

/* The rs_error value inside @err, or 0 if @err is not a ring error. */
static inline int err_ring_code(int err)
{
	return (err <= -ERR_RING && err > -ERR_PDF) ? -err - ERR_RING : 0;
}

/* Never NULL. */
const char *err_str(int err);

#endif /* RINGSIDE_CLI_ERR_H */
