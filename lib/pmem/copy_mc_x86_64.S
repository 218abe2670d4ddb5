/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * copy_mc_x86_64.S - the read copy: one `rep movsb` whose faults the
 * SIGBUS handler turns into a short return (poison.c).
 *
 * size_t pmem_copy_mc(void *dst, const void *src, size_t len)
 * returns 0, or the number of bytes not copied when a load from src
 * faulted (poison, or a backing file truncated under the mapping).
 *
 * This is the kernel's copy_mc_enhanced_fast_string()
 * (arch/x86/lib/copy_mc_64.S), which the pmem driver's read_pmem() uses
 * through copy_mc_to_kernel() on most CPUs: a fault on the `rep movsb`
 * leaves RCX at the bytes still to copy, and an exception-table entry
 * resumes at the instruction after it.  Here the exception table is one comparison in
 * the SIGBUS handler ("did it fault at pmem_copy_mc_insn?") and the fixup
 * sets RIP to pmem_copy_mc_fixup.  Nothing is saved or armed per copy:
 * unlike a guarded call (guarded_call_x86_64.S), a read adds no store to
 * the copy's own, and a 4 KiB copy that misses the cache is bound by how
 * many stores are waiting (docs/PERFORMANCE.md, pmem).
 *
 * Not on Intel Purley (Skylake-SP, Cascade Lake) with NVDIMMs: there the
 * kernel copies with copy_mc_fragile() instead, 8 bytes at a time
 * (arch/x86/kernel/quirks.c: quirk_intel_purley_xeon_ras_cap), because a
 * machine check inside a fast-string copy may not be recoverable on those
 * CPUs.  Such a loop ran at 0.54x of memcpy here, so we do not use one: on
 * those platforms a read that consumes poison we do not know of may take
 * the server down instead of failing with -EIO.  Known bad blocks are
 * still refused before the copy (badblocks.c).
 */
#include <cet.h>

	.text
	.p2align 4
	.globl	pmem_copy_mc
	.hidden	pmem_copy_mc
	.type	pmem_copy_mc, @function
pmem_copy_mc:
	.cfi_startproc
	_CET_ENDBR
	movq	%rdx, %rcx
	.globl	pmem_copy_mc_insn
	.hidden	pmem_copy_mc_insn
pmem_copy_mc_insn:
	rep movsb
	.globl	pmem_copy_mc_fixup
	.hidden	pmem_copy_mc_fixup
pmem_copy_mc_fixup:
	movq	%rcx, %rax
	ret
	.cfi_endproc
	.size	pmem_copy_mc, . - pmem_copy_mc

	.section .note.GNU-stack, "", @progbits
