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

# f2fs_fio_start: f2fs on $DEV mounted at $MNT, and fio writing random
# blocks to it (crc32c verify headers, O_DIRECT) in the background
# (FIO_PID), under way once this returns.  Arguments are more fio options.
f2fs_fio_start() {
	mkfs.f2fs -q -f "$DEV" || fail "mkfs.f2fs on $DEV"
	mount -t f2fs "$DEV" "$MNT" || fail "mount f2fs on $DEV"
	fio --name=recover --directory="$MNT" --nrfiles=2 --size=48M \
		--rw=randwrite --bsrange=4k-64k --ioengine=io_uring --iodepth=16 \
		--direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--randrepeat=0 --output="$T/fio.out" "$@" &
	FIO_PID=$!
	wait_until 60 counter_above "$ID" writes 300 || fail "fio did not get going: $(cat "$T/fio.out")"
}

# f2fs_fio_check WHAT: after WHAT happened under f2fs_fio_start's fio, fio
# ends without an error, fsck finds the filesystem clean, its files are
# the same after a remount, the kernel logged no I/O error and the
# server counted none.  Leaves $MNT unmounted.
f2fs_fio_check() {
	timeout 300 tail --pid=$FIO_PID -f /dev/null || fail "fio hung after $1"
	wait $FIO_PID || fail "fio failed across $1: $(cat "$T/fio.out")"
	grep -q "err= 0" "$T/fio.out" || fail "fio reported errors: $(cat "$T/fio.out")"
	(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/sums" || fail "checksumming"
	umount "$MNT" || fail "umount"
	fsck.f2fs --dry-run "$DEV" >"$T/fsck.out" 2>&1 || fail "fsck.f2fs after $1: $(tail -n 5 "$T/fsck.out")"
	mount -t f2fs "$DEV" "$MNT" || fail "remount after $1"
	(cd "$MNT" && sha256sum --quiet -c "$T/sums") || fail "files differ after $1 and a remount"
	umount "$MNT" || fail "umount"
	check_dmesg_clean
	[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors after $1"
}
