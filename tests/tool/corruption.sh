#!/bin/bash
# One flipped byte, each on a fresh copy of a formatted image, must make
# `vublk-verity verify` exit 1 and name the right data blocks: in the
# data, in a level-0 and a level-1 tree block, in the descriptor and in
# the trailer.
# shellcheck source=tests/tool/lib.sh
. "$(dirname "$0")/lib.sh"

# 2 MiB + 1000 bytes in 1 KiB blocks with SHA-256 (32 hashes per block):
# 2049 data blocks, 65 level-0 blocks, 3 level-1 blocks, 1 level-2 block.
BS=1024
SIZE=$((2 * 1048576 + 1000))
BLOCKS=$(((SIZE + BS - 1) / BS))
gen_data $SIZE 11 orig
cp orig clean
"$VV" format clean --block-size=$BS >clean.line
"$VV" dump --json clean >dump.json
read -r levels level0 level1 desc_pos image_size < <(json_fields dump.json \
	tree.num_levels tree.levels.0.offset tree.levels.1.offset \
	location.desc_pos location.image_size)
[ "$levels" = 3 ] || fail "expected a 3-level tree, dump says $levels"

# corrupt_at OFFSET: a fresh copy "img" with the byte at OFFSET flipped;
# verify it, leaving status, out, err.
corrupt_at() {
	cp clean img
	flip_byte img "$1"
	run_capture "$VV" verify img
	[ "$status" = 1 ] ||
		fail "byte $1 flipped: verify exited $status; $(cat "$WORK/err")"
	[ ! -s "$WORK/out" ] || fail "byte $1 flipped: verify printed a digest"
}

# bad_blocks: the data block numbers named on stderr, one per line.
bad_blocks() {
	sed -nE 's/^img: data block ([0-9]+) \(offset ([0-9]+)\) does not match the Merkle tree$/\1 \2/p' \
		"$WORK/err" | while read -r block off; do
		[ "$off" = $((block * BS)) ] || fail "block $block at offset $off"
		echo "$block"
	done
}

# Data bytes: exactly the block holding the byte is named, and the
# summary counts 1 bad block.
for off in 0 1023 1024 500000 $((SIZE - 1)); do
	corrupt_at $off
	[ "$(bad_blocks)" = $((off / BS)) ] ||
		fail "data byte $off: named blocks '$(bad_blocks | tr '\n' ' ')', expected $((off / BS))"
	grep -q "'img': 1 of $BLOCKS data blocks do not match" "$WORK/err" ||
		fail "data byte $off: summary: $(tail -n1 "$WORK/err")"
done

# A level-0 hash block covers 32 data blocks: all of them fail, the first
# 20 are listed, then a count of the rest.
corrupt_at $((level0 + 5 * BS + 7))
[ "$(bad_blocks | head -n1)" = $((5 * 32)) ] ||
	fail "level-0 block 5: first named block $(bad_blocks | head -n1), expected 160"
[ "$(bad_blocks | wc -l)" = 20 ] || fail "level-0 block 5: $(bad_blocks | wc -l) blocks listed"
grep -q "and 12 more bad data blocks" "$WORK/err" || fail "level-0: no count of the rest"
grep -q "'img': 32 of $BLOCKS data blocks" "$WORK/err" || fail "level-0: $(tail -n1 "$WORK/err")"
! grep -q "root hash" "$WORK/err" || fail "level-0: blamed the root hash"
# -v lists all of them: blocks 160..191.
run_capture "$VV" verify -v img
[ "$(bad_blocks | tr '\n' ' ')" = "$(seq -s ' ' 160 191) " ] ||
	fail "verify -v: named $(bad_blocks | tr '\n' ' ')"

# A level-1 hash block covers 32 x 32 data blocks (block 1: 1024..2047).
corrupt_at $((level1 + BS + 100))
[ "$(bad_blocks | head -n1)" = 1024 ] ||
	fail "level-1 block 1: first named block $(bad_blocks | head -n1)"
grep -q "'img': 1024 of $BLOCKS data blocks" "$WORK/err" || fail "level-1: $(tail -n1 "$WORK/err")"

# The descriptor's root hash (offset 16): every block fails against it,
# and the file digest no longer matches the trusted one.
corrupt_at $((desc_pos + 16))
grep -q "'img': $BLOCKS of $BLOCKS data blocks" "$WORK/err" || fail "root hash: $(tail -n1 "$WORK/err")"
grep -q "'img': the root hash [0-9a-f]* does not match the Merkle tree, whose top block hashes to" \
	"$WORK/err" || fail "root hash: no line saying the root hash does not match"
expect_error 1 "file digest .* does not match the expected $(cut -d' ' -f1 clean.line)" \
	"$VV" verify img --digest="$(cut -d' ' -f1 clean.line)"
# The descriptor's version byte: the descriptor itself is refused.
cp clean img
flip_byte img "$desc_pos"
expect_error 1 "'img' has invalid vublk metadata: .*version" "$VV" verify img

# The trailer: its checksum catches any flipped byte; a damaged magic
# leaves a descriptor after its tree but no trailer: a lost trailer.
cp clean img
flip_byte img $((image_size - 64 + 20))
expect_error 1 "'img' has invalid vublk metadata: .*trailer" "$VV" verify img
cp clean img
flip_byte img $((image_size - 64))
expect_error 1 "'img' has invalid vublk metadata: no trailer at its end, but an fs-verity descriptor" \
	"$VV" verify img

# A one-block image has no tree: the block is checked against the root
# hash in the descriptor directly.
gen_data 3000 12 small
"$VV" format small >/dev/null
flip_byte small 2999
run_capture "$VV" verify small
[ "$status" = 1 ] || fail "one-block image: verify exited $status"
printf '%s\n' "small: data block 0 (offset 0) does not match the Merkle tree" \
	"vublk-verity verify: 'small': 1 of 1 data blocks do not match the Merkle tree" |
	cmp - "$WORK/err" || fail "one-block image: $(cat "$WORK/err")"

# The untouched copy still verifies.
"$VV" verify clean --digest="$(cut -d' ' -f1 clean.line)" >/dev/null ||
	fail "the clean image does not verify"
echo "corruption: every flipped byte was found"
