#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A `vublk recover` that fails leaves the device as it found it: quiesced,
# with its mounted filesystem and the I/O that waits, for the user to run
# recover again (or del).  Before, a failure after START_USER_RECOVERY
# sent STOP_DEV and DEL_DEV, and the filesystem lost its device with its
# dirty data.
#
# The failure: a recovery server that cannot get its request buffers
# (`ulimit -v` below the 1 GiB a 1024-deep queue maps; --zero-copy=off,
# for with zero copy a server maps no request buffers).  Everything that
# can fail for resources is set up before the device is touched
# (core/server.c: prepare, then START_USER_RECOVERY), so this one fails
# there; then a reader blocked on the quiesced device, and a second
# recover serves it and the mounted filesystem, data intact.
. "$(dirname "$0")/lib.sh"
need_cmd mkfs.f2fs fsck.f2fs sha256sum
need_no_ulimit_v

IMG=$T/disk.img
truncate -s 256M "$IMG"
vublk_add -t loop -f "$IMG" -r -q 1 -d 1024 --zero-copy=off
mkfs.f2fs -q -f "$DEV" || fail "mkfs.f2fs on $DEV"
mount -t f2fs "$DEV" "$MNT" || fail "mount f2fs on $DEV"
head -c 20M /dev/urandom >"$MNT/before"
sync
sha256sum <"$MNT/before" >"$T/before.sum"
head -c 3M /dev/urandom >"$T/dirty"
cp "$T/dirty" "$MNT/dirty"	# in the page cache, not yet written

kill_server "$ID"
wait_until 10 test "$(device_state "$ID")" = quiesced ||
	fail "device $ID is $(device_state "$ID") after kill -9, not quiesced"
(ulimit -v 524288; exec "$VUBLK" recover -n "$ID") >"$T/rec.out" 2>"$T/rec.err" &&
	fail "a recover without memory for its buffers succeeded"
grep -q "cannot allocate" "$T/rec.err" || fail "recover said: $(cat "$T/rec.err")"
[ -b "$DEV" ] || fail "$DEV is gone after the failed recover"
[ "$(device_state "$ID")" = quiesced ] ||
	fail "device $ID is $(device_state "$ID") after the failed recover, not quiesced"
mountpoint -q "$MNT" || fail "the filesystem was unmounted"

# The page cache goes out to the device while it has no server: it waits.
sync &
syncer=$!
recover "$ID"
timeout 120 tail --pid=$syncer -f /dev/null || fail "sync hung after the second recover"
wait $syncer || fail "sync failed"
sha256sum -c --quiet "$T/before.sum" <"$MNT/before" || fail "'before' changed"
cmp "$T/dirty" "$MNT/dirty" || fail "'dirty' differs"
umount "$MNT" || fail "umount"
fsck.f2fs --dry-run "$DEV" >"$T/fsck.out" 2>&1 || fail "fsck.f2fs: $(tail -n 5 "$T/fsck.out")"
mount -t f2fs "$DEV" "$MNT" || fail "remount"
cmp "$T/dirty" "$MNT/dirty" || fail "'dirty' differs after remount"
umount "$MNT" || fail "umount"
check_dmesg_clean
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
