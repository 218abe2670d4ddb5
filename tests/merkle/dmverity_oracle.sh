#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Oracle test: lib/merkle's dm-verity trees (through merkle_oracle_tool
# --format=dm-verity) against `veritysetup format` of cryptsetup.  For
# every hash algorithm vublk serves (all that veritysetup's OpenSSL
# backend formats, under some of OpenSSL's other names too), hash and
# data block size (equal or not), salt and data size below, the root
# hash and the tree bytes must be identical: with --no-superblock the
# whole hash file, with a superblock what follows it.
#
#   dmverity_oracle.sh MERKLE_ORACLE_TOOL
set -euo pipefail

tool=$1
for cmd in veritysetup openssl cmp; do
	if ! command -v "$cmd" >/dev/null; then
		echo "SKIP: the $cmd command is not installed (Debian packages: cryptsetup-bin, openssl, diffutils)"
		exit 77
	fi
done

work=$(mktemp -d -p "$( [[ -w /dev/shm ]] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")
trap 'rm -rf "$work"' EXIT

# Deterministic pseudo-random data and salts (AES-CTR keystream).
head -c $((9 * 1024 * 1024)) /dev/zero |
	openssl enc -aes-128-ctr -nosalt -K 766d65726b6c65000000000000000000 \
		-iv 00000000000000000000000000000001 >"$work/pool"
salt_of() { head -c "$1" "$work/pool" | od -An -tx1 -v | tr -d ' \n'; }

failures=0
checks=0

# check ALG BLOCK_SIZE SALT_BYTES BLOCKS SUPERBLOCK(0|1) [DATA_BLOCK_SIZE
#       [HASH_TYPE]]
check() {
	local alg=$1 bs=$2 salt_bytes=$3 blocks=$4 sb=$5 dbs=${6:-$2} type=${7:-1}
	local what="alg=$alg hash-block=$bs data-block=$dbs salt=${salt_bytes}B blocks=$blocks superblock=$sb hash-type=$type"
	local salt=- sb_arg=(--no-superblock) want got skip=0

	((salt_bytes)) && salt=$(salt_of "$salt_bytes")
	((sb)) && { sb_arg=(); skip=$(( (512 + bs - 1) / bs * bs )); }
	head -c $((blocks * dbs)) "$work/pool" >"$work/data"
	rm -f "$work/hash"
	want=$(veritysetup format "$work/data" "$work/hash" "${sb_arg[@]}" \
		--hash="$alg" --data-block-size="$dbs" --hash-block-size="$bs" \
		--salt="$salt" --format="$type" 2>"$work/err" |
		sed -n 's/^Root hash:[[:space:]]*//p')
	got=$("$tool" "$work/data" --format=dm-verity --hash-type="$type" \
		--hash-alg="$alg" \
		--block-size="$bs" --data-block-size="$dbs" \
		${salt_bytes:+--salt=${salt#-}} \
		--out-merkle-tree="$work/tree" | sed -n 's/^Root hash: //p')
	checks=$((checks + 1))
	if [[ -z $want || $want != "$got" ]]; then
		echo "FAIL $what: root hash veritysetup '$want', lib/merkle '$got'"
		cat "$work/err"
		failures=$((failures + 1))
	elif ! cmp -s <(tail -c +$((skip + 1)) "$work/hash") "$work/tree"; then
		echo "FAIL $what: tree bytes differ"
		failures=$((failures + 1))
	fi
}

# VUBLK_ORACLE_STRIDE=N runs every Nth case of this first matrix (tests/run's
# sanitizer pass: bit-exactness does not depend on the build, and the whole
# matrix ran in build/); the cases after it always run.
case_no=0
sampled() { ((case_no++ % ${VUBLK_ORACLE_STRIDE:-1} == 0)); }

for alg in sha256 sha512; do
	for bs in 512 1024 4096 65536; do
		for salt_bytes in 0 32 64 100 256; do
			for blocks in 1 2 3 17; do
				sampled || continue
				check "$alg" "$bs" "$salt_bytes" "$blocks" $((blocks % 2))
			done
		done
		# Two and three levels: one more block than fills a level.
		per=$((bs / ($([[ $alg == sha256 ]] && echo 32 || echo 64)) ))
		check "$alg" "$bs" 32 $((per + 1)) 1
		((per * per * bs + bs <= 9 * 1024 * 1024)) &&
			check "$alg" "$bs" 7 $((per * per + 1)) 0
	done
done
check sha256 4096 32 2304 1

# Data and hash blocks of different sizes, either way round.
for pair in "4096 512" "512 4096" "1024 4096" "4096 65536" "65536 1024"; do
	read -r bs dbs <<<"$pair"
	for blocks in 1 9 300; do
		check sha256 "$bs" 32 "$blocks" $((blocks % 2)) "$dbs"
	done
done
# Hash type 0 (Chrome OS's, --format=0): the salt hashed after the block,
# the hashes packed (SHA-1's 20 bytes each, where type 1 takes 32).
check sha1 4096 32 600 1 4096 0
check sha256 512 7 300 0 4096 0
check sha512 1024 0 2000 1 1024 0
# Blocks up to veritysetup's 512 KiB (VERITY_BLOCK_SIZE_OK()): hash
# blocks of 16384 SHA-256 hashes, two levels of them over 512-byte data
# blocks, and 512 KiB data blocks under 128 KiB hash blocks.
check sha256 524288 32 3 1
check sha256 524288 7 16385 0 512
check sha1 131072 0 9 1 524288
check sha512 131072 32 17 0 131072
# dm-verity's other algorithms: a SHA-1 hash takes 32 bytes of a block,
# a SHA-384 one 64.
for alg in sha1 sha384; do
	for bs in 512 4096; do
		for blocks in 1 3 200 5000; do
			((blocks * bs <= 9 * 1024 * 1024)) &&
				check "$alg" "$bs" 32 "$blocks" $((blocks % 2))
		done
	done
	check "$alg" 4096 0 40 0 1024
done
# The rest of what the kernel's dm-verity and veritysetup share, each in
# a two-level tree with a salt and mixed block sizes.
for alg in sha224 sha3-256 sha3-384 sha3-512 blake2b-512 blake2s-256 sm3 \
	   md5 rmd160; do
	check "$alg" 1024 32 300 1
	check "$alg" 512 7 9 0 4096
done
# The rest of what veritysetup formats (its OpenSSL backend fetches any
# digest of the default and legacy providers), once each: two levels, an odd
# salt, no superblock, data blocks larger than the hash blocks.  The
# SHAKEs and Keccak-KMACs are XOFs, MD5-SHA1 a 36-byte digest, MD4 and
# Whirlpool the legacy provider's.
for alg in sha3-224 sha512-224 sha512-256 shake128 shake256 \
	   keccak-kmac-128 keccak-kmac-256 md5-sha1 md4 whirlpool; do
	check "$alg" 1024 7 300 0 4096
done
# Other names OpenSSL has for them, which veritysetup takes and stores.
for alg in SHA2-256 1.3.36.3.2.1 WHIRLPOOL; do
	check "$alg" 4096 32 40 1
done

echo "$checks cases, $failures failed"
((failures == 0))
