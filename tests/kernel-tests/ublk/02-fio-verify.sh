#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fio writes with crc32c verify data and reads it all back checked:
# io_uring and psync, iodepth 1 and 32, direct and buffered, two queues,
# and a backing file opened with O_DIRECT.
. "$(dirname "$0")/lib.sh"
need_cmd fio

IMG=$T/disk.img
truncate -s 64M "$IMG"

# run_fio ENGINE IODEPTH DIRECT: random writes with verify headers, then a
# verify pass reading everything back (fio's default do_verify=1).
run_fio() {
	fio --name="verify-$1-qd$2-direct$3" --filename="$DEV" \
		--ioengine="$1" --iodepth="$2" --direct="$3" \
		--rw=randwrite --bsrange=4k-64k --size=16M --offset=0 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--randrepeat=0 --norandommap=0 --output="$T/fio.out" ||
		{ cat "$T/fio.out"; fail "fio $1 iodepth=$2 direct=$3 failed"; }
	grep -q "err= 0" "$T/fio.out" || { cat "$T/fio.out"; fail "fio $1 iodepth=$2 direct=$3 reported errors"; }
}

vublk_add -t loop -f "$IMG" -q 2 -d 64
for direct in 1 0; do
	run_fio io_uring 1 $direct
	run_fio io_uring 32 $direct
	run_fio psync 1 $direct
done
[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

# The target's O_DIRECT path (4 KiB logical blocks).
vublk_add -t loop -f "$IMG" --direct -q 2
[ "$(cat /sys/block/ublkb$ID/queue/logical_block_size)" = 4096 ] ||
	fail "--direct device does not have 4096-byte logical blocks"
run_fio io_uring 32 1
run_fio psync 1 0
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
