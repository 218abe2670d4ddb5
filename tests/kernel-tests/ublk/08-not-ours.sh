#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# vublk acts only on its own server (docs/SECURITY.md, "identity"):
#  1. A stale state file naming a live process called vublk that is not
#     the device's server (a copy of sleep named vublk: comm "vublk", no
#     /dev/ublkcN open): `vublk list` calls the device dead, `vublk del`
#     leaves the impostor running and still deletes the device.
#  2. A stale state file naming another device's running server: that
#     server is not signalled, and its device stays live.
#  3. `-n 010` is device ten, `-q 08` two queues' worth of eight: numbers
#     are decimal, never octal.
. "$(dirname "$0")/lib.sh"
need_cmd python3

RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
truncate -s 16M "$T/a.img" "$T/b.img"
cp /bin/sleep "$T/vublk"
"$T/vublk" 1000 &
IMPOSTOR=$!
trap 'kill $IMPOSTOR 2>/dev/null; cleanup' EXIT
wait_until 5 grep -q '(vublk)' /proc/$IMPOSTOR/stat ||
	fail "the impostor is not named vublk"

# set_state_pid ID PID [START]: a stale state file: the server's pid (and
# start time) replaced, as if the pid had been reused.
set_state_pid() {
	python3 - "$RUN_DIR/$1.json" "$2" "${3:-0}" <<'PY' || fail "editing $RUN_DIR/$1.json"
import json, sys
path, pid, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
st = json.load(open(path))
st["pid"], st["pid_start"] = pid, start
open(path, "w").write(json.dumps(st))
PY
}

impostor_start=$(awk '{ print $22 }' /proc/$IMPOSTOR/stat)

# 1. The device's server is gone (kill -9); its state file now names the
# impostor, with the impostor's own start time: name and start time
# match, but it holds no /dev/ublkcN.
vublk_add -t loop -f "$T/a.img" -n 3
A=$ID
kill -9 "$(server_pid "$A")"
wait_until 10 test "$(device_state "$A")" = dead ||
	fail "device $A is $(device_state "$A") after kill -9, not dead"
set_state_pid "$A" "$IMPOSTOR" "$impostor_start"
[ "$(device_state "$A")" = dead ] ||
	fail "vublk list calls device $A $(device_state "$A") with an impostor in its state file"
"$VUBLK" del -n "$A" || fail "vublk del -n $A failed"
kill -0 $IMPOSTOR 2>/dev/null || fail "vublk del killed the impostor (pid $IMPOSTOR)"
[ ! -e /sys/class/ublk-char/ublkc$A ] || fail "device $A is still in the kernel after del"
[ ! -e "$RUN_DIR/$A.json" ] || fail "the state file of device $A is left"

# 2. Device B's state file names device C's live server.
vublk_add -t loop -f "$T/a.img" -n 4
B=$ID
vublk_add -t loop -f "$T/b.img" -n 5
C=$ID
c_pid=$(server_pid "$C")
kill -9 "$(server_pid "$B")"
wait_until 10 test "$(device_state "$B")" = dead || fail "device $B did not die"
set_state_pid "$B" "$c_pid" "$(awk '{ print $22 }' /proc/"$c_pid"/stat)"
"$VUBLK" del -n "$B" || fail "vublk del -n $B failed"
kill -0 "$c_pid" 2>/dev/null || fail "vublk del -n $B killed device $C's server"
[ "$(device_state "$C")" = live ] || fail "device $C is $(device_state "$C") after del -n $B"
dd if="/dev/ublkb$C" of=/dev/null bs=1M count=1 iflag=direct 2>/dev/null ||
	fail "device $C does not serve reads after del -n $B"
"$VUBLK" del -n "$C" || fail "vublk del -n $C"

# 3. Decimal numbers.
vublk_add -t loop -f "$T/a.img" -n 010 -q 08 -d 010
[ "$ID" = 10 ] || fail "-n 010 gave device $ID, not 10"
[ "$(device_field 10 'd["depth"]')" = 10 ] || fail "-d 010 is not a depth of 10"
"$VUBLK" del -n 10 || fail "vublk del -n 10"
say "PASS"
