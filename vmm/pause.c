// SPDX-License-Identifier: MIT
/*
 * Pausing every vCPU for a stable snapshot.
 *
 * vmm_pause (vmm.c) raises pause_depth and kicks each running vCPU with a
 * real-time signal.  The handler sets the thread's kvm_run.immediate_exit,
 * so the kick cannot be lost whatever the thread is doing: inside KVM_RUN
 * the signal itself makes KVM_RUN return -EINTR; just before KVM_RUN,
 * immediate_exit makes it return -EINTR at once; elsewhere the run loop
 * reaches vmm_pause_park before it enters the guest again.  The vCPU parks
 * under vm->lock; vmm_pause returns once every vCPU is parked or has
 * stopped for good.  A guest spinning with interrupts off is still kicked:
 * the signal interrupts the host thread, not the guest.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <string.h>

#include "vmm_internal.h"

static __thread struct kvm_run *kick_run;

static void kick_handler(int sig)
{
	(void)sig;
	if (kick_run)
		kick_run->immediate_exit = 1;
}

int vmm_pause_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kick_handler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: KVM_RUN must come back with EINTR. */
	if (sigaction(SIGRTMIN, &sa, NULL) < 0)
		return -errno;
	return 0;
}

void vmm_pause_bind(struct kvm_run *run)
{
	sigset_t set;

	kick_run = run;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* Called with vm->lock held. */
int vmm_pause_kick(struct vmm_vcpu *vcpu)
{
	int ret = pthread_kill(vcpu->thread, SIGRTMIN);

	return -ret;
}

/*
 * Run-loop side: park while a pause is in force.  Returns true when the
 * VMM is stopping and the thread should leave its loop.
 */
bool vmm_pause_park(struct vmm_vcpu *vcpu)
{
	struct vmm *vm = vcpu->vm;
	bool stop, waited = false;

	pthread_mutex_lock(&vm->lock);
	/* A vCPU but the first also waits here, parked, until vCPU 0 opened
	 * the region (RS_PORT_READY) or stopped. */
	while ((vm->pause_depth || (vcpu->id && !vm->aps_go)) && !vm->stopping) {
		if (vm->pause_depth)
			waited = true;
		if (!vcpu->parked) {
			vcpu->parked = true;
			pthread_cond_broadcast(&vm->cond);
		}
		pthread_cond_wait(&vm->cond, &vm->lock);
	}
	vcpu->parked = false;
	stop = vm->stopping;
	/* A kick that arrived while parked is stale now.  Cleared under the
	 * lock: pause and stop kick under it too, so a kick sent for a pause
	 * or stop that begins after this unlock sets immediate_exit again and
	 * KVM_RUN returns at once.  Cleared after the unlock, such a kick
	 * could be wiped out and the guest run on until its next exit (for a
	 * guest that spins, never: pause and stop hung). */
	vcpu->run->immediate_exit = 0;
	pthread_mutex_unlock(&vm->lock);
	/* A pause that found the thread outside KVM_RUN (between exits the
	 * VMM handles itself, such as the header guard's) stopped it all the
	 * same: counted as a kick, once, like one that interrupted KVM_RUN. */
	if (waited && !vcpu->kick_counted) {
		vmm_counter_inc(&vcpu->exits.total);
		vmm_counter_inc(&vcpu->exits.kicks);
	}
	vcpu->kick_counted = false;
	return stop;
}
