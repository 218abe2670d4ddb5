#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Past the retry policy the device fails requests and stays: with
# --retry=0 and the server killed under fio's verified writes, fio gets
# EIO; with no server, a read fails with EIO after --timeout; the device
# is live all along, serves again once the server is back, and
# `vublk del` removes it at once.
. "$(dirname "$0")/lib.sh"
need_cmd fio timeout cmp

truncate -s 128M "$T/export.img"
serve file "$T/export.img"
vublk_add -t loop -f "$URI" --retry=0 --timeout=3
pid=$(server_pid "$ID")
fio --name=exhausted --filename="$DEV" --rw=randwrite --bs=4k --size=16M \
	--ioengine=io_uring --iodepth=16 --direct=1 --verify=crc32c \
	--output="$T/fio.out" >/dev/null 2>"$T/fio.err" &
fio_pid=$!
wait_until 120 counter_above "$ID" writes 300 || fail "fio did not get going"
kill_nbdkit 9
timeout 60 tail --pid="$fio_pid" -f /dev/null || fail "fio hung after the server died"
wait "$fio_pid" && fail "fio passed with its server killed and --retry=0"
cat "$T/fio.out" "$T/fio.err" | grep -q "Input/output error" ||
	{ cat "$T/fio.out" "$T/fio.err"; fail "fio did not see EIO"; }
check_still_up "$pid" "$ID" "after the server died"

start=$(date +%s%N)
timeout 60 dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct 2>"$T/dd.err"
rc=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "a read with no server: status $rc"
grep -q "Input/output error" "$T/dd.err" || fail "not EIO: $(cat "$T/dd.err")"
[ "$elapsed" -ge 2500 ] || fail "the read failed after $elapsed ms, before --timeout=3"
counters "$ID" timeouts
[ "${COUNT[timeouts]}" -ge 1 ] || fail "no timeout counted"
check_still_up "$pid" "$ID" "after a read timed out"

restart_nbdkit
dd if="$DEV" of="$T/got" bs=1M count=4 iflag=direct status=none ||
	fail "no read once the server is back"
cmp "$T/got" <(head -c 4M "$T/export.img") || fail "the data read back differs"
start=$(date +%s)
timeout 30 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
[ $(( $(date +%s) - start )) -le 10 ] || fail "vublk del took more than 10 s"
say "PASS: EIO past --retry=0 and --timeout, the device served again and went"
