#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The backing file of a running pmem device is truncated to 0 bytes: every
# read and write fails with EIO (each copy faults with SIGBUS, which the
# server catches), the server stays up and live, and del removes the
# device.  03-truncate covers a file that only shrinks.
. "$(dirname "$0")/lib.sh"

IMG=$(pmem_file disk.img 64)
vublk_add -t pmem -f "$IMG"
PID=$(server_pid "$ID")
truncate -s 0 "$IMG" || fail "truncate of $IMG failed"

# expect_eio WHAT DD-ARGS...: dd on $DEV fails with EIO.
expect_eio() {
	local what=$1
	shift
	dd "$@" status=none 2>"$T/dd.err" && fail "a $what of the emptied file succeeded"
	grep -q "Input/output error" "$T/dd.err" ||
		fail "the $what failed, but not with EIO: $(cat "$T/dd.err")"
}
expect_eio "read of block 0" if="$DEV" of=/dev/null bs=4k count=1 iflag=direct
expect_eio "read of the last block" if="$DEV" of=/dev/null bs=4k \
	skip=$((64 * 256 - 1)) count=1 iflag=direct
expect_eio "write" if=/dev/zero of="$DEV" bs=4k seek=100 count=1 oflag=direct

check_still_up "$PID" "$ID" "after the truncation to 0"
wait_until 10 counter_above "$ID" errors 2 ||
	fail "the server counted $(device_counter "$ID" errors) errors, expected >= 3"
timeout 60 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
[ ! -e "$DEV" ] && [ ! -e "/dev/ublkc$ID" ] || fail "device nodes of $ID left after del"
kill -0 "$PID" 2>/dev/null && fail "the server (pid $PID) outlived del"
say "PASS"
