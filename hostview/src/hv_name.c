/* SPDX-License-Identifier: MIT */
/*
 * The names of the library's enums (sources, events), and exit reasons
 * by name as the kernel's own kvm_exit and kvm_userspace_exit traces
 * print them: VMX basic exit reasons (Intel
 * SDM, appendix C), SVM exit codes (AMD APM vol. 2, appendix C), and
 * KVM_EXIT_* (linux/kvm.h).
 */
#include <errno.h>
#include <stddef.h>

#include "ringside/hv_track.h"

static const char *const vmx[] = {
	[0] = "EXCEPTION_NMI", [1] = "EXTERNAL_INTERRUPT",
	[2] = "TRIPLE_FAULT", [3] = "INIT_SIGNAL", [4] = "SIPI_SIGNAL",
	[5] = "IO_SMI", [6] = "OTHER_SMI", [7] = "INTERRUPT_WINDOW",
	[8] = "NMI_WINDOW", [9] = "TASK_SWITCH", [10] = "CPUID",
	[11] = "GETSEC", [12] = "HLT", [13] = "INVD", [14] = "INVLPG",
	[15] = "RDPMC", [16] = "RDTSC", [17] = "RSM", [18] = "VMCALL",
	[19] = "VMCLEAR", [20] = "VMLAUNCH", [21] = "VMPTRLD",
	[22] = "VMPTRST", [23] = "VMREAD", [24] = "VMRESUME",
	[25] = "VMWRITE", [26] = "VMOFF", [27] = "VMON",
	[28] = "CR_ACCESS", [29] = "DR_ACCESS", [30] = "IO_INSTRUCTION",
	[31] = "MSR_READ", [32] = "MSR_WRITE", [33] = "INVALID_STATE",
	[34] = "MSR_LOAD_FAIL", [36] = "MWAIT_INSTRUCTION",
	[37] = "MONITOR_TRAP_FLAG", [39] = "MONITOR_INSTRUCTION",
	[40] = "PAUSE_INSTRUCTION", [41] = "MCE_DURING_VMENTRY",
	[43] = "TPR_BELOW_THRESHOLD", [44] = "APIC_ACCESS",
	[45] = "EOI_INDUCED", [46] = "GDTR_IDTR", [47] = "LDTR_TR",
	[48] = "EPT_VIOLATION", [49] = "EPT_MISCONFIG", [50] = "INVEPT",
	[51] = "RDTSCP", [52] = "PREEMPTION_TIMER", [53] = "INVVPID",
	[54] = "WBINVD", [55] = "XSETBV", [56] = "APIC_WRITE",
	[57] = "RDRAND", [58] = "INVPCID", [59] = "VMFUNC", [60] = "ENCLS",
	[61] = "RDSEED", [62] = "PML_FULL", [63] = "XSAVES",
	[64] = "XRSTORS", [67] = "UMWAIT", [68] = "TPAUSE",
	[74] = "BUS_LOCK", [75] = "NOTIFY",
};

/* SVM codes below 0x100, then the few above. */
static const char *const svm_low[] = {
	[0x00] = "read_cr0", [0x02] = "read_cr2", [0x03] = "read_cr3",
	[0x04] = "read_cr4", [0x08] = "read_cr8", [0x10] = "write_cr0",
	[0x12] = "write_cr2", [0x13] = "write_cr3", [0x14] = "write_cr4",
	[0x18] = "write_cr8", [0x20] = "read_dr0", [0x21] = "read_dr1",
	[0x22] = "read_dr2", [0x23] = "read_dr3", [0x27] = "read_dr7",
	[0x30] = "write_dr0", [0x31] = "write_dr1", [0x32] = "write_dr2",
	[0x33] = "write_dr3", [0x37] = "write_dr7",
	[0x40] = "DE excp", [0x41] = "DB excp", [0x43] = "BP excp",
	[0x44] = "OF excp", [0x45] = "BR excp", [0x46] = "UD excp",
	[0x47] = "NM excp", [0x48] = "DF excp", [0x4a] = "TS excp",
	[0x4b] = "NP excp", [0x4c] = "SS excp", [0x4d] = "GP excp",
	[0x4e] = "PF excp", [0x50] = "MF excp", [0x51] = "AC excp",
	[0x52] = "MC excp", [0x53] = "XF excp",
	[0x60] = "interrupt", [0x61] = "nmi", [0x62] = "smi", [0x63] = "init",
	[0x64] = "vintr", [0x65] = "cr0_sel_write", [0x66] = "read_idtr",
	[0x67] = "read_gdtr", [0x68] = "read_ldtr", [0x69] = "read_rt",
	[0x6a] = "write_idtr", [0x6b] = "write_gdtr", [0x6c] = "write_ldtr",
	[0x6d] = "write_rt", [0x6e] = "rdtsc", [0x6f] = "rdpmc",
	[0x70] = "pushf", [0x71] = "popf", [0x72] = "cpuid", [0x73] = "rsm",
	[0x74] = "iret", [0x75] = "swint", [0x76] = "invd", [0x77] = "pause",
	[0x78] = "hlt", [0x79] = "invlpg", [0x7a] = "invlpga", [0x7b] = "io",
	[0x7c] = "msr", [0x7d] = "task_switch", [0x7e] = "ferr_freeze",
	[0x7f] = "shutdown", [0x80] = "vmrun", [0x81] = "hypercall",
	[0x82] = "vmload", [0x83] = "vmsave", [0x84] = "stgi", [0x85] = "clgi",
	[0x86] = "skinit", [0x87] = "rdtscp", [0x88] = "icebp",
	[0x89] = "wbinvd", [0x8a] = "monitor", [0x8b] = "mwait",
	[0x8d] = "xsetbv", [0x8e] = "rdpru", [0x8f] = "write_efer_trap",
	[0x90] = "write_cr0_trap", [0x94] = "write_cr4_trap",
	[0x98] = "write_cr8_trap", [0xa2] = "invpcid", [0xa5] = "buslock",
	[0xa6] = "idle-halt",
};

static const char *const uexit[] = {
	[0] = "UNKNOWN", [1] = "EXCEPTION", [2] = "IO", [3] = "HYPERCALL",
	[4] = "DEBUG", [5] = "HLT", [6] = "MMIO", [7] = "IRQ_WINDOW_OPEN",
	[8] = "SHUTDOWN", [9] = "FAIL_ENTRY", [10] = "INTR",
	[11] = "SET_TPR", [12] = "TPR_ACCESS", [13] = "S390_SIEIC",
	[14] = "S390_RESET", [15] = "DCR", [16] = "NMI",
	[17] = "INTERNAL_ERROR", [18] = "OSI", [19] = "PAPR_HCALL",
	[20] = "S390_UCONTROL", [21] = "WATCHDOG", [22] = "S390_TSCH",
	[23] = "EPR", [24] = "SYSTEM_EVENT", [25] = "S390_STSI",
	[26] = "IOAPIC_EOI", [27] = "HYPERV", [28] = "ARM_NISV",
	[29] = "X86_RDMSR", [30] = "X86_WRMSR", [31] = "DIRTY_RING_FULL",
	[32] = "AP_RESET_HOLD", [33] = "X86_BUS_LOCK", [34] = "XEN",
	[35] = "RISCV_SBI", [36] = "RISCV_CSR", [37] = "NOTIFY",
	[38] = "LOONGARCH_IOCSR", [39] = "MEMORY_FAULT", [40] = "TDX",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *svm_name(uint32_t r)
{
	if (r < N(svm_low))
		return svm_low[r];
	switch (r) {
	case 0x400:
		return "npf";
	case 0x401:
		return "avic_incomplete_ipi";
	case 0x402:
		return "avic_unaccelerated_access";
	case 0x403:
		return "vmgexit";
	case 0xffffffffu:
		return "invalid_guest_state";
	}
	return NULL;
}

const char *hv_name_exit(uint32_t type, uint32_t isa, uint32_t reason)
{
	if (type == HV_EV_KVM_UEXIT) {
		if (reason & HV_UEXIT_ERRNO)
			return (reason & ~HV_UEXIT_ERRNO) == EINTR ? "restart" : "error";
		return reason < N(uexit) ? uexit[reason] : NULL;
	}
	if (type != HV_EV_KVM_EXIT)
		return NULL;
	if (isa == HV_ISA_VMX) {
		/* bits 31:16 are flags (failed VM entry) */
		reason &= 0xffff;
		return reason < N(vmx) ? vmx[reason] : NULL;
	}
	if (isa == HV_ISA_SVM)
		return svm_name(reason);
	return NULL;
}

static const char *const hv_src_names[HV_SRC_MAX] = {
	[HV_SRC_SWITCH]    = "switch",
	[HV_SRC_MIGRATE]   = "migrate",
	[HV_SRC_KVM_EXIT]  = "kvm_exit",
	[HV_SRC_KVM_ENTRY] = "kvm_entry",
	[HV_SRC_KVM_UEXIT] = "kvm_userspace_exit",
};

const char *hv_name_src(uint32_t src)
{
	return src < HV_SRC_MAX ? hv_src_names[src] : NULL;
}

static const char *const hv_ev_names[HV_EV_MAX] = {
	[HV_EV_NONE]       = "none",
	[HV_EV_SWITCH_IN]  = "switch-in",
	[HV_EV_SWITCH_OUT] = "switch-out",
	[HV_EV_PREEMPT]    = "preempt",
	[HV_EV_MIGRATE]    = "migrate",
	[HV_EV_KVM_EXIT]   = "kvm-exit",
	[HV_EV_KVM_ENTRY]  = "kvm-entry",
	[HV_EV_KVM_UEXIT]  = "kvm-userspace-exit",
	[HV_EV_LOST]       = "lost",
	[HV_EV_EXIT]       = "exit",
	[HV_EV_FORK]       = "fork",
	[HV_EV_OTHER]      = "other",
};

const char *hv_name_ev(uint32_t type)
{
	return type < HV_EV_MAX ? hv_ev_names[type] : "unknown";
}
