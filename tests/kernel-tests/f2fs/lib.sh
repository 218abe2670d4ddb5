# SPDX-License-Identifier: GPL-2.0-only
# Shared by the f2fs kernel tests (sourced, not run): real f2fs images
# made by the kernel on a loop device, read offline by `vublk-verity
# f2fs`.  They run as root in the VM lab (tests/vm/run-kernel-tests f2fs)
# with VUBLK_BUILD and VUBLK_SCRATCH, and need no ublk: the kernel is the
# oracle here (fsverity measure, sha256sum, EIO on damaged blocks).
# Exit status: 0 pass, 1 fail, 77 skip.
set -u

VV=${VUBLK_BUILD:?VUBLK_BUILD must name the meson build directory}/tools/vublk-verity/vublk-verity
PROBE=$VUBLK_BUILD/tests/f2fslayout/f2fs_probe
SCRATCH=${VUBLK_SCRATCH:?VUBLK_SCRATCH must name a writable directory}
TEST_NAME=$(basename "$0" .sh)

say() { echo "$TEST_NAME: $*"; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*" >&2; exit 1; }

for tool in mkfs.f2fs fsverity losetup python3 sha256sum; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed"
done
[ -x "$VV" ] && [ -x "$PROBE" ] || fail "$VV or $PROBE is missing: build first (ninja -C \$VUBLK_BUILD)"
grep -qw f2fs /proc/filesystems || skip "the kernel has no f2fs"

T=$(mktemp -d "$SCRATCH/$TEST_NAME.XXXXXX") || fail "cannot create a directory in $SCRATCH"
IMG=$T/f2fs.img
MNT=$T/mnt
LOOP=
mkdir -p "$MNT"

cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$T"
}
trap cleanup EXIT

# make_f2fs SIZE: an f2fs with fs-verity (the issue's mkfs line) on a loop
# device over $IMG, mounted on $MNT.
make_f2fs() {
	truncate -s "$1" "$IMG" || fail "cannot create $IMG"
	LOOP=$(losetup -f --show "$IMG") || fail "losetup $IMG failed"
	mkfs.f2fs -q -f -O extra_attr,verity "$LOOP" >/dev/null || fail "mkfs.f2fs -O extra_attr,verity failed"
	mount -t f2fs "$LOOP" "$MNT" || fail "mounting f2fs failed"
	fsverity enable --help >/dev/null 2>&1 || skip "fsverity cannot enable"
}

# put_file PATH SIZE: random bytes.
put_file() {
	mkdir -p "$(dirname "$MNT/$1")"
	head -c "$2" /dev/urandom >"$MNT/$1" || fail "writing $1"
}

# verity PATH [fsverity enable options...]: enable fs-verity on PATH
# (from the root of $MNT) and remember it in $T/verity-files.
verity() {
	local path=$1
	shift
	fsverity enable "$MNT/$path" "$@" || fail "fsverity enable $path $* failed"
	echo "$path" >>"$T/verity-files"
}

# The kernel's `fsverity measure` of every file verity() enabled, as
# "ALG:HEX /path", sorted.
kernel_digests() {
	local path
	while read -r path; do
		fsverity measure "$MNT/$path" | sed "s| $MNT/| /|" ||
			fail "fsverity measure $path failed"
	done <"$T/verity-files" | sort
}

unmount() {
	sync
	umount "$MNT" || fail "umount $MNT"
}

remount() {
	mount -t f2fs "$LOOP" "$MNT" || fail "mounting f2fs again failed"
}

# flip_byte POS: invert the byte at offset POS of $IMG (unmounted).
flip_byte() {
	python3 - "$IMG" "$1" <<'PY' || fail "cannot flip byte $1 of $IMG"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1)[0]
    f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0xff]))
PY
}
