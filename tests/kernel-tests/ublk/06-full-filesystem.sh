#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The loop target on a nearly full filesystem: a sparse backing file of
# 256 MiB on a 64 MiB ext4 (no blocks reserved for root, so that the
# free space df reports is what the server, as root, can fill).  Writes past the free space fail with ENOSPC:
# the target passes the backing write's -ENOSPC on (a short write is
# continued, so its error is not lost) and ublk_drv ends the request with
# errno_to_blk_status(-ENOSPC) = BLK_STS_NOSPC, which an O_DIRECT writer
# sees as ENOSPC again.  The server stays up, and everything written and
# acknowledged before - flushed or not - reads back intact, also after
# del, a remount of the filesystem and a new add.  Buffered and --direct.
. "$(dirname "$0")/lib.sh"
need_cmd mkfs.ext4 sha256sum cmp

SMALL=$T/small
mkdir -p "$SMALL"
truncate -s 64M "$T/small.img" || fail "cannot create $T/small.img"
mkfs.ext4 -q -F -m 0 "$T/small.img" || fail "mkfs.ext4 of $T/small.img failed"
mount -o loop "$T/small.img" "$SMALL" || fail "cannot mount $T/small.img"
trap 'cleanup_small; cleanup' EXIT
cleanup_small() {
	"$VUBLK" del -a >/dev/null 2>&1
	mountpoint -q "$SMALL" && umount "$SMALL"
}
IMG=$SMALL/backing.img
head -c 8M /dev/urandom >"$T/flushed" || fail "cannot make test data"
head -c 64M /dev/urandom >"$T/fill" || fail "cannot make test data"

# same_data FILE OFFSET_MIB MIB: MIB MiB of $DEV at OFFSET_MIB equal FILE's
# first MIB MiB.
same_data() {
	cmp -s -n $(($3 << 20)) "$1" \
		<(dd if="$DEV" bs=1M skip="$2" count="$3" iflag=direct status=none)
}

# check_kept WHEN: the flushed data and the acknowledged part of the fill.
check_kept() {
	same_data "$T/flushed" 0 8 || fail "$mode: the flushed 8 MiB differ $1"
	same_data "$T/fill" 16 "$acked" ||
		fail "$mode: the $acked MiB of acknowledged writes differ $1"
}

for mode in buffered direct; do
	rm -f "$IMG" && truncate -s 256M "$IMG" || fail "cannot create $IMG"
	if [ $mode = direct ]; then vublk_add -t loop -f "$IMG" --direct
	else vublk_add -t loop -f "$IMG"; fi
	PID=$(server_pid "$ID")
	dd if="$T/flushed" of="$DEV" bs=1M oflag=direct conv=fsync status=none ||
		fail "$mode: writing 8 MiB to $DEV failed"
	free_mib=$(($(df -k --output=avail "$SMALL" | tail -n 1) >> 10))
	say "$mode: $free_mib MiB free on the small filesystem"

	# 64 MiB at 16 MiB: more than the whole filesystem holds.
	if dd if="$T/fill" of="$DEV" bs=1M seek=16 oflag=direct 2>"$T/dd.err"; then
		fail "$mode: writing 64 MiB with $free_mib MiB free succeeded"
	fi
	grep -q "No space left on device" "$T/dd.err" ||
		fail "$mode: the write failed, but not with ENOSPC: $(cat "$T/dd.err")"
	acked=$(sed -n 's/^\([0-9]*\)+0 records out$/\1/p' "$T/dd.err")
	[ -n "$acked" ] && [ "$acked" -gt 0 ] && [ "$acked" -le "$free_mib" ] ||
		fail "$mode: dd wrote '$acked' MiB of $free_mib free: $(cat "$T/dd.err")"
	say "$mode: ENOSPC after $acked MiB"

	check_still_up "$PID" "$ID" "$mode: ENOSPC"
	wait_until 10 counter_above "$ID" errors 0 ||
		fail "$mode: the server counted no errors"
	sync "$DEV" || fail "$mode: a flush of $DEV after ENOSPC failed"
	check_kept "after ENOSPC"

	"$VUBLK" del -n "$ID" || fail "$mode: vublk del -n $ID"
	umount "$SMALL" && mount -o loop "$T/small.img" "$SMALL" ||
		fail "$mode: cannot remount the small filesystem"
	vublk_add -t loop -f "$IMG"
	check_kept "after del, remount and add"
	"$VUBLK" del -n "$ID" || fail "$mode: vublk del -n $ID"
done
say "PASS"
