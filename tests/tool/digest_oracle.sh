#!/bin/bash
# `vublk-verity digest` against `fsverity digest` (fsverity-utils, the
# oracle): the printed line, --compact, --for-builtin-sig, and the
# --out-merkle-tree / --out-descriptor files must be byte-identical, over
# sizes around block boundaries and multi-level trees, both hash
# algorithms, three block sizes, with and without salt.
# shellcheck source=tests/tool/lib.sh
. "$(dirname "$0")/lib.sh"

SALT32=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

# compare NAME OPTION...: the line and both --out-* files, in one run of
# each tool (process start-up dominates the run time of small files).
compare() {
	local f=$1
	shift
	fsverity digest "$f" "$@" --out-merkle-tree=fs.tree \
		--out-descriptor=fs.desc >fs.line
	"$VV" digest "$f" "$@" --out-merkle-tree=vv.tree \
		--out-descriptor=vv.desc >vv.line
	cmp -s fs.line vv.line ||
		fail "$f $*: '$(cat vv.line)' != fsverity's '$(cat fs.line)'"
	cmp fs.tree vv.tree || fail "$f $*: Merkle tree differs"
	cmp fs.desc vv.desc || fail "$f $*: descriptor differs"
}

# compare_output NAME OPTION...: stdout only.
compare_output() {
	[ "$(fsverity digest "$@")" = "$("$VV" digest "$@")" ] ||
		fail "$*: '$("$VV" digest "$@")' != fsverity's '$(fsverity digest "$@")'"
}

sizes="0 1 4095 4096 4097 1048577 20971520"
seed=1
for size in $sizes; do
	gen_data "$size" $seed "f$size"
	seed=$((seed + 1))
done

# Every size x algorithm x block size; salt on every other set, so both
# kinds meet every size, algorithm and block size.
cases=0
for size in $sizes; do
	for alg in sha256 sha512; do
		for bs in 1024 4096 65536; do
			if [ $((cases % 2)) = 1 ]; then
				compare "f$size" --hash-alg=$alg --block-size=$bs \
					--salt=$SALT32
			else
				compare "f$size" --hash-alg=$alg --block-size=$bs
			fi
			cases=$((cases + 1))
		done
	done
done

# Odd salt lengths, defaults, --compact, several files per call, the
# signature form, and one thread vs two (same bytes, other code path).
compare f4097 --salt=ab
compare f1048577 --salt=0123456789
compare f1048577
compare_output --compact f4097
compare_output --compact --hash-alg=sha512 --salt=$SALT32 f1048577
compare_output f0 f1 f4096 f20971520
compare_output --for-builtin-sig f1
compare_output --for-builtin-sig --hash-alg=sha512 f1048577
"$VV" digest -j 1 --block-size=1024 f20971520 >vv.j1
"$VV" digest -j 2 --block-size=1024 f20971520 >vv.j2
fsverity digest --block-size=1024 f20971520 >fs.j
cmp fs.j vv.j1 || fail "-j 1 disagrees with fsverity"
cmp fs.j vv.j2 || fail "-j 2 disagrees with fsverity"

# The descriptor into a pipe, as fsverity digest writes to /dev/stdout:
# its 256 bytes, then the digest line.
"$VV" digest f4097 --out-descriptor=/dev/stdout | head -c 256 >vv.piped
fsverity digest f4097 --out-descriptor=fs.desc >/dev/null
cmp fs.desc vv.piped || fail "--out-descriptor=/dev/stdout into a pipe"

echo "digest oracle: $((cases + 3)) parameter sets identical to fsverity digest"
