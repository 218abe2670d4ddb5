#!/bin/bash
# A ~300 MiB file (1 KiB blocks: a 4-level tree) through `vublk-verity
# digest` and `fsverity digest`; only with VUBLK_SLOW_TESTS=1, else
# reported as skipped (exit 77).
[ "${VUBLK_SLOW_TESTS:-0}" = 1 ] || { echo "set VUBLK_SLOW_TESTS=1 to run"; exit 77; }
# shellcheck source=tests/tool/lib.sh
. "$(dirname "$0")/lib.sh"

gen_data $((300 * 1048576 + 12345)) 42 big
for opts in "--block-size=1024" "--hash-alg=sha512 --block-size=4096 --salt=abcd"; do
	# shellcheck disable=SC2086 # word splitting of opts is intended
	fsverity digest big $opts --out-merkle-tree=fs.tree --out-descriptor=fs.desc >fs.line
	# shellcheck disable=SC2086
	"$VV" digest big $opts --out-merkle-tree=vv.tree --out-descriptor=vv.desc >vv.line
	cmp fs.line vv.line || fail "$opts: '$(cat vv.line)' != '$(cat fs.line)'"
	cmp fs.tree vv.tree || fail "$opts: Merkle tree differs"
	cmp fs.desc vv.desc || fail "$opts: descriptor differs"
done
echo "300 MiB: identical to fsverity digest"
