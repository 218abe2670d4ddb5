#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kill -9 of the server of a device under full load (fio randrw at depth
# 256, one job per CPU): the kernel aborts the requests in flight, so fio
# ends with I/O errors instead of hanging; `vublk list` shows the device
# dead; `vublk del` removes it and the id is free again.
# When every tag of a queue is in flight at the server as it dies, Debian's
# 6.12 ublk_drv has no idle FETCH command to cancel, so those requests are
# aborted only by the block layer's 30 s request timeout
# (ublk_drv.c: ublk_timeout(): "cancelable uring_cmd can't help us if all
# commands are in-flight"): fio then takes about 30 s to end (seen: 2 to
# 31 s), well within its bound.
. "$(dirname "$0")/lib.sh"
need_cmd fio timeout pgrep python3
DEPTH=256
LOAD_SECONDS=60		# upper bound only: the kill ends fio long before

IMG=$T/disk.img
truncate -s 256M "$IMG" || fail "cannot create $IMG"
vublk_add -t loop -f "$IMG" -q "$NR_CPUS" -d $DEPTH
pid=$(server_pid "$ID")
[ -n "$pid" ] && kill -0 "$pid" || fail "no server pid for device $ID"
fio_under_fault "$T/fio.log" "$DEV" $DEPTH $LOAD_SECONDS
wait_until 30 counter_above "$ID" writes 200 ||
	fail "fio did not get going on $DEV: $(tail -n 5 "$T/fio.log")"
step "fio running: $(device_counter "$ID" reads) reads, $(device_counter "$ID" writes) writes done"

kill -9 "$pid" || fail "kill -9 $pid failed"
wait_until 20 test ! -d "/proc/$pid" || fail "server $pid survived kill -9"
step "server $pid gone"
fio_wait_failed "$T/fio.log"
# A new request on the dead device fails at once too (never queues forever).
if [ -b "$DEV" ]; then
	timeout 30 dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null
	status=$?
	[ $status -ne 124 ] || fail "a read of the dead $DEV hung"
	[ $status -ne 0 ] || fail "a read of the dead $DEV succeeded"
fi
state=$(device_state "$ID")
[ "$state" = dead ] || fail "vublk list shows device $ID as '$state', not dead"
check_list_json 1
step "device $ID listed dead"
timeout 60 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID of the dead device failed or hung"
check_gone "$ID"
step "device $ID deleted"
check_id_free "$ID" -t loop -f "$IMG" -q "$NR_CPUS" -d $DEPTH
say "PASS"
