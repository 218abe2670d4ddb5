#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# corrupt_matrix.sh VUBLK_VERITY MAKE_TEST_PKI: every case of
# make-corrupt-images must get the right answer from `vublk-verity verify`
# (with the case's options), within 10 s and without a crash:
#   ok        exit 0
#   refuse    exit 1, nothing on stdout, ONE line on stderr that contains
#             the case's phrase (so a refusal for the wrong reason fails)
#   badarg    the same with exit 2 (an option's file is bad)
#   badblock  exit 1, nothing on stdout, the first stderr line names the
#             case's data block, the last one is the summary
#   digest    with --digest of the sealed image: exit 1, one line saying
#             the digest does not match (without it: no crash, no hang)
# Every case runs; each failure is one "FAIL case: why" line.
set -u

VV=$(realpath "$1")
MAKE_TEST_PKI=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vublk-hostile.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

/usr/bin/python3 "$HERE/make-corrupt-images" "$WORK/cases" "$VV" \
	"$MAKE_TEST_PKI" >/dev/null ||
	{ echo "FAIL: make-corrupt-images could not build the matrix" >&2; exit 1; }

failed=0
total=0
fail() {
	echo "FAIL $name ($kind): $*; stderr: $(head -c 600 "$WORK/err")" >&2
	failed=$((failed + 1))
}

# check_case: judge the verify run of case $name (status, out, err).
check_case() {
	local lines first last want
	if [ "$status" = 124 ]; then
		fail "verify hung (killed after 10 s)"; return
	elif [ "$status" -ge 128 ]; then
		fail "verify crashed (exit $status)"; return
	fi
	lines=$(wc -l <"$WORK/err")
	case $kind in
	ok)
		[ "$status" = 0 ] || fail "sealed image not verified (exit $status)"
		;;
	refuse|badarg)
		want=1
		[ "$kind" = badarg ] && want=2
		[ "$status" = "$want" ] || { fail "exit $status, expected $want"; return; }
		[ ! -s "$WORK/out" ] || { fail "printed a digest"; return; }
		[ "$lines" = 1 ] || { fail "$lines error lines, expected one"; return; }
		grep -qF -- "$detail" "$WORK/err" ||
			fail "refused for another reason than '$detail'"
		;;
	badblock)
		[ "$status" = 1 ] || { fail "exit $status, expected 1"; return; }
		[ ! -s "$WORK/out" ] || { fail "printed a digest"; return; }
		first=$(head -n1 "$WORK/err")
		last=$(tail -n1 "$WORK/err")
		case $first in
		"$img: data block $detail (offset "*") does not match the Merkle tree") ;;
		*) fail "first bad block named is not $detail" ; return ;;
		esac
		case $last in
		*"data blocks do not match the Merkle tree") ;;
		*) fail "no summary line" ;;
		esac
		;;
	digest)
		# The run without --digest only had to end cleanly (above).
		timeout 10 "$VV" verify --digest="$detail" "$img" "${extra[@]}" \
			>"$WORK/out" 2>"$WORK/err"
		status=$?
		[ "$status" = 1 ] || { fail "--digest: exit $status, expected 1"; return; }
		if [ "$(wc -l <"$WORK/err")" != 1 ] ||
		   ! grep -qF "does not match the expected $detail" "$WORK/err"; then
			fail "--digest: not refused for the digest"
		fi
		;;
	*)
		fail "unknown kind in cases.tsv"
		;;
	esac
}

cd "$WORK/cases" || exit 1
while IFS=$'\t' read -r name kind detail args; do
	case $name in '#'*|'') continue ;; esac
	total=$((total + 1))
	img=$name.img
	# The case's options; "@/" is the cases directory, which this is.
	read -r -a extra <<<"${args//@\//}"
	timeout 10 "$VV" verify "$img" "${extra[@]}" >"$WORK/out" 2>"$WORK/err"
	status=$?
	check_case
done <cases.tsv

echo "corrupt-image matrix: $total cases, $failed failed"
[ "$total" -gt 50 ] || { echo "FAIL: only $total cases in cases.tsv" >&2; exit 1; }
[ "$failed" = 0 ]
