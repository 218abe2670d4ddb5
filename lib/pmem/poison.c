// SPDX-License-Identifier: GPL-2.0-only
/*
 * poison.c - survive a SIGBUS raised while copying to or from the mapping.
 *
 * A load from poisoned pmem (BUS_MCEERR_AR), or any access past the end of
 * a backing file truncated under the running device (BUS_ADRERR), raises
 * SIGBUS in the thread doing the copy.  The kernel's pmem driver survives
 * the first with copy_mc_to_kernel() and fails the bio with BLK_STS_IOERR
 * (drivers/nvdimm/pmem.c: read_pmem()).  Here, two ways back, after which
 * the request fails with -EIO and the server goes on:
 *  - Reads copy with pmem_copy_mc() (copy_mc_x86_64.S), our copy_mc: a
 *    fault on its one `rep movsb` resumes after it, as the kernel does
 *    with an exception-table entry, with RCX = the bytes not copied.
 *  - Writes and zeroing copy with libpmem2's functions, whose code we do
 *    not own, as a pmem_guarded_call() (guarded_call_x86_64.S): the
 *    handler resumes the thread at the end of that call, which returns 1.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <ucontext.h>

#include "pmem_internal.h"

/* guarded_call_x86_64.S addresses the fields by these offsets. */
_Static_assert(offsetof(struct pmem_guard, rsp) == PMEM_GUARD_RSP, "rsp");
_Static_assert(offsetof(struct pmem_guard, rbx) == PMEM_GUARD_RBX, "rbx");
_Static_assert(offsetof(struct pmem_guard, rbp) == PMEM_GUARD_RBP, "rbp");
_Static_assert(offsetof(struct pmem_guard, r12) == PMEM_GUARD_R12, "r12");
_Static_assert(offsetof(struct pmem_guard, r13) == PMEM_GUARD_R13, "r13");
_Static_assert(offsetof(struct pmem_guard, r14) == PMEM_GUARD_R14, "r14");
_Static_assert(offsetof(struct pmem_guard, r15) == PMEM_GUARD_R15, "r15");
_Static_assert(offsetof(struct pmem_guard, active) == PMEM_GUARD_ACTIVE,
	       "active");

__thread struct pmem_guard pmem_thread_guard;

#define X86_EFLAGS_DF 0x400	/* the direction flag, bit 10 */

static pthread_once_t pmem_handler_once = PTHREAD_ONCE_INIT;
static int pmem_handler_error;

/*
 * The bytes a fault names, [*lo, *hi), for the two faults we recover from.
 * One past the end of a truncated file (BUS_ADRERR) names the very byte.
 * A consumed memory error (BUS_MCEERR_AR) names the start of the poisoned
 * block of 2^si_addr_lsb bytes (mm/memory-failure.c: kill_proc() ->
 * force_sig_mceerr() with the page's address), which the copy may have
 * entered anywhere.  Anything else is not ours: a signal sent by kill()
 * or raise() (si_code <= 0), or an asynchronous memory-error notice
 * (BUS_MCEERR_AO) about memory this copy may not even touch.
 */
static bool pmem_fault_block(const siginfo_t *info, uintptr_t *lo,
			     uintptr_t *hi)
{
	uintptr_t addr = (uintptr_t)info->si_addr;
	uintptr_t size;

	switch (info->si_code) {
	case BUS_ADRERR:
		size = 1;
		break;
	case BUS_MCEERR_AR:
		if (info->si_addr_lsb < 0 ||
		    (size_t)info->si_addr_lsb >= 8 * sizeof(uintptr_t))
			return false;
		size = (uintptr_t)1 << info->si_addr_lsb;
		break;
	default:
		return false;
	}
	*lo = addr & ~(size - 1);
	*hi = *lo + size;
	return true;
}

/*
 * A fault on pmem_copy_mc()'s `rep movsb` while loading from its source:
 * the CPU left RSI at the next byte to load and RCX at the bytes left, so
 * the fault lies in [RSI, RSI + RCX).  A fault on the destination (our own
 * buffer) is a bug, not poison, and is not fixed up.
 */
bool pmem_copy_mc_recover(const siginfo_t *info, ucontext_t *uc)
{
	greg_t *regs = uc->uc_mcontext.gregs;
	uintptr_t lo, hi, src = (uintptr_t)regs[REG_RSI];

	if (regs[REG_RIP] != (greg_t)pmem_copy_mc_insn ||
	    !pmem_fault_block(info, &lo, &hi) ||
	    hi <= src || lo >= src + (uintptr_t)regs[REG_RCX])
		return false;
	regs[REG_RIP] = (greg_t)pmem_copy_mc_fixup;
	return true;
}

/*
 * A fault inside the thread's guarded call, on the mapping it copies to or
 * from: put back what the caller of pmem_guarded_call() expects to survive
 * the call, and resume at its end with 1 as its return value.  Anything
 * else (a fault on our own buffer is a bug, not poison) is not recovered.
 */
bool pmem_guard_recover(const siginfo_t *info, ucontext_t *uc)
{
	struct pmem_guard *g = &pmem_thread_guard;
	greg_t *regs = uc->uc_mcontext.gregs;
	uintptr_t lo, hi;

	if (!g->active || !pmem_fault_block(info, &lo, &hi) ||
	    hi <= (uintptr_t)g->start || lo >= (uintptr_t)g->end)
		return false;
	g->active = 0;
	g->fault_sp = (uintptr_t)regs[REG_RSP];
	regs[REG_RSP] = (greg_t)g->rsp;
	regs[REG_RBX] = (greg_t)g->rbx;
	regs[REG_RBP] = (greg_t)g->rbp;
	regs[REG_R12] = (greg_t)g->r12;
	regs[REG_R13] = (greg_t)g->r13;
	regs[REG_R14] = (greg_t)g->r14;
	regs[REG_R15] = (greg_t)g->r15;
	regs[REG_RAX] = 1;
	/* The ABI has the direction flag clear at every call and return; a
	 * copy that ran backwards (std) may have faulted with it set. */
	regs[REG_EFL] &= ~(greg_t)X86_EFLAGS_DF;
	regs[REG_RIP] = (greg_t)pmem_guarded_call_resume;
	return true;
}

static void pmem_sigbus_handler(int sig, siginfo_t *info, void *ucontext)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	if (pmem_copy_mc_recover(info, ucontext) ||
	    pmem_guard_recover(info, ucontext))
		return;		/* rt_sigreturn to the fixup */
	/*
	 * Not ours (another mapping, or kill -BUS): behave as if we had never
	 * installed a handler.  raise() is delivered at once because of
	 * SA_NODEFER; for a fault, returning would re-execute the access and
	 * fault again under SIG_DFL anyway, so their results do not matter.
	 */
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

/*
 * SA_NODEFER: for a SIGBUS that is not ours, the raise() above must be
 * delivered at once, under the default action, not when the handler
 * returns.  A recovered fault returns through rt_sigreturn, which restores
 * the mask the thread had before the fault either way.
 */
static void pmem_handler_install_once(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = pmem_sigbus_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL))
		pmem_handler_error = -errno;
}

int pmem_poison_handler_install(void)
{
	int rc = pthread_once(&pmem_handler_once, pmem_handler_install_once);

	return rc ? -rc : pmem_handler_error;
}
