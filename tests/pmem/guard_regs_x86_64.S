/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guard_regs_x86_64.S - helpers of test_guard.c, in assembly because what
 * they check is register contents, which C does not let a test control.
 */
#include <cet.h>

/* Register n (1 = rbx ... 6 = r15, in the order below) holds
 * K_BASE + n before the call. */
#define K_BASE 0x0b0b0b0b0b0b0b00

/* Every callee-saved register onto the stack, and back. */
.macro SAVE_CALLEE_SAVED
	.irp reg, rbx, rbp, r12, r13, r14, r15
	pushq	%\reg
	.cfi_adjust_cfa_offset 8
	.endr
.endm

.macro RESTORE_CALLEE_SAVED
	.irp reg, r15, r14, r13, r12, rbp, rbx
	popq	%\reg
	.cfi_adjust_cfa_offset -8
	.endr
.endm

/* Register n gets K_BASE + n. */
.macro LOAD_KNOWN
	.set n, 1
	.irp reg, rbx, rbp, r12, r13, r14, r15
	movabsq	$(K_BASE + n), %\reg
	.set n, n + 1
	.endr
.endm

/* Bit 7 + n of EAX for each register n that no longer holds K_BASE + n. */
.macro CHECK_KNOWN
	.set n, 1
	.irp reg, rbx, rbp, r12, r13, r14, r15
	movabsq	$(K_BASE + n), %rcx
	cmpq	%rcx, %\reg
	je	1f
	orl	$(0x80 << n), %eax
1:
	.set n, n + 1
	.endr
.endm

	.text

/*
 * unsigned call_keeps_regs(struct pmem_guard *guard, pmem_guarded_fn fn,
 *                          void *a0)
 * Loads known values into every callee-saved register, calls
 * pmem_guarded_call(guard, fn, a0, NULL, 0, 0) and returns its result in
 * bits 0-7 and, in bits 8-13, which of rbx, rbp, r12..r15 did not come
 * back with its value; bit 14 if the direction flag came back set.
 */
	.globl	call_keeps_regs
	.type	call_keeps_regs, @function
call_keeps_regs:
	.cfi_startproc
	_CET_ENDBR
	SAVE_CALLEE_SAVED
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	LOAD_KNOWN
	xorl	%ecx, %ecx		/* a1 */
	xorl	%r8d, %r8d		/* a2 */
	xorl	%r9d, %r9d		/* a3 */
	call	pmem_guarded_call
	movzbl	%al, %eax
	CHECK_KNOWN
	pushfq
	popq	%rcx
	testl	$0x400, %ecx		/* DF */
	jz	7f
	orl	$0x4000, %eax
	cld
7:	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	RESTORE_CALLEE_SAVED
	ret
	.cfi_endproc
	.size	call_keeps_regs, . - call_keeps_regs

/*
 * void clobber_then_load(const char *addr)
 * What a copy function may do: save the callee-saved registers, use them,
 * set the direction flag (a backward copy), then load from @addr, which
 * faults if @addr is past the end of a truncated file.  Returns normally
 * (registers and flag restored) if it does not.
 */
	.globl	clobber_then_load
	.type	clobber_then_load, @function
clobber_then_load:
	.cfi_startproc
	_CET_ENDBR
	SAVE_CALLEE_SAVED
	movq	$-1, %rbx
	movq	$-1, %rbp
	movq	$-1, %r12
	movq	$-1, %r13
	movq	$-1, %r14
	movq	$-1, %r15
	std
	movb	(%rdi), %al
	cld
	RESTORE_CALLEE_SAVED
	ret
	.cfi_endproc
	.size	clobber_then_load, . - clobber_then_load

	.section .note.GNU-stack, "", @progbits
