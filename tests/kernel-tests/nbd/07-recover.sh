#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk recover` of an NBD device re-opens the same URI with the same
# options: the state file records the URI as the backing file, `vublk
# list` shows it, and the data written before the kill reads back.
. "$(dirname "$0")/lib.sh"
need_cmd cmp timeout

truncate -s 64M "$T/export.img"
serve file "$T/export.img"
vublk_add -t loop -f "$URI" -r --retry=5 --timeout=20
head -c 4M /dev/urandom >"$T/pattern"
dd if="$T/pattern" of="$DEV" bs=1M oflag=direct status=none || fail "write"
pid=$(server_pid "$ID")
kill -9 "$pid"
wait_until 30 test ! -d "/proc/$pid" || fail "server $pid survived kill -9"
wait_until 30 test "$(device_state "$ID")" = quiesced ||
	fail "device $ID is $(device_state "$ID"), not quiesced"
out=$(timeout 90 "$VUBLK" recover -n "$ID" 2>"$T/recover.err") ||
	fail "vublk recover -n $ID: $(cat "$T/recover.err")"
[ "$out" = "$DEV" ] || fail "vublk recover printed '$out'"
[ "$(device_state "$ID")" = live ] || fail "not live after recover"
[ "$(device_field "$ID" 'd["backing_file"]')" = "$URI" ] ||
	fail "vublk list does not show $URI: $(device_json "$ID")"
"$VUBLK" list | grep -qF "$URI" || fail "the table does not show $URI"
grep -q -- "--retry=5 --timeout=20" "${VUBLK_RUN_DIR:-/run/vublk}/$ID.json" ||
	fail "the state file lost the options"
cmp "$T/pattern" <(dd if="$DEV" bs=1M count=4 iflag=direct status=none) ||
	fail "the data written before the kill differs after recover"
say "PASS: an NBD device recovered on its URI"
