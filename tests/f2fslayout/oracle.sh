#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# oracle.sh - the f2fs layout, checked against fsverity-utils.
#
# For several data sizes and tree parameters: `fsverity digest
# --out-merkle-tree --out-descriptor` gives the tree, the descriptor and
# the file digest; oracle_image lays out an image with lib/f2fslayout and
# reads it back.  This script then checks, with its own arithmetic and
# cmp, that the data is untouched, the tree is at round_up(size, 64 KiB)
# (fs/f2fs/verity.c: f2fs_verity_metadata_pos()), the descriptor right
# after the tree (f2fs_end_enable_verity()), the image a multiple of 4 KiB
# ending in the trailer, and that the digest the reader reports is
# fsverity's.
#
#   oracle.sh ORACLE_IMAGE FSVERITY
set -eu

helper=$1
fsverity=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# Deterministic pseudo-random bytes: AES-CTR keystream of a fixed key.
make_data() {
	head -c "$1" /dev/zero | openssl enc -aes-128-ctr -nosalt \
		-K 000102030405060708090a0b0c0d0e0f \
		-iv 00000000000000000000000000000000 >"$2"
}

# check_case SIZE [fsverity digest options]
check_case() {
	size=$1
	shift
	label="size=$size $*"
	make_data "$size" "$tmp/data"
	"$fsverity" digest "$tmp/data" "$@" \
		--out-merkle-tree="$tmp/tree" --out-descriptor="$tmp/desc" \
		>"$tmp/digest"
	want_digest=$(cut -d' ' -f1 "$tmp/digest")
	cp "$tmp/data" "$tmp/image"

	found=$("$helper" "$tmp/image" "$tmp/tree" "$tmp/desc")
	set -- $found
	tree_pos=$1 tree_size=$2 desc_pos=$3 desc_size=$4 image_size=$5

	want_tree_pos=$(( (size + 65535) / 65536 * 65536 ))
	want_tree_size=$(stat -c %s "$tmp/tree")
	want_desc_size=$(stat -c %s "$tmp/desc")
	[ "$tree_pos" = "$want_tree_pos" ] ||
		fail "$label: tree at $tree_pos, want $want_tree_pos"
	[ "$tree_size" = "$want_tree_size" ] ||
		fail "$label: tree size $tree_size, fsverity's is $want_tree_size"
	[ "$desc_pos" = $((want_tree_pos + want_tree_size)) ] ||
		fail "$label: descriptor at $desc_pos, want right after the tree"
	[ "$desc_size" = "$want_desc_size" ] ||
		fail "$label: descriptor size $desc_size, want $want_desc_size"
	[ "$6" = "$want_digest" ] ||
		fail "$label: digest $6, fsverity says $want_digest"

	[ "$(stat -c %s "$tmp/image")" = "$image_size" ] ||
		fail "$label: image file size differs from $image_size"
	[ $((image_size % 4096)) = 0 ] ||
		fail "$label: image size $image_size not a multiple of 4096"
	cmp -s -n "$size" "$tmp/data" "$tmp/image" ||
		fail "$label: data changed"
	cmp -s -n "$want_tree_size" -i "0:$want_tree_pos" \
		"$tmp/tree" "$tmp/image" ||
		fail "$label: tree bytes differ from fsverity's"
	cmp -s -n "$want_desc_size" -i "0:$desc_pos" \
		"$tmp/desc" "$tmp/image" ||
		fail "$label: descriptor bytes differ from fsverity's"
	[ "$(tail -c 64 "$tmp/image" | head -c 7)" = vublkVT ] ||
		fail "$label: image does not end with the trailer magic"
}

for size in 0 1 4095 4096 65535 65536 65537 1000000; do
	check_case "$size"
done
check_case 300000 --hash-alg=sha512 --salt=00112233445566778899
check_case 300000 --block-size=1024 --salt=ff
check_case 200000 --block-size=65536

[ "$failures" = 0 ] || exit 1
