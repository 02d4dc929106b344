/* SPDX-License-Identifier: MIT */
/*
 * Who this guest is, for the host's files (abi.h, struct rs_guest_info):
 * the guest's name, kernel release and machine (uname), its CPUs
 * (sysconf), its memory (/proc/meminfo) and CPU model (/proc/cpuinfo),
 * and the sampling event kbuf opens.  The host takes all of it as the
 * guest's word.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent.h"

/* @src into the NUL-padded field @dst of @len bytes (cut at @len). */
static void put(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	memcpy(dst, src, n);
	memset(dst + n, 0, len - n);
}

/* The value of the first line of @path that starts with @key (up to its
 * ':'), into @val (@len bytes, NUL-terminated, blanks around it cut).
 * 0; -ENOENT (no such line), -errno. */
static int field(const char *path, const char *key, char *val, size_t len)
{
	char line[512];
	size_t klen = strlen(key);
	FILE *f = fopen(path, "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v, *end;

		if (strncmp(line, key, klen))
			continue;
		v = line + klen;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != ':')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		end = v + strlen(v);
		while (end > v && (end[-1] == '\n' || end[-1] == ' ' ||
				   end[-1] == '\t'))
			end--;
		*end = 0;
		snprintf(val, len, "%s", v);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

static uint32_t cpus(int name)
{
	long n = sysconf(name);

	return n > 0 && n <= (long)UINT32_MAX ? (uint32_t)n : 0;
}

int agent_ginfo_fill(struct rs_guest_info *gi, const struct agent_events *ev,
		     const struct agent_ginfo_paths *p)
{
	struct perf_event_attr a;
	struct utsname u;
	char val[128];
	uint64_t kib;
	int err = 0, e;

	memset(gi, 0, sizeof(*gi));
	if (!uname(&u)) {
		put(gi->hostname, sizeof(gi->hostname), u.nodename);
		put(gi->os_release, sizeof(gi->os_release), u.release);
		put(gi->arch, sizeof(gi->arch), u.machine);
	} else {
		err = -errno;
	}
	gi->nr_cpus_online = cpus(_SC_NPROCESSORS_ONLN);
	gi->nr_cpus_avail = cpus(_SC_NPROCESSORS_CONF);
	e = field(p->meminfo, "MemTotal", val, sizeof(val));
	if (!e && sscanf(val, "%" SCNu64 " kB", &kib) == 1)
		gi->mem_total_kib = kib;
	else if (!err)
		err = e ? e : -EINVAL;
	e = field(p->cpuinfo, "model name", val, sizeof(val));
	if (!e)
		put(gi->cpu_desc, sizeof(gi->cpu_desc), val);
	else if (!err)
		err = e;
	agent_kbuf_sample_attr(&a, ev);
	gi->sample_type_id = a.type;
	gi->sample_config = a.config;
	gi->sample_period = a.sample_period;    /* sample_freq with freq */
	gi->sample_flags = (a.freq ? RS_SAMPLE_FREQ : 0) |
			   (a.exclude_user ? RS_SAMPLE_EXCLUDE_USER : 0) |
			   (a.exclude_kernel ? RS_SAMPLE_EXCLUDE_KERNEL : 0);
	return err;
}
