#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_f2fs_tamper.sh VUBLK_VERITY F2FS_PROBE FIXTURES: damage a real f2fs
# image (fixtures/basic, made by the kernel) one byte at a time and check
# what `vublk-verity f2fs check` and `list` say.
#
# The damaged byte's image offset comes from f2fs_probe; the expected
# block, run and tree level from the fs-verity geometry worked out here
# by hand (docs/FORMAT.md): the kernel test group tests/kernel-tests/f2fs
# flips bytes the same way and checks that the kernel's read fails too.
PROBE=$(realpath "$2")
FIXTURES=$(realpath "$3")
. "$(dirname "$0")/../tool/lib.sh"	# cds into a scratch directory
IMG=$WORK/basic.img
xz -dc "$FIXTURES/basic.img.xz" >"$IMG"
cp "$IMG" "$WORK/pristine.img"

restore() { cp "$WORK/pristine.img" "$IMG"; }

# check_says WHAT REGEX: check exits 1 and its stderr matches REGEX; the
# other verity files still verify.
check_says() {
	local status=0
	"$VV" f2fs check "$IMG" >"$WORK/out" 2>"$WORK/err" || status=$?
	[ "$status" -eq 1 ] || fail "$1: check exited $status, want 1: $(cat "$WORK/err")"
	grep -qE "$2" "$WORK/err" || fail "$1: check did not say /$2/: $(cat "$WORK/err")"
	[ "$(wc -l <"$WORK/out")" -eq 10 ] || fail "$1: $(wc -l <"$WORK/out") files held, want the 10 others"
	echo "ok: $1: $(grep -E "$2" "$WORK/err")"
}

at() { "$PROBE" offset "$IMG" "$1" "$2" || fail "no image offset for $1 at $2"; }
tree_at() { "$PROBE" tree-offset "$IMG" "$1" "$2" || fail "no image offset for the tree of $1 at $2"; }

# A data byte: /b65537 has 1 KiB blocks, so byte 40000 is in block 39.
off=$(at /b65537 40000)
flip_byte "$IMG" "$off"
check_says "data byte" "basic.img:/b65537: bytes 39936\.\.40959 \(1 block of 1024 from block 39, image offset $((off - 64))\): data does not match its hash in Merkle tree level 0"
restore

# /deep/er/big: 2097153 bytes, SHA-256, 1 KiB blocks: 2049 data blocks,
# levels of 65, 3 and 1 blocks stored top first.  Tree block 1 is level
# 1's first block: the hashes of level-0 blocks 0..31, i.e. of data
# blocks 0..1023.  The tree starts at round_up(2097153, 64 KiB) = 2162688.
off=$(tree_at /deep/er/big 1029)
flip_byte "$IMG" "$off"
check_says "level-1 tree byte" "basic.img:/deep/er/big: bytes 0\.\.1048575 \(1024 blocks of 1024 from block 0, image offset [0-9]+\): Merkle tree level 1 block 1 \(file offset 2163712, image offset $((off - 5))\) does not match its hash in level 2"
restore

# The top block: every data block fails against the root hash.
off=$(tree_at /deep/er/big 3)
flip_byte "$IMG" "$off"
check_says "top tree byte" "basic.img:/deep/er/big: bytes 0\.\.2098175 \(2049 blocks of 1024 from block 0, .*\): Merkle tree level 2 block 0 \(file offset 2162688, image offset $((off - 3))\) does not match the root hash"
restore

# Past EOF in the last page: f2fs reads verity files' pages whole, so a
# byte after i_size is hashed with the block (/one: 1 byte, one block,
# no tree) ...
flip_byte "$IMG" "$(at /one 100)"
check_says "byte past EOF in the last block" "basic.img:/one: bytes 0\.\.4095 \(1 block of 4096 from block 0, .*\): data does not match the root hash"
restore
# ... and Merkle blocks past EOF in that page must be zero (/b65537:
# 65 data blocks of 1 KiB; block 65 is past EOF, in page 16).
flip_byte "$IMG" "$(at /b65537 67000)"
check_says "Merkle block past EOF" "basic.img:/b65537: bytes 66560\.\.67583 \(1 block of 1024 from block 65, .*\): past EOF but not zero"
restore

# The first superblock copy damaged: the second one is used, as
# read_raw_super_block() does; both damaged: not an f2fs image.
flip_byte "$IMG" 1024
"$PROBE" info "$IMG" | grep -qx super_copy=1 || fail "the second superblock was not used"
"$VV" f2fs list "$IMG" | cmp -s - <("$VV" f2fs list "$WORK/pristine.img") ||
	fail "list differs with the first superblock damaged"
flip_byte "$IMG" $((4096 + 1024))
status=0
"$VV" f2fs list "$IMG" >/dev/null 2>"$WORK/err" || status=$?
[ "$status" -eq 2 ] && grep -q "no f2fs superblock" "$WORK/err" ||
	fail "both superblocks damaged: exit $status, $(cat "$WORK/err")"
echo "ok: superblock copies"
restore

# The current checkpoint pack damaged: the other pack is used
# (f2fs_get_valid_checkpoint()).
pack=$("$PROBE" info "$IMG" | sed -n 's/^checkpoint_pack=//p')
cp_blkaddr=$(od -An -tu4 -j $((1024 + 76)) -N4 "$IMG" | tr -d ' ')
flip_byte "$IMG" $(((cp_blkaddr + (pack - 1) * 512) * 4096 + 100))
"$PROBE" info "$IMG" | grep -qx "checkpoint_pack=$((3 - pack))" ||
	fail "checkpoint pack $pack damaged, but pack $((3 - pack)) was not used"
echo "ok: checkpoint pack $pack damaged, pack $((3 - pack)) used"

# Bad input: one line each, and the exit status of its kind.
# expect_status STATUS REGEX COMMAND...
expect_status() {
	local want=$1 regex=$2 status=0
	shift 2
	"$@" >/dev/null 2>"$WORK/err" || status=$?
	[ "$status" -eq "$want" ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] &&
		grep -qE "$regex" "$WORK/err" ||
		fail "$*: exit $status, want $want with one line /$regex/: $(cat "$WORK/err")"
}
head -c 1M /dev/zero >"$WORK/zeroes.img"
expect_status 2 "can't read '.*zeroes.img' as an f2fs image: no f2fs superblock" "$VV" f2fs list "$WORK/zeroes.img"
expect_status 2 "expected 'list' or 'check' after 'f2fs'" "$VV" f2fs verify "$IMG"
expect_status 2 "option '--json' is for \`f2fs list\` only" "$VV" f2fs check --json "$IMG"
expect_status 2 "invalid --jobs '0'" "$VV" f2fs check -j 0 "$IMG"
expect_status 1 "basic.img:/no/such: No such file or directory" "$VV" f2fs list "$IMG" /no/such
expect_status 1 "basic.img:/plain: skipped: regular file without fs-verity" "$VV" f2fs list "$IMG" /plain
expect_status 1 "basic.img:/link: not a regular file" "$VV" f2fs list "$IMG" /link
echo "ok: bad input"
