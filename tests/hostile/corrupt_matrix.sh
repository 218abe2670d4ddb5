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
#
# Then the dm-verity cases (dmv-cases.tsv, when veritysetup made them)
# through `vublk-verity verify --format=dm-verity` and `dump
# --format=dm-verity`, each within 10 s and without a crash:
#   ok             both exit 0, verify quiet
#   refuse         both exit 2, nothing on stdout, ONE line with the phrase
#   refuse-verify  verify so; dump exits 0
#   badblock       verify exits 1 naming the case's block first, the
#                  summary last; dump exits 0
#   corrupt        verify exits 1 with ONE line holding the phrase; dump
#                  exits 0
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

# run_dmv WHAT CMD...: one command of a dm-verity case (status, out, err).
run_dmv() {
	kind_run=$1
	shift
	timeout 10 "$@" >"$WORK/out" 2>"$WORK/err"
	status=$?
	if [ "$status" = 124 ]; then
		fail "$kind_run hung (killed after 10 s)"; return 1
	elif [ "$status" -ge 128 ]; then
		fail "$kind_run crashed (exit $status)"; return 1
	fi
}

# refused WHAT [STATUS]: exit STATUS (2), nothing on stdout, one line
# with the phrase.
refused() {
	[ "$status" = "${2:-2}" ] || { fail "$1: exit $status, expected ${2:-2}"; return; }
	[ ! -s "$WORK/out" ] || { fail "$1: printed on stdout"; return; }
	[ "$(wc -l <"$WORK/err")" = 1 ] ||
		{ fail "$1: $(wc -l <"$WORK/err") error lines, expected one"; return; }
	grep -qF -- "$detail" "$WORK/err" ||
		fail "$1: refused for another reason than '$detail'"
}

dmv_total=0
if [ -f dmv-cases.tsv ]; then
	while IFS=$'\t' read -r name kind detail args; do
		case $name in '#'*|'') continue ;; esac
		dmv_total=$((dmv_total + 1))
		read -r -a extra <<<"$args"
		run_dmv verify "$VV" verify --format=dm-verity dmv.data \
			--hash-device="$name.hash" "${extra[@]}" || continue
		case $kind in
		ok)
			if [ "$status" != 0 ] || [ -s "$WORK/out" ]; then
				fail "verify: exit $status, expected 0 and no output"
			fi ;;
		refuse|refuse-verify)
			refused verify ;;
		corrupt)
			refused verify 1 ;;
		badblock)
			if [ "$status" != 1 ]; then
				fail "verify: exit $status, expected 1"
			elif [ "$(head -n1 "$WORK/err")" != \
			       "dmv.data: data block $detail (offset $((detail * 1024))) does not match the Merkle tree" ]; then
				fail "verify: first bad block named is not $detail"
			elif ! tail -n1 "$WORK/err" | grep -q "data blocks do not match the Merkle tree$"; then
				fail "verify: no summary line"
			fi ;;
		*)
			fail "unknown kind in dmv-cases.tsv"; continue ;;
		esac
		run_dmv dump "$VV" dump --format=dm-verity "$name.hash" || continue
		if [ "$kind" = refuse ]; then
			refused dump
		elif [ "$status" != 0 ]; then
			fail "dump: exit $status, expected 0"
		fi
	done <dmv-cases.tsv
	echo "dm-verity matrix: $dmv_total cases, through verify and dump"
	[ "$dmv_total" -gt 30 ] || { echo "FAIL: only $dmv_total cases in dmv-cases.tsv" >&2; exit 1; }
else
	echo "dm-verity matrix: skipped, veritysetup (cryptsetup-bin) is not installed"
fi
echo "$failed failed in all"
[ "$failed" = 0 ]
