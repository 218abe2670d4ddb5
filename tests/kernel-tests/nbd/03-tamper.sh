#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What the server gets wrong never reaches a reader.  A byte of the sealed
# image changed on the server's side: reading that file gives EIO, one log
# line names the data block and the URI, `failures` counts it, the other
# files still read right, the device stays live.  The server failing
# reads (nbdkit's error filter): EIO, a log line with the URI and the
# range, `server_errors` counts it; once it stops, reads work again.
# Over NBD the device hashes on its queues' verify threads by default
# (--verify-thread=auto, daemon/targets/verity_worker.c): the path that
# hands the data to another thread must not let a changed block through.
. "$(dirname "$0")/lib.sh"
need_cmd filefrag

sealed_image
cp "$IMG" "$T/tampered.img" || fail "copying the image"
IMG=$T/tampered.img
serve --filter=error -r file "$IMG" error-pread-rate=100% \
	error-pread-file="$T/inject"
vublk_add -t verity -f "$URI" --digest="$DIGEST"
pid=$(server_pid "$ID")
grep -qx "vublk-verify0" /proc/"$pid"/task/*/comm ||
	fail "no vublk-verify0 thread in $pid: a verity device over NBD hashes beside its queues"
[ "$(device_field "$ID" 'd["stats"]["verity"]["verify_thread"]')" = on ] ||
	fail "stats do not say verify_thread on"
mount -t ext4 -o ro "$DEV" "$MNT" || fail "mounting the verity device"
block=$(filefrag -v "$MNT/$BIG" | awk '$1 == "0:" { print $4 }' | tr -d .)
[ -n "$block" ] || fail "no extent for $BIG"
umount "$MNT"

# 1. A changed byte, on the server's side.
python3 - "$IMG" $((block * 4096 + 100)) <<'PY' || fail "cannot change the image"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1)[0]
    f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0xff]))
PY
blockdev --flushbufs "$DEV"
mount -t ext4 -o ro "$DEV" "$MNT" || fail "remount"
cat "$MNT/$BIG" >/dev/null 2>"$T/cat.err" && fail "the changed file read without error"
grep -q "Input/output error" "$T/cat.err" || fail "not EIO: $(cat "$T/cat.err")"
grep -v " ./$BIG\$" "$SUMS" >"$T/small.sums"
(cd "$MNT" && sha256sum --quiet -c "$T/small.sums") || fail "the intact files differ"
grep -q "data block $block (4096 bytes at byte $((block * 4096))) of $URI failed verification" \
	"$(device_log "$ID")" || fail "no log line names block $block and $URI: $(tail -n 3 "$(device_log "$ID")")"
counters "$ID" failures
[ "${COUNT[failures]}" -ge 1 ] || fail "no failure counted"
check_still_up "$pid" "$ID" "after the changed byte"
umount "$MNT"

# 2. The server fails reads.
blockdev --flushbufs "$DEV"
: >"$T/inject"
dd if="$DEV" of=/dev/null bs=4k count=1 skip=1 iflag=direct 2>"$T/dd.err" &&
	fail "a read the server failed passed"
grep -q "the server answered Input/output error" "$(device_log "$ID")" ||
	fail "no log line for the server's error"
grep -q "nbd $URI: READ of 4096 bytes at byte 4096" "$(device_log "$ID")" ||
	fail "the log line does not name the URI and the range"
counters "$ID" server_errors
[ "${COUNT[server_errors]}" -ge 1 ] || fail "no server error counted"
rm -f "$T/inject"
dd if="$DEV" of=/dev/null bs=4k count=1 skip=1 iflag=direct 2>/dev/null ||
	fail "reads did not come back after the errors stopped"
check_still_up "$pid" "$ID" "after the server's errors"
say "PASS: a changed byte and server errors give EIO, logged, counted"
