#!/bin/bash
# The kernel's dm-verity as the oracle for vublk's --format=dm-verity, part
# two (part one: 08-dm-verity-format): over the SAME files, `veritysetup
# open` and `vublk add -t verity --format=dm-verity` must
#  1. read the same bytes, and fail the same blocks with EIO after a byte
#     flipped in a level-0 hash block, for two more kinds of image:
#     (d) sha1 (a 20-byte digest in a 32-byte stride), 4 KiB data blocks
#         and 1 KiB hash blocks, with a superblock;
#     (e) sha384 (48 bytes in 64), 512-byte data blocks (the ublk device's
#         logical block is then 512) and 4 KiB hash blocks, --no-superblock
#         with a 32-byte salt;
#  2. with --ignore-corruption (vublk: --on-corruption=log), a data byte
#     and a level-0 hash byte flipped: read every block, the flipped data
#     byte and the data under the flipped hash block as stored, no EIO;
#     both say so (dm status C, vublk's corrupt_served);
#  3. with --ignore-zero-blocks, garbage written into a block that was
#     zeroes when the image was formatted: both read zeroes there (the
#     kernel does not even read it: its expected hash is that of zeroes);
#     without the option both fail that block, and only it;
#  4. with --check-at-most-once, blocks read (verified) once and then
#     changed in the data file under both devices: read as they are now,
#     no EIO; a block changed before it was ever read fails on both.  And
#     with --check-at-most-once and --ignore-zero-blocks together, a zero
#     block read once and then filled with garbage reads as zeroes: the
#     kernel never marks a zero block verified (it does not verify it).
# All reads are O_DIRECT.  The kernel reads its data device through the
# loop device veritysetup attaches to the file, and a loop device reads the
# file through the file's page cache, or with direct I/O, which writes the
# dirty pages back first: either way the change, written and fsynced,
# reaches it.  The caches are dropped anyway, and (4) checks that the
# kernel returned the changed bytes, which shows it read them.
. "$(dirname "$0")/dmv-lib.sh"
need_cmd losetup dmsetup

# --- 1 (d): sha1, 4 KiB data blocks, 1 KiB hash blocks, a superblock.
# 1 MiB + 40 KiB: 266 blocks, 32 hashes a hash block, 9 level-0 blocks,
# the last one covering 10.  The tree starts at the hash block after the
# 512-byte superblock: byte 1024.
D_DATA=$T/d-data.img D_HASH=$T/d-hash.img D_SIZE=$((1048576 + 40960))
random_bytes $D_SIZE 91 >"$D_DATA" || fail "cannot write $D_DATA"
D_ROOT=$(format "$D_DATA" "$D_HASH" --hash=sha1 --data-block-size=4096 --hash-block-size=1024)
[ ${#D_ROOT} = 40 ] || fail "(d): veritysetup format printed root hash '$D_ROOT'"
D_DM=()
D_VUBLK=(--hash-device=@HASH@)
same_image d "(d) sha1, 4 KiB data, 1 KiB hash blocks" "$D_DATA" "$D_HASH" "$D_ROOT" \
	$D_SIZE D_DM D_VUBLK
BLOCKS= damage_setup d "$D_DATA" "$D_HASH" 1024 "$D_ROOT" 4096 1024 20 D_DM D_VUBLK
damage_level0 $((L0_BLOCKS - 1))

# --- 1 (e): sha384, 512-byte data blocks, 4 KiB hash blocks, no
# superblock, a 32-byte salt.  1 MiB + 10 KiB: 2068 blocks, 64 hashes a
# hash block, 33 level-0 blocks.  A data flip too: the blocks are smaller
# than a page on both sides.
E_DATA=$T/e-data.img E_HASH=$T/e-hash.img E_SIZE=$((1048576 + 20 * 512))
E_SALT=$(python3 -c 'print(bytes((i * 53 + 7) & 0xff for i in range(32)).hex())')
E_PARAMS=(--no-superblock --hash=sha384 --data-block-size=512 --hash-block-size=4096 --salt="$E_SALT")
random_bytes $E_SIZE 92 >"$E_DATA" || fail "cannot write $E_DATA"
E_ROOT=$(format "$E_DATA" "$E_HASH" "${E_PARAMS[@]}")
[ ${#E_ROOT} = 96 ] || fail "(e): veritysetup format printed root hash '$E_ROOT'"
E_DM=("${E_PARAMS[@]}")
E_VUBLK=(--hash-device=@HASH@ "${E_PARAMS[@]}")
same_image e "(e) sha384, 512-byte data, 4 KiB hash blocks, no superblock" \
	"$E_DATA" "$E_HASH" "$E_ROOT" $E_SIZE E_DM E_VUBLK
BLOCKS= damage_setup e "$E_DATA" "$E_HASH" 0 "$E_ROOT" 512 4096 48 E_DM E_VUBLK
damage_data
damage_level0 $((L0_BLOCKS / 2))

# --- The image of 2-4: veritysetup's defaults (sha256, 4 KiB blocks, a
# superblock), 260 blocks, 96-111 zeroes.  Level-0 block 1 covers data
# blocks 128-255.
Z_DATA=$T/z-data.img Z_HASH=$T/z-hash.img Z_N=260
random_bytes $((Z_N * 4096)) 93 >"$Z_DATA" || fail "cannot write $Z_DATA"
dd if=/dev/zero of="$Z_DATA" bs=4096 seek=96 count=16 conv=notrunc status=none ||
	fail "cannot zero blocks 96-111 of $Z_DATA"
Z_ROOT=$(format "$Z_DATA" "$Z_HASH")
[ ${#Z_ROOT} = 64 ] || fail "veritysetup format printed root hash '$Z_ROOT'"
tree_geometry $Z_N 4096 32
Z_L0_1=$((4096 + (L0_AT + 1) * 4096))	# level-0 block 1, in the hash file

# z_open NAME DATA HASH "DM_OPTIONS" "VUBLK_OPTIONS": both devices over DATA
# and HASH with Z's root hash; sets DM, DEV and ID.
z_open() {
	local -a dm_opts=($4) vublk_opts=($5)
	dm_open "$1" "$2" "$3" "$Z_ROOT" "${dm_opts[@]}" ||
		fail "$1: veritysetup open ${dm_opts[*]} failed"
	vublk_add -t verity --format=dm-verity -f "$2" --root-hash="$Z_ROOT" \
		--hash-device="$3" "${vublk_opts[@]}"
}

# garbage FILE BLOCK: fill 4 KiB block BLOCK of FILE with non-zero bytes.
garbage() {
	python3 - "$1" "$2" <<'PY' || fail "cannot write garbage into block $2 of $1"
import os, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]) * 4096)
    f.write(bytes((i * 131 + 17) & 0xff | 1 for i in range(4096)))
    f.flush(); os.fsync(f.fileno())
PY
}

# read_once BS FROM TO DEV...: read blocks [FROM, TO) of each DEV with
# O_DIRECT, 64 at a time; every read must succeed.
read_once() {
	python3 - "$@" <<'PY' || fail "reading blocks $2-$3 of ${*:4} failed"
import mmap, os, sys
bs, lo, hi = map(int, sys.argv[1:4])
buf = mmap.mmap(-1, 64 * bs)
for dev in sys.argv[4:]:
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    for b in range(lo, hi, 64):
        k = min(64, hi - b)
        if os.preadv(fd, [memoryview(buf)[:k * bs]], b * bs) != k * bs:
            sys.exit(f"{dev}: short read at block {b}")
    os.close(fd)
PY
}

# drop_caches FILE: the page cache dropped, and the buffers of the loop
# devices over FILE (veritysetup's) flushed; says which and their direct-io.
drop_caches() {
	local loops
	sync
	echo 3 >/proc/sys/vm/drop_caches || fail "cannot drop caches"
	loops=$(losetup -n -O NAME -j "$1")
	[ -n "$loops" ] || fail "no loop device over $1: where does dm-verity read it?"
	blockdev --flushbufs $loops $DM || fail "blockdev --flushbufs $loops $DM failed"
	say "caches dropped; loop device over $(basename "$1"): $(losetup -n -O NAME,DIO -j "$1" | tr -s ' ' | tr '\n' ' ')(name, direct-io)"
}

# del_counter NAME: delete $ID and print its final counter NAME.
del_counter() {
	local line
	line=$(del_and_counters "$ID") || exit 1
	counter "$1" "$line"
}

# dm_health NAME: V (valid) or C (corruption seen): the first field of
# dm-verity's status after "START LENGTH verity" (7.3 adds another after it,
# FEC's count of corrected blocks or "-").
dm_health() {
	dmsetup status "$DM_PREFIX-$1" | awk '$3 == "verity" { print $4 }'
}

# --- 2. --ignore-corruption / --on-corruption=log: data block 37 flipped,
# and level-0 hash block 1 (data blocks 128-255 then have no trusted hash).
cp "$Z_DATA" "$T/log-data.img" && cp "$Z_HASH" "$T/log-hash.img" || fail "cannot copy the image"
flip "$T/log-data.img" $((37 * 4096 + 99))
flip "$T/log-hash.img" $((Z_L0_1 + 17))
cmp -s "$Z_DATA" "$T/log-data.img" && fail "the flip did not change the data"
z_open log "$T/log-data.img" "$T/log-hash.img" --ignore-corruption --on-corruption=log
scan "log: data block 37 and level-0 hash block 1 flipped" "$DM" "$DEV" 4096 $Z_N - - "$T/log-data.img"
health=$(dm_health log)
[ "$health" = C ] || fail "log: dm-verity's status is '$health', not C (corruption seen)"
dm_close log
served=$(del_counter corrupt_served) || exit 1
[ "${served:-0}" -ge 1 ] || fail "log: vublk counted corrupt_served '$served'"
say "log: both serve every block as stored, flipped byte included (dm status C, vublk corrupt_served $served)"

# --- 3. --ignore-zero-blocks: garbage in zero block 100.
cp "$Z_DATA" "$T/zero-data.img" || fail "cannot copy the data"
garbage "$T/zero-data.img" 100
z_open zero "$T/zero-data.img" "$Z_HASH" --ignore-zero-blocks --ignore-zero-blocks
scan "ignore-zero-blocks: garbage in zero block 100" "$DM" "$DEV" 4096 $Z_N - - "$Z_DATA"
dm_close zero
zeroes=$(del_counter zero_blocks) || exit 1
[ "${zeroes:-0}" -ge 1 ] || fail "ignore-zero-blocks: vublk counted zero_blocks '$zeroes'"
say "ignore-zero-blocks: both read zeroes in block 100, the rest as formatted"
z_open nozero "$T/zero-data.img" "$Z_HASH" "" ""
scan "no ignore-zero-blocks: garbage in zero block 100" "$DM" "$DEV" 4096 $Z_N 100 101 "$T/zero-data.img"
dm_close nozero
vublk_del
say "without --ignore-zero-blocks: both fail block 100 only"

# --- 4. --check-at-most-once: blocks 0-129 read once; then block 37 (read)
# and block 200 (never read: the partition scan of the ublk disk reads its
# first and last blocks only) flipped in the file under both.
cp "$Z_DATA" "$T/once-data.img" || fail "cannot copy the data"
z_open once "$T/once-data.img" "$Z_HASH" --check-at-most-once --check-at-most-once
read_once 4096 0 130 "$DM" "$DEV"
flip "$T/once-data.img" $((37 * 4096 + 5))
flip "$T/once-data.img" $((200 * 4096 + 5))
drop_caches "$T/once-data.img"
scan "check-at-most-once: blocks 37 (verified before) and 200 (never read) flipped" \
	"$DM" "$DEV" 4096 $Z_N 200 201 "$T/once-data.img"
dm_close once
vublk_del
say "check-at-most-once: both read block 37 as it is now and fail block 200"

# ... with --ignore-zero-blocks: everything read once, then block 37
# flipped and garbage in zero block 100: 37 as it is now, 100 zeroes.
cp "$Z_DATA" "$T/oncez-data.img" && cp "$Z_DATA" "$T/oncez-want.img" || fail "cannot copy the data"
z_open oncez "$T/oncez-data.img" "$Z_HASH" "--check-at-most-once --ignore-zero-blocks" \
	"--check-at-most-once --ignore-zero-blocks"
read_once 4096 0 $Z_N "$DM" "$DEV"
flip "$T/oncez-data.img" $((37 * 4096 + 5))
garbage "$T/oncez-data.img" 100
flip "$T/oncez-want.img" $((37 * 4096 + 5))
drop_caches "$T/oncez-data.img"
scan "check-at-most-once + ignore-zero-blocks: block 37 flipped, garbage in zero block 100" \
	"$DM" "$DEV" 4096 $Z_N - - "$T/oncez-want.img"
dm_close oncez
vublk_del
say "check-at-most-once + ignore-zero-blocks: both read block 37 as it is now and zeroes in block 100"

[ -z "$(ls /dev/ublkb* 2>/dev/null)" ] || fail "ublk devices left: $(ls /dev/ublkb*)"
[ -z "$(ls /dev/mapper/$DM_PREFIX-* 2>/dev/null)" ] || fail "dm devices left: $(ls /dev/mapper/$DM_PREFIX-*)"
say "PASS: dm-verity and vublk agree on sha1/sha384 images with mixed block sizes and on ignore_corruption, ignore_zero_blocks and check_at_most_once"
