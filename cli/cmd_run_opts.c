/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "cli.h"
#include "cmd_run.h"

#define CMD "run"

int run_opts_parse(int argc, char **argv, struct run_opts *o)
{
	static const char *const modes[] = {
		[RS_MODE_NORMAL] = "normal", [RS_MODE_OVERWRITE] = "overwrite", NULL,
	};
	static const char *const workloads[RS_WL_MAX + 1] = {
		[RS_WL_STEADY] = "steady", [RS_WL_BURST] = "burst",
		[RS_WL_HANG] = "hang", [RS_WL_HALT] = "halt", [RS_WL_CRASH] = "crash",
		[RS_WL_SCRIBBLE] = "scribble", [RS_WL_CORRUPT] = "corrupt",
	};
	struct vmm_params *p = &o->params;
	const struct opt opts[] = {
		OPT_U32('n', "vcpus", &p->nr_vcpus, "N", 1, RS_MAX_VCPUS, NULL,
			"vCPUs, one ring each (default 1, at most {max})"),
		OPT_POW2(0, "data-pages", &p->data_pages, "N", 1, 1u << 18,
			 "data area pages per ring, a power of two (default 4)"),
		OPT_POW2(0, "aux-pages", &p->aux_pages, "N", 0, 1u << 18,
			 "AUX area pages per ring, 0 or a power of two"),
		OPT_ENUM('m', "mode", &p->data_mode, "M", modes,
			 "normal (default) or overwrite"),
		OPT_STRING('c', "control", &o->control, "SOCKET",
			   "serve the control socket and leave the rings to "
			   "'ringside record|snapshot --vm SOCKET'; runs until "
			   "--duration or Ctrl-C, even after the guest stopped"),
		OPT_SECONDS('d', "duration", &o->duration, "S", 10000000,
			    "stop the guest after S seconds"),
		OPT_STRING('o', "output", &o->output, "FILE",
			   "write the records to FILE (perf.data)"),
		OPT_ENUM('w', "workload", &p->boot.workload, "W", workloads,
			 "what the guest agent does: steady (default), burst, hang, "
			 "halt, crash (a triple fault), scribble (over the "
			 "region header, then hang) or corrupt (a last record "
			 "whose header no record can have) after its records"),
		OPT_U32('r', "records", &p->boot.records, "N", 0, UINT32_MAX, NULL,
			"sequence records per vCPU (default 1000)"),
		OPT_U32(0, "fill", &p->boot.fill, "N", 0,
			(uint32_t)(RS_RECORD_MAX - sizeof(struct rs_rec_seq)), NULL,
			"pattern bytes per sequence record (default 16, at most "
			"{max})"),
		OPT_U32(0, "watermark", &p->data_watermark, "B", 1, UINT32_MAX,
			"bytes", "bytes between doorbells (default half the data "
			"area)"),
		OPT_STRING(0, "kvm", &p->kvm_path, "DEVICE",
			   "the KVM device (default /dev/kvm)"),
		OPT_FLAG('q', "quiet", &o->quiet, "print nothing but errors"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_OPERAND_CMD("PAYLOAD", "the guest image",
				"which payload? give the guest image to boot"),
		.usage = "PAYLOAD [OPTIONS]",
		.about = "Boot PAYLOAD (a freestanding x86-64 ELF, such as the "
			 "ringside guest agent) in the ringside VMM, one trace ring "
			 "per vCPU, and read the rings in this process: normal rings "
			 "are recorded while the guest runs, woken by its doorbells; "
			 "overwrite (flight recorder) rings are snapshotted once the "
			 "vCPUs stopped.  Ends when every vCPU stopped, at --duration "
			 "or on Ctrl-C, and prints per ring what was produced, "
			 "delivered and lost, the doorbells and the exits to user "
			 "space.",
		.opts = opts,
		.notes = "Exit status: 0 success, 1 failure (FILE is then not "
			 "created; or a finished guest's records do not balance), "
			 "2 bad usage, 3 done and FILE whole, but the rings were "
			 "corrupt (bytes discarded, impossible heads) or their "
			 "records make implausible claims: stderr says what, "
			 "--quiet or not.",
	};
	int first, ret;

	memset(o, 0, sizeof(*o));
	vmm_params_init(p);
	p->data_pages = 4;
	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return ret;
	p->aux_mode = p->data_mode;
	o->payload = argv[first];
	if (o->control && o->output)
		return cli_usage(CMD, "with --control the rings are read by 'ringside "
				 "record|snapshot --vm'; -o is for reading them here");
	return 0;
}
