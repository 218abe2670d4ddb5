#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A server that hangs (nbdkit's pause filter) holds nobody: `vublk del`
# finishes within --timeout and the reader waiting on the device gets EIO
# and exits; kill -9 of the vublk server frees its reader at once and
# `vublk del` removes the dead device.  No reader is left in D state.
. "$(dirname "$0")/lib.sh"
need_cmd timeout dd

CTL=$T/pause.ctl
# pause_cmd p|r: send the pause filter a command, wait for its answer.
pause_cmd() {
	python3 - "$CTL" "$1" <<'PY' 2>/dev/null
import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(30); s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode())
assert s.recv(1) == sys.argv[2].upper().encode()
PY
}
pause() { pause_cmd p || fail "pause filter: 'p' not answered"; }

# resume: requests go through again.  nbdkit 1.32 (Debian 12) can abort
# instead, when it answers a paused request whose connection was closed
# meanwhile ("raw_send_socket: Assertion `sock >= 0' failed"): that
# server is gone, not hung, and is started again, a server that answers
# all the same.
resume() {
	pause_cmd r && return 0
	grep -q "Assertion" "$T/server.log" ||
		fail "pause filter: 'r' not answered: $(tail -n 3 "$T/server.log")"
	say "nbdkit aborted on resume (its bug: $(grep -m1 Assertion "$T/server.log")): starting it again"
	kill_nbdkit
	rm -f "$CTL"
	restart_nbdkit
}

# gone_not_stuck PID WHAT: the process ends soon, and is never in D state
# meanwhile for long.
gone_not_stuck() {
	wait_until 20 test ! -d "/proc/$1" ||
		fail "$2 still there (state $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null))"
}

truncate -s 64M "$T/export.img"
serve --filter=pause file "$T/export.img" pause-control="$CTL"

# 1. vublk del while a read waits on the hung server.
vublk_add -t loop -f "$URI" --timeout=5
pause
reads=$(reads_now "$ID")
dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct 2>"$T/dd.err" &
reader=$!
wait_until 30 counter_above "$ID" reads "$reads" ||
	fail "the read did not reach the server"
start=$(date +%s)
timeout 60 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID with the server hung"
took=$(( $(date +%s) - start ))
[ "$took" -le 15 ] || fail "vublk del took $took s with --timeout=5"
gone_not_stuck "$reader" "the reader of the deleted device"
wait "$reader" && fail "the read of a hung server passed"

# 2. kill -9 of the vublk server while a read waits.  (Added while the
# server answers: the kernel reads the partition table at START_DEV.)
resume
vublk_add -t loop -f "$URI" --timeout=30
pause
reads=$(reads_now "$ID")
dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
reader=$!
wait_until 30 counter_above "$ID" reads "$reads" ||
	fail "the read did not reach the server"
kill -9 "$(server_pid "$ID")"
gone_not_stuck "$reader" "the reader of the killed server's device"
timeout 30 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID of the dead device"
resume
say "PASS: del within --timeout and kill -9 with the server hung; readers freed"
