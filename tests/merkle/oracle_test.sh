#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Oracle test: lib/merkle (through merkle_oracle_tool) against
# `fsverity digest` of fsverity-utils.  For every hash algorithm, block
# size, salt and data size below, the file digest, the Merkle tree bytes
# and the descriptor bytes must be identical.
#
#   oracle_test.sh MERKLE_ORACLE_TOOL
#
# VUBLK_SLOW_TESTS=1 adds ~300 MiB files.
set -euo pipefail

tool=$1
for cmd in fsverity openssl sha256sum; do
	if ! command -v "$cmd" >/dev/null; then
		echo "SKIP: the $cmd command is not installed (Debian packages: fsverity, openssl, coreutils)"
		exit 77
	fi
done

# tmpfs when there is one: the test writes a few hundred MiB of files.
work=$(mktemp -d -p "$( [[ -w /dev/shm ]] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")
trap 'rm -rf "$work"' EXIT

MiB=$((1024 * 1024))
max_size=$((64 * MiB + 65536))
if [[ ${VUBLK_SLOW_TESTS:-0} == 1 ]]; then
	max_size=$((300 * MiB + 12345))
fi

# Deterministic pseudo-random data (AES-CTR keystream), so that a failure
# can be reproduced; every test file is a prefix of it.
head -c "$max_size" /dev/zero |
	openssl enc -aes-128-ctr -nosalt -K 766d65726b6c65000000000000000000 \
		-iv 00000000000000000000000000000000 >"$work/pool"

failures=0
checks=0

# check ALG BLOCK_SIZE SALT_HEX SIZE: fsverity once; lib/merkle on one
# thread and, when the data spans more than one of the builder's 1 MiB
# chunks (below that it runs one thread whatever it is asked), on two.
# The digest lines must be equal, and so must the tree and descriptor
# files (compared by their SHA-256, in one process: this test runs a few
# hundred cases).
check() {
	local alg=$1 bs=$2 salt=$3 size=$4
	local what="alg=$alg block=$bs salt='$salt' size=$size"
	local salt_arg=() want got threads runs=(1) sums sum i
	local data="$work/data.$size"

	[[ -n $salt ]] && salt_arg=("--salt=$salt")
	((size > MiB)) && runs+=(2)
	[[ -e $data ]] || head -c "$size" "$work/pool" >"$data"
	want=$(fsverity digest "$data" --hash-alg="$alg" --block-size="$bs" \
		"${salt_arg[@]}" --out-merkle-tree="$work/tree.want" \
		--out-descriptor="$work/desc.want")
	for threads in "${runs[@]}"; do
		got=$("$tool" "$data" --hash-alg="$alg" --block-size="$bs" \
			"${salt_arg[@]}" --threads="$threads" \
			--out-merkle-tree="$work/tree.$threads" \
			--out-descriptor="$work/desc.$threads")
		checks=$((checks + 1))
		if [[ $want != "$got" ]]; then
			echo "FAIL digest: $what threads=$threads: fsverity '$want', lib/merkle '$got'"
			failures=$((failures + 1))
		fi
	done
	sums=()
	while read -r sum _; do
		sums+=("$sum")
	done < <(cd "$work" && sha256sum tree.want desc.want \
		"${runs[@]/#/tree.}" "${runs[@]/#/desc.}")
	for i in "${!runs[@]}"; do
		if [[ ${sums[2 + i]} != "${sums[0]}" ]]; then
			echo "FAIL tree bytes: $what threads=${runs[i]}"
			failures=$((failures + 1))
		fi
		if [[ ${sums[2 + ${#runs[@]} + i]} != "${sums[1]}" ]]; then
			echo "FAIL descriptor bytes: $what threads=${runs[i]}"
			failures=$((failures + 1))
		fi
	done
	# Big files are used by one salt only (below): free the tmpfs.
	((size <= 4 * MiB)) || rm -f "$data"
}

# Sizes for one configuration: the small edge cases, then the first size
# of each tree depth (bs * hpb^k + 1), an odd multi-block-level size and
# sizes around the builder's 1 MiB read chunks, up to max_size.
sizes_for() {
	local bs=$1 digest_size=$2 hpb n
	hpb=$((bs / digest_size))
	echo 0 1 $((bs - 1)) "$bs" $((bs + 1))
	for ((n = bs * hpb; n < max_size; n *= hpb)); do
		echo $((n + 1))
	done
	for n in $((3 * bs * hpb + 12345)) $((MiB - 1)) $((2 * MiB + bs + 7)); do
		((n < max_size)) && echo "$n"
	done
	if [[ ${VUBLK_SLOW_TESTS:-0} == 1 ]]; then
		echo $((300 * MiB + 12345))
	fi
}

for alg in sha256 sha512; do
	digest_size=32
	[[ $alg == sha512 ]] && digest_size=64
	for bs in 1024 4096 65536; do
		# No salt, a short one and the longest (32 bytes).
		for salt in "" 0badc0ffee1234567890abcd \
			00112233445566778899aabbccddeeff0123456789abcdeffedcba9876543210; do
			for size in $(sizes_for "$bs" "$digest_size"); do
				# Big files with one salt only, to stay fast.
				if ((size > 4 * MiB)) &&
					[[ $salt != 0badc0ffee1234567890abcd ]]; then
					continue
				fi
				check "$alg" "$bs" "$salt" "$size"
			done
		done
	done
done

echo "$checks lib/merkle runs checked, $failures mismatches"
((failures == 0))
