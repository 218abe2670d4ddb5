#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# f2fs on a pmem device backed by a file on ext4 -o dax: the server maps it
# with CACHE_LINE granularity (log and stats say so), and the files written
# survive del + re-add with matching checksums.
. "$(dirname "$0")/lib.sh"
need_cmd mkfs.f2fs sha256sum

IMG=$(pmem_file disk.img 256)
vublk_add -t pmem -f "$IMG" -q 2
expect_granularity "$ID" CACHE_LINE
# CACHE_LINE: writes are persistent on completion, no volatile cache.
device_stats_have "$ID" '"volatile_cache": false' ||
	fail "device $ID on a DAX file claims a volatile cache: $(device_json "$ID")"
[ "$(cat /sys/block/ublkb$ID/queue/write_cache)" = "write through" ] ||
	fail "ublkb$ID write_cache is '$(cat /sys/block/ublkb$ID/queue/write_cache)', expected write through"

f2fs_tree_write
f2fs_tree_survives_readd -t pmem -f "$IMG"
umount "$MNT" || fail "umount $MNT"
[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
