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
f2fs_fio_start
kill -0 $FIO_PID 2>/dev/null || fail "fio ended before the kill: make it write more"
kill_server "$ID"
recover "$ID"
f2fs_fio_check "kill -9 and recover"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
