#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The backing file is truncated under a running pmem device: reads past the
# new end fail with EIO (the server catches the SIGBUS), the server stays
# up and live, and reads below the end still return the data.
. "$(dirname "$0")/lib.sh"

pmem_device_with_data 64

truncate -s 32M "$IMG" || fail "truncate of $IMG failed"
# 40 MiB: past the new end, inside the device.
if dd if="$DEV" of=/dev/null bs=4k skip=10240 count=1 iflag=direct 2>"$T/dd.err"; then
	fail "a read past the truncated end of the backing file succeeded"
fi
grep -q "Input/output error" "$T/dd.err" ||
	fail "the read past the end failed, but not with EIO: $(cat "$T/dd.err")"
# Twice, and a straddling one: the server must keep catching faults.
dd if="$DEV" of=/dev/null bs=4k skip=10240 count=1 iflag=direct 2>/dev/null &&
	fail "a second read past the end succeeded"
dd if="$DEV" of=/dev/null bs=8k skip=$((32 * 1048576 - 4096)) count=1 \
	iflag=direct,skip_bytes 2>/dev/null &&
	fail "a read straddling the new end succeeded"

check_still_up "$PID" "$ID" "after the truncation"
dd if="$DEV" of="$T/back" bs=1M count=4 iflag=direct status=none ||
	fail "reading below the truncated end failed"
cmp -s "$T/data" "$T/back" || fail "data below the truncated end changed"
# The server rewrites its counters file every second: let it catch up.
wait_until 10 counter_above "$ID" errors 2 ||
	fail "the server counted $(device_counter "$ID" errors) errors, expected >= 3"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
