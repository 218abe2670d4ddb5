#!/bin/bash
# Smoke test of the kernel lab (tests/vm): the kernel features the later
# groups need are there -- ublk, f2fs with fs-verity, dm-verity, io_uring.
set -uo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

# Natively the features may be modules not loaded yet; in the VM the guest
# /init has loaded them already (and there is no modprobe tree).
load() {
	[[ -n ${VUBLK_IN_VM:-} ]] || modprobe -q "$1" 2>/dev/null || true
}

load ublk_drv
[[ -c /dev/ublk-control ]] ||
	fail "/dev/ublk-control is missing: the ublk_drv module is not loaded"

load f2fs
grep -qw f2fs /proc/filesystems ||
	fail "f2fs is not in /proc/filesystems: the f2fs module is not loaded"
[[ -e /sys/fs/f2fs/features/verity ]] ||
	fail "f2fs lacks fs-verity (/sys/fs/f2fs/features/verity is missing)"

load dm-verity
targets=$(dmsetup targets) || fail "dmsetup targets failed"
grep -q '^verity ' <<<"$targets" ||
	fail "device-mapper has no verity target; dmsetup targets says: $targets"

disabled=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)
[[ $disabled == 0 ]] ||
	fail "io_uring is disabled (kernel.io_uring_disabled=$disabled)"

echo "ublk, f2fs+verity, dm-verity and io_uring are available on $(uname -r)"
