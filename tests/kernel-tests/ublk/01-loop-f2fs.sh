#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# f2fs on a loop device survives del + add: every file's checksum matches.
. "$(dirname "$0")/lib.sh"
need_cmd mkfs.f2fs sha256sum

IMG=$T/disk.img
truncate -s 256M "$IMG"
vublk_add -t loop -f "$IMG" -q 2
f2fs_tree_write
f2fs_tree_survives_readd -t loop -f "$IMG"
umount "$MNT"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
