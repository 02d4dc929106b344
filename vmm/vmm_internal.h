/* SPDX-License-Identifier: MIT */
/* Private to vmm/: the full VM object and the helpers its files share. */
#ifndef RINGSIDE_VMM_INTERNAL_H
#define RINGSIDE_VMM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ringside/shared.h"
#include "ringside/vmm.h"

struct kvm_run;
struct kvm_cpuid2;
struct kvm_cpuid_entry2;

struct vmm_vcpu {
	struct vmm *vm;
	uint32_t id;
	int fd;
	struct kvm_run *run;
	struct kvm_cpuid2 *cpuid;   /* the table KVM_SET_CPUID2 was given */
	pthread_t thread;
	bool thread_started;
	/* Written by the vCPU thread only; others read with vmm_counter_read(). */
	struct rs_vmm_exits exits;
	/* Under vm->lock. */
	uint32_t state;
	bool parked;
	bool kick_counted;     /* the last KVM_RUN ended in a kick, counted */
	int32_t error;
	uint32_t exit_reason;
	uint32_t done;
	uint32_t done_value;
	int32_t guest_error;
	uint64_t rip;
	char console[256];
	uint32_t console_len;
	/* header page guard (header_guard.c); vCPU thread writes */
	uint64_t header_refused;
	uint64_t header_applied;
	/* single step (singlestep.c); vCPU thread only */
	bool step_on;
	bool step_armed;
};

#define VMM_MAX_DESTROY_HOOKS 4

struct vmm_doorbell {
	int fd;
	uint64_t count;
};

struct vmm {
	rs_log_fn log;
	void *log_arg;
	int sys_fd;
	int vm_fd;
	int run_size;
	uint32_t nr_memslots;
	/* guest RAM, memslot 0 at GPA 0 */
	uint8_t *ram;
	uint64_t ram_size;
	/* trace region at RS_BOOT_REGION_GPA: memslot 1 its header page
	 * (read-only when header_guarded), memslot 2 the rest */
	int region_fd;
	uint8_t *region_mem;
	uint64_t region_size;
	struct rs_region region;
	struct rs_region_params region_params;
	uint32_t nr_rings;
	bool header_guarded;
	struct vmm_doorbell doorbells[RS_MAX_RINGS];
	/* boot */
	struct rs_boot_info boot;
	uint64_t entry;
	bool loaded;
	bool started;
	bool aps_go;          /* under lock: vCPUs 1.. may run (RS_PORT_READY) */
	/* time */
	uint64_t tsc_khz;
	struct rs_time_conv time;
	/* vCPUs */
	uint32_t nr_vcpus;
	struct vmm_vcpu *vcpus;
	pthread_mutex_t lock;
	pthread_cond_t cond;      /* any vCPU state, park or pause change */
	uint32_t pause_depth;
	uint32_t running;         /* vCPU threads in their run loop */
	bool stopping;
	/* vmm_destroy_hook: layers on the public API (the control
	 * server), taken down by vmm_destroy, the latest first */
	struct {
		vmm_destroy_fn fn;
		void *arg;
	} destroy_hooks[VMM_MAX_DESTROY_HOOKS];
	uint32_t nr_destroy_hooks;
	/* tracer hooks (msr.c, singlestep.c), set before start */
	vmm_msr_fn msr_fn;
	void *msr_arg;
	vmm_step_fn step_fn;
	void *step_arg;
};

/* Counters with one writer and racing readers: whole-word accesses
 * (ringside/shared.h; acquire and release cost nothing more on x86). */
static inline uint64_t vmm_counter_read(const uint64_t *p)
{
	return rs_shared_load(p);
}

static inline void vmm_counter_inc(uint64_t *p)
{
	rs_shared_store(p, *p + 1);
}

/* kvm.c */
int vmm_kvm_open(struct vmm *vm, const char *path);
void vmm_kvm_close(struct vmm *vm);

/* mem.c */
int vmm_mem_init(struct vmm *vm, uint64_t size);
void vmm_mem_fini(struct vmm *vm);
void *vmm_mem_ptr(const struct vmm *vm, uint64_t gpa, uint64_t len);
int vmm_mem_slot_add(struct vmm *vm, uint32_t slot, uint64_t gpa,
		     uint64_t size, void *host, uint32_t flags);

/* region.c */
int vmm_region_init(struct vmm *vm, const struct rs_region_params *rp);
void vmm_region_fini(struct vmm *vm);

/* guard.c: the header page guard */
/* Map the region (vm->region_mem) into the guest, its header page
 * read-only when KVM can.  -errno. */
int vmm_guard_map(struct vmm *vm);
/* A KVM_EXIT_MMIO at the header page: applied or dropped, true; false
 * for any other address. */
bool vmm_guard_mmio(struct vmm_vcpu *vcpu);

/* doorbell.c */
int vmm_doorbell_init(struct vmm *vm);
void vmm_doorbell_fini(struct vmm *vm);
bool vmm_doorbell_is(uint64_t gpa);

/* Highest byte + 1 a payload may occupy: the vCPU stacks sit above it. */
static inline uint64_t vmm_payload_limit(const struct vmm *vm)
{
	return vm->ram_size - (uint64_t)vm->nr_vcpus * RS_BOOT_STACK_SIZE;
}

/* boot.c */
int vmm_boot_tables(struct vmm *vm);
int vmm_boot_vcpu(struct vmm_vcpu *vcpu);

/* cpu.c */
int vmm_cpu_init(struct vmm *vm);
void vmm_cpu_fini(struct vmm *vm);

/* cpuid.c */
/* Fill @c (c->nent entries of room) with a CPUID table: 0 or -errno. */
typedef int (*vmm_cpuid_get_fn)(void *arg, struct kvm_cpuid2 *c);
/* A table from @get in a buffer that grows while @get says -E2BIG; *@out
 * is malloc'd.  -ENOMEM, -EOVERFLOW (@get claimed more entries than it
 * had room for), or @get's error (-E2BIG past 65536 entries). */
int vmm_cpuid_fetch(vmm_cpuid_get_fn get, void *arg, struct kvm_cpuid2 **out);
/* Apply @n overrides to the @nent entries at @e, which has room for
 * @nent + @n; an entry the table lacks is appended.  Returns the count. */
uint32_t vmm_cpuid_merge(struct kvm_cpuid_entry2 *e, uint32_t nent,
			 const struct vmm_cpuid *o, uint32_t n);
/* KVM_SET_CPUID2 @c on @vcpu, which then keeps @c (freed on failure).
 * -errno. */
int vmm_cpuid_set(struct vmm_vcpu *vcpu, struct kvm_cpuid2 *c);

/* run.c: the vCPU thread (vmm_start starts one per vCPU) */
void *vmm_run_vcpu(void *arg);

/* pause.c */
int vmm_pause_init(void);
void vmm_pause_bind(struct kvm_run *run);
bool vmm_pause_park(struct vmm_vcpu *vcpu);
int vmm_pause_kick(struct vmm_vcpu *vcpu);

/* tsc.c */
int vmm_tsc_init(struct vmm *vm);

/* msr.c */
void vmm_msr_exit(struct vmm_vcpu *vcpu);

/* step.c */
int vmm_step_arm(struct vmm_vcpu *vcpu);
int vmm_step_exit(struct vmm_vcpu *vcpu);

#endif /* RINGSIDE_VMM_INTERNAL_H */
