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
# it fails after ADD_DEV; --zero-copy=off, as zero copy needs no
# buffers), and strace holds that add in its one waitpid()
# for DELAY seconds once its server has ended: the second add runs in that
# window.  (Catching the short-lived server with SIGSTOP on its parent lost
# the race on a busy machine.)
. "$(dirname "$0")/lib.sh"
need_cmd strace
need_no_ulimit_v

RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
N=6
DELAY=60
truncate -s 16M "$T/a.img" "$T/b.img"

( ulimit -v 1048576
  exec strace -o /dev/null -e trace=wait4 -e inject=wait4:delay_enter=${DELAY}000000 \
	"$VUBLK" add -t loop -f "$T/a.img" -n $N -q 1 -d 4096 --zero-copy=off ) >"$T/a.out" 2>"$T/a.err" &
A_ADD=$!
started=$SECONDS
# The server fails (no memory for its buffers), says so, and deletes
# device N; the first add then waits in waitpid().
wait_until 40 grep -q "cannot allocate" "$T/a.err" ||
	fail "the first server did not fail as staged: $(cat "$T/a.err")"
wait_until 10 test ! -e /sys/class/ublk-char/ublkc$N ||
	fail "the failed server left device $N"

vublk_add -t loop -f "$T/b.img" -n $N
[ "$ID" = $N ] || fail "the second add got device $ID, not $N"
kill -0 $A_ADD 2>/dev/null ||
	fail "the first vublk add ended before the second add was done ($((SECONDS - started)) s): nothing tested; raise DELAY"
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
