#!/bin/bash
# Tampering, one device at a time:
#  - one byte of one file's data -> reading that file fails with EIO, the
#    log names the data block, every other file reads correctly;
#  - one byte of a level-0 tree block, then of a level-1 block -> the reads
#    of the data under it fail, the rest of the filesystem reads correctly;
#  - a wrong --digest, a truncated image, a damaged trailer, an unsealed
#    file -> `vublk add` refuses with one clear line and leaves no device.
# Physical offsets come from FIEMAP (filefrag -v) on a read-only mount.
. "$(dirname "$0")/lib.sh"
need_cmd filefrag

BS=4096
ARITY=128	# SHA-256 hashes per 4 KiB block
prepare_image

# Where the files are, from a read-only mount of the intact image.
verity_add
mount_ro
read -r small_start small_len <<<"$(longest_run dir2/f3)"
read -r big_start big_len <<<"$(longest_run "$BIG")"
big_runs=$(file_runs "$BIG") || exit 1
[ -n "$small_start" ] && [ -n "$big_len" ] && [ "$small_len" -ge 2 ] ||
	fail "filefrag gave no usable extents"
umount "$MNT" && "$VUBLK" del -n "$ID" || fail "cleanup of the probe device failed"
say "dir2/f3 at block $small_start, $BIG at block $big_start (+$big_len)"

# expect_damage FILE BLOCK_LO BLOCK_HI WHAT: with the image damaged, FILE
# fails with EIO naming a data block in [LO, HI); all other files are
# intact; then undo the damage.
expect_damage() {
	local file=$1 lo=$2 hi=$3 what=$4 err log block
	verity_add
	mount_ro
	err=$(cat "$MNT/$file" 2>&1 >/dev/null) && fail "$what: reading $file succeeded"
	[[ $err == *"Input/output error"* ]] || fail "$what: reading $file: '$err', not EIO"
	(cd "$MNT" && grep -v "  \./$file\$" "$SUMS" | sha256sum --quiet -c -) ||
		fail "$what: files other than $file differ"
	log=$(device_log "$ID") || exit 1
	umount "$MNT" && "$VUBLK" del -n "$ID" || fail "$what: cleanup failed"
	block=$(sed -n 's/.*: data block \([0-9]*\) .*failed verification.*/\1/p' "$log" | head -n 1)
	[ -n "$block" ] && [ "$block" -ge "$lo" ] && [ "$block" -lt "$hi" ] ||
		fail "$what: the log names data block '${block}', expected one in [$lo, $hi)"
	grep -q "failed verification" "$log" || fail "$what: nothing logged"
	repair_all
	say "$what: $file fails with EIO, log names block $block, other files intact"
}

# 1. A data byte of dir2/f3.
damage $(((small_start + 1) * BS + 100))
expect_damage dir2/f3 $((small_start + 1)) $((small_start + 2)) "data byte"

# 1b. The same with --on-corruption=stop: the read fails, then the server
# stops and deletes the device by itself (SIGTERM to itself).
damage $(((small_start + 1) * BS + 100))
verity_add --on-corruption=stop
log=$(device_log "$ID") || exit 1
dd if="$DEV" of=/dev/null bs=$BS skip=$((small_start + 1)) count=1 iflag=direct 2>/dev/null &&
	fail "stop mode: the damaged block read"
gone() { [ ! -b "$DEV" ] && ! "$VUBLK" list -n "$ID" --json 2>/dev/null | grep -q '"state": "live"'; }
for i in $(seq 100); do gone && break; sleep 0.1; done
gone || fail "stop mode: $DEV still there after 10 s"
grep -q "device $ID stopped and deleted" "$log" ||
	fail "stop mode: no clean stop in the log: $(tail -n 3 "$log")"
repair_all
say "stop mode: the device stopped itself cleanly after the EIO"

# 2. A level-0 tree byte: the hash block covering the middle of big.bin.
l0=$(tree_level_offset 0) || exit 1
j=$(((big_start + big_len / 2) / ARITY))
damage $((l0 + j * BS + 7))
expect_damage "$BIG" $((j * ARITY)) $(((j + 1) * ARITY)) "level-0 tree byte"

# 3. A level-1 tree byte: the block covering most of big.bin.  It covers
# 64 MiB of the device, which may hold f2fs node blocks of other files
# too, so here the check is on the device's blocks: inside the range reads
# fail, just outside they succeed; and big.bin fails.
l1=$(tree_level_offset 1) || exit 1
[ -n "$l1" ] || fail "the image has no level 1"
span=$((ARITY * ARITY))
k=$(best_cover "$big_runs" $span) || exit 1
damage $((l1 + k * BS + 9))
verity_add
nblocks=$(($(blockdev --getsize64 "$DEV") / BS))
read_block() { dd if="$DEV" of=/dev/null bs=$BS skip="$1" count=1 iflag=direct 2>/dev/null; }
read_block $((k * span + 5)) && fail "level-1 tree byte: block $((k * span + 5)) read"
read_block $(((k + 1) * span - 1)) && fail "level-1 tree byte: block $(((k + 1) * span - 1)) read"
[ "$k" -gt 0 ] && { read_block $((k * span - 1)) ||
	fail "level-1 tree byte: block $((k * span - 1)), outside the range, failed"; }
[ $(((k + 1) * span)) -lt "$nblocks" ] && { read_block $(((k + 1) * span)) ||
	fail "level-1 tree byte: block $(((k + 1) * span)), outside the range, failed"; }
if mount -t f2fs -o ro "$DEV" "$MNT" 2>/dev/null; then
	cat "$MNT/$BIG" >/dev/null 2>&1 && fail "level-1 tree byte: reading $BIG succeeded"
	umount "$MNT" || fail "umount failed"
else	# the range holds f2fs metadata the mount needs: that failed too
	say "level-1 tree byte: the mount itself failed (f2fs metadata in the range)"
fi
"$VUBLK" del -n "$ID" || fail "level-1 tree byte: cleanup failed"
repair_all
say "level-1 tree byte: device blocks [$((k * span)), $(((k + 1) * span))) fail, their neighbours read, $BIG fails"

# 4. Images that must be refused.  A small sealed one, and broken copies.
small=$SCRATCH/small.img
random_bytes $((4 << 20)) 7 >"$small"
digest=$("$VV" format "$small") || fail "vublk-verity format failed"
digest=${digest%% *}

# refuse WHAT FILE ARGS...: vublk add fails with one line, no device left.
refuse() {
	local what=$1 file=$2 out lines
	shift 2
	out=$("$VUBLK" add -t verity -f "$file" "${BACKEND_ARGS[@]}" "$@" 2>&1) &&
		fail "$what: vublk add accepted it ($out)"
	lines=$(grep -c . <<<"$out")
	[ "$lines" = 1 ] || fail "$what: $lines lines of error, expected one: $out"
	[ -z "$(ls /dev/ublkb* 2>/dev/null)" ] || fail "$what: a device was left: $(ls /dev/ublkb*)"
	say "$what: refused: $out"
}

wrong=${digest%?}$([ "${digest: -1}" = 0 ] && echo 1 || echo 0)
refuse "wrong digest" "$small" --digest="$wrong"
cp "$small" "$small.trunc" && truncate -s -4096 "$small.trunc"
refuse "truncated image" "$small.trunc" --digest="$digest"
cp "$small" "$small.trailer"
size=$(stat -c %s "$small.trailer")
IMG=$small.trailer flip_byte $((size - 40))
refuse "damaged trailer" "$small.trailer" --digest="$digest"
random_bytes $((1 << 20)) 8 >"$SCRATCH/raw.img"
refuse "unsealed file" "$SCRATCH/raw.img"
"$VUBLK" add -t verity -f "$small" --digest="$digest" "${BACKEND_ARGS[@]}" >/dev/null ||
	fail "the intact small image was refused"
say "PASS"
