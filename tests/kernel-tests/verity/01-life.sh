#!/bin/bash
# The whole life of a verity image: vublk add -t loop -> mkfs.f2fs -> mount
# -> a tree of files (one of BIG_MIB) -> umount -> vublk del ->
# vublk-verity format -> vublk add -t verity --digest=... -> mount -o ro ->
# every checksum matches, every block verified, nothing failed.
# Leaves the sealed image for the other scripts of the group (lib.sh).
. "$(dirname "$0")/lib.sh"

make_image
verity_add
[ "$(blockdev --getro "$DEV")" = 1 ] || fail "$DEV is not read-only"
size=$("$VV" dump "$IMG" | sed -n 's/^  data size: *\([0-9]*\)$/\1/p' | head -n 1)
[ "$(blockdev --getsize64 "$DEV")" = "$size" ] ||
	fail "$DEV has $(blockdev --getsize64 "$DEV") bytes, the image's data $size"
mount_ro
check_sums "through the verity device"
[ -L "$MNT/link" ] && [ -f "$MNT/empty" ] || fail "the symlink or the empty file is missing"
# Where the CPU has the SHA extensions (the lab's QEMU offers them), the
# target reads the page cache in place: single-block reads of the cached
# image take their bytes from its map, the same bytes, and are counted.
in_place=0
grep -qw sha_ni /proc/cpuinfo && in_place=1
if [ $in_place = 1 ]; then
	grep -q "(cached blocks read in place)" "$(device_log "$ID")" ||
		fail "the CPU has SHA-NI but the target does not read in place"
	head -c 1M "$IMG" >"$T/first-mib" || fail "cannot read $IMG"
	counters "$ID" blocks_read_in_place
	before=${COUNT[blocks_read_in_place]}
	cmp <(dd if="$DEV" bs=4k count=256 iflag=direct status=none) "$T/first-mib" ||
		fail "4 KiB reads of the device differ from the image"
	counters "$ID" blocks_read_in_place
	[ $((COUNT[blocks_read_in_place] - before)) -ge 256 ] ||
		fail "$((COUNT[blocks_read_in_place] - before)) of 256 single-block reads were read in place"
	say "read in place: 256 of 256 single-block reads"
else
	say "no SHA extensions here: the target reads every block"
fi
umount "$MNT" || fail "umount failed"
line=$(del_and_counters "$ID") || exit 1
say "counters: $line"
[ "$(counter failures "$line")" = 0 ] || fail "verification failures on an intact image"
[ "$(counter io_errors "$line")" = 0 ] || fail "I/O errors on an intact image"
verified=$(counter blocks_verified "$line")
[ "${verified:-0}" -ge $((BIG_MIB * 256)) ] ||
	fail "only ${verified:-0} blocks verified for more than $BIG_MIB MiB read"
say "PASS: sealed f2fs image mounted read-only through vublk verity, all files intact"
