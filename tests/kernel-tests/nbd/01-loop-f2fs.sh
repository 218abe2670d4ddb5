#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -t loop on an NBD export (nbdkit's file plugin on a Unix socket): mkfs.f2fs,
# a tree of files, fio with crc32c verify on the mounted filesystem; del
# and add again: every file checks; the bytes are in the file nbdkit
# serves.  `vublk list` names the URI.
. "$(dirname "$0")/lib.sh"
need_cmd mkfs.f2fs fio

truncate -s 256M "$T/export.img"
serve file "$T/export.img"
vublk_add -t loop -f "$URI" -q 2
[ "$(device_field "$ID" 'd["backing_file"]')" = "$URI" ] ||
	fail "vublk list does not name $URI: $(device_json "$ID")"
[ "$(device_field "$ID" 'd["queues"]')" = 2 ] ||
	fail "not two queues (nbdkit's file plugin has multi-conn)"
f2fs_tree_write
fio --name=nbd-verify --directory="$MNT" --size=4M --bsrange=4k-64k \
	--rw=randwrite --ioengine=io_uring --iodepth=16 --direct=1 \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --output="$T/fio.out" ||
	{ cat "$T/fio.out"; fail "fio on f2fs over NBD failed"; }
grep -q "err= 0" "$T/fio.out" || { cat "$T/fio.out"; fail "fio reported errors"; }
f2fs_tree_survives_readd -t loop -f "$URI"
umount "$MNT" || fail "umount"
counters "$ID" nbd_commands errors
[ "${COUNT[nbd_commands]}" -gt 0 ] || fail "no NBD commands counted"
[ "${COUNT[errors]}" = 0 ] || fail "the core counted errors"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
# The served file holds the filesystem: add it as a plain file.
kill_nbdkit TERM
vublk_add -t loop -f "$T/export.img"
mount -t f2fs "$DEV" "$MNT" || fail "mount of the served file itself"
(cd "$MNT" && sha256sum --quiet -c "$T/sums") || fail "the served file differs"
say "PASS: f2fs and fio --verify over NBD, the data in the served file"
