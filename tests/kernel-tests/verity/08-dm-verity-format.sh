#!/bin/bash
# The kernel's dm-verity as the oracle for vublk's --format=dm-verity: over
# the SAME files, `veritysetup open` and `vublk add -t verity
# --format=dm-verity` must
#  1. read the same bytes, for three images `veritysetup format` writes:
#     (a) a superblock in a separate hash file (its defaults: sha256, 4 KiB
#         blocks, a random salt);
#     (b) --no-superblock, sha512, 1 KiB blocks, a 100-byte salt;
#     (c) the hash area inside the data file, at --hash-offset;
#  2. fail the same reads after the same byte flip: in a data block (of a
#     copy of the data), in a level-0 hash block and in the top hash block
#     (of copies of the hash area).  One python3 process reads every block
#     of both devices with O_DIRECT (64 at a time, one by one where such a
#     read fails) and lists the blocks whose read fails with EIO: the lists
#     must be equal, non-empty and the expected range (one block; the
#     blocks the level-0 block covers, fewer for the last one; all);
#  3. with a wrong root hash: veritysetup open refuses, or every read of
#     the device fails; vublk checks lazily, as dm-verity does at read
#     time: every read fails with EIO.  Neither gives any data.
# Both run with their defaults on corruption (EIO).
. "$(dirname "$0")/dmv-lib.sh"

SALT100=$(python3 -c 'print(bytes((i * 37 + 11) & 0xff for i in range(100)).hex())')

# --- (a) a superblock in a separate hash file, veritysetup's defaults.
# Sizes: small for TCG, with 2 levels or more and a last level-0 block
# that covers fewer blocks than the others.  (a): 2 MiB + 40 KiB, 522
# blocks, the last level-0 block covers 10.
A_DATA=$T/a-data.img A_HASH=$T/a-hash.img A_SIZE=$((2 * 1048576 + 40960))
random_bytes $A_SIZE 81 >"$A_DATA" || fail "cannot write $A_DATA"
A_ROOT=$(format "$A_DATA" "$A_HASH")
[ ${#A_ROOT} = 64 ] || fail "(a): veritysetup format printed root hash '$A_ROOT'"
A_DM=()
A_VUBLK=(--hash-device=@HASH@)
same_image a "(a) superblock, hash file" "$A_DATA" "$A_HASH" "$A_ROOT" $A_SIZE A_DM A_VUBLK

# --- (b) no superblock, sha512, 1 KiB blocks, a 100-byte salt.  1 MiB +
# 5 KiB: 1029 blocks, 16 hashes a block, 3 levels.
B_DATA=$T/b-data.img B_HASH=$T/b-hash.img B_SIZE=$((1048576 + 5120))
B_PARAMS=(--no-superblock --hash=sha512 --data-block-size=1024 --hash-block-size=1024 --salt="$SALT100")
random_bytes $B_SIZE 82 >"$B_DATA" || fail "cannot write $B_DATA"
B_ROOT=$(format "$B_DATA" "$B_HASH" "${B_PARAMS[@]}")
[ ${#B_ROOT} = 128 ] || fail "(b): veritysetup format printed root hash '$B_ROOT'"
B_DM=("${B_PARAMS[@]}")
B_VUBLK=(--hash-device=@HASH@ "${B_PARAMS[@]}")
same_image b "(b) no superblock, sha512, 1 KiB, 100-byte salt" "$B_DATA" "$B_HASH" \
	"$B_ROOT" $B_SIZE B_DM B_VUBLK

# --- (c) the hash area in the data file, at --hash-offset past the data.
# 2 MiB + 12 KiB: 515 blocks, the last level-0 block covers 3.
C_SIZE=$((2 * 1048576 + 12288))
C_OFF=$((C_SIZE + 8192))
C_DATA=$T/c-data.img
random_bytes $C_SIZE 83 >"$C_DATA" || fail "cannot write $C_DATA"
C_ROOT=$(format "$C_DATA" "$C_DATA" --hash-offset=$C_OFF --data-blocks=$((C_SIZE / 4096)))
[ ${#C_ROOT} = 64 ] || fail "(c): veritysetup format printed root hash '$C_ROOT'"
C_DM=(--hash-offset=$C_OFF)
C_VUBLK=(--hash-offset=$C_OFF)
same_image c "(c) hash area at --hash-offset=$C_OFF" "$C_DATA" "$C_DATA" "$C_ROOT" \
	$C_SIZE C_DM C_VUBLK

# --- 2. The same byte flips fail the same blocks.
# Level 0: the last block (its range is clipped), in (b) a middle one.
# damage_case CASE ARGS...: damage_setup ARGS, then the three flips.
damage_case() {
	damage_setup "$@"
	damage_data
	damage_level0 $([ "$1" = b ] && echo $((L0_BLOCKS / 2)) || echo $((L0_BLOCKS - 1)))
	damage_top
}
BLOCKS= damage_case a "$A_DATA" "$A_HASH" 4096 "$A_ROOT" 4096 4096 32 A_DM A_VUBLK
BLOCKS= damage_case b "$B_DATA" "$B_HASH" 0 "$B_ROOT" 1024 1024 64 B_DM B_VUBLK
BLOCKS=$((C_SIZE / 4096)) damage_case c "$C_DATA" "$C_DATA" $((C_OFF + 4096)) "$C_ROOT" 4096 4096 32 C_DM C_VUBLK

# --- 3. A wrong root hash.
WRONG=${A_ROOT%?}$([ "${A_ROOT: -1}" = 0 ] && echo 1 || echo 0)
if dm_open wrong "$A_DATA" "$A_HASH" "$WRONG" 2>"$T/open.err"; then
	dm_dev=$DM
	say "wrong root hash: veritysetup open accepted it (the kernel checks at read time)"
else
	dm_dev=-
	say "wrong root hash: veritysetup open refused it: $(tail -n 1 "$T/open.err")"
fi
vublk_add -t verity --format=dm-verity -f "$A_DATA" --root-hash="$WRONG" --hash-device="$A_HASH"
n=$((A_SIZE / 4096))
scan "wrong root hash" "$dm_dev" "$DEV" 4096 $n 0 $n
[ "$dm_dev" = - ] || dm_close wrong
vublk_del

[ -z "$(ls /dev/ublkb* 2>/dev/null)" ] || fail "ublk devices left: $(ls /dev/ublkb*)"
[ -z "$(ls /dev/mapper/$DM_PREFIX-* 2>/dev/null)" ] || fail "dm devices left: $(ls /dev/mapper/$DM_PREFIX-*)"
say "PASS: dm-verity and vublk --format=dm-verity agree on bytes, on damaged blocks and on a wrong root hash"
