/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guard.h - the copies that survive SIGBUS, shared by the C side (copy.c,
 * poison.c) and the assembly (copy_mc_x86_64.S, guarded_call_x86_64.S).
 * The offsets below are the layout of struct pmem_guard; poison.c checks
 * them at compile time.
 */
#ifndef VUBLK_PMEM_GUARD_H
#define VUBLK_PMEM_GUARD_H

#define PMEM_GUARD_RSP		0
#define PMEM_GUARD_RBX		8
#define PMEM_GUARD_RBP		16
#define PMEM_GUARD_R12		24
#define PMEM_GUARD_R13		32
#define PMEM_GUARD_R14		40
#define PMEM_GUARD_R15		48
#define PMEM_GUARD_ACTIVE	56

#ifndef __ASSEMBLER__
#include <stdint.h>

/*
 * One per thread.  pmem_guarded_call() fills in the registers that the
 * caller expects to survive a call (the stack pointer and the callee-saved
 * ones) and sets active around the call; start and end are set by the C
 * caller.  On a fault inside [start, end) while active, the SIGBUS handler
 * puts those registers back into the interrupted context and resumes at
 * pmem_guarded_call_resume with 1 in RAX: pmem_guarded_call() returns 1
 * to its caller as if the called function had returned.
 */
struct pmem_guard {
	uint64_t rsp, rbx, rbp, r12, r13, r14, r15;
	uint8_t active;
	const char *start, *end;	/* the mapping being copied to or from */
	/* Where the stack pointer was when a call was abandoned: its frames
	 * lay between there and the guarded call's (pmem_guarded_read()). */
	uintptr_t fault_sp;
};

/* The guarded function, called with four arguments in registers; its
 * return value is ignored.  pmem2_memcpy_fn and pmem2_memset_fn fit. */
typedef void (*pmem_guarded_fn)(void);

/*
 * Call fn(a0, a1, a2, a3) under @guard (this thread's).  Returns 0, or 1 if
 * the call took SIGBUS inside the guard's range and was abandoned there.
 */
int pmem_guarded_call(struct pmem_guard *guard, pmem_guarded_fn fn,
		      void *a0, const void *a1, uint64_t a2, unsigned a3);

/* Where the handler resumes a faulted call. */
extern const char pmem_guarded_call_resume[];

/*
 * copy_mc_x86_64.S: the read copy.  Returns 0, or the bytes not copied
 * when a load from @src faulted; the handler resumes a fault at
 * pmem_copy_mc_insn at pmem_copy_mc_fixup.
 */
uint64_t pmem_copy_mc(void *dst, const void *src, uint64_t len);
extern const char pmem_copy_mc_insn[], pmem_copy_mc_fixup[];

/* This thread's guard.  initial-exec: the handler reads it, and a dynamic
 * TLS access could allocate, which a handler must not. */
extern __thread struct pmem_guard pmem_thread_guard
	__attribute__((tls_model("initial-exec")));
#endif /* !__ASSEMBLER__ */

#endif /* VUBLK_PMEM_GUARD_H */
