#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The server killed (-9) and started again under fio's crc32c-verified
# random writes: with --retry the requests in flight are sent again on a
# new connection, fio sees no error and every block verifies; the device
# counted the lost connection and the reconnection, and failed nothing.
. "$(dirname "$0")/lib.sh"
need_cmd fio

truncate -s 128M "$T/export.img"
serve file "$T/export.img"
vublk_add -t loop -f "$URI" --retry=10 --timeout=60
fio --name=kill-restart --filename="$DEV" --rw=randwrite --bs=4k --size=16M \
	--ioengine=io_uring --iodepth=16 --direct=1 --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --output="$T/fio.out" &
fio_pid=$!
wait_until 120 counter_above "$ID" writes 300 || fail "fio did not get going"
kill -0 "$fio_pid" 2>/dev/null || fail "fio ended before the kill: write more"
kill_nbdkit 9
sleep 1
restart_nbdkit
wait "$fio_pid" || { cat "$T/fio.out"; fail "fio failed across the restart"; }
grep -q "err= 0" "$T/fio.out" || { cat "$T/fio.out"; fail "fio reported errors"; }
counters "$ID" connections_lost reconnects requests_failed errors resends
[ "${COUNT[connections_lost]}" -ge 1 ] || fail "no lost connection counted"
[ "${COUNT[reconnects]}" -ge 1 ] || fail "no reconnection counted"
[ "${COUNT[requests_failed]}" = 0 ] || fail "requests failed"
[ "${COUNT[errors]}" = 0 ] || fail "the core counted errors"
say "PASS: nbdkit killed and restarted under fio --verify: no error (${COUNT[resends]} resends)"
