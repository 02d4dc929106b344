/* SPDX-License-Identifier: MIT */
/*
 * cap_flight_capture as the libvirt hook calls it at "release end"
 * (dom_capture_fn): the domain's configuration turned into the host's
 * layout, the outcome given to the hook's log in one line.
 */
#include <inttypes.h>
#include <stdio.h>

#include "ringside/log.h"

#include "cap_internal.h"

static const char *syms_word(int state)
{
	switch (state) {
	case GI_SYMS_OK:
		return "its kernel symbols";
	case GI_SYMS_REFUSED:
	case GI_SYMS_CORRUPT:
		return "its kernel symbols refused";
	default:
		return "no kernel symbols";
	}
}

int cap_flight_hook(void *arg, const char *domain, const char *region_path,
		    int region_fd, const struct dom_cfg *c, rs_log_fn log,
		    void *log_arg)
{
	const struct cap_flight_opts *o = arg;
	struct rs_region_params layout;
	struct cap_flight_req q = {
		.domain = domain,
		.region_path = region_path,
		.dir = o->dir ? o->dir : CAP_FLIGHT_DIR,
		.keep = o->keep,
		.keep_bytes = o->keep_bytes,
		.buildid_dir = o->buildid_dir,
		.argc = o->argc,
		.argv = o->argv,
	};
	struct cap_flight_result res;
	int err;

	if (c) {
		dom_cfg_params(c, &layout);
		q.layout = &layout;
	}
	err = cap_flight_capture_fd(&q, region_fd, &res);
	if (err) {
		rs_log(log, log_arg, RS_LOG_ERR, "%s: the flight recorder could "
		       "not be captured "
		    "into %s/%s: %s", domain, q.dir, domain, cap_err_str(&res.fail.e));
		return err;
	}
	if (res.empty) {
		rs_log(log, log_arg, RS_LOG_NOTICE, "%s: flight recorder empty "
		       "(the guest never "
		    "wrote to it): nothing captured", domain);
		return 0;
	}
	rs_log(log, log_arg, RS_LOG_NOTICE, "%s: flight recorder captured: %s "
	       "(%" PRIu64 " records "
	    "of %u rings, %" PRIu64 " bytes, %s%s; %" PRIu64 " overwritten, %"
	    PRIu64 " lost, %" PRIu64 " corrupt); %u older captures removed",
	    domain, res.path, res.records, res.rings, res.bytes,
	    syms_word(res.syms_state), res.damaged ? ", header damaged" : "",
	    res.overwritten, res.lost, res.corrupt, res.pruned);
	if (res.prune_err)
		rs_log(log, log_arg, RS_LOG_WARNING, "%s: removing older "
		       "captures: %s", domain,
		    cap_err_sys(res.prune_err));
	return 0;
}
