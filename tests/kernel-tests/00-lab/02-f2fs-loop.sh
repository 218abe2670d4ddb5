#!/bin/bash
# Smoke test of the kernel lab (tests/vm): f2fs on a loop device keeps data
# across a remount, and its fs-verity digest matches fsverity-utils'.  This
# is the chain the ublk and verity groups build on, without vublk in it.
set -uo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

: "${VUBLK_SCRATCH:?VUBLK_SCRATCH must name a writable scratch directory}"
img=$VUBLK_SCRATCH/f2fs.img
mnt=$VUBLK_SCRATCH/mnt
data=$VUBLK_SCRATCH/data
loopdev=

cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	[[ -n $loopdev ]] && losetup -d "$loopdev"
}
trap cleanup EXIT

truncate -s 256M "$img" || fail "cannot create $img"
loopdev=$(losetup -f --show "$img") || fail "losetup failed on $img"
mkfs.f2fs -q -f -O extra_attr,verity "$loopdev" >/dev/null ||
	fail "mkfs.f2fs -O verity failed on $loopdev"
mkdir -p "$mnt"
mount -t f2fs "$loopdev" "$mnt" || fail "mounting f2fs from $loopdev failed"

# 3 MiB + 1 byte: more than one Merkle tree level and a partial last block.
head -c $((3 * 1024 * 1024 + 1)) /dev/urandom >"$data" || fail "cannot write $data"
cp "$data" "$mnt/file" || fail "cannot write to f2fs"
want_sum=$(sha256sum <"$data")
want_digest=$(fsverity digest "$data" | cut -d" " -f1) || fail "fsverity digest failed"
fsverity enable "$mnt/file" || fail "fsverity enable failed on f2fs"

check() {
	local when=$1 sum digest
	sum=$(sha256sum <"$mnt/file") || fail "reading the file $when failed"
	[[ $sum == "$want_sum" ]] || fail "file content differs $when"
	digest=$(fsverity measure "$mnt/file" | cut -d' ' -f1) ||
		fail "fsverity measure failed $when"
	[[ $digest == "$want_digest" ]] ||
		fail "kernel digest $digest != fsverity digest $want_digest $when"
}

check "before the remount"
umount "$mnt" || fail "umount failed"
mount -t f2fs "$loopdev" "$mnt" || fail "remounting f2fs failed"
check "after the remount"
echo "f2fs on $loopdev: content and fs-verity digest $want_digest survive a remount"
