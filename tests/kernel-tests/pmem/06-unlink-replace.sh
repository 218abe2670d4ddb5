#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The backing file is deleted and another file created at its path while a
# pmem device runs: the server's mapping holds the old inode (an unlinked
# file lives on while it is mapped, mm/mmap.c keeps a reference through
# vma->vm_file), so reads still return its data, writes still land in it,
# the server stays up and live, and the new file at the path is untouched;
# del then works as usual.
. "$(dirname "$0")/lib.sh"
need_cmd cmp

pmem_device_with_data 64

rm "$IMG" || fail "cannot delete $IMG"
head -c 64M /dev/urandom >"$T/new"
cp "$T/new" "$IMG" && sync "$IMG" || fail "cannot create a new $IMG"

dd if="$DEV" of="$T/back" bs=1M count=4 iflag=direct status=none ||
	fail "reading $DEV after the unlink failed"
cmp -s "$T/data" "$T/back" || fail "$DEV no longer returns the deleted file's data"
head -c 4M /dev/urandom >"$T/more"
dd if="$T/more" of="$DEV" bs=1M seek=8 oflag=direct status=none ||
	fail "writing $DEV after the unlink failed"
dd if="$DEV" of="$T/back" bs=1M skip=8 count=4 iflag=direct status=none ||
	fail "reading back the write after the unlink failed"
cmp -s "$T/more" "$T/back" || fail "a write after the unlink does not read back"

check_still_up "$PID" "$ID" "after the unlink"
[ "$(device_counter "$ID" errors)" = 0 ] ||
	fail "the server counted $(device_counter "$ID" errors) errors"
cmp -s "$T/new" "$IMG" || fail "the device wrote into the new file at $IMG"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
[ ! -e "$DEV" ] || fail "$DEV still exists after del"
cmp -s "$T/new" "$IMG" || fail "del changed the new file at $IMG"
say "PASS"
