#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A sealed verity image on the DAX filesystem, served with --backend=pmem:
# the verity group's f2fs image (sealed by vublk-verity format) is copied
# to $VUBLK_PMEM_DIR and added with --backend=pmem --digest; mounted
# read-only, every checksum matches, the stats say backend pmem and count
# the tree copies, nothing fails.  Then the image is truncated under the
# running device: a read past the new end fails with EIO (the copy's
# SIGBUS), a read below it still returns the right data, the server stays
# live, and nothing counts as corruption.
. "$(dirname "$0")/lib.sh"
pmem_group_t=$T
. "$(dirname "$0")/../verity/lib.sh"
# Both libraries source the ublk group's: keep the second per-test
# directory (the current one) and the pmem one, and undo any damage.
rm -rf "$pmem_group_t"
trap 'cleanup; repair_all; rm -rf "$PMEM_T"' EXIT
need_cmd blockdev

prepare_image
cp "$IMG" "$PMEM_T/f2fs.img" || fail "cannot copy the image to $PMEM_T"
IMG=$PMEM_T/f2fs.img
BACKEND_ARGS=(--backend=pmem)

verity_add
[ "$(blockdev --getro "$DEV")" = 1 ] || fail "$DEV is not read-only"
wait_until 5 device_stats_have "$ID" '"backend": "pmem"' ||
	fail "the stats of device $ID do not say backend pmem: $(device_json "$ID")"
grep -q "backend pmem" "$(device_log "$ID")" ||
	fail "the server log does not say backend pmem"
mount_ro
check_sums "through the verity device, --backend=pmem"
umount "$MNT" || fail "umount failed"
head -c 4096 "$DEV" >"$T/block0" || fail "reading block 0 failed"

# Truncate to 64 MiB: the hash blocks are all cached by now, the data past
# 64 MiB is gone.
truncate -s 64M "$IMG" || fail "truncating $IMG failed"
dd if="$DEV" of=/dev/null bs=4k skip=25600 count=1 iflag=direct 2>"$T/dd.err" &&
	fail "a read past the truncated end of the image succeeded"
grep -q "Input/output error" "$T/dd.err" ||
	fail "the read past the end failed, but not with EIO: $(cat "$T/dd.err")"
dd if="$DEV" of="$T/again" bs=4k count=1 iflag=direct status=none ||
	fail "reading block 0 after the truncation failed"
cmp -s "$T/block0" "$T/again" || fail "block 0 changed after the truncation"
[ "$(device_state "$ID")" = live ] || fail "device $ID is $(device_state "$ID"), not live"

line=$(del_and_counters "$ID") || exit 1
say "counters: $line"
[ "$(counter failures "$line")" = 0 ] || fail "verification failures on an intact image"
[ "$(counter io_errors "$line")" -ge 1 ] || fail "the read past the end was not counted as an I/O error"
[ "$(counter tree_reads "$line")" -ge 1 ] || fail "no tree copies counted"
[ "$(counter blocks_verified "$line")" -ge $((BIG_MIB * 256)) ] ||
	fail "only $(counter blocks_verified "$line") blocks verified for more than $BIG_MIB MiB read"
say "PASS: sealed f2fs image on DAX served with --backend=pmem, all files intact, truncation gives EIO"
