#!/bin/bash
# The verity device is read-only: writes, discards and a read-write mount
# fail, and the image file is bit-for-bit unchanged afterwards.
. "$(dirname "$0")/lib.sh"
need_cmd blkdiscard

prepare_image
before=$(sha256sum <"$IMG")
verity_add
[ "$(blockdev --getro "$DEV")" = 1 ] || fail "$DEV is not read-only"
dd if=/dev/zero of="$DEV" bs=4096 count=1 oflag=direct 2>/dev/null &&
	fail "a direct write to $DEV succeeded"
dd if=/dev/zero of="$DEV" bs=4096 count=16 seek=100 conv=fsync 2>/dev/null &&
	fail "a buffered write to $DEV succeeded"
blkdiscard -f "$DEV" 2>/dev/null && fail "blkdiscard on $DEV succeeded"
mount -t f2fs "$DEV" "$MNT" 2>/dev/null && {
	touch "$MNT/new" 2>/dev/null && fail "created a file on $DEV"
	umount "$MNT"
}
mount_ro
touch "$MNT/new" 2>/dev/null && fail "created a file on the read-only mount"
check_sums "after the write attempts"
umount "$MNT" || fail "umount failed"
line=$(del_and_counters "$ID") || exit 1
[ "$(counter failures "$line")" = 0 ] || fail "verification failures"
after=$(sha256sum <"$IMG")
[ "$before" = "$after" ] || fail "the image changed: $before -> $after"
say "PASS: writes refused, image unchanged ($after)"
