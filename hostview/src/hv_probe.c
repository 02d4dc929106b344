/* SPDX-License-Identifier: MIT */
/*
 * What this host allows, tried rather than guessed: each source's event
 * is opened on the thread and closed again.  perf_event_paranoid, the
 * caller's capabilities, tracefs's mount and the kvm module all decide,
 * and only the kernel knows how they combine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void kvm_module(struct hv_probe *p)
{
	static const char *const mods[] = { "kvm_intel", "kvm_amd", "kvm_pvm" };
	char path[64];

	p->kvm[0] = 0;
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		strcpy(path, "/sys/module/");
		strcat(path, mods[i]);
		if (access(path, F_OK) == 0) {
			strcpy(p->kvm, mods[i]);
			break;
		}
	}
	/* PVM's switcher enters and leaves the guest without KVM's
	 * kvm_exit tracepoint (measured: 0 kvm_exit, every KVM_RUN return
	 * in kvm_userspace_exit). */
	p->exits_seen = p->kvm[0] && strcmp(p->kvm, "kvm_pvm") != 0;
}

static int try_open(uint32_t src, uint32_t tp_id, int32_t pid)
{
	struct perf_event_attr a;
	int fd;

	hv_src_attr(src, tp_id, 1, 0, &a);
	a.disabled = 1;
	fd = hv_src_perf_open(&a, pid);
	if (fd < 0)
		return hv_src_open_error(fd);
	close(fd);
	return 0;
}

int hv_probe(const struct hv_rec_opts *o, int32_t pid, struct hv_probe *out)
{
	uint32_t sources = o && o->sources ? o->sources : HV_SRC_ALL;
	uint32_t ids[HV_SRC_MAX];
	struct hv_layout l;
	char buf[32];
	int errs[HV_SRC_MAX];

	if (!out || pid < 0)
		return HV_ERR(hve_invalid);
	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	if (hv_thread_read_small(AT_FDCWD,
				 "/proc/sys/kernel/perf_event_paranoid",
				 buf, sizeof(buf)) > 0)
		out->paranoid = (uint32_t)(atoi(buf) + 10);
	kvm_module(out);
	sources |= HV_SRC_BIT(HV_SRC_SWITCH);
	hv_src_load(o ? o->tracefs : NULL, sources, ids, &l, errs);
	for (uint32_t s = 0; s < HV_SRC_MAX; s++) {
		if (!(sources & HV_SRC_BIT(s)))
			continue;
		out->src[s] = errs[s] ? errs[s] : try_open(s, ids[s], pid);
		if (!out->src[s])
			out->usable |= HV_SRC_BIT(s);
	}
	out->perf = out->src[HV_SRC_SWITCH];
	return out->perf;
}
