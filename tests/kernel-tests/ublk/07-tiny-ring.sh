#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The server's queues through an io_uring of 4 entries (the testing knob
# VUBLK_TEST_RING_ENTRIES): the 64 FETCH commands of each queue, and every
# later commit and backend SQE, find the submission queue full and wait in
# the ring's backlog (core/ring.c).  Nothing may be lost: a lost commit
# leaves a kernel request waiting forever, so fio would hang (the test's
# timeout) rather than pass.  The loop target under fio crc32c verify at
# iodepth 32, and a verity device read whole and compared.
. "$(dirname "$0")/lib.sh"
need_cmd fio cmp

IMG=$T/disk.img
truncate -s 64M "$IMG"
export VUBLK_TEST_RING_ENTRIES=4

vublk_add -t loop -f "$IMG" -q 2 -d 64
fio --name=tiny-ring --filename="$DEV" --ioengine=io_uring --iodepth=32 \
	--direct=1 --rw=randwrite --bsrange=4k-256k --size=32M \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
	--output="$T/fio.out" || { cat "$T/fio.out"; fail "fio through a 4-entry ring failed"; }
grep -q "err= 0" "$T/fio.out" || { cat "$T/fio.out"; fail "fio reported errors"; }
[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

head -c 48M /dev/urandom >"$T/data"
cp "$T/data" "$T/sealed.img"
"$VUBLK_BUILD/tools/vublk-verity/vublk-verity" format "$T/sealed.img" >"$T/digest" ||
	fail "vublk-verity format failed"
vublk_add -t verity -f "$T/sealed.img" --digest="$(cut -d' ' -f1 "$T/digest")" -d 64
dd if="$DEV" bs=1M iflag=direct of="$T/read" 2>/dev/null || fail "reading $DEV failed"
cmp "$T/data" "$T/read" || fail "the verity device read back different bytes"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
