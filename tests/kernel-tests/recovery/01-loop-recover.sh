#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A loop device added with -r outlives its server: after kill -9, I/O sent
# to it waits (it is not failed), and `vublk recover` starts a server that
# serves it, on the same /dev/ublkbN.  Then f2fs with fio writing (crc32c
# verify headers, O_DIRECT) across a kill -9 + recover finishes without an
# I/O or verify error, and the filesystem and files are intact after a
# remount.  The fio part uses --recovery=reissue: with plain -r the kernel
# fails the requests the dead server had taken (ublk_drv.c:
# __ublk_fail_req()), which fio and f2fs would rightly see as I/O errors.
. "$(dirname "$0")/lib.sh"
need_cmd fio mkfs.f2fs fsck.f2fs sha256sum

IMG=$T/disk.img
truncate -s 256M "$IMG"

# 1. -r: I/O issued while there is no server waits for the next one.
vublk_add -t loop -f "$IMG" -r -q 2
head -c 8M /dev/urandom >"$T/pattern"
dd if="$T/pattern" of="$DEV" bs=1M oflag=direct conv=fsync status=none || fail "writing the pattern"
kill_server "$ID"
timeout 120 dd if="$DEV" of="$T/read-back" bs=1M count=8 iflag=direct status=none &
reader=$!
[ -b "$DEV" ] || fail "$DEV went away with its server"
recover "$ID"
wait $reader || fail "a read issued while the server was dead failed (status $?)"
cmp "$T/pattern" "$T/read-back" || fail "the read issued while the server was dead returned wrong data"
cmp -n 8M "$T/pattern" "$IMG" || fail "the backing file lost the pattern"
# The recovered server writes too, and a second kill + recover works.
dd if=/dev/zero of="$DEV" bs=1M count=1 seek=8 oflag=direct status=none || fail "write after recover"
kill_server "$ID"
recover "$ID"
cmp -n 8M "$T/pattern" "$DEV" || fail "data differs after a second recover"
say "queue mode: waiting I/O served after recover, twice"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
[ ! -e "$DEV" ] || fail "$DEV left after del"

# 2. f2fs + fio across kill -9 + recover (reissue mode).
truncate -s 0 "$IMG" && truncate -s 256M "$IMG"
vublk_add -t loop -f "$IMG" --recovery=reissue -q 2
grep -q '"recovery": "reissue"' "$RUN_DIR/$ID.json" || fail "state file lacks the reissue mode"
mkfs.f2fs -q -f "$DEV" || fail "mkfs.f2fs on $DEV"
mount -t f2fs "$DEV" "$MNT" || fail "mount f2fs on $DEV"
fio --name=recover --directory="$MNT" --nrfiles=2 --size=48M \
	--rw=randwrite --bsrange=4k-64k --ioengine=io_uring --iodepth=16 \
	--direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--randrepeat=0 --output="$T/fio.out" &
fio_pid=$!
wait_until 60 counter_above "$ID" writes 300 || fail "fio did not get going: $(cat "$T/fio.out")"
kill -0 $fio_pid 2>/dev/null || fail "fio ended before the kill: make it write more"
kill_server "$ID"
recover "$ID"
timeout 300 tail --pid=$fio_pid -f /dev/null || fail "fio hung after recover"
wait $fio_pid || fail "fio failed across the recovery: $(cat "$T/fio.out")"
grep -q "err= 0" "$T/fio.out" || fail "fio reported errors: $(cat "$T/fio.out")"
(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/sums" || fail "checksumming"
umount "$MNT" || fail "umount"
fsck.f2fs --dry-run "$DEV" >"$T/fsck.out" 2>&1 || fail "fsck.f2fs: $(tail -n 5 "$T/fsck.out")"
mount -t f2fs "$DEV" "$MNT" || fail "remount after recover"
(cd "$MNT" && sha256sum --quiet -c "$T/sums") || fail "files differ after remount"
umount "$MNT" || fail "umount"
check_dmesg_clean
[ "$(device_counter "$ID" errors)" = 0 ] || fail "the recovered server counted errors"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
