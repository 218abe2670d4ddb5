#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk list` shows a device whose -r server died as waiting for
# recovery: state "quiesced" (the kernel's UBLK_S_DEV_QUIESCED; ublk_drv.c
# quiesces such a device instead of stopping it) and the hint
# `run: vublk recover -n ID`, in the table and in --json; once recovered it
# is live with no hint.  A device added without -r is "dead", with the hint
# to delete it.
. "$(dirname "$0")/lib.sh"
need_cmd python3

IMG=$T/disk.img
truncate -s 16M "$IMG"

# list_row ID: device ID's row of the `vublk list` table.
list_row() { "$VUBLK" list | awk -v dev="/dev/ublkb$1" '$2 == dev'; }

# expect_listed ID STATE HINT RECOVERY: text and --json agree on it.
expect_listed() {
	local id=$1 state=$2 hint=$3 recovery=$4 row
	row=$(list_row "$id")
	[ "$(awk '{ print $3 }' <<<"$row")" = "$state" ] ||
		fail "vublk list shows device $id as: $row (wanted state $state)"
	if [ -n "$hint" ]; then
		[[ $row == *"  $hint" ]] || fail "vublk list row lacks the hint '$hint': $row"
	else
		[[ $row != *"run: vublk"* ]] || fail "vublk list row has a hint: $row"
	fi
	device_json "$id" | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
want = {"state": sys.argv[1], "hint": sys.argv[2] or None, "recovery": sys.argv[3]}
got = {k: d.get(k) for k in want}
assert got == want, "got %r, wanted %r" % (got, want)' "$state" "$hint" "$recovery" ||
		fail "vublk list -n $id --json disagrees: $(device_json "$id")"
}

vublk_add -t loop -f "$IMG" -r
expect_listed "$ID" live "" queue
kill_server "$ID"
# The driver quiesces the device once it sees the char device released.
wait_until 30 eval '[ "$(device_state "$ID")" = quiesced ]' ||
	fail "device $ID is '$(device_state "$ID")' after kill -9 of its -r server, not quiesced"
expect_listed "$ID" quiesced "run: vublk recover -n $ID" queue
"$VUBLK" list --json | python3 -c 'import json, sys; json.load(sys.stdin)' ||
	fail "vublk list --json is not valid JSON with a quiesced device"
recover "$ID"
expect_listed "$ID" live "" queue
say "quiesced device listed with the recover hint, live again after recover"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

vublk_add -t loop -f "$IMG"
kill_server "$ID"
expect_listed "$ID" dead "run: vublk del -n $ID" none
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
