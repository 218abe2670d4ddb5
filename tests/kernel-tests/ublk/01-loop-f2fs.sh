#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# f2fs on a loop device survives del + add: every file's checksum matches.
. "$(dirname "$0")/lib.sh"
need_cmd mkfs.f2fs sha256sum

IMG=$T/disk.img
truncate -s 256M "$IMG"
vublk_add -t loop -f "$IMG" -q 2
mkfs.f2fs -q -f "$DEV" || fail "mkfs.f2fs on $DEV failed"
mount -t f2fs "$DEV" "$MNT" || fail "mount of f2fs on $DEV failed"

# A tree of files of assorted sizes: empty, sub-block, unaligned, large.
i=0
for size in 0 1 511 4095 4096 4097 65536 100000 1048576 3000001 8388608; do
	d=$MNT/dir$((i % 3))/sub$((i % 2))
	mkdir -p "$d"
	head -c "$size" /dev/urandom >"$d/file$i" || fail "writing $d/file$i"
	i=$((i + 1))
done
ln -s dir0/sub0/file0 "$MNT/link"
(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/sums" ||
	fail "checksumming the tree"
[ "$(wc -l <"$T/sums")" -eq $i ] || fail "expected $i files in the tree"
sync
umount "$MNT" || fail "umount $MNT"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
[ ! -e "$DEV" ] || fail "$DEV still exists after del"

vublk_add -t loop -f "$IMG"
mount -t f2fs "$DEV" "$MNT" || fail "mount of f2fs on $DEV after re-add failed"
(cd "$MNT" && sha256sum --quiet -c "$T/sums") || fail "checksums differ after del + add"
[ -L "$MNT/link" ] || fail "symlink lost"
umount "$MNT"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
