#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --direct (an O_DIRECT backing file): the request buffers are registered
# with each queue's io_uring as requests need them, so the backing reads
# and writes (READ_FIXED/WRITE_FIXED) pin no pages of their own.  fio's
# verification on a loop device that copies (--zero-copy=off) and a read
# of a whole verity device come out right through them; the device counts
# those requests (registered_buffer_ios) and the rings' fdinfo lists the
# buffers, at most one per tag, each as large as its requests needed
# rounded up to a power of two (64 KiB to 1 MiB).  Without --direct none
# is registered.
. "$(dirname "$0")/lib.sh"
need_cmd fio cmp python3

VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity

# registered_bufs ID: "COUNT ODD" of the buffers device ID's server
# registered with its io_urings ("N: 0xADDRESS/LENGTH" under UserBufs in
# their fdinfo; an empty slot is "<none>", 0x0/0, or on 6.12 the dummy
# 0xffffffffffffffff/4294967295), ODD those whose
# length is not a power of two from 64 KiB to 1 MiB.  The kernel lists
# them only when it gets the ring's lock at once: a few tries.
registered_bufs() {
	local pid f try out
	pid=$(server_pid "$1")
	for try in 1 2 3 4 5; do
		out=$(for f in /proc/"$pid"/fd/*; do
			[ "$(readlink "$f")" = "anon_inode:[io_uring]" ] &&
				cat "/proc/$pid/fdinfo/${f##*/}"
		done | sed -n 's|^ *[0-9]*: \(0x[0-9a-f]*\)/\([0-9]*\)$|\1 \2|p' |
			awk '$1 == "0x0" || $1 == "0xffffffffffffffff" {next}
			     {n++} !($2 ~ /^(65536|131072|262144|524288|1048576)$/) {odd++}
			     END {print n+0, odd+0}')
		[ "${out% *}" -gt 0 ] && break
		sleep 0.2
	done
	echo "$out"
}

# check_registered ID WHAT BEFORE MORE: device ID gave more than MORE
# requests a registered buffer since its count was BEFORE (its stats file
# is rewritten every second: waited for), and its rings list such
# buffers, each of a length the server registers.
check_registered() {
	local bufs
	wait_until 10 counter_above "$1" registered_buffer_ios $(($3 + $4)) ||
		fail "$2: $(device_counter "$1" registered_buffer_ios) requests given a registered buffer, $3 before: not $4 more"
	bufs=$(registered_bufs "$1")
	[ "${bufs% *}" -ge 1 ] || fail "$2: no buffer registered in the rings"
	[ "${bufs#* }" = 0 ] || fail "$2: ${bufs#* } buffers registered at a length not a power of two from 64 KiB to 1 MiB"
	say "$2: $(device_counter "$1" registered_buffer_ios) requests given one of ${bufs% *} registered buffers"
}

truncate -s 128M "$T/disk.img"
vublk_add -t loop -f "$T/disk.img" --direct --zero-copy=off -q 2 -d 16
before=$(device_counter "$ID" registered_buffer_ios)
before=${before:-0}
fio --name=direct --filename="$DEV" --ioengine=io_uring --iodepth=16 \
	--rw=randwrite --bsrange=4k-128k --size=32M --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --randrepeat=0 --output="$T/fio.out" ||
	fail "fio on loop --direct failed: $(cat "$T/fio.out")"
grep -q "err= 0" "$T/fio.out" || fail "fio on loop --direct reported errors"
check_registered "$ID" "loop --direct" "$before" 200
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

head -c 64M /dev/urandom >"$T/data"
cp "$T/data" "$T/verity.img"
digest=$("$VV" format "$T/verity.img") || fail "vublk-verity format"
vublk_add -t verity -f "$T/verity.img" --digest="${digest%% *}" --direct -q 2 -d 16
before=$(device_counter "$ID" registered_buffer_ios)
before=${before:-0}
cmp "$DEV" "$T/data" || fail "verity --direct: the device reads other bytes than the image's data"
check_registered "$ID" "verity --direct" "$before" 40
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

vublk_add -t loop -f "$T/disk.img" -q 2 -d 16
dd if="$DEV" of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null || fail "reading $DEV"
sleep 1.5	# a stats file of after the reads
ios=$(device_counter "$ID" registered_buffer_ios)
[ "${ios:-x}" = 0 ] || fail "loop without --direct: ${ios:-no} requests given a registered buffer"
bufs=$(registered_bufs "$ID")
[ "${bufs% *}" = 0 ] || fail "loop without --direct: ${bufs% *} buffers registered"
say "PASS"
