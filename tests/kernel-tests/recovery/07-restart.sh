#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A planned server restart with no failed I/O: `vublk recover --restart`
# asks the running server to quiesce the device (UBLK_F_QUIESCE, Linux
# 6.16: new requests wait in the kernel, the server answers what it holds
# and exits), then a new server takes it over.  fio writes and verifies
# (crc32c, O_DIRECT) on f2fs across two restarts with plain -r, where a
# kill -9 would fail the requests the dead server held: 0 errors, and the
# files and filesystem are intact.  A size set with update-size survives.
# Refusals (no -r, --recovery=fail, no server) are one line each.  On a
# driver without quiesce, the refusal names the feature and its kernel.
. "$(dirname "$0")/lib.sh"
need_cmd fio mkfs.f2fs fsck.f2fs sha256sum

IMG=$T/disk.img
truncate -s 256M "$IMG"

# restart_refused ID WHAT: recover --restart fails with one line containing
# WHAT, and the device keeps its server.
restart_refused() {
	local pid
	pid=$(server_pid "$1")
	timeout 60 "$VUBLK" recover -n "$1" --restart >"$T/out" 2>"$T/err" &&
		fail "recover --restart of device $1 worked: $(cat "$T/out")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "recover --restart refusal is not one line: $(cat "$T/err")"
	grep -q -- "$2" "$T/err" || fail "recover --restart refusal lacks '$2': $(cat "$T/err")"
	check_still_up "$pid" "$1" "a refused restart"
}

if ! have_feature quiesce; then
	vublk_add -t loop -f "$IMG" -r
	restart_refused "$ID" "quiesce feature (Linux 6.16+)"
	say "PASS (driver of $(uname -r) lacks quiesce: refused with one line)"
	exit 0
fi

vublk_add -t loop -f "$IMG"
restart_refused "$ID" "was not added with quiesce support"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
if have_feature user_recovery_fail_io; then
	vublk_add -t loop -f "$IMG" --recovery=fail
	restart_refused "$ID" "added with --recovery=fail"
	"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
fi

# restart ID: recover --restart prints the device; a new server runs it.
restart() {
	local old new out
	old=$(server_pid "$1")
	out=$(timeout 90 "$VUBLK" recover -n "$1" --restart 2>"$T/restart.err") ||
		fail "vublk recover -n $1 --restart failed: $(cat "$T/restart.err")"
	[ "$out" = "/dev/ublkb$1" ] || fail "recover --restart printed '$out'"
	wait_until 10 test ! -d "/proc/$old" || fail "the old server $old still runs after the restart"
	new=$(server_pid "$1")
	[ -n "$new" ] && [ "$new" != "$old" ] && kill -0 "$new" ||
		fail "device $1 has no new server after the restart (pid '$new')"
	[ "$(device_state "$1")" = live ] || fail "device $1 is $(device_state "$1") after the restart"
	grep -q "device $1 is quiesced" "$RUN_DIR/$1.log" ||
		fail "the old server's log does not record the hand-over: $(tail -n 5 "$RUN_DIR/$1.log")"
}

vublk_add -t loop -f "$IMG" -r -q 2
device_field "$ID" '",".join(d["features"])' | grep -q quiesce ||
	fail "a -r device does not use quiesce: $(device_json "$ID")"
# At 2 MiB/s fio's 48 MiB take 24 s however fast the server is (an ASan
# build is slower, a zero-copy one faster): both restarts happen while it
# writes.
f2fs_fio_start --rate=2m
restart "$ID"
wait_until 60 counter_above "$ID" writes 100 || fail "the new server got no writes"
kill -0 $FIO_PID 2>/dev/null ||
	fail "fio ended before the second restart: $(tail -n 20 "$T/fio.out")"
restart "$ID"
f2fs_fio_check "two restarts"
say "two restarts under fio --verify on f2fs: 0 errors"

# A size given with update-size is the device's under the next server.
if have_feature update_size; then
	"$VUBLK" update-size -n "$ID" --size=200M >/dev/null || fail "update-size --size=200M"
	restart "$ID"
	[ "$(blockdev --getsize64 "$DEV")" = 209715200 ] ||
		fail "$DEV is $(blockdev --getsize64 "$DEV") bytes after a restart, not the 200 MiB set"
	say "the size set with update-size survives a restart"
fi
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
restart_refused_gone() {
	"$VUBLK" recover -n "$ID" --restart 2>"$T/err" && fail "recover --restart of a deleted device worked"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "not one line: $(cat "$T/err")"
}
restart_refused_gone
say "PASS"
