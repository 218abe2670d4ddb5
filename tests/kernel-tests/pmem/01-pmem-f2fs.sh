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

mkfs.f2fs -q -f "$DEV" || fail "mkfs.f2fs on $DEV failed"
mount -t f2fs "$DEV" "$MNT" || fail "mount of f2fs on $DEV failed"
i=0
for size in 0 1 511 4095 4096 4097 65536 100000 1048576 3000001 8388608; do
	d=$MNT/dir$((i % 3))
	mkdir -p "$d"
	head -c "$size" /dev/urandom >"$d/file$i" || fail "writing $d/file$i"
	i=$((i + 1))
done
(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/sums" ||
	fail "checksumming the tree"
[ "$(wc -l <"$T/sums")" -eq $i ] || fail "expected $i files in the tree"
umount "$MNT" || fail "umount $MNT"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
[ ! -e "$DEV" ] || fail "$DEV still exists after del"

vublk_add -t pmem -f "$IMG"
mount -t f2fs "$DEV" "$MNT" || fail "mount of f2fs on $DEV after re-add failed"
(cd "$MNT" && sha256sum --quiet -c "$T/sums") || fail "checksums differ after del + add"
umount "$MNT" || fail "umount $MNT"
[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
