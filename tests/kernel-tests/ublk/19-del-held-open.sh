#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk del` of a device whose disk a program keeps open does not wait
# for that program: the device is stopped and deleted (its disk goes, its
# I/O ends), one line says the disk is still open, `vublk list -n` shows
# it deleted, `vublk add -n` says why the id is busy, and the kernel frees
# the id when the program closes the disk.  (DEL_DEV would wait for the
# close, and fio keeps reading the dead disk until its runtime ends;
# vublk deletes with DEL_DEV_ASYNC, which works from Linux 6.11.)  Run
# with a program that only holds the disk open and with fio reading it at
# depth 64.
. "$(dirname "$0")/lib.sh"
need_cmd fio timeout
need_kernel 6.11 "a delete that does not wait for the disk's last close (DEL_DEV_ASYNC)"

RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
# A holder left running by a failed check would keep its id from the
# tests that follow.
holders=
trap 'kill $holders 2>/dev/null; cleanup' EXIT
head -c 64M /dev/urandom >"$T/disk.img" || fail "cannot write the image"

# del_while_held WHAT HOLDER_PID: delete device $ID while HOLDER_PID has
# its disk open, and check what is left until and after the close.
del_while_held() {
	local what=$1 holder=$2 pid start took
	pid=$(server_pid "$ID")
	start=$SECONDS
	timeout 60 "$VUBLK" del -n "$ID" 2>"$T/err" ||
		fail "$what: vublk del failed: $(cat "$T/err")"
	took=$((SECONDS - start))
	kill -0 "$holder" 2>/dev/null ||
		fail "$what: the program holding the disk ended before del returned"
	# 1-2 s: the server's bounded wait for the id.  Waiting for the
	# close, it was 20 s of DEL_DEV timeouts, and an error.
	[ $took -lt 10 ] || fail "$what: del took $took s with the disk open"
	grep -q "device $ID is deleted, but its disk is still open" "$T/err" ||
		fail "$what: del did not say the disk is still open: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "$what: del printed more than that line: $(cat "$T/err")"
	! kill -0 "$pid" 2>/dev/null || fail "$what: the server (pid $pid) still runs"
	[ ! -e "$DEV" ] || fail "$what: $DEV still exists after del"
	[ ! -e "/dev/ublkc$ID" ] || fail "$what: /dev/ublkc$ID still exists after del"
	grep -q "device $ID stopped and deleted" "$RUN_DIR/$ID.log" ||
		fail "$what: the server did not log a clean stop: $(cat "$RUN_DIR/$ID.log")"
	[ "$(device_state "$ID")" = deleted ] ||
		fail "$what: vublk list -n $ID shows '$(device_state "$ID")', not deleted"
	"$VUBLK" list | grep -q "ublkb$ID " && fail "$what: vublk list still shows device $ID"
	"$VUBLK" add -t loop -f "$T/disk.img" -n "$ID" 2>"$T/err" &&
		fail "$what: id $ID was taken again while its old disk is open"
	grep -q "device id $ID is busy: the device deleted with that id has its disk still open" "$T/err" ||
		fail "$what: add -n $ID while the old disk is open: $(cat "$T/err")"
	kill "$holder" 2>/dev/null
	wait "$holder"
	wait_until 30 eval '! "$VUBLK" list -n "$ID" >/dev/null 2>&1' ||
		fail "$what: the kernel did not free id $ID once the disk was closed"
	vublk_add -t loop -f "$T/disk.img" -n "$ID"
	udevadm settle 2>/dev/null
	"$VUBLK" del -n "$ID" 2>"$T/err" || fail "$what: del of the new device $ID failed"
	[ ! -s "$T/err" ] || fail "$what: del of an unused device printed: $(cat "$T/err")"
	say "$what: del returned in $took s with the disk open; id $ID free after the close"
}

vublk_add -t loop -f "$T/disk.img"
sleep 600 <"$DEV" &
holders=$!
wait_until 30 eval '[ "$(readlink /proc/$holders/fd/0)" = "$DEV" ]' ||
	fail "the shell never opened $DEV for sleep"
del_while_held "held open" $holders

# --continue_on_error: a read that meets the disk's death gets EIO, and
# fio must still be holding the disk when del returns.
vublk_add -t loop -f "$T/disk.img" --direct -q 1 -d 64
fio --name=held --filename="$DEV" --ioengine=io_uring --iodepth=64 \
	--direct=1 --rw=randread --bs=16k --time_based --runtime=120 \
	--continue_on_error=all --output="$T/fio.out" >/dev/null 2>&1 &
reader=$!
holders="$holders $reader"
wait_until 30 counter_above "$ID" reads 100 || fail "fio did not start reading"
del_while_held "fio at depth 64" $reader
say "PASS"
