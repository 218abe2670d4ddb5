#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A device id is acted on only while it names the device meant: a server
# announces id N to its waiting `vublk add`, fails and deletes its own
# device N, and another `vublk add` gets N before the first `vublk add`
# looks again.  The first must leave the second's device alone (before,
# it sent STOP_DEV and DEL_DEV to N and removed N.json).
#
# Staged deterministically: the first `vublk add` asks for 4096 tags of
# 1 MiB buffers under `ulimit -v` (its server's queue cannot get them, so
# it fails after ADD_DEV); that add is stopped (SIGSTOP) while its server
# runs, continued once the second device is live.
. "$(dirname "$0")/lib.sh"

RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
N=6
truncate -s 16M "$T/a.img" "$T/b.img"

( ulimit -v 1048576; exec "$VUBLK" add -t loop -f "$T/a.img" -n $N -q 1 -d 4096 ) \
	>"$T/a.out" 2>"$T/a.err" &
A_ADD=$!
server_child() { pgrep -P $A_ADD; }
wait_until 10 server_child >/dev/null || fail "the first vublk add started no server"
kill -STOP $A_ADD || fail "cannot stop the first vublk add"
SERVER=$(server_child)
[ -n "$SERVER" ] && [ -e /proc/"$SERVER" ] ||
	fail "the first server ended before its vublk add was stopped: nothing tested"
# The server fails (no memory for its buffers) and deletes device N; it
# stays a zombie, its parent being stopped.
server_done() { [ ! -e /proc/"$SERVER" ] || grep -q '^State:.*Z' /proc/"$SERVER"/status; }
wait_until 30 server_done || fail "the first server did not fail"
wait_until 10 test ! -e /sys/class/ublk-char/ublkc$N ||
	fail "the failed server left device $N"

vublk_add -t loop -f "$T/b.img" -n $N
[ "$ID" = $N ] || fail "the second add got device $ID, not $N"
kill -CONT $A_ADD
wait $A_ADD && fail "the first vublk add succeeded: $(cat "$T/a.out")"
grep -q "cannot allocate" "$T/a.err" ||
	fail "the first vublk add did not report its server's failure: $(cat "$T/a.err")"
[ "$(device_state $N)" = live ] ||
	fail "device $N of the second add is $(device_state $N) after the first add gave up"
[ -e "$RUN_DIR/$N.json" ] || fail "the second device's state file was removed"
dd if="$DEV" of=/dev/null bs=1M count=4 iflag=direct 2>/dev/null ||
	fail "the second device does not serve reads"
"$VUBLK" del -n $N || fail "vublk del -n $N"
say "PASS"
