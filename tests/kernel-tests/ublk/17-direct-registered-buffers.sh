#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --direct (an O_DIRECT backing file): each queue's request buffers are
# registered with its io_uring once, so the backing reads and writes
# (READ_FIXED/WRITE_FIXED) pin no pages of their own: the rings' fdinfo
# lists queues x depth buffers.  fio's verification on a loop device that
# copies (--zero-copy=off) and a read of a whole verity device come out
# right through them.  Without --direct none is registered: the buffers
# stay backed only where they were touched.
. "$(dirname "$0")/lib.sh"
need_cmd fio cmp

VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity
want=$((2 * 16))	# -q 2 -d 16

# registered_bufs ID: the buffers device ID's server registered with its
# io_urings ("N: 0xADDRESS/LENGTH" under UserBufs in their fdinfo; an
# empty zero-copy slot is "<none>" or 0x0/0).  The kernel lists them only
# when it gets the ring's lock at once: a few tries.
registered_bufs() {
	local pid f n try
	pid=$(server_pid "$1")
	for try in 1 2 3 4 5; do
		n=0
		for f in /proc/"$pid"/fd/*; do
			[ "$(readlink "$f")" = "anon_inode:[io_uring]" ] || continue
			n=$((n + $(grep -cE '^ *[0-9]+: 0x[0-9a-f]*[1-9a-f][0-9a-f]*/[1-9]' \
				"/proc/$pid/fdinfo/${f##*/}")))
		done
		[ $n -ge $want ] && break
		sleep 0.2
	done
	echo $n
}

truncate -s 128M "$T/disk.img"
vublk_add -t loop -f "$T/disk.img" --direct --zero-copy=off -q 2 -d 16
n=$(registered_bufs "$ID")
[ "$n" -eq $want ] || fail "loop --direct: $n request buffers registered, not $want"
fio --name=direct --filename="$DEV" --ioengine=io_uring --iodepth=16 \
	--rw=randwrite --bsrange=4k-256k --size=32M --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --randrepeat=0 --output="$T/fio.out" ||
	fail "fio on loop --direct failed: $(cat "$T/fio.out")"
grep -q "err= 0" "$T/fio.out" || fail "fio on loop --direct reported errors"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

head -c 64M /dev/urandom >"$T/data"
cp "$T/data" "$T/verity.img"
digest=$("$VV" format "$T/verity.img") || fail "vublk-verity format"
vublk_add -t verity -f "$T/verity.img" --digest="${digest%% *}" --direct -q 2 -d 16
n=$(registered_bufs "$ID")
[ "$n" -eq $want ] || fail "verity --direct: $n request buffers registered, not $want"
cmp "$DEV" "$T/data" || fail "verity --direct: the device reads other bytes than the image's data"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

vublk_add -t loop -f "$T/disk.img" -q 2 -d 16
n=$(registered_bufs "$ID")
[ "$n" -eq 0 ] || fail "loop without --direct: $n request buffers registered"
say "PASS (--direct: $want request buffers registered, fio verify and a verity read through them)"
