# SPDX-License-Identifier: GPL-2.0-only
# Shared by the recovery kernel tests (sourced, not run): the ublk group's
# helpers (vublk_add, server_pid, device_state, wait_until, ...) plus the
# kill-and-recover steps.  Exit status: 0 pass, 1 fail, 77 skip.
. "$(dirname "$0")/../ublk/lib.sh"
need_cmd timeout cmp

RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}

# A dmesg line count, so that later checks only see what came after.
DMESG_START=$(dmesg | wc -l)

# kill_server ID: kill -9 device ID's server and wait until it is gone.
kill_server() {
	local pid
	pid=$(server_pid "$1")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || fail "no live server for device $1"
	kill -9 "$pid" || fail "kill -9 $pid failed"
	wait_until 30 test ! -d "/proc/$pid" || fail "server $pid survived kill -9"
	KILLED_PID=$pid
}

# recover ID: `vublk recover -n ID` succeeds, prints the same device, and a
# new server runs it.
recover() {
	local out pid
	out=$(timeout 90 "$VUBLK" recover -n "$1" 2>"$T/recover.err") ||
		fail "vublk recover -n $1 failed: $(cat "$T/recover.err")"
	[ "$out" = "/dev/ublkb$1" ] || fail "vublk recover -n $1 printed '$out'"
	[ "$(device_state "$1")" = live ] || fail "device $1 is '$(device_state "$1")' after recover, not live"
	pid=$(server_pid "$1")
	[ -n "$pid" ] && [ "$pid" != "$KILLED_PID" ] && kill -0 "$pid" ||
		fail "device $1 has no new server after recover (pid '$pid')"
	grep -q "/dev/ublkb$1 is recovered" "$RUN_DIR/$1.log" ||
		fail "the server log does not record the recovery: $(tail -n 5 "$RUN_DIR/$1.log")"
}

# No I/O error from the block layer or a filesystem since the test began.
check_dmesg_clean() {
	local bad
	bad=$(dmesg | tail -n +"$((DMESG_START + 1))" |
		grep -iE 'I/O error|ublk.*(error|fail)|f2fs.*(error|fail|inconsist)|EXT4-fs error' || true)
	[ -z "$bad" ] || fail "kernel errors: $bad"
}
