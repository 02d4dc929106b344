// SPDX-License-Identifier: MIT
/*
 * The freestanding guest agent: one instance per vCPU, entered from
 * entry.S.  It validates the region the VMM gave it, reads the host's
 * configuration, reports its status, runs the workload on its own ring and
 * then ends the way the boot info asks: cleanly, or by hanging or crashing
 * on purpose so the host can prove its flight recorder survives.
 */
#include "agent.h"

static struct agent agents[RS_MAX_VCPUS];

/* The region as vCPU 0 validated it.  The VMM starts the other vCPUs
 * once vCPU 0 says so (RS_PORT_READY), so each of 1024 vCPUs does not
 * validate 1024 rings again: they share this copy, read-only. */
static struct rs_region region;
static uint32_t region_ok;

static void console(const char *s)
{
	while (*s)
		outb(RS_PORT_CONSOLE, (uint8_t)*s++);
}

static _Noreturn void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

static _Noreturn void fail(struct agent *a, int err)
{
	if (a->rep) {
		a->rep->error = err;
		rs_shared_store32(&a->rep->phase, RS_PHASE_FAILED);
	}
	console("ringside agent: failed\n");
	outl(RS_PORT_ERROR, (uint32_t)err);
	halt_forever();
}

/* The region header is shared with the host: the ring library reads it. */
static int wait_enabled(struct agent *a)
{
	for (uint64_t spins = 0;; spins++) {
		if (rs_guest_enabled(a->region) == 1)
			return 0;
		if (!a->boot->wait_enabled || spins > (1u << 20))
			return -rse_disabled;
		cpu_relax();
	}
}

/* Who this guest is, for the host's files: a payload, not a Linux, with
 * its vCPUs; it says nothing of memory or a sampling event. */
static int publish_identity(struct agent *a, uint32_t nr_vcpus)
{
	static const struct rs_guest_info gi = {
		.hostname = "ringside-payload",
		.os_release = "freestanding",
		.arch = "x86_64",
	};
	struct rs_guest_info mine = gi;

	mine.nr_cpus_online = mine.nr_cpus_avail = nr_vcpus;
	return rs_guest_info_publish(a->region, &mine);
}

/*
 * One read of each host-written value the agent uses.  vCPU 0 speaks for
 * the agent in the region's status; the others only beat the heart.
 */
static int attach(struct agent *a, uint32_t nr_vcpus)
{
	struct rs_config cfg;
	uint64_t bell;
	int err;

	if (a->id == 0) {
		err = publish_identity(a, nr_vcpus);
		if (!err)
			err = rs_guest_attach(a->region, RS_AGENT_FREESTANDING,
					      nr_vcpus, &cfg);
	} else
		err = rs_guest_config_read(a->region, &cfg);
	if (err < 0)
		return err;
	a->mask = (uint32_t)cfg.trace_mask;
	a->sample_type = cfg.sample_type;
	a->aux_size = a->ring.aux_size;
	bell = cfg.doorbell_addr;
	/* Only an address the identity map covers and RAM does not. */
	if (bell >= RS_BOOT_DOORBELL_GPA && bell < RS_BOOT_IDMAP_END)
		a->doorbell = (volatile uint32_t *)(uintptr_t)bell;
	return 0;
}

/* vCPU 0: validate the region, wait for the host's switch, validate it
 * again (the configuration is copied at open, and may have changed while
 * we waited), then publish it to the others. */
static int open_region(struct agent *a, uint64_t region_gpa)
{
	int err;

	err = rs_region_open(&region, (void *)(uintptr_t)region_gpa,
			     a->boot->region_size);
	if (!err)
		err = wait_enabled(a);
	if (!err)
		err = rs_region_open(&region, (void *)(uintptr_t)region_gpa,
				     a->boot->region_size);
	if (!err)
		rs_shared_store32(&region_ok, 1);
	return err;
}

void agent_main(const struct rs_boot_info *boot, uint64_t id,
		uint64_t region_gpa, uint64_t nr_rings)
{
	struct agent *a;
	int err;

	if (id >= RS_MAX_VCPUS || boot->magic != RS_BOOT_MAGIC ||
	    boot->version != RS_BOOT_VERSION || id >= boot->nr_vcpus) {
		console("ringside agent: bad boot info\n");
		halt_forever();
	}
	a = &agents[id];
	a->boot = boot;
	a->id = (uint32_t)id;
	a->rep = (struct rs_guest_report *)(uintptr_t)
		 (boot->report_gpa + id * sizeof(struct rs_guest_report));
	memset(a->rep, 0, sizeof(*a->rep));
	a->rep->phase = RS_PHASE_RUNNING;
	a->rep->first_tsc = rdtsc();
	if (region_gpa != boot->region_gpa || nr_rings != boot->nr_rings)
		fail(a, -rse_invalid);

	a->region = &region;
	if (a->id == 0) {
		err = open_region(a, region_gpa);
		/* the others go on either way: without the region they fail
		 * (one exit, and none for a guest of one vCPU) */
		if (boot->nr_vcpus > 1)
			outl(RS_PORT_READY, (uint32_t)err);
		if (err)
			fail(a, err);
	} else if (!rs_shared_load32(&region_ok)) {
		fail(a, -rse_disabled);
	}
	err = rs_producer_init(&a->prod, a->region, a->id);
	if (!err)
		err = rs_region_ring(a->region, a->id, &a->ring);
	if (!err)
		err = attach(a, boot->nr_vcpus);
	if (err)
		fail(a, err);

	err = agent_workload(a);
	if (err)
		fail(a, err);
	agent_finish(a);
}

/* How the run ends: the crash variants stop here with records in place. */
_Noreturn void agent_finish(struct agent *a)
{
	static const struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) null_idt = { 0, 0 };

	a->rep->last_tsc = rdtsc();
	rs_shared_store32(&a->rep->phase, RS_PHASE_DONE);
	switch (a->boot->workload) {
	case RS_WL_SCRIBBLE:
		/* A kernel corrupting memory on its way down.  Under the VMM's
		 * header guard only the guest's own fields take the zeros. */
		if (a->id == 0) {
			volatile uint64_t *h = (volatile uint64_t *)(void *)
				rs_region_header(a->region);

			for (uint32_t i = 0; i < RS_PAGE_SIZE / sizeof(*h); i++)
				h[i] = 0;
		}
		for (;;)
			__asm__ volatile("cli; 1: jmp 1b");
	case RS_WL_HANG:
		for (;;)
			__asm__ volatile("cli; 1: jmp 1b");
	case RS_WL_HALT:
		halt_forever();
	case RS_WL_CRASH:
		/* A fault with no IDT: #GP, then #DF, then shutdown.  ud2 rather
		 * than int3: a software interrupt needs KVM to emulate its
		 * injection on some hosts, which fails there as an internal
		 * error instead of a triple fault. */
		__asm__ volatile("cli; lidt %0; ud2" : : "m"(null_idt));
		halt_forever();
	default:
		outl(RS_PORT_DONE, (uint32_t)a->rep->attempted);
		halt_forever();
	}
}
