/* SPDX-License-Identifier: MIT */
/*
 * ringside VMM: a small KVM virtual machine whose vCPUs run a freestanding
 * payload that writes perf-style rings in a trace region (a memfd mapped
 * both into the guest, as its own memslot, and into the host).
 *
 * Every function returning int returns >= 0 on success and -errno on
 * failure.  Errors of note:
 *   -ENOENT, -EACCES   the KVM device could not be opened
 *   -ENOSYS            KVM lacks a capability the VMM needs
 *   -EINVAL            bad parameters (sizes not powers of two, ...)
 *   -ERANGE            more vCPUs than rings, or more than RS_MAX_VCPUS
 *   -E2BIG             region or payload does not fit the guest memory map
 *   -ENOEXEC           the payload is not a loadable x86-64 image
 * A log callback, if given, receives one line of detail per failure; the
 * library itself never prints.
 *
 * Threads: one thread per vCPU.  vmm_pause, vmm_resume and vmm_cpu_info
 * may be called from any thread; create/load/start/stop/destroy from one
 * controlling thread.  The library installs a handler for a real-time
 * signal (SIGRTMIN) to kick vCPUs out of KVM_RUN.
 *
 * Each function is named after its file: vmm_MODULE_* in vmm/MODULE.c
 * (vmm_cpu_* in cpu.c, vmm_region_* in region.c, ...); the VM's own
 * life (create, start, pause, stop, destroy) is vmm.c's, vmm_*.
 */
#ifndef RINGSIDE_VMM_H
#define RINGSIDE_VMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"
#include "ringside/guest_boot.h"
#include "ringside/log.h"
#include "ringside/vmm_control.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vmm;

/* Grows at the end; callers set size = sizeof(struct vmm_params). */
struct vmm_params {
	uint32_t size;
	uint32_t nr_vcpus;        /* 1 .. RS_MAX_VCPUS */
	uint32_t nr_rings;        /* 0: nr_vcpus; must be >= nr_vcpus */
	uint32_t data_pages;      /* power of two */
	uint32_t aux_pages;       /* power of two or 0 */
	uint32_t data_mode;       /* enum rs_mode */
	uint32_t aux_mode;        /* enum rs_mode */
	uint32_t data_watermark;  /* bytes; 0: half the data area */
	uint32_t aux_watermark;
	uint32_t reserved0;
	uint64_t trace_mask;      /* 0: SEQ test records + samples (+ AUX) */
	uint64_t sample_type;     /* 0: IP | TID | TIME | CPU */
	uint64_t ram_size;        /* 0: 8 MiB */
	const char *kvm_path;     /* NULL: /dev/kvm */
	struct rs_boot_info boot; /* workload fields; the VMM fills the rest */
	rs_log_fn log;            /* what went wrong (ringside/log.h) */
	void *log_arg;
};

/* Fill @p with the defaults (1 vCPU, 1 data page, steady 1000 records,
 * data_head published per 16 KiB: boot.data_batch). */
void vmm_params_init(struct vmm_params *p);

/*
 * Open KVM, create the VM, guest RAM, trace region (laid out, enabled,
 * clocks published), doorbells and vCPUs.  Nothing runs yet.
 */
int vmm_create(struct vmm **vm, const struct vmm_params *p);

/* Stop (if running), run the destroy hooks, free everything.  NULL is
 * fine. */
void vmm_destroy(struct vmm *vm);

/*
 * For a layer built on this API (the control server, vmm/control.c): @fn
 * (@vm, @arg) runs in vmm_destroy once the vCPUs stopped and before
 * anything is freed, the latest added first, so that the layer goes down
 * with the VM.  A hook is named by its function: one per @fn.  From the
 * controlling thread.  -EINVAL (NULL), -EBUSY (@fn has a hook already),
 * -ENOSPC (four hooks are there).
 */
typedef void (*vmm_destroy_fn)(struct vmm *vm, void *arg);
int vmm_destroy_hook(struct vmm *vm, vmm_destroy_fn fn, void *arg);

/* Remove @fn's hook without running it.  -EINVAL (NULL), -ENOENT. */
int vmm_destroy_unhook(struct vmm *vm, vmm_destroy_fn fn);

/* One line through the log callback of the params @vm was created with
 * (nothing without one), for a layer built on this API. */
__attribute__((format(printf, 2, 3)))
void vmm_log(const struct vmm *vm, const char *fmt, ...);

/* Load an ELF64 x86-64 executable (PT_LOAD segments at their physical
 * addresses) or, with vmm_load_flat, raw code at RS_BOOT_LOAD_GPA whose
 * first byte is the entry.  -ENOEXEC, -E2BIG, -EBUSY (already started). */
int vmm_load_file(struct vmm *vm, const char *path);
int vmm_load_image(struct vmm *vm, const void *image, size_t len);
int vmm_load_flat(struct vmm *vm, const void *image, size_t len);

/* Start one thread per vCPU.  -ENOEXEC (nothing loaded), -EBUSY. */
int vmm_start(struct vmm *vm);

/* Wait until every vCPU stopped (halted, crashed, failed).  @timeout_ms < 0
 * waits forever.  0 all stopped, -ETIMEDOUT otherwise. */
int vmm_wait(struct vmm *vm, int timeout_ms);

/* Kick every vCPU out of the guest and join the threads.  The region and
 * guest memory stay: snapshots still work afterwards. */
int vmm_stop(struct vmm *vm);

/*
 * Stable snapshots: after vmm_pause returns, no vCPU runs guest code
 * until the matching vmm_resume.  Pauses nest (a count).  Works on a
 * guest spinning with interrupts off; stopped vCPUs count as paused.
 */
int vmm_pause(struct vmm *vm);
int vmm_resume(struct vmm *vm);

/* ---- the trace region ---------------------------------------------------- */

/* The host's validated view of the region (rs_consumer_init, snapshots). */
const struct rs_region *vmm_region(const struct vmm *vm);
int vmm_region_fd(const struct vmm *vm);      /* the memfd */
uint64_t vmm_region_size(const struct vmm *vm);
uint32_t vmm_nr_vcpus(const struct vmm *vm);
uint32_t vmm_nr_rings(const struct vmm *vm);

/* How the region was laid out and what the header page guard saw (the
 * control socket's REGION payload, ringside/vmm_control.h).  -EINVAL. */
struct rs_ctl_region;
int vmm_region_info(const struct vmm *vm, struct rs_ctl_region *r);

/* ---- doorbells ------------------------------------------------------------ */

/* The eventfd KVM signals when the guest rings ring @ring's doorbell
 * (KVM_IOEVENTFD, no exit to user space).  -EINVAL. */
int vmm_doorbell_fd(const struct vmm *vm, uint32_t ring);

/* Read (and reset) ring @ring's eventfd without blocking; adds the count to
 * the ring's total.  Returns the doorbells just read.  -EINVAL. */
int64_t vmm_doorbell_collect(struct vmm *vm, uint32_t ring);

/* Total doorbells collected for @ring so far. */
uint64_t vmm_doorbell_count(const struct vmm *vm, uint32_t ring);

/* ---- vCPUs ---------------------------------------------------------------- */

/* enum rs_vcpu_state and struct rs_vmm_vcpu_info are the control socket's
 * STATUS payload: ringside/vmm_control.h. */

/* A consistent-enough copy of vCPU @id's state.  -EINVAL. */
int vmm_cpu_info(struct vmm *vm, uint32_t id,
		     struct rs_vmm_vcpu_info *info);

const char *vmm_cpu_state_name(uint32_t state);

/* ---- time ----------------------------------------------------------------- */

/* Guest TSC to host CLOCK_MONOTONIC ns, with the values published in the
 * control pages (perf's time_zero/time_mult/time_shift).  0 if unknown. */
uint64_t vmm_tsc_to_ns(const struct vmm *vm, uint64_t tsc);
uint64_t vmm_tsc_khz(const struct vmm *vm);

/* ---- control socket (docs/vmm.md) ---------------------------------------- */

/* Listen on unix socket @path (created 0660) and serve clients from a thread
 * until vmm_destroy (vmm/control.c, a destroy hook: the socket goes, the
 * clients' pauses are undone).  -EBUSY (already listening), -ENOSPC (no
 * room for its destroy hook), -ENAMETOOLONG, -errno. */
int vmm_control_listen(struct vmm *vm, const char *path);

/* ---- hooks for a tracer: CPUID, MSR exits, single step ------------------ */

/* Set the bits @mask of CPUID.(@function, @index) to @value on every vCPU
 * (an entry KVM lacks is added).  Before vmm_start.  -EBUSY, -errno. */
struct vmm_cpuid {
	uint32_t function;
	uint32_t index;
	uint32_t significant_index;   /* 1 if @index selects a sub-leaf */
	uint32_t value[4];            /* EAX EBX ECX EDX */
	uint32_t mask[4];
};
int vmm_cpuid_override(struct vmm *vm, const struct vmm_cpuid *o,
			  uint32_t n);

/* A vCPU seen from a hook, which runs on that vCPU's thread. */
struct vmm_cpu;
struct kvm_regs;
struct kvm_sregs;

/* RDMSR/WRMSR of the @n sorted indices @idx exit to @fn (vmm/msr.c).
 * @fn returns >= 0 (for a read, *value is the result) or < 0: the guest
 * gets #GP.  Before vmm_start.  -ENOSYS (KVM lacks
 * KVM_CAP_X86_USER_SPACE_MSR or the MSR filter), -E2BIG, -EBUSY, -errno. */
typedef int (*vmm_msr_fn)(void *arg, struct vmm_cpu *cpu,
			     uint32_t index, bool write, uint64_t *value);
int vmm_msr_intercept(struct vmm *vm, const uint32_t *idx, uint32_t n,
			 vmm_msr_fn fn, void *arg);

/* What a KVM_EXIT_DEBUG reported: exception 1 after a single step (rip is
 * the next instruction), 3 for an intercepted INT3 (rip is the INT3). */
struct vmm_debug {
	uint64_t rip;
	uint32_t exception;
	uint32_t reserved;
	uint64_t dr6;
};

/* @fn runs on every debug exit of a vCPU whose stepping is on
 * (vmm/singlestep.c).  Return < 0 to fail the vCPU.  Before start. */
typedef int (*vmm_step_fn)(void *arg, struct vmm_cpu *cpu,
			      const struct vmm_debug *d);
int vmm_step_hook(struct vmm *vm, vmm_step_fn fn, void *arg);

/* From a hook: single-step from the next KVM_RUN on, or stop. */
int vmm_step_set(struct vmm_cpu *cpu, bool on);
uint32_t vmm_cpu_id(const struct vmm_cpu *cpu);
struct vmm *vmm_cpu_vm(struct vmm_cpu *cpu);
int vmm_cpu_get_regs(struct vmm_cpu *cpu, struct kvm_regs *regs);
int vmm_cpu_set_regs(struct vmm_cpu *cpu, const struct kvm_regs *regs);
int vmm_cpu_get_sregs(struct vmm_cpu *cpu, struct kvm_sregs *sregs);

/* Host address of guest-physical [gpa, gpa + len) in RAM or in the trace
 * region, NULL if it is not all inside one of them. */
void *vmm_mem_guest_ptr(const struct vmm *vm, uint64_t gpa, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_VMM_H */
