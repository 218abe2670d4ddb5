#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A client of a server's control socket that connects and sends nothing
# (a process stopped with ^Z, a stray script) does not hold the server:
# its main thread gives up on that client after a second and answers the
# next one, so `vublk del --safe` works while the silent one waits.
. "$(dirname "$0")/lib.sh"
need_cmd python3

truncate -s 64M "$T/disk.img"
vublk_add -t loop -f "$T/disk.img"
RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
python3 - "$RUN_DIR/$ID.ctl" "$T/connected" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
open(sys.argv[2], "w").close()
time.sleep(60)
PY
silent=$!
for _ in $(seq 200); do [ -e "$T/connected" ] && break; sleep 0.1; done
[ -e "$T/connected" ] || fail "the silent client did not connect"
start=$(date +%s)
timeout 30 "$VUBLK" del -n "$ID" --safe 2>"$T/err"
rc=$?
kill "$silent" 2>/dev/null
wait "$silent" 2>/dev/null
[ $rc = 0 ] || fail "del --safe with a silent client on the control socket: exit $rc: $(cat "$T/err")"
took=$(($(date +%s) - start))
[ $took -lt 20 ] || fail "del --safe waited $took s behind a silent client"
[ ! -e "/dev/ublkb$ID" ] || fail "/dev/ublkb$ID is still there after del --safe"
say "PASS (del --safe answered in $took s while a client held the control socket silent)"
