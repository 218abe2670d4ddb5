#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Stopping: `vublk del` of idle and busy devices removes them cleanly; a
# server killed with -9 leaves a dead device whose I/O fails (never
# hangs), which `vublk list` shows dead and `vublk del` removes.
. "$(dirname "$0")/lib.sh"
need_cmd timeout dd python3

IMG=$T/disk.img
truncate -s 64M "$IMG"
RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}

# 1. del -a with idle devices.
vublk_add -t loop -f "$IMG" -q 2
vublk_add -t loop -f "$IMG" -q 1
[ "$(ublk_disks | wc -w)" -eq 2 ] || fail "expected two devices, have: $(ublk_disks)"
check_list_json 2
"$VUBLK" del -a || fail "vublk del -a"
[ -z "$(ublk_disks)" ] || fail "devices left after del -a: $(ublk_disks)"
[ -z "$(ls /dev/ublkc* 2>/dev/null)" ] || fail "char devices left after del -a"
[ "$("$VUBLK" list | wc -l)" -eq 1 ] || fail "vublk list not empty after del -a"
ls "$RUN_DIR"/*.json >/dev/null 2>&1 && fail "state files left: $(ls "$RUN_DIR")"

# 2. del while I/O runs: the writer ends (error or done), the device goes.
vublk_add -t loop -f "$IMG"
timeout 120 dd if=/dev/urandom of="$DEV" bs=64k oflag=direct status=none 2>/dev/null &
writer=$!
wait_until 20 counter_above "$ID" writes 10 || fail "the writer did not start"
timeout 60 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID during I/O failed"
wait $writer
[ $? -ne 124 ] || fail "the writer hung after the device was deleted"
[ ! -e "$DEV" ] || fail "$DEV still exists after del during I/O"
grep -q "device $ID stopped and deleted" "$RUN_DIR/$ID.log" ||
	fail "the server did not log a clean stop: $(cat "$RUN_DIR/$ID.log")"

# 3. kill -9 of a busy server.
vublk_add -t loop -f "$IMG" -n 5
[ "$ID" = 5 ] || fail "-n 5 gave $DEV"
pid=$(server_pid 5)
[ -n "$pid" ] && kill -0 "$pid" || fail "no server pid for device 5"
timeout 120 dd if="$DEV" of=/dev/null bs=64k iflag=direct status=none 2>/dev/null &
reader=$!
kill -9 "$pid"
wait_until 20 test ! -d /proc/$pid || fail "server $pid survived kill -9"
wait $reader
[ $? -ne 124 ] || fail "a reader hung after the server was killed"
timeout 60 dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null
[ $? -ne 124 ] || fail "a new read hung on the dead device"
[ "$(device_state 5)" = dead ] || fail "vublk list shows device 5 as '$(device_state 5)', not dead"
check_list_json 1
timeout 60 "$VUBLK" del -n 5 || fail "vublk del -n 5 of the dead device failed"
[ ! -e /dev/ublkc5 ] || fail "/dev/ublkc5 still exists after del"
"$VUBLK" list -n 5 >/dev/null 2>&1 && fail "vublk list -n 5 still finds the device"

# 4. The id is free again.
vublk_add -t loop -f "$IMG" -n 5
"$VUBLK" del -n 5 || fail "vublk del -n 5"

# 5. SIGTERM to the server: a clean stop, state removed.
vublk_add -t loop -f "$IMG"
pid=$(server_pid "$ID")
kill -TERM "$pid"
wait_until 30 test ! -d /proc/$pid || fail "server $pid did not stop on SIGTERM"
[ ! -e "$DEV" ] || fail "$DEV still exists after SIGTERM"
[ ! -e "$RUN_DIR/$ID.json" ] || fail "state file left after SIGTERM"
"$VUBLK" list -n "$ID" >/dev/null 2>&1 && fail "device $ID still listed after SIGTERM"
say "PASS"
