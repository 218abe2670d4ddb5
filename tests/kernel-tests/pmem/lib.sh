# SPDX-License-Identifier: GPL-2.0-only
# Shared by the pmem kernel tests (sourced, not run): the ublk group's
# helpers (vublk_add, device_json, device_log, device_counter, wait_until,
# ...) plus backing files on the lab's DAX filesystem.  tests/vm/run-kernel-tests
# boots the 'pmem' group with --pmem --pmem-dax: VUBLK_PMEM_DEV is the raw
# /dev/pmem0 and VUBLK_PMEM_DIR an ext4 -o dax mount on it, where libpmem2
# maps files with CACHE_LINE granularity (MAP_SYNC).
. "$(dirname "${BASH_SOURCE[0]}")/../ublk/lib.sh"

[ -n "${VUBLK_PMEM_DIR:-}" ] || skip "VUBLK_PMEM_DIR is unset: no DAX filesystem (run in the VM lab: tests/vm/run-kernel-tests pmem)"
[ -n "${VUBLK_PMEM_DEV:-}" ] || skip "VUBLK_PMEM_DEV is unset: no /dev/pmem0"

PMEM_T=$(mktemp -d "$VUBLK_PMEM_DIR/$TEST_NAME.XXXXXX") ||
	fail "cannot create a directory in $VUBLK_PMEM_DIR"
trap 'cleanup; rm -rf "$PMEM_T"' EXIT

# pmem_file NAME MIB: a file of MIB MiB of written zeroes on the DAX
# filesystem; prints its path.  Written, not fallocated or sparse: with
# MAP_SYNC, the first store to a page of an unallocated or unwritten extent
# faults into the filesystem, which allocates or converts the extent and
# commits its journal before the store may proceed (dax_iomap_fault() ->
# dax_finish_sync_fault()): one journal commit per first-touched page,
# about 50 ms each in the TCG guest.
pmem_file() {
	local f=$PMEM_T/$1
	dd if=/dev/zero of="$f" bs=1M count="$2" conv=fsync status=none ||
		fail "cannot write $2 MiB to $f on $VUBLK_PMEM_DIR"
	echo "$f"
}

# pmem_device_with_data MIB: a pmem device (DEV, ID, server PID) on a new
# file IMG of MIB MiB, with 4 MiB of random data ($T/data) at offset 0.
pmem_device_with_data() {
	IMG=$(pmem_file disk.img "$1")
	vublk_add -t pmem -f "$IMG"
	PID=$(server_pid "$ID")
	head -c 4M /dev/urandom >"$T/data"
	dd if="$T/data" of="$DEV" bs=1M oflag=direct status=none ||
		fail "writing 4 MiB to $DEV failed"
}

# device_stats_have ID TEXT: the stats of `vublk list` contain TEXT.
device_stats_have() {
	device_json "$1" | grep -qF -- "$2"
}

# expect_granularity ID NAME: the server's start-up log line and its
# stats both report store granularity NAME.
expect_granularity() {
	local log
	wait_until 5 device_stats_have "$1" "\"granularity\": \"$2\"" ||
		fail "stats of device $1 do not say granularity $2: $(device_json "$1")"
	log=$(device_log "$1")
	[ -n "$log" ] && grep -q "store granularity $2" "$log" ||
		fail "log '$log' of device $1 does not say store granularity $2"
}
