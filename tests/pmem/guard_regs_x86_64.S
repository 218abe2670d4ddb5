/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guard_regs_x86_64.S - helpers of test_guard.c, in assembly because what
 * they check is register contents, which C does not let a test control.
 */
#include <cet.h>

#define K_RBX 0x0b0b0b0b0b0b0b01
#define K_RBP 0x0b0b0b0b0b0b0b02
#define K_R12 0x0b0b0b0b0b0b0b03
#define K_R13 0x0b0b0b0b0b0b0b04
#define K_R14 0x0b0b0b0b0b0b0b05
#define K_R15 0x0b0b0b0b0b0b0b06

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
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	movabsq	$K_RBX, %rbx
	movabsq	$K_RBP, %rbp
	movabsq	$K_R12, %r12
	movabsq	$K_R13, %r13
	movabsq	$K_R14, %r14
	movabsq	$K_R15, %r15
	xorl	%ecx, %ecx		/* a1 */
	xorl	%r8d, %r8d		/* a2 */
	xorl	%r9d, %r9d		/* a3 */
	call	pmem_guarded_call
	movzbl	%al, %eax
	movabsq	$K_RBX, %rcx
	cmpq	%rcx, %rbx
	je	1f
	orl	$0x100, %eax
1:	movabsq	$K_RBP, %rcx
	cmpq	%rcx, %rbp
	je	2f
	orl	$0x200, %eax
2:	movabsq	$K_R12, %rcx
	cmpq	%rcx, %r12
	je	3f
	orl	$0x400, %eax
3:	movabsq	$K_R13, %rcx
	cmpq	%rcx, %r13
	je	4f
	orl	$0x800, %eax
4:	movabsq	$K_R14, %rcx
	cmpq	%rcx, %r14
	je	5f
	orl	$0x1000, %eax
5:	movabsq	$K_R15, %rcx
	cmpq	%rcx, %r15
	je	6f
	orl	$0x2000, %eax
6:	pushfq
	popq	%rcx
	testl	$0x400, %ecx		/* DF */
	jz	7f
	orl	$0x4000, %eax
	cld
7:	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%r15
	.cfi_adjust_cfa_offset -8
	popq	%r14
	.cfi_adjust_cfa_offset -8
	popq	%r13
	.cfi_adjust_cfa_offset -8
	popq	%r12
	.cfi_adjust_cfa_offset -8
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	popq	%rbx
	.cfi_adjust_cfa_offset -8
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
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	movq	$-1, %rbx
	movq	$-1, %rbp
	movq	$-1, %r12
	movq	$-1, %r13
	movq	$-1, %r14
	movq	$-1, %r15
	std
	movb	(%rdi), %al
	cld
	popq	%r15
	.cfi_adjust_cfa_offset -8
	popq	%r14
	.cfi_adjust_cfa_offset -8
	popq	%r13
	.cfi_adjust_cfa_offset -8
	popq	%r12
	.cfi_adjust_cfa_offset -8
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	clobber_then_load, . - clobber_then_load

	.section .note.GNU-stack, "", @progbits
