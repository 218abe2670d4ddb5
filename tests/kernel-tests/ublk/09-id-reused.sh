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
# buffers), and strace stops that add as it enters its one waitpid()
# (it injects SIGSTOP there): the second add runs while it is stopped,
# and SIGCONT lets it look again.  (Catching the short-lived server with
# SIGSTOP sent from here lost the race on a busy machine; holding the
# waitpid() for a fixed minute cost a minute.)
. "$(dirname "$0")/lib.sh"
need_cmd strace pgrep
need_no_ulimit_v

RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
N=6
truncate -s 16M "$T/a.img" "$T/b.img"

( ulimit -v 1048576
  exec strace -o /dev/null -e trace=wait4 -e inject=wait4:signal=SIGSTOP:when=1 \
	"$VUBLK" add -t loop -f "$T/a.img" -n $N -q 1 -d 4096 --zero-copy=off ) >"$T/a.out" 2>"$T/a.err" &
STRACE=$!
# The server fails (no memory for its buffers), says so, and deletes
# device N; the first add is stopped at its waitpid() (state t: stopped
# by its tracer).
wait_until 40 grep -q "cannot allocate" "$T/a.err" ||
	fail "the first server did not fail as staged: $(cat "$T/a.err")"
wait_until 10 test ! -e /sys/class/ublk-char/ublkc$N ||
	fail "the failed server left device $N"
A_ADD=$(pgrep -P $STRACE -x vublk) || fail "the first vublk add is gone: $(cat "$T/a.err")"
trap 'kill -CONT $A_ADD 2>/dev/null; cleanup' EXIT	# also if we fail
wait_until 10 grep -q '^State:.*[tT]' /proc/$A_ADD/status ||
	fail "the first vublk add did not stop at its waitpid(): $(grep ^State: /proc/$A_ADD/status)"

vublk_add -t loop -f "$T/b.img" -n $N
[ "$ID" = $N ] || fail "the second add got device $ID, not $N"
kill -CONT $A_ADD
wait $STRACE && fail "the first vublk add succeeded: $(cat "$T/a.out")"
grep -q "cannot allocate" "$T/a.err" ||
	fail "the first vublk add did not report its server's failure: $(cat "$T/a.err")"
[ "$(device_state $N)" = live ] ||
	fail "device $N of the second add is $(device_state $N) after the first add gave up"
[ -e "$RUN_DIR/$N.json" ] || fail "the second device's state file was removed"
dd if="$DEV" of=/dev/null bs=1M count=4 iflag=direct 2>/dev/null ||
	fail "the second device does not serve reads"
"$VUBLK" del -n $N || fail "vublk del -n $N"
say "PASS"
