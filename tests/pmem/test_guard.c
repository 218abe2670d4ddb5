// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_guard.c - the two ways lib/pmem survives a SIGBUS in a copy, at the
 * level of registers (guard.h):
 *  - pmem_guarded_call() whose function faults returns 1 with every
 *    callee-saved register as its caller had it and the direction flag
 *    clear, although the function had overwritten them all and set it;
 *    one that does not fault returns 0 alike; the
 *    guard is disarmed after both, and faults in a row are each caught.
 *  - pmem_copy_mc() returns the number of bytes it did not copy when its
 *    source runs past the end of a truncated file, having copied the rest.
 *  - The handler's decisions for faults no host test can raise: a consumed
 *    memory error names the start of the poisoned page, not the byte, and
 *    must still be recovered when the copy entered that page in the
 *    middle; an asynchronous notice, a fault on the destination, a page
 *    the copy does not read, and a signal sent by kill() are not ours.
 *
 * usage: test_guard DIR
 */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmem_internal.h"
#include "pmem_test.h"

#define MAP_SIZE (64 * 1024)
#define CUT (MAP_SIZE / 2)

unsigned call_keeps_regs(struct pmem_guard *guard, pmem_guarded_fn fn,
			 void *a0);
void clobber_then_load(const char *addr);

static void check_guarded_call(char *map)
{
	struct pmem_guard *g = &pmem_thread_guard;

	g->start = map;
	g->end = map + MAP_SIZE;
	for (int round = 0; round < 3; round++) {
		CHECK(call_keeps_regs(g, (pmem_guarded_fn)clobber_then_load,
				      map + CUT + 100) == 1);
		CHECK(g->active == 0);
		CHECK(call_keeps_regs(g, (pmem_guarded_fn)clobber_then_load,
				      map + CUT - 100) == 0);
		CHECK(g->active == 0);
	}
}

static void check_copy_mc(const char *map)
{
	static char buf[8192];
	uint64_t left;

	memset(buf, 0x5a, sizeof(buf));
	CHECK(pmem_copy_mc(buf, map + CUT - 4096, 4096) == 0);
	for (size_t i = 0; i < 4096; i++)
		CHECK(buf[i] == (char)(i & 0x7f));
	/* 1000 bytes before the cut, 7192 past it.  Only "not zero" is
	 * used (pmem_read fails the request), but the count should say how
	 * far the copy got: not past the cut (valgrind's emulation of
	 * `rep movsb` reports one byte more than it copied, hence the
	 * clamp), and what it reports copied below the cut is right. */
	memset(buf, 0x5a, sizeof(buf));
	left = pmem_copy_mc(buf, map + CUT - 1000, 8192);
	CHECK(left != 0 && left <= 8192);
	if (left < 8192 - 1000)
		left = 8192 - 1000;
	for (size_t i = 0; i < 8192 - left; i++)
		CHECK(buf[i] == (char)((CUT - 1000 + i) & 0x7f));
}

/* A SIGBUS as the kernel raises it, for the handler's recoveries. */
static siginfo_t fault_at(int code, const char *addr, short lsb)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	info.si_signo = SIGBUS;
	info.si_code = code;
	info.si_addr = (void *)addr;
	info.si_addr_lsb = lsb;
	return info;
}

/* Would the handler resume a read that faulted at RIP = @rip, with RSI at
 * @src and @left bytes to go, @dst its destination? */
static bool copy_mc_recovers(const siginfo_t *info, const void *rip,
			     const char *src, const char *dst, size_t left)
{
	ucontext_t uc;
	greg_t *regs = uc.uc_mcontext.gregs;
	bool ours;

	memset(&uc, 0, sizeof(uc));
	regs[REG_RIP] = (greg_t)rip;
	regs[REG_RSI] = (greg_t)src;
	regs[REG_RDI] = (greg_t)dst;
	regs[REG_RCX] = (greg_t)left;
	ours = pmem_copy_mc_recover(info, &uc);
	CHECK(regs[REG_RIP] == (greg_t)(ours ? pmem_copy_mc_fixup : rip));
	return ours;
}

static void check_fault_decisions(char *map)
{
	static char buf[4096];
	char *page = map + 4096, *src = page + 0x40;
	siginfo_t mce = fault_at(BUS_MCEERR_AR, page, 12);
	siginfo_t mce_ao = fault_at(BUS_MCEERR_AO, page, 12);
	siginfo_t mce_before = fault_at(BUS_MCEERR_AR, map, 12);
	siginfo_t exact = fault_at(BUS_ADRERR, src + 100, 0);
	siginfo_t on_dst = fault_at(BUS_ADRERR, buf + 100, 0);
	siginfo_t sent = fault_at(SI_USER, src, 0);
	struct pmem_guard *g = &pmem_thread_guard;
	ucontext_t uc;

	CHECK(copy_mc_recovers(&mce, pmem_copy_mc_insn, src, buf, 4096 - 0x40));
	CHECK(copy_mc_recovers(&exact, pmem_copy_mc_insn, src, buf, 4096));
	CHECK(!copy_mc_recovers(&mce_ao, pmem_copy_mc_insn, src, buf, 4096));
	CHECK(!copy_mc_recovers(&mce_before, pmem_copy_mc_insn, src, buf, 4096));
	CHECK(!copy_mc_recovers(&on_dst, pmem_copy_mc_insn, src, buf, 4096));
	CHECK(!copy_mc_recovers(&sent, pmem_copy_mc_insn, src, buf, 4096));
	CHECK(!copy_mc_recovers(&mce, (void *)memcpy, src, buf, 4096));

	/* A guarded write: poison anywhere in the mapping is ours. */
	g->start = map;
	g->end = map + MAP_SIZE;
	g->active = 1;
	memset(&uc, 0, sizeof(uc));
	CHECK(!pmem_guard_recover(&mce_ao, &uc) && g->active);
	CHECK(!pmem_guard_recover(&on_dst, &uc) && g->active);
	CHECK(pmem_guard_recover(&mce, &uc) && !g->active);
	CHECK(uc.uc_mcontext.gregs[REG_RIP] ==
	      (greg_t)pmem_guarded_call_resume);
	CHECK(uc.uc_mcontext.gregs[REG_RAX] == 1);
}

int main(int argc, char **argv)
{
	char path[4096];
	char *map;
	int fd;

	CHECK(argc == 2);
	fd = pmem_test_create_file(argv[1], MAP_SIZE, path, sizeof(path));
	pmem_test_remove_file();
	map = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED);
	for (size_t i = 0; i < MAP_SIZE; i++)
		map[i] = (char)(i & 0x7f);
	CHECK(ftruncate(fd, CUT) == 0);
	CHECK_OK(pmem_poison_handler_install());

	check_guarded_call(map);
	check_copy_mc(map);
	check_fault_decisions(map);

	CHECK(munmap(map, MAP_SIZE) == 0);
	CHECK(close(fd) == 0);
	return 0;
}
