/* SPDX-License-Identifier: MIT */
/*
 * ringside-introspect: what the host reads of a guest without the guest's
 * help.  The guest kernel's symbols and code, the records left in its own
 * perf buffers, each vCPU's registers and kernel stack, the guest's user
 * code by function.  Every byte read here is the guest's (or a guest
 * file's) claim: bounded, checked, counted when refused, used only to name
 * addresses (docs/threat-model.md).  Guest memory reaches the library
 * through peek callbacks (libvirt's virDomainMemoryPeek for a domain,
 * anything in tests).
 *
 * The library never prints: each module's state is a struct whose fields
 * the caller formats.  Every name is gi_MODULE_*, declared in
 * ringside/gi_MODULE.h and defined in src/gi_MODULE.c; this header
 * includes them all, in the order the modules build on each other.
 */
#ifndef RINGSIDE_INTROSPECT_H
#define RINGSIDE_INTROSPECT_H

#include "ringside/gi_syms.h"       /* the guest kernel's symbols (sideband) */
#include "ringside/gi_kcode.h"      /* its code, read through a peek; in a thread */
#include "ringside/gi_kbuf.h"       /* records left in its perf buffers */
#include "ringside/gi_stack.h"      /* a stopped vCPU's kernel call chain */
#include "ringside/gi_vcpu.h"       /* each vCPU's registers and stack */
#include "ringside/gi_usyms.h"      /* its user binaries' symbol tables */
#include "ringside/gi_pstate.h"     /* its processes and their mappings */
#include "ringside/gi_symfs.h"      /* user samples by function, --symfs */

#endif /* RINGSIDE_INTROSPECT_H */
