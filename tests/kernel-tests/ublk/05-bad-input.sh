#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad input, with the real driver: one error line, a non-zero exit, and no
# device left behind.  Also: a read-only device refuses writes.
. "$(dirname "$0")/lib.sh"

IMG=$T/disk.img
truncate -s 16M "$IMG"
truncate -s 100 "$T/small.img"

vublk_add -t loop -f "$IMG" -n 7
before_disks=$(ublk_disks)
before_list=$("$VUBLK" list)

# expect_error EXPECTED-SUBSTRING VUBLK-ARGS...
expect_error() {
	local want=$1 rc
	shift
	"$VUBLK" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -ne 0 ] || fail "vublk $* succeeded"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "vublk $*: not one line on stderr: $(cat "$T/err")"
	grep -qF -- "$want" "$T/err" || fail "vublk $*: said '$(cat "$T/err")', expected '$want'"
	[ ! -s "$T/out" ] || fail "vublk $*: printed '$(cat "$T/out")' on stdout"
	[ "$(ublk_disks)" = "$before_disks" ] || fail "vublk $*: devices changed: $(ublk_disks)"
	[ "$("$VUBLK" list)" = "$before_list" ] || fail "vublk $*: vublk list changed"
}

expect_error "device id 7 is busy" add -t loop -f "$IMG" -n 7
expect_error "cannot open backing file $T/missing.img: No such file or directory" \
	add -t loop -f "$T/missing.img"
expect_error "backing file $T/small.img is too small" add -t loop -f "$T/small.img"
expect_error "unknown target type 'nope'" add -t nope -f "$IMG"
expect_error "bad -q (queues) value '0'" add -t loop -f "$IMG" -q 0
expect_error "bad -q (queues) value 'abc'" add -t loop -f "$IMG" -q abc
expect_error "bad -d (queue depth) value '99999'" add -t loop -f "$IMG" -d 99999
expect_error "unknown option '--bogus'" add -t loop -f "$IMG" --bogus
expect_error "no device with id 9" del -n 9
# A missing control device (as if ublk_drv were not loaded).
VUBLK_CONTROL_DEV=$T/no-control "$VUBLK" add -t loop -f "$IMG" >"$T/out" 2>"$T/err" &&
	fail "vublk add without a control device succeeded"
[ "$(cat "$T/err")" = "vublk: $T/no-control not found: the ublk_drv kernel module is not loaded (run: modprobe ublk_drv)" ] ||
	fail "vublk add without a control device said: $(cat "$T/err")"
[ "$(ublk_disks)" = "$before_disks" ] || fail "devices changed: $(ublk_disks)"
"$VUBLK" del -n 7 || fail "vublk del -n 7"

# A read-only device: reads work, writes fail, the file is untouched.
sum=$(sha256sum <"$IMG")
vublk_add -t loop -f "$IMG" --read-only
[ "$(blockdev --getro "$DEV")" = 1 ] || fail "--read-only device is writable"
dd if="$DEV" of=/dev/null bs=64k iflag=direct status=none || fail "read from read-only $DEV"
dd if=/dev/zero of="$DEV" bs=4k count=1 oflag=direct status=none 2>/dev/null &&
	fail "write to read-only $DEV succeeded"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
[ "$(sha256sum <"$IMG")" = "$sum" ] || fail "the read-only device changed its backing file"
[ -z "$(ublk_disks)" ] || fail "devices left: $(ublk_disks)"
say "PASS"
