#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The issue's oracle: mkfs.f2fs -O extra_attr,verity, a tree of files of
# many sizes (0, 1, 4095, 4096, 64 KiB +-1, one over 100 MiB, inline
# files, a directory with thousands of entries), fs-verity on most of
# them with different block sizes, salts and algorithms, umount.  Then
# `vublk-verity f2fs list` on the image prints what `fsverity measure`
# printed, `check` passes, a single PATH and a directory PATH list just
# theirs, and every file read through its extents has the sha256sum the
# kernel read.
. "$(dirname "$0")/lib.sh"

make_f2fs 384M
put_file empty 0;		verity empty
put_file one 1;			verity one --block-size=1024
put_file b4095 4095;		verity b4095 --hash-alg=sha512
put_file b4096 4096;		verity b4096 --block-size=2048 --salt=5a5a
put_file b65535 65535;		verity b65535 --salt=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
put_file b65536 65536;		verity b65536 --block-size=1024 --hash-alg=sha512 --salt=01
put_file b65537 65537;		verity b65537
put_file big/over-100M $((105 * 1024 * 1024 + 12345)); verity big/over-100M --block-size=2048
put_file inline/plain 200
put_file inline/verity 3000;	verity inline/verity --hash-alg=sha512 --block-size=1024
put_file plain 300000
# Thousands of entries: a directory of many hash levels; a few verity.
python3 - "$MNT/crowd" <<'PY' || fail "populating crowd/"
import os, sys
d = sys.argv[1]
os.mkdir(d)
for i in range(3000):
    with open(os.path.join(d, "n%0*d" % (i % 40 + 1, i)), "wb") as f:
        f.write(os.urandom(i % 97))
PY
for i in 7 1500 2999; do
	f=$(cd "$MNT/crowd" && ls | grep -E "^n0*$i\$")
	put_file "crowd/$f" $((i * 31));	verity "crowd/$f" --block-size=$((1024 << (i % 3)))
done
(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sed 's|  \./|  /|' >"$T/sums" ||
	fail "sha256sum of the tree"
kernel_digests >"$T/want"
[ "$(wc -l <"$T/want")" -eq 12 ] || fail "expected 12 verity files, the kernel measured $(wc -l <"$T/want")"
unmount
say "made $(wc -l <"$T/sums") files, $(wc -l <"$T/want") with fs-verity"

"$VV" f2fs list "$IMG" | sort >"$T/list" || fail "vublk-verity f2fs list failed"
diff "$T/list" "$T/want" || fail "f2fs list differs from fsverity measure"
"$VV" f2fs check -j 2 "$IMG" >"$T/check" 2>"$T/check.err" ||
	fail "f2fs check failed: $(cat "$T/check.err")"
sort "$T/check" | diff - "$T/want" || fail "f2fs check printed other lines than fsverity measure"

# PATHs: one file, and a directory (its verity files only).
"$VV" f2fs list "$IMG" /b4096 | diff - <(grep ' /b4096$' "$T/want") || fail "list of one PATH"
"$VV" f2fs check "$IMG" crowd/ | sort | diff - <(grep ' /crowd/' "$T/want") || fail "check of a directory PATH"

"$PROBE" sums "$IMG" | sort >"$T/probe-sums" || fail "f2fs_probe sums failed"
sort "$T/sums" | diff - "$T/probe-sums" || fail "file contents read offline differ from the kernel's"
say "list and check agree with fsverity measure on $(wc -l <"$T/want") files; $(wc -l <"$T/sums") files read back"
