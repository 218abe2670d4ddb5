#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One flipped byte in a verity file's data, in its Merkle tree, or past
# its EOF in its last page: `vublk-verity f2fs check` names that file, its
# byte offsets and the tree level, and the kernel's read of the file
# fails with EIO (fs/verity/verify.c), on a fresh mount (cold cache).
. "$(dirname "$0")/lib.sh"

make_f2fs 64M
put_file data 1048576;		verity data
put_file tree 2097153;		verity tree --block-size=1024
put_file one 1;			verity one
put_file intact 100000;		verity intact --hash-alg=sha512
unmount
"$VV" f2fs check "$IMG" >/dev/null || fail "check of the intact image failed"
cp "$IMG" "$T/pristine.img"

# tampered WHAT FILE REGEX: check exits 1 naming REGEX, the other files
# still verify, and reading FILE through the kernel fails with EIO.
tampered() {
	local status=0 err
	"$VV" f2fs check "$IMG" >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 1 ] || fail "$1: check exited $status, want 1: $(cat "$T/err")"
	grep -qE "$3" "$T/err" || fail "$1: check did not say /$3/: $(cat "$T/err")"
	[ "$(wc -l <"$T/out")" -eq 3 ] || fail "$1: $(wc -l <"$T/out") files held, want the 3 others"
	remount
	err=$(cat "$MNT/$2" 2>&1 >/dev/null) && fail "$1: the kernel read $2 without error"
	case $err in
	*"Input/output error"*) ;;
	*) fail "$1: the kernel's read of $2 failed, but not with EIO: $err" ;;
	esac
	cat "$MNT/intact" >/dev/null || fail "$1: the kernel could not read an intact file"
	unmount
	cp "$T/pristine.img" "$IMG"
	say "$1: $(grep -E "$3" "$T/err" | head -n 1); the kernel: $err"
}

# Data block 73 (4 KiB blocks) of /data.
flip_byte "$("$PROBE" offset "$IMG" /data 300000)"
tampered "data byte" data ":/data: bytes 299008\.\.303103 \(1 block of 4096 from block 73, .*\): data does not match its hash in Merkle tree level 0"

# /tree: 2049 blocks of 1 KiB, levels of 65, 3 and 1 blocks stored top
# first; tree block 2 is level 1's second block (data blocks 1024..2047).
flip_byte "$("$PROBE" tree-offset "$IMG" /tree $((2 * 1024 + 77)))"
tampered "level-1 tree byte" tree ":/tree: bytes 1048576\.\.2097151 \(1024 blocks of 1024 from block 1024, .*\): Merkle tree level 1 block 2 \(.*\) does not match its hash in level 2"

# Past EOF, in the only block of a 1-byte file: f2fs reads the page whole.
flip_byte "$("$PROBE" offset "$IMG" /one 2000)"
tampered "byte past EOF" one ":/one: bytes 0\.\.4095 \(1 block of 4096 from block 0, .*\): data does not match the root hash"
