#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data written with O_SYNC / fsync is in the backing FILE when the writer
# returns, and the server saw the FUA writes and flushes that carry it.
. "$(dirname "$0")/lib.sh"
need_cmd fio cmp

IMG=$T/disk.img
truncate -s 64M "$IMG"
head -c 1M /dev/urandom >"$T/pattern1"
head -c 1M /dev/urandom >"$T/pattern2"

# backing_matches OFFSET_MIB FILE: the backing file holds FILE at OFFSET.
backing_matches() {
	local size
	size=$(stat -c %s "$2")
	cmp -s -n "$size" "$2" <(dd if="$IMG" bs=1M skip="$1" count=$((size / 1048576)) iflag=direct status=none)
}

for mode in buffered direct; do
	if [ $mode = direct ]; then vublk_add -t loop -f "$IMG" --direct
	else vublk_add -t loop -f "$IMG"; fi
	[ "$(cat /sys/block/ublkb$ID/queue/fua)" = 1 ] || fail "$DEV does not advertise FUA"
	grep -q "write back" /sys/block/ublkb$ID/queue/write_cache ||
		fail "$DEV does not advertise a volatile write cache (flushes would be dropped)"

	# O_DIRECT|O_SYNC writes: REQ_FUA each.
	dd if="$T/pattern1" of="$DEV" bs=64k seek=1M oflag=direct,sync,seek_bytes status=none ||
		fail "dd oflag=direct,sync to $DEV"
	backing_matches 1 "$T/pattern1" || fail "$mode: O_SYNC data not in the backing file"
	wait_until 10 counter_above "$ID" fua 0 || fail "$mode: the server saw no FUA write"

	# Buffered writes + fsync: a flush.
	dd if="$T/pattern2" of="$DEV" bs=64k seek=2M conv=fsync oflag=seek_bytes status=none ||
		fail "dd conv=fsync to $DEV"
	backing_matches 2 "$T/pattern2" || fail "$mode: fsync'ed data not in the backing file"
	wait_until 10 counter_above "$ID" flushes 0 || fail "$mode: the server saw no flush"

	# fio, fsync after every write.
	flushes=$(device_counter "$ID" flushes)
	fio --name=fsync --filename="$DEV" --ioengine=psync --rw=write --bs=64k \
		--size=4M --offset=4M --fsync=1 --output="$T/fio.out" ||
		fail "fio --fsync=1 failed"
	dd if="$DEV" bs=1M skip=4 count=4 iflag=direct status=none >"$T/readback" ||
		fail "reading back the fio region"
	backing_matches 4 "$T/readback" || fail "$mode: fio --fsync=1 data not in the backing file"
	wait_until 10 counter_above "$ID" flushes $((flushes + 60)) ||
		fail "$mode: fio --fsync=1 of 64 writes gave only $(( $(device_counter "$ID" flushes) - flushes )) flushes"
	"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
done
say "PASS"
