/* SPDX-License-Identifier: MIT */
/*
 * vmm-bench: the guest end-to-end line.  Records per second per vCPU that
 * the ringside VMM's freestanding payload writes into its rings, with
 * doorbells and a live consumer in this process on the other CPU, against
 * the same payload code (guest-agent/payload/workload.c) writing the same
 * records into rings in plain host memory, on host threads, with the same
 * consumer.  The ratio is what running in the VM costs the producer: its
 * exits (the header guard's heartbeat every 64 records, doorbells through
 * KVM), the second-level page tables, the guest's clock.
 *
 * One JSON object per line (docs/benchmarks.md):
 *   env             the machine, whether /dev/kvm opens, the parameters
 *   vmm_e2e_host    the payload's workload on host threads
 *   vmm_e2e_guest   the payload in the VMM
 *   vmm_e2e         both rates and the ratio guest / host
 *   end             load average, failures
 * Exit status: 0; 1 when a run failed, its accounting did not hold, or
 * the guest half could not run (no /dev/kvm); 2 bad usage.
 */
#include "e2e.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_util.h"

#ifndef RS_BENCH_PAYLOAD
#define RS_BENCH_PAYLOAD ""
#endif

enum { RUN_HOST = 1, RUN_GUEST = 2 };

static int failures;

static double loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double v = -1.0;

	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = -1.0;
		fclose(f);
	}
	return v;
}

static int cmp_res(const void *a, const void *b)
{
	double x = ((const struct e2e_result *)a)->rps_per_vcpu;
	double y = ((const struct e2e_result *)b)->rps_per_vcpu;

	return x < y ? -1 : x > y;
}

/* @reps repetitions of @fn into @res, sorted by rate; the median is
 * res[reps / 2].  Returns the repetitions that failed. */
static int repeat(const struct e2e_cfg *cfg,
		  int (*fn)(const struct e2e_cfg *, struct e2e_result *),
		  const char *name, struct e2e_result *res)
{
	int bad = 0;

	for (int i = 0; i < cfg->reps; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		fn(cfg, &res[i]);
		if (res[i].why[0]) {
			bad++;
			printf("{\"bench\":\"error\",\"what\":\"%s\",\"rep\":%d,"
			       "\"why\":\"%s\"}\n", name, i, res[i].why);
			fflush(stdout);
		}
	}
	qsort(res, (size_t)cfg->reps, sizeof(*res), cmp_res);
	return bad;
}

static void print_line(const char *name, const struct e2e_cfg *cfg,
		       const struct e2e_result *res, int bad)
{
	const struct e2e_result *m = &res[cfg->reps / 2];
	uint64_t total = (uint64_t)cfg->records * cfg->vcpus;

	printf("{\"bench\":\"%s\",\"record_size\":%u,\"records_per_vcpu\":%u,"
	       "\"vcpus\":%u,\"reps\":%d,\"failed_reps\":%d,"
	       "\"records_per_s_per_vcpu\":%.0f,"
	       "\"records_per_s_per_vcpu_min\":%.0f,"
	       "\"records_per_s_per_vcpu_max\":%.0f,"
	       "\"ns_per_record\":%.1f,\"wall_records_per_s_per_vcpu\":%.0f,"
	       "\"attempted\":%llu,\"delivered\":%llu,\"lost\":%llu,"
	       "\"dropped\":%llu,\"doorbells\":%llu,\"doorbells_seen\":%llu,"
	       "\"doorbells_suppressed\":%llu,\"doorbells_per_million\":%.2f,"
	       "\"space_waits\":%llu,\"space_gave_up\":%llu,"
	       "\"exits\":%llu,\"exits_header_guard\":%llu,"
	       "\"exits_per_1000_records\":%.2f,\"check\":\"%s\"}\n",
	       name, rs_seq_size(cfg->fill), cfg->records, cfg->vcpus,
	       cfg->reps, bad, m->rps_per_vcpu, res[0].rps_per_vcpu,
	       res[cfg->reps - 1].rps_per_vcpu,
	       m->rps_per_vcpu > 0 ? 1e9 / m->rps_per_vcpu : 0.0,
	       m->wall_rps_per_vcpu,
	       (unsigned long long)m->attempted,
	       (unsigned long long)m->delivered, (unsigned long long)m->lost,
	       (unsigned long long)m->dropped, (unsigned long long)m->doorbells,
	       (unsigned long long)m->doorbells_seen,
	       (unsigned long long)m->suppressed,
	       total ? (double)m->doorbells * 1e6 / (double)total : 0.0,
	       (unsigned long long)m->space_waits,
	       (unsigned long long)m->space_gave_up,
	       (unsigned long long)m->exits,
	       (unsigned long long)m->exits_header,
	       total ? (double)(m->exits + m->exits_header) * 1000.0 /
		       (double)total : 0.0,
	       bad ? "FAIL" : "ok");
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmm-bench [--records N] [--reps R] [--vcpus V] "
		"[--data-pages P] [--fill F] [--batch B] [--only host|guest] "
		"[--payload FILE] [--timeout S]\n"
		"  --records N     SEQ records per vCPU (default 200000)\n"
		"  --reps R        repetitions, 1..15; the median is reported "
		"(default 3)\n"
		"  --vcpus V       vCPUs, one ring each (default 1)\n"
		"  --data-pages P  data area per ring in 4 KiB pages, a power "
		"of two (default 64)\n"
		"  --fill F        pattern bytes per record (default 16: "
		"56-byte records)\n"
		"  --batch B       bytes per data_head publication, "
		"boot.data_batch; 0 = per record (default 16384)\n"
		"  --only W        run only the host or the guest half\n"
		"  --payload FILE  the guest agent (default: this build's, or "
		"$RS_GUEST_AGENT)\n"
		"  --timeout S     a guest run that has not ended fails "
		"(default 1800)\n");
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse(int argc, char **argv, struct e2e_cfg *cfg, int *which)
{
	static const struct option opts[] = {
		{ "records", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "data-pages", required_argument, NULL, 'p' },
		{ "fill", required_argument, NULL, 'f' },
		{ "batch", required_argument, NULL, 'b' },
		{ "only", required_argument, NULL, 'o' },
		{ "payload", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_u32(optarg, 1, UINT32_MAX, &cfg->records))
				goto bad;
			break;
		case 'r':
			if (parse_u32(optarg, 1, 15, &v))
				goto bad;
			cfg->reps = (int)v;
			break;
		case 'v':
			if (parse_u32(optarg, 1, RS_MAX_VCPUS, &cfg->vcpus))
				goto bad;
			break;
		case 'p':
			if (parse_u32(optarg, 1, 1u << 18, &cfg->data_pages) ||
			    !rs_is_pow2(cfg->data_pages))
				goto bad;
			break;
		case 'f':
			if (parse_u32(optarg, 0, 4000, &cfg->fill))
				goto bad;
			break;
		case 'b':
			if (parse_u32(optarg, 0, UINT32_MAX, &cfg->batch))
				goto bad;
			break;
		case 'o':
			if (!strcmp(optarg, "host"))
				*which = RUN_HOST;
			else if (!strcmp(optarg, "guest"))
				*which = RUN_GUEST;
			else
				goto bad;
			break;
		case 'P':
			cfg->payload = optarg;
			break;
		case 't':
			if (parse_u32(optarg, 1, 86400, &v))
				goto bad;
			cfg->timeout_s = (int)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (optind == argc)
		return 0;
bad:
	usage(stderr);
	return -1;
}

int main(int argc, char **argv)
{
	struct e2e_cfg cfg = {
		.records = 200000, .vcpus = 1, .data_pages = 64, .fill = 16,
		.batch = 16384, .reps = 3, .timeout_s = 1800,
	};
	struct e2e_result host[15], guest[15];
	int which = RUN_HOST | RUN_GUEST, ids[2], ncpu, kvm, bad;
	const char *env = getenv("RS_GUEST_AGENT");
	char model[128];

	cfg.payload = env && *env ? env : RS_BENCH_PAYLOAD;
	if (parse(argc, argv, &cfg, &which) < 0)
		return 2;
	ncpu = host_cpu_ids(ids, 2);
	cfg.prod_cpu = ncpu >= 2 ? ids[0] : -1;
	cfg.cons_cpu = ncpu >= 2 ? ids[1] : -1;
	kvm = access("/dev/kvm", R_OK | W_OK) == 0;
	/* under QEMU TCG the model says so ("QEMU Virtual CPU" or the model
	 * QEMU was told to show): it tells nested numbers apart */
	host_cpu_model(model, sizeof(model));
	printf("{\"bench\":\"env\",\"what\":\"vmm_e2e\",\"cpu\":\"%s\","
	       "\"cpus\":%d,\"pinned\":%s,\"kvm\":%s,\"records_per_vcpu\":%u,"
	       "\"vcpus\":%u,\"record_size\":%u,\"data_pages\":%u,"
	       "\"batch\":%u,\"reps\":%d,\"consumer\":\"busy_poll\","
	       "\"load\":%.2f}\n",
	       model, ncpu, cfg.prod_cpu >= 0 ? "true" : "false",
	       kvm ? "true" : "false", cfg.records, cfg.vcpus,
	       rs_seq_size(cfg.fill), cfg.data_pages, cfg.batch, cfg.reps,
	       loadavg());
	fflush(stdout);

	if (which & RUN_HOST) {
		bad = repeat(&cfg, e2e_host, "vmm_e2e_host", host);
		failures += bad;
		print_line("vmm_e2e_host", &cfg, host, bad);
	}
	if ((which & RUN_GUEST) && !kvm) {
		printf("{\"bench\":\"vmm_e2e_guest\",\"measured\":false,"
		       "\"why\":\"/dev/kvm does not open here: run it under "
		       "tests/nested/kvm-run\"}\n");
		failures++;
		which &= ~RUN_GUEST;
	}
	if (which & RUN_GUEST) {
		bad = repeat(&cfg, e2e_guest, "vmm_e2e_guest", guest);
		failures += bad;
		print_line("vmm_e2e_guest", &cfg, guest, bad);
	}
	if (which == (RUN_HOST | RUN_GUEST)) {
		double h = host[cfg.reps / 2].rps_per_vcpu;
		double g = guest[cfg.reps / 2].rps_per_vcpu;
		double hw = host[cfg.reps / 2].wall_rps_per_vcpu;
		double gw = guest[cfg.reps / 2].wall_rps_per_vcpu;

		printf("{\"bench\":\"vmm_e2e\",\"record_size\":%u,"
		       "\"host_records_per_s_per_vcpu\":%.0f,"
		       "\"guest_records_per_s_per_vcpu\":%.0f,"
		       "\"ratio_guest_to_host\":%.4f,"
		       "\"wall_ratio_guest_to_host\":%.4f}\n",
		       rs_seq_size(cfg.fill), h, g, h > 0 ? g / h : 0.0,
		       hw > 0 ? gw / hw : 0.0);
	}
	printf("{\"bench\":\"end\",\"load\":%.2f,\"failures\":%d}\n",
	       loadavg(), failures);
	return failures ? 1 : 0;
}
