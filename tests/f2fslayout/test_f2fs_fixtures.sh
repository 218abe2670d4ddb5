#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_f2fs_fixtures.sh VUBLK_VERITY F2FS_PROBE FIXTURES: real f2fs images
# made by the kernel (make-f2fs-fixtures, in the VM) read offline.
#
# The oracles were recorded when the images were made: NAME.digests is
# the kernel's `fsverity measure` of every verity file, NAME.sums the
# sha256sum of every file read through the mounted filesystem.  Here:
#  - `f2fs list` prints exactly the kernel's digests, except for the
#    files it names on stderr as compressed (the one kind it skips);
#  - `f2fs check` verifies them all, prints the same lines, and exits 0
#    only when nothing was skipped;
#  - every file read through its extents has the sha256sum the kernel
#    gave it (inline data, holes, direct and indirect nodes), after a
#    lookup by name through the hashed dentries found the inode the walk
#    found (f2fs_probe sums).
PROBE=$(realpath "$2")
FIXTURES=$(realpath "$3")
. "$(dirname "$0")/../tool/lib.sh"	# cds into a scratch directory

# The files `list` skipped, from its error lines; all must be compressed.
skipped_files() {
	sed -n 's/^vublk-verity f2fs: [^:]*:\(\/[^:]*\): skipped: compressed f2fs file.*/\1/p' "$1"
}

check_fixture() {
	local name=$1 img=$WORK/$1.img want=$FIXTURES/$1.digests status
	xz -dc "$FIXTURES/$name.img.xz" >"$img"

	status=0
	"$VV" f2fs list "$img" >"$WORK/list" 2>"$WORK/list.err" || status=$?
	[ "$(wc -l <"$WORK/list.err")" -eq "$(skipped_files "$WORK/list.err" | wc -l)" ] ||
		fail "$name: list reported more than compressed files: $(cat "$WORK/list.err")"
	skipped_files "$WORK/list.err" | sed 's/.*/ &$/' >"$WORK/skipped"
	grep -v -f "$WORK/skipped" "$want" | sort >"$WORK/want" || true
	sort "$WORK/list" | cmp -s - "$WORK/want" ||
		fail "$name: list differs from fsverity measure: $(sort "$WORK/list" | diff - "$WORK/want")"
	[ "$(wc -l <"$WORK/want")" -gt 0 ] || fail "$name: no verity file listed"
	if [ -s "$WORK/skipped" ]; then
		[ "$status" -eq 1 ] || fail "$name: list skipped files but exited $status"
	else
		[ "$status" -eq 0 ] || fail "$name: list exited $status"
	fi

	# --json: the same files and digests, and each file's parameters.
	"$VV" f2fs list --json "$img" 2>/dev/null | "$PYTHON" -c '
import json, sys
for f in json.load(sys.stdin):
    alg = f["digest"].split(":")[0]
    assert alg == f["hash_algorithm"] and f["block_size"] in (1024, 2048, 4096), f
    assert f["size"] >= 0 and f["sig_size"] == 0, f
    print(f["digest"], f["path"])' | cmp -s - "$WORK/list" ||
		fail "$name: list --json differs from list"

	status=0
	"$VV" f2fs check "$img" -j 2 >"$WORK/check" 2>"$WORK/check.err" || status=$?
	cmp -s "$WORK/check" "$WORK/list" || fail "$name: check printed other lines than list"
	grep -qE "does not match|blocks do not match the Merkle tree" "$WORK/check.err" && fail "$name: check found bad blocks: $(cat "$WORK/check.err")"
	[ "$status" -eq "$([ -s "$WORK/skipped" ] && echo 1 || echo 0)" ] ||
		fail "$name: check exited $status: $(cat "$WORK/check.err")"

	"$PROBE" sums "$img" >"$WORK/sums" || fail "$name: f2fs_probe sums failed"
	grep -v '^SKIP ' "$WORK/sums" | sort >"$WORK/sums.ok"
	grep '^SKIP ' "$WORK/sums" | grep -qv 'compressed f2fs file' &&
		fail "$name: a file other than a compressed one could not be read: $(grep '^SKIP ' "$WORK/sums")"
	sed -n 's/^SKIP \(.*\): compressed f2fs file.*/  \1$/p' "$WORK/sums" >"$WORK/sums.skipped"
	sort "$FIXTURES/$name.sums" | grep -v -f "$WORK/sums.skipped" >"$WORK/sums.want" || true
	cmp -s "$WORK/sums.ok" "$WORK/sums.want" ||
		fail "$name: file contents differ from the kernel's: $(diff "$WORK/sums.ok" "$WORK/sums.want" | head)"
	echo "ok: $name: $(wc -l <"$WORK/list") verity files, $(wc -l <"$WORK/sums.ok") files read"
}

check_fixture basic
check_fixture features
# features has a compressed verity file: it must have been reported.
grep -q compressed "$WORK/skipped" || fail "features: the compressed verity file was not reported"
