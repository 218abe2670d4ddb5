// SPDX-License-Identifier: GPL-2.0-only
/*
 * poison.c - survive a SIGBUS raised while copying to or from the mapping.
 *
 * A load from poisoned pmem (BUS_MCEERR_AR), or any access past the end of
 * a backing file truncated under the running device (BUS_ADRERR), raises
 * SIGBUS in the thread doing the copy.  The kernel's pmem driver survives
 * the first with copy_mc_to_kernel() and fails the bio with BLK_STS_IOERR
 * (drivers/nvdimm/pmem.c: read_pmem()); userspace has no such copy, so the
 * copy runs under a guard: a thread-local jmp_buf that the handler jumps
 * back to, after which the request fails with -EIO and the server goes on.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "pmem_internal.h"

__thread struct pmem_poison_guard *volatile pmem_armed_guard;

static pthread_once_t pmem_handler_once = PTHREAD_ONCE_INIT;
static int pmem_handler_error;

static void pmem_sigbus_handler(int sig, siginfo_t *info, void *ucontext)
{
	struct pmem_poison_guard *guard = pmem_armed_guard;
	const char *addr = info->si_addr;
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	(void)ucontext;
	if (guard && addr >= guard->start && addr < guard->end) {
		pmem_armed_guard = NULL;
		siglongjmp(guard->env, 1);
	}
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
 * SA_NODEFER keeps SIGBUS unblocked while the handler runs, so that the
 * guards can use sigsetjmp(env, 0): saving and restoring the signal mask
 * would cost two sigprocmask() system calls on every copy, and the handler
 * changes no other part of the mask.
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
