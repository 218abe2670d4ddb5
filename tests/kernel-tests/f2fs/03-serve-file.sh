#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One fs-verity file of a real f2fs image served as a verified read-only
# device: `vublk add -t verity -f IMAGE --f2fs-file=PATH --digest=...`,
# with the digest `fsverity measure` printed.  The device reads back the
# file's bytes (what the kernel read through f2fs), a wrong digest is
# refused, a file without fs-verity is refused, and after a byte of the
# file's data is flipped in the image, the read of that block fails with
# EIO while the rest still reads.
. "$(dirname "$0")/lib.sh"
VUBLK=$VUBLK_BUILD/daemon/vublk
[ -e /dev/ublk-control ] || skip "no /dev/ublk-control"

make_f2fs 128M
put_file dir/big 20971520;	verity dir/big
put_file small 1536;		verity small --block-size=1024 --hash-alg=sha512 --salt=a1b2
put_file plain 8192
(cd "$MNT" && sha256sum dir/big small) >"$T/sums" || fail "sha256sum through the kernel"
big_digest=$(fsverity measure "$MNT/dir/big" | cut -d' ' -f1)
small_digest=$(fsverity measure "$MNT/small" | cut -d' ' -f1)
unmount
losetup -d "$LOOP" && LOOP=

# serve PATH DIGEST: add the device, set DEV and ID.
serve() {
	DEV=$("$VUBLK" add -t verity -f "$IMG" --f2fs-file="$1" --digest="$2" 2>"$T/add.err") ||
		fail "vublk add --f2fs-file=$1 failed: $(cat "$T/add.err")"
	ID=${DEV#/dev/ublkb}
}
trap '"$VUBLK" del -a >/dev/null 2>&1; cleanup' EXIT

serve /dir/big "$big_digest"
[ "$(blockdev --getsize64 "$DEV")" = 20971520 ] || fail "/dir/big's device is not 20971520 bytes"
[ "$(sha256sum <"$DEV" | cut -d' ' -f1)" = "$(grep ' dir/big$' "$T/sums" | cut -d' ' -f1)" ] ||
	fail "the device of /dir/big reads back other bytes than the kernel's file"
"$VUBLK" del -n "$ID" || fail "vublk del"
serve /small "$small_digest"
[ "$(sha256sum <"$DEV" | cut -d' ' -f1)" = "$(grep ' small$' "$T/sums" | cut -d' ' -f1)" ] ||
	fail "the device of /small reads back other bytes"
"$VUBLK" del -n "$ID" || fail "vublk del"

"$VUBLK" add -t verity -f "$IMG" --f2fs-file=/dir/big --digest="$small_digest" >/dev/null 2>"$T/err" &&
	fail "a wrong digest was accepted"
grep -q "not the --digest" "$T/err" || fail "wrong digest: $(cat "$T/err")"
"$VUBLK" add -t verity -f "$IMG" --f2fs-file=/plain >/dev/null 2>"$T/err" &&
	fail "a file without fs-verity was served"
[ "$(wc -l <"$T/err")" = 1 ] || fail "a file without fs-verity: $(cat "$T/err")"
[ -z "$(ls /dev/ublkb* 2>/dev/null)" ] || fail "a refused add left a device"

# Data block 1000 (4 KiB) of /dir/big, flipped in the image.
flip_byte "$("$PROBE" offset "$IMG" /dir/big $((1000 * 4096 + 5)))"
serve /dir/big "$big_digest"
dd if="$DEV" of=/dev/null bs=4096 skip=1000 count=1 iflag=direct 2>"$T/err" &&
	fail "the flipped block read without error"
grep -q "Input/output error" "$T/err" || fail "the flipped block: $(cat "$T/err")"
dd if="$DEV" of=/dev/null bs=4096 count=1000 iflag=direct 2>/dev/null ||
	fail "the blocks before the flipped one no longer read"
"$VUBLK" del -n "$ID" || fail "vublk del"
say "PASS"
