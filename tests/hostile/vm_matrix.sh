#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# vm_matrix.sh [--one-per-class]: the corrupt-image matrix
# (make-corrupt-images) through `vublk add -t verity` on the real kernel:
#   ok        add succeeds and the whole device reads back
#   refuse    add fails with ONE error line that contains the case's phrase
#   badarg    the same (an option's file is bad)
#   badblock  add succeeds; an O_DIRECT read of data block N fails with
#             EIO, and block 0 reads when N > 0
#   digest    add with --digest=<the sealed image's digest> fails with ONE
#             line saying the image's digest is not that one
# After every case no /dev/ublkb* or /dev/ublkc* is left.  A case whose
# data size a block device cannot expose (not a multiple of 512) is
# counted as not applicable when add says exactly that.
#
# --one-per-class: only the first applicable case of each class, in
# cases.tsv order: a class is a kind and its base image (small-, multi-),
# and for 'refuse' also the phrase, i.e. each distinct refusal message.
# That is about 50 of the ~170 cases; the rule, not a list, picks them.
#
# Needs ublk_drv (exits 77 without it), VUBLK_BUILD (the meson build dir)
# and VUBLK_SCRATCH (a writable directory), as kernel tests get them:
#   VUBLK_BUILD=$PWD/build tests/vm/run -- tests/hostile/vm_matrix.sh
# tests/kernel-tests/hostile/01-corrupt-matrix.sh runs it in the kernel
# tests.  One "FAIL case: why" line per failure, then a summary line.
#
# Speed: under TCG every process start costs 0.1-1 s, so each case runs
# exactly the processes it tests (a refusal: one `vublk add`); the checks
# are shell builtins, and nothing sleeps or polls.  A hung add is caught
# by the kernel tests' per-script timeout; the log's last "case" line
# names it.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
VUBLK=${VUBLK_BUILD:?VUBLK_BUILD must name the meson build directory}/daemon/vublk
VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity
MAKE_TEST_PKI=$VUBLK_BUILD/tests/sig/make_test_pki
SCRATCH=${VUBLK_SCRATCH:?VUBLK_SCRATCH must name a writable directory}
CASES=$SCRATCH/hostile-cases
OUT=$SCRATCH/hostile-add.out
ERR=$SCRATCH/hostile-add.err
DD_ERR=$SCRATCH/hostile-dd.err

one_per_class=no
case ${1:-} in
--one-per-class) one_per_class=yes ;;
'') ;;
*) echo "vm_matrix: unknown argument '$1' (usage: vm_matrix.sh [--one-per-class])" >&2; exit 2 ;;
esac
if [ ! -x "$VUBLK" ] || [ ! -x "$VV" ]; then
	echo "vm_matrix: $VUBLK or $VV missing: build first (ninja -C $VUBLK_BUILD)" >&2
	exit 1
fi
[ -e /dev/ublk-control ] || modprobe ublk_drv 2>/dev/null
[ -e /dev/ublk-control ] || { echo "vm_matrix: SKIP: no /dev/ublk-control"; exit 77; }
trap '"$VUBLK" del -a >/dev/null 2>&1' EXIT

python3 "$HERE/make-corrupt-images" "$CASES" "$VV" "$MAKE_TEST_PKI" >/dev/null ||
	{ echo "vm_matrix: make-corrupt-images failed" >&2; exit 1; }

total=0 failed=0 not_applicable=0
fail() {
	echo "FAIL $name ($kind): $*" >&2
	failed=$((failed + 1))
}

# slurp FILE: its text in TEXT and its line count in LINES (builtins).
slurp() {
	local line
	TEXT= LINES=0
	while IFS= read -r line || [ -n "$line" ]; do
		TEXT+=$line$'\n'
		LINES=$((LINES + 1))
	done <"$1"
}

# add_device ARGS...: vublk add -t verity -f IMG ARGS and the case's
# options; sets DEV and ID, or returns 1 with the error in TEXT and LINES.
add_device() {
	if "$VUBLK" add -t verity -f "$img" "$@" "${extra[@]}" >"$OUT" 2>"$ERR"; then
		read -r DEV <"$OUT"
		ID=${DEV#/dev/ublkb}
		return 0
	fi
	slurp "$ERR"
	return 1
}

del_device() {
	"$VUBLK" del -n "$ID" >/dev/null 2>&1 || fail "vublk del -n $ID failed"
}

# refused_with PHRASE: the failed add printed one line, containing PHRASE.
refused_with() {
	[ "$LINES" = 1 ] && [[ $TEXT == *"$1"* ]] ||
		fail "expected one error line with '$1', got $LINES: ${TEXT:0:300}"
}

# read_block N BS: O_DIRECT read of data block N of $DEV.
read_block() {
	dd if="$DEV" of=/dev/null bs="$2" skip="$1" count=1 iflag=direct \
		status=none 2>"$DD_ERR"
}

# Refused because the kernel cannot expose the data size: the case is
# not applicable (counted, and it does not use up its class).
not_applicable() {
	[ "$LINES" = 1 ] && [[ $TEXT == *"not a positive multiple of 512"* ]] ||
		return 1
	not_applicable=$((not_applicable + 1))
	applicable=no
}

# The data block size of $img, from `vublk-verity dump`.
block_size() {
	local key value
	while IFS=: read -r key value; do
		[ "$key" = "  block size" ] && { echo $value; return; }
	done < <("$VV" dump "$img")
}

check_ok() {
	if ! add_device; then
		not_applicable && return
		fail "add refused a sealed image: ${TEXT:0:300}"; return
	fi
	dd if="$DEV" of=/dev/null bs=64k iflag=direct status=none ||
		fail "reading the whole device failed"
	del_device
}

check_badblock() {
	local bs
	if ! add_device; then
		not_applicable && return
		fail "add refused it: ${TEXT:0:300}"; return
	fi
	bs=$(block_size)
	if read_block "$detail" "$bs"; then
		fail "data block $detail read without error"
	else
		slurp "$DD_ERR"
		[[ $TEXT == *"Input/output error"* ]] ||
			fail "data block $detail: ${TEXT:0:200}, not EIO"
	fi
	if [ "$detail" != 0 ] && ! read_block 0 "$bs"; then
		fail "data block 0 (intact) failed too"
	fi
	del_device
}

check_case() {
	case $kind in
	ok) check_ok ;;
	badblock) check_badblock ;;
	refuse|badarg)
		if add_device; then
			fail "add accepted it as $DEV"; del_device; return
		fi
		refused_with "$detail"
		;;
	digest)
		if add_device --digest="$detail"; then
			fail "add accepted it with --digest=$detail"; del_device; return
		fi
		not_applicable && return
		refused_with "not the --digest $detail: refusing it"
		;;
	*)
		fail "unknown kind in cases.tsv"
		;;
	esac
	if compgen -G "/dev/ublk[bc]*" >/dev/null; then
		fail "ublk devices left: $(echo /dev/ublk[bc]*)"
		"$VUBLK" del -a >/dev/null 2>&1
	fi
}

declare -A seen=()
while IFS=$'\t' read -r name kind detail args; do
	case $name in '#'*|'') continue ;; esac
	# The case's options; "@/" is the cases directory.
	read -r -a extra <<<"${args//@\//$CASES/}"
	class="${name%%-*} $kind"
	[ "$kind" = refuse ] && class+=" $detail"
	[ $one_per_class = yes ] && [ -n "${seen[$class]:-}" ] && continue
	total=$((total + 1))
	img=$CASES/$name.img
	echo "case $name ($kind)"
	applicable=yes
	check_case
	[ $applicable = yes ] && seen[$class]=1
done <"$CASES/cases.tsv"

echo "vm corrupt-image matrix: $total cases, $failed failed, $not_applicable not applicable (data size not a multiple of 512)"
if [ $one_per_class = yes ]; then
	[ "$total" -gt 20 ] && [ "$failed" = 0 ]
else
	[ "$total" -gt 50 ] && [ "$failed" = 0 ]
fi
