#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk update-size`: a live loop device follows its backing file when it
# grows, and takes a size given with --size, while fio writes and verifies
# the first part of it, with no I/O stopped and no error
# (UBLK_F_UPDATE_SIZE, Linux 6.16).  Beyond the new end, reads end and
# writes fail; a target that cannot change size and a device without a
# server each get one line.  On a driver without the feature, the command
# fails with one line naming the feature and the kernel that has it.
. "$(dirname "$0")/lib.sh"
need_cmd fio blockdev setpriv python3

IMG=$T/disk.img
truncate -s 64M "$IMG"
vublk_add -t loop -f "$IMG" -q 2

# The control socket answers only the server's user: another user cannot
# even connect (mode 0600; the server checks SO_PEERCRED too).
RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
[ -S "$RUN_DIR/$ID.ctl" ] || fail "no control socket $RUN_DIR/$ID.ctl"
[ "$(stat -c %a "$RUN_DIR/$ID.ctl")" = 600 ] || fail "the control socket's mode is $(stat -c %a "$RUN_DIR/$ID.ctl")"
setpriv --reuid=65534 --regid=65534 --clear-groups python3 - "$RUN_DIR/$ID.ctl" <<'PY' ||
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
try:
    s.connect(sys.argv[1])
    s.send(b"resize 4096")
    print("answered:", s.recv(512))
    sys.exit(1)
except (PermissionError, ConnectionError):
    sys.exit(0)
PY
	fail "another user reached the control socket"

if ! have_feature update_size; then
	"$VUBLK" update-size -n "$ID" 2>"$T/err" && fail "update-size worked on a driver without update_size"
	grep -q "update_size feature (Linux 6.16+)" "$T/err" || fail "the refusal does not name the feature: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "the refusal is not one line: $(cat "$T/err")"
	[ "$(device_state "$ID")" = live ] || fail "device $ID is not live after a refused update-size"
	say "PASS (driver of $(uname -r) lacks update_size: refused with one line)"
	exit 0
fi

size_is() { [ "$(blockdev --getsize64 "$DEV")" = "$1" ]; }

# One pass of random writes, each block once, then their verification (a
# block written twice, as with --loops, fails fio's own seed check).  At
# 1 MiB/s the 32 MiB take 32 s however fast the server is (zero copy on
# 7.3 finished them before the device grew), so the resizes happen while
# fio writes.
fio --name=resize --filename="$DEV" --ioengine=io_uring --iodepth=16 \
	--direct=1 --rw=randwrite --bs=4k --size=32M --rate=1m --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --randrepeat=0 --output="$T/fio.out" &
fio_pid=$!
wait_until 60 counter_above "$ID" writes 200 || fail "fio did not get going: $(cat "$T/fio.out")"

# Grow: the backing file first, then the device follows it.
truncate -s 128M "$IMG"
out=$("$VUBLK" update-size -n "$ID" 2>"$T/err") || fail "update-size (grow) failed: $(cat "$T/err")"
[ "$out" = "$DEV 134217728" ] || fail "update-size printed '$out'"
wait_until 10 size_is 134217728 || fail "$DEV is $(blockdev --getsize64 "$DEV") bytes after growing, not 128 MiB"
head -c 1M /dev/urandom >"$T/tail"
dd if="$T/tail" of="$DEV" bs=1M seek=120 oflag=direct status=none || fail "writing at 120 MiB after growing"
cmp -n 1M "$T/tail" <(dd if="$DEV" bs=1M skip=120 count=1 iflag=direct status=none) ||
	fail "reading back at 120 MiB after growing"
[ "$(device_field "$ID" 'd["size"]')" = 134217728 ] || fail "vublk list does not show the new size: $(device_json "$ID")"

kill -0 $fio_pid 2>/dev/null || fail "fio ended before the device grew: make it write more"

# Shrink to a given size: what lay beyond is gone from the device.
out=$("$VUBLK" update-size -n "$ID" --size=48M 2>"$T/err") || fail "update-size --size=48M failed: $(cat "$T/err")"
[ "$out" = "$DEV 50331648" ] || fail "update-size --size=48M printed '$out'"
wait_until 10 size_is 50331648 || fail "$DEV is $(blockdev --getsize64 "$DEV") bytes after shrinking, not 48 MiB"
dd if=/dev/zero of="$DEV" bs=1M seek=60 count=1 oflag=direct status=none 2>/dev/null &&
	fail "a write at 60 MiB of a 48 MiB device succeeded"
[ "$(dd if="$DEV" bs=1M skip=60 count=1 iflag=direct status=none 2>/dev/null | wc -c)" = 0 ] ||
	fail "a read at 60 MiB of a 48 MiB device returned data"

# Bad sizes: one line each, nothing changed.
for bad in 1000 0x100 -5 4611686018427387904; do
	"$VUBLK" update-size -n "$ID" --size="$bad" 2>"$T/err" && fail "update-size --size=$bad worked"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "update-size --size=$bad: not one line: $(cat "$T/err")"
done
size_is 50331648 || fail "a refused update-size changed the size"

timeout 300 tail --pid=$fio_pid -f /dev/null || fail "fio hung"
wait $fio_pid || fail "fio failed while the device changed size: $(cat "$T/fio.out")"
grep -q "err= 0" "$T/fio.out" || fail "fio reported errors: $(cat "$T/fio.out")"
[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors"
say "grown to 128 MiB and shrunk to 48 MiB under fio --verify, 0 errors"

# A verity device cannot change size; a device without a server has
# nobody to ask.
"$VUBLK" update-size -n 999 2>"$T/err" && fail "update-size of a device that does not exist worked"
grep -q "no running server" "$T/err" || fail "update-size -n 999: $(cat "$T/err")"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
