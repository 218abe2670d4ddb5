#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# vm_matrix.sh: the corrupt-image matrix (make-corrupt-images) through
# `vublk add -t verity` on the real kernel:
#   ok        add succeeds and the whole device reads back
#   refuse    add fails, its error contains the case's phrase
#   badblock  add succeeds; an O_DIRECT read of data block N fails with
#             EIO, and block 0 reads when N > 0
#   digest    add with --digest=<the sealed image's digest> fails
# A case whose data size a block device cannot expose (not a multiple of
# 512) is counted as not applicable when add says exactly that.
#
# Needs ublk_drv (exits 77 without it), VUBLK_BUILD (the meson build dir)
# and VUBLK_SCRATCH (a writable directory), as kernel tests get them:
#   VUBLK_BUILD=$PWD/build tests/vm/run -- tests/hostile/vm_matrix.sh
# or from a one-line tests/kernel-tests/<group>/NN-*.sh that execs it.
# One "FAIL case: why" line per failure, then a summary line.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
VUBLK=${VUBLK_BUILD:?VUBLK_BUILD must name the meson build directory}/daemon/vublk
VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity
SCRATCH=${VUBLK_SCRATCH:?VUBLK_SCRATCH must name a writable directory}
CASES=$SCRATCH/hostile-cases

if [ ! -x "$VUBLK" ] || [ ! -x "$VV" ]; then
	echo "vm_matrix: $VUBLK or $VV missing: build first (ninja -C $VUBLK_BUILD)" >&2
	exit 1
fi
[ -e /dev/ublk-control ] || modprobe ublk_drv 2>/dev/null
[ -e /dev/ublk-control ] || { echo "vm_matrix: SKIP: no /dev/ublk-control"; exit 77; }
trap '"$VUBLK" del -a >/dev/null 2>&1' EXIT

python3 "$HERE/make-corrupt-images" "$CASES" "$VV" >/dev/null ||
	{ echo "vm_matrix: make-corrupt-images failed" >&2; exit 1; }

total=0 failed=0 not_applicable=0
fail() {
	echo "FAIL $name ($kind): $*" >&2
	failed=$((failed + 1))
}

# add_device ARGS...: vublk add -t verity -f IMG ARGS; sets DEV, ID, or
# returns 1 with the error in $WORK_ERR.
WORK_ERR=$SCRATCH/hostile-add.err
add_device() {
	DEV=$(timeout 60 "$VUBLK" add -t verity -f "$img" "$@" 2>"$WORK_ERR") ||
		return 1
	ID=${DEV#/dev/ublkb}
}

del_device() {
	timeout 60 "$VUBLK" del -n "$ID" >/dev/null 2>&1 ||
		fail "vublk del -n $ID failed"
}

# read_block N BS: O_DIRECT read of data block N of $DEV.
read_block() {
	timeout 60 dd if="$DEV" of=/dev/null bs="$2" skip="$1" count=1 \
		iflag=direct status=none 2>"$SCRATCH/hostile-dd.err"
}

# Added but the kernel cannot expose the data size: not applicable.
size_not_exposable() {
	grep -q "not a positive multiple of 512" "$WORK_ERR"
}

check_case() {
	local bs
	case $kind in
	ok)
		if ! add_device; then
			size_not_exposable && { not_applicable=$((not_applicable + 1)); return; }
			fail "add refused a sealed image: $(head -c 300 "$WORK_ERR")"; return
		fi
		timeout 120 dd if="$DEV" of=/dev/null bs=64k iflag=direct status=none ||
			fail "reading the whole device failed"
		del_device
		;;
	refuse)
		if add_device; then
			fail "add accepted it as $DEV"; del_device; return
		fi
		grep -qF -- "$detail" "$WORK_ERR" ||
			fail "refused for another reason than '$detail': $(head -c 300 "$WORK_ERR")"
		;;
	badblock)
		if ! add_device; then
			size_not_exposable && { not_applicable=$((not_applicable + 1)); return; }
			fail "add refused it: $(head -c 300 "$WORK_ERR")"; return
		fi
		bs=$("$VV" dump --json "$img" | python3 -c \
			'import json, sys; print(json.load(sys.stdin)["descriptor"]["block_size"])')
		if read_block "$detail" "$bs"; then
			fail "data block $detail read without error"
		elif ! grep -q "Input/output error" "$SCRATCH/hostile-dd.err"; then
			fail "data block $detail: $(cat "$SCRATCH/hostile-dd.err"), not EIO"
		fi
		if [ "$detail" != 0 ] && ! read_block 0 "$bs"; then
			fail "data block 0 (intact) failed too"
		fi
		del_device
		;;
	digest)
		if add_device --digest="$detail"; then
			fail "add accepted it with --digest=$detail"; del_device
		fi
		;;
	*)
		fail "unknown kind in cases.tsv"
		;;
	esac
}

while IFS=$'\t' read -r name kind detail; do
	case $name in '#'*|'') continue ;; esac
	total=$((total + 1))
	img=$CASES/$name.img
	check_case
done <"$CASES/cases.tsv"

echo "vm corrupt-image matrix: $total cases, $failed failed, $not_applicable not applicable (data size not a multiple of 512)"
[ "$total" -gt 50 ] && [ "$failed" = 0 ]
