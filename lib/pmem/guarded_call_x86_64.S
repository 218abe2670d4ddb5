/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guarded_call_x86_64.S - call a copy function with a recovery point that
 * the SIGBUS handler can resume at (poison.c).
 *
 * int pmem_guarded_call(struct pmem_guard *guard, pmem_guarded_fn fn,
 *                       void *a0, const void *a1, uint64_t a2, unsigned a3)
 *
 * The kernel's pmem driver reads with copy_mc_to_kernel(), whose faulting
 * instructions have exception-table entries that resume after the copy
 * (arch/x86/lib/copy_mc_64.S).  Userspace gets a signal instead, and the
 * copies are glibc's memcpy() and libpmem2's functions, whose code we do
 * not own, so the recovery point is the call itself: what a caller expects
 * to survive a call (RSP and the callee-saved registers) is saved in the
 * thread's guard before it, and on a fault the handler writes them back
 * into the signal context with RIP at pmem_guarded_call_resume and RAX = 1.
 * Returning from the handler (rt_sigreturn) then lands here as if fn had
 * returned, with the signal mask the thread had before the fault.
 *
 * That is what sigsetjmp()/siglongjmp() would do, for a third of the cost:
 * glibc's __sigsetjmp mangles the pointers it saves and the C caller of a
 * returns-twice function keeps a 200-byte jmp_buf and spills its locals,
 * 69 instructions per copy in all (callgrind), where this takes 21 and its
 * C caller a handful (docs/PERFORMANCE.md, pmem).
 */
#include "guard.h"

/*
 * CET: indirect-branch tracking, yes (endbr64 where the code is built for
 * it).  Shadow stacks, no: the resume skips fn's returns, and the shadow
 * stack would still hold them (sigreturn restores the shadow-stack pointer
 * from its own token, not from the context the handler edits), so the
 * next `ret` would fault.  This file therefore marks itself IBT-only
 * instead of including <cet.h>, whose note also claims SHSTK: the linker
 * then marks the program as not shadow-stack compatible, and the kernel
 * gives it none.  (glibc's longjmp unwinds the shadow stack with incsspq;
 * a guard would have to save it with rdsspq to do the same.)
 */
#ifdef __CET__
# define ENDBR	endbr64
#else
# define ENDBR
#endif

	.text
	.p2align 4
	.globl	pmem_guarded_call
	.hidden	pmem_guarded_call
	.type	pmem_guarded_call, @function
pmem_guarded_call:
	.cfi_startproc
	ENDBR
	movq	%rbx, PMEM_GUARD_RBX(%rdi)
	movq	%rbp, PMEM_GUARD_RBP(%rdi)
	movq	%r12, PMEM_GUARD_R12(%rdi)
	movq	%r13, PMEM_GUARD_R13(%rdi)
	movq	%r14, PMEM_GUARD_R14(%rdi)
	movq	%r15, PMEM_GUARD_R15(%rdi)
	subq	$8, %rsp		/* align the stack for the call */
	.cfi_adjust_cfa_offset 8
	movq	%rsp, PMEM_GUARD_RSP(%rdi)
	movq	%rdi, %rbx		/* the guard, kept across the call */
	/* For unwinders: the caller's RBX is at [RBX + PMEM_GUARD_RBX]
	 * (DW_CFA_expression rbx, DW_OP_breg3 PMEM_GUARD_RBX). */
	.cfi_escape 0x10, 0x03, 0x02, 0x73, PMEM_GUARD_RBX
	movq	%rsi, %rax
	movq	%rdx, %rdi		/* a0..a3 -> fn's first four arguments */
	movq	%rcx, %rsi
	movq	%r8, %rdx
	movl	%r9d, %ecx
	movb	$1, PMEM_GUARD_ACTIVE(%rbx)
	call	*%rax
	movb	$0, PMEM_GUARD_ACTIVE(%rbx)
	movq	PMEM_GUARD_RBX(%rbx), %rbx
	.cfi_restore %rbx
	xorl	%eax, %eax
	.globl	pmem_guarded_call_resume
	.hidden	pmem_guarded_call_resume
pmem_guarded_call_resume:
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	pmem_guarded_call, . - pmem_guarded_call

	.section .note.GNU-stack, "", @progbits

#if defined(__CET__) && (__CET__ & 1)
	/* GNU_PROPERTY_X86_FEATURE_1_AND = IBT only (see the top). */
	.section .note.gnu.property, "a"
	.p2align 3
	.long	4			/* name size */
	.long	16			/* descriptor size */
	.long	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000002		/* GNU_PROPERTY_X86_FEATURE_1_AND */
	.long	4			/* data size */
	.long	1			/* GNU_PROPERTY_X86_FEATURE_1_IBT */
	.p2align 3
#endif
