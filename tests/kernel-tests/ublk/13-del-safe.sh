#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk del --safe` stops nothing that is in use: a mounted device, or one
# a program holds open, is refused with one line and keeps serving, with
# its data; once closed, it is deleted.  The same for a -r device whose
# server died (the command asks the kernel itself).  The kernel's
# TRY_STOP_DEV does the check where the driver has it (safe_stop_dev,
# Linux 7.0); before that vublk checks the device's openers.
. "$(dirname "$0")/lib.sh"
need_cmd mkfs.f2fs sha256sum

# refused ID WHY: del --safe -n ID fails with one line saying the device is
# open, and the device is still there.
refused() {
	"$VUBLK" del -n "$1" --safe 2>"$T/err" && fail "del --safe deleted device $1 while $2"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "del --safe while $2: not one line: $(cat "$T/err")"
	grep -q "is open" "$T/err" || fail "del --safe while $2 does not say why: $(cat "$T/err")"
	[ -b "/dev/ublkb$1" ] || fail "/dev/ublkb$1 is gone after a refused del --safe ($2)"
}

if have_feature safe_stop_dev; then how="TRY_STOP_DEV"; else how="opener check"; fi

truncate -s 128M "$T/disk.img"
vublk_add -t loop -f "$T/disk.img"
f2fs_tree_write
refused "$ID" "mounted"
[ "$(device_state "$ID")" = live ] || fail "device $ID is not live after a refused del --safe"
(cd "$MNT" && sha256sum --quiet -c "$T/sums") || fail "files differ after a refused del --safe"
umount "$MNT" || fail "umount"

exec 3<"$DEV"
refused "$ID" "a program holds it open"
exec 3<&-
"$VUBLK" del -n "$ID" --safe || fail "del --safe of an unused device failed"
[ ! -e "$DEV" ] || fail "$DEV still exists after del --safe"
[ -z "$("$VUBLK" list --json | grep "\"id\": $ID,")" ] || fail "device $ID still listed"
say "live device: refused while mounted and while open, deleted when unused ($how)"

# A -r device whose server died: held open, then not.
vublk_add -t loop -f "$T/disk.img" -r
pid=$(server_pid "$ID")
exec 3<"$DEV"
kill -9 "$pid"
wait_until 30 test ! -d "/proc/$pid" || fail "server $pid survived kill -9"
wait_until 30 eval '[ "$(device_state "$ID")" = quiesced ]' ||
	fail "device $ID is $(device_state "$ID") after its server died, not quiesced"
refused "$ID" "held open with no server"
exec 3<&-
"$VUBLK" del -n "$ID" --safe || fail "del --safe of an unused quiesced device failed"
[ ! -e "$DEV" ] || fail "$DEV still exists after del --safe"
say "PASS"
