/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "run.h"

#define CMD "run"

static const char *const workloads[RS_WL_MAX] = {
	[RS_WL_STEADY] = "steady", [RS_WL_BURST] = "burst", [RS_WL_HANG] = "hang",
	[RS_WL_HALT] = "halt", [RS_WL_CRASH] = "crash",
};

static void help(void)
{
	printf("usage: ringside run PAYLOAD [--vcpus N] [--data-pages N] [--aux-pages N]\n"
	       "                    [--mode normal|overwrite] [--control SOCKET]\n"
	       "                    [--duration S] [-o FILE] [--workload W] [--records N]\n"
	       "                    [--fill N] [--watermark BYTES] [--kvm DEVICE] [--quiet]\n\n"
	       "Boot PAYLOAD (a freestanding x86-64 ELF, such as the ringside guest\n"
	       "agent) in the ringside VMM, one trace ring per vCPU, and read the rings\n"
	       "in this process: normal rings are recorded while the guest runs, woken\n"
	       "by its doorbells; overwrite (flight recorder) rings are snapshotted once\n"
	       "the vCPUs stopped.  Ends when every vCPU stopped, at --duration or on\n"
	       "Ctrl-C, and prints per ring what was produced, delivered and lost, the\n"
	       "doorbells and the exits to user space.\n\n"
	       "  PAYLOAD               the guest image\n"
	       "  -n, --vcpus N         vCPUs, one ring each (default 1, at most %u)\n"
	       "      --data-pages N    data area pages per ring, a power of two (default 4)\n"
	       "      --aux-pages N     AUX area pages per ring, 0 or a power of two\n"
	       "  -m, --mode M          normal (default) or overwrite\n"
	       "  -c, --control SOCKET  serve the control socket and leave the rings to\n"
	       "                        'ringside record|snapshot --vm SOCKET'; runs until\n"
	       "                        --duration or Ctrl-C, even after the guest stopped\n"
	       "  -d, --duration S      stop the guest after S seconds\n"
	       "  -o, --output FILE     write the records to FILE (perf.data)\n"
	       "  -w, --workload W      what the guest agent does: steady (default), burst,\n"
	       "                        hang, halt or crash (a triple fault) after its records\n"
	       "  -r, --records N       sequence records per vCPU (default 1000)\n"
	       "      --fill N          pattern bytes per sequence record (default 16)\n"
	       "      --watermark B     bytes between doorbells (default half the data area)\n"
	       "      --kvm DEVICE      the KVM device (default /dev/kvm)\n"
	       "  -q, --quiet           print nothing but errors\n"
	       "  -h, --help            this text\n\n"
	       "Exit status: 0 success, 1 failure (FILE is then not created), 2 bad usage.\n",
	       RS_MAX_VCPUS);
}

static int pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int number(const char *opt, const char *arg, uint32_t min, uint32_t max,
		  uint32_t *out)
{
	if (cli_parse_u32(arg, min, max, out))
		return cli_usage(CMD, "%s wants a number %u..%u, not '%s'", opt, min,
				 max, arg);
	return 0;
}

static int pages(const char *opt, const char *arg, int zero_ok, uint32_t *out)
{
	if (cli_parse_u32(arg, zero_ok ? 0 : 1, 1u << 18, out) ||
	    (*out && !pow2(*out)))
		return cli_usage(CMD, "%s wants a power of two%s up to %u, not '%s'",
				 opt, zero_ok ? " or 0" : "", 1u << 18, arg);
	return 0;
}

static int option(int c, struct run_opts *o)
{
	struct rs_vmm_params *p = &o->params;

	switch (c) {
	case 'n':
		return number("--vcpus", optarg, 1, RS_MAX_VCPUS, &p->nr_vcpus);
	case 'D':
		return pages("--data-pages", optarg, 0, &p->data_pages);
	case 'A':
		return pages("--aux-pages", optarg, 1, &p->aux_pages);
	case 'r':
		return number("--records", optarg, 0, UINT32_MAX, &p->boot.records);
	case 'F':
		return number("--fill", optarg, 0, (uint32_t)(RS_RECORD_MAX -
			      sizeof(struct rs_rec_seq)), &p->boot.fill);
	case 'W':
		return number("--watermark", optarg, 1, UINT32_MAX, &p->data_watermark);
	case 'm':
		if (!strcmp(optarg, "overwrite"))
			p->data_mode = p->aux_mode = RS_MODE_OVERWRITE;
		else if (!strcmp(optarg, "normal"))
			p->data_mode = p->aux_mode = RS_MODE_NORMAL;
		else
			return cli_usage(CMD, "--mode is normal or overwrite, not '%s'",
					 optarg);
		return 0;
	case 'w':
		for (uint32_t i = 0; i < RS_WL_MAX; i++) {
			if (!strcmp(optarg, workloads[i])) {
				p->boot.workload = i;
				return 0;
			}
		}
		return cli_usage(CMD, "--workload is steady, burst, hang, halt or "
				 "crash, not '%s'", optarg);
	case 'd':
		if (cli_parse_seconds(optarg, 1e7, &o->duration))
			return cli_usage(CMD, "--duration wants seconds > 0, not '%s'",
					 optarg);
		return 0;
	case 'c': o->control = optarg; return 0;
	case 'o': o->output = optarg; return 0;
	case 'K': p->kvm_path = optarg; return 0;
	case 'q': o->quiet = 1; return 0;
	default: return -2;
	}
}

int run_opts_parse(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "vcpus",      required_argument, NULL, 'n' },
		{ "data-pages", required_argument, NULL, 'D' },
		{ "aux-pages",  required_argument, NULL, 'A' },
		{ "mode",       required_argument, NULL, 'm' },
		{ "control",    required_argument, NULL, 'c' },
		{ "duration",   required_argument, NULL, 'd' },
		{ "output",     required_argument, NULL, 'o' },
		{ "workload",   required_argument, NULL, 'w' },
		{ "records",    required_argument, NULL, 'r' },
		{ "fill",       required_argument, NULL, 'F' },
		{ "watermark",  required_argument, NULL, 'W' },
		{ "kvm",        required_argument, NULL, 'K' },
		{ "quiet",      no_argument,       NULL, 'q' },
		{ "help",       no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(o, 0, sizeof(*o));
	rs_vmm_params_init(&o->params);
	o->params.data_pages = 4;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":n:m:c:d:o:w:r:qh", longopts,
				NULL)) != -1) {
		if (c == 'h') {
			help();
			return -1;
		}
		ret = option(c, o);
		if (ret == -2)
			return cli_bad_option(CMD, argv, c);
		if (ret)
			return ret;
	}
	if (optind >= argc)
		return cli_usage(CMD, "which payload? give the guest image to boot");
	if (argc - optind > 1)
		return cli_usage(CMD, "one payload only; '%s' is extra", argv[optind + 1]);
	o->payload = argv[optind];
	if (o->control && o->output)
		return cli_usage(CMD, "with --control the rings are read by 'ringside "
				 "record|snapshot --vm'; -o is for reading them here");
	return 0;
}
