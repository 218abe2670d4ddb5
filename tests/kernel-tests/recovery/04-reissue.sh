#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --recovery=reissue: requests the server had taken when it was killed are
# requeued for the next server (ublk_drv.c: ublk_do_fail_rq() ->
# blk_mq_requeue_request()), so a dd started before the kill completes with
# the right data.  With plain -r the same requests fail with EIO.
#
# To have requests in the server's hands at the kill, deterministically,
# the backing file lives on an ext4 we freeze: the server's writes to it
# block (io_uring punts them to io-wq, which waits in sb_start_write()),
# so the dd's writes stay taken but unanswered.  The kill comes first,
# then the thaw: from the kill on no server code runs, so the writes are
# never answered.
. "$(dirname "$0")/lib.sh"
need_cmd fsfreeze mkfs.ext4 losetup

FS_IMG=$T/fs.img
FS=$T/fs
truncate -s 96M "$FS_IMG"
mkfs.ext4 -q -F "$FS_IMG" || fail "mkfs.ext4"
mkdir -p "$FS"
LOOPDEV=$(losetup -f --show "$FS_IMG") || fail "losetup"
mount "$LOOPDEV" "$FS" || fail "mount ext4 on $LOOPDEV"
FROZEN=
cleanup_fs() {
	[ -n "$FROZEN" ] && fsfreeze -u "$FS"
	"$VUBLK" del -a >/dev/null 2>&1
	umount "$FS" 2>/dev/null
	losetup -d "$LOOPDEV" 2>/dev/null
	cleanup
}
trap cleanup_fs EXIT

head -c 4M /dev/urandom >"$T/new"

# run_case MODE: dd 4 MiB over the device, kill the server while its writes
# are blocked, thaw, recover; sets DD_STATUS.
run_case() {
	truncate -s 0 "$FS/disk.img" 2>/dev/null
	truncate -s 32M "$FS/disk.img" || fail "creating the backing file"
	vublk_add -t loop -f "$FS/disk.img" -q 1 "$1"
	fsfreeze -f "$FS" || fail "fsfreeze -f $FS"
	FROZEN=1
	timeout 300 dd if="$T/new" of="$DEV" bs=1M oflag=direct status=none 2>"$T/dd.err" &
	local writer=$!
	wait_until 30 counter_above "$ID" writes 0 || fail "$1: the dd's writes did not reach the server"
	kill -9 "$(server_pid "$ID")" || fail "$1: kill -9"
	fsfreeze -u "$FS" || fail "fsfreeze -u $FS"
	FROZEN=
	kill_server_wait "$ID"
	recover "$ID"
	wait $writer
	DD_STATUS=$?
	[ $DD_STATUS -ne 124 ] || fail "$1: the dd hung after recover"
}

kill_server_wait() {
	local pid
	pid=$(server_pid "$1")
	wait_until 60 test ! -d "/proc/$pid" || fail "server $pid survived kill -9"
	KILLED_PID=$pid
}

run_case --recovery=reissue
[ $DD_STATUS -eq 0 ] || fail "reissue: the dd started before the kill failed: $(cat "$T/dd.err")"
cmp -n 4M "$T/new" "$DEV" || fail "reissue: the device does not hold what the dd wrote"
cmp -n 4M "$T/new" "$FS/disk.img" || fail "reissue: the backing file does not hold what the dd wrote"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "reissue: the dd in flight at the kill completed with the right data"

run_case -r
[ $DD_STATUS -ne 0 ] || fail "plain -r: the dd in flight at the kill succeeded; expected EIO for the requests the dead server had taken"
grep -qi "error" "$T/dd.err" || fail "plain -r: dd failed without an I/O error: $(cat "$T/dd.err")"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
