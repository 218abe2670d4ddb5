#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verity-ab.sh: `vublk-bench verity` of two builds side by side, the rows
# of docs/PERFORMANCE.md "verity target / Host", ROUNDS rounds that
# alternate the builds run by run, then the median of each row: verified
# read MB/s per CPU second of each build, their ratio (second / first),
# each as a ratio to raw SHA-256 and to merkle_hash_blocks measured in
# the same run (the limits of the issue-19 goals; each build against its
# own merkle_hash_blocks, which a change to lib/merkle moves; no raw
# SHA-256 for a SHA-512 image: "-"), and B's
# ratio to "read + hashing" (the unverified read plus the hashing: what a
# verified read could reach; "-" if B's vublk-bench does not print it).  For "no
# path got slower" checks of a change.  This is a benchmark, not a test.
#
# Usage (from the repo, on the host):
#   tools/bench/verity-ab.sh [--rounds N] [--bytes SIZE] [--seconds N]
#                            [--rows TEXT] [--args TEXT] IMAGE BUILD_A BUILD_B
#   IMAGE: sealed with vublk-verity format (e.g. 256 MiB of random data);
#   BUILD_A, BUILD_B: build directories (e.g. the base commit's and
#   yours).  Sequential rows read --bytes (default 1G), random rows run
#   --seconds (default 3).  --rows runs only the rows whose name holds
#   TEXT (e.g. "rand 4").  --args adds options to every row of both
#   builds, for the modes the rows leave at their defaults (e.g.
#   "--depth=1", "--cache-mb=1").
#   On a shared host, run it under `taskset -c CPU` (docs/PERFORMANCE.md,
#   "On one CPU").
set -uo pipefail

ME=tools/bench/verity-ab.sh
rounds=3 bytes=1G seconds=3 only= extra=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:-}; shift 2 || { echo "$ME: $1 needs a value" >&2; exit 2; } ;;
	--bytes) bytes=${2:-}; shift 2 || { echo "$ME: $1 needs a value" >&2; exit 2; } ;;
	--seconds) seconds=${2:-}; shift 2 || { echo "$ME: $1 needs a value" >&2; exit 2; } ;;
	--rows) only=${2:-}; shift 2 || { echo "$ME: $1 needs a value" >&2; exit 2; } ;;
	--args) extra=${2:-}; shift 2 || { echo "$ME: $1 needs a value" >&2; exit 2; } ;;
	-h|--help) sed -n '3,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "$ME: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 3 ]; then
	echo "$ME: give IMAGE BUILD_A BUILD_B (see --help)" >&2
	exit 2
fi
img=$1 a=$2 b=$3
for build in "$a" "$b"; do
	[ -x "$build/tools/vublk-bench/vublk-bench" ] || {
		echo "$ME: $build/tools/vublk-bench/vublk-bench is not built: meson setup $build && ninja -C $build" >&2
		exit 2
	}
done

rows=(
	"seq, page cache, submission|--readahead=submission --bytes=$bytes"
	"seq, page cache, completion|--readahead=completion --bytes=$bytes"
	"seq, page cache, off|--readahead=off --bytes=$bytes"
	"seq, O_DIRECT, submission|--direct --readahead=submission --bytes=$bytes"
	"seq, O_DIRECT, off|--direct --readahead=off --bytes=$bytes"
	"rand 4 KiB, page cache|--pattern=rand --io-size=4096 --seconds=$seconds"
	"rand 128 KiB, page cache|--pattern=rand --io-size=131072 --seconds=$seconds"
)

# run BUILD ARGS: "READ RAW MERKLE BOUND" (MB/s per CPU second: verified
# read, raw SHA-256 ("-" for a SHA-512 image) and merkle_hash_blocks of
# the same run, and read + hashing or "-").
run() {
	local build=$1
	shift
	# shellcheck disable=SC2086 # the row's options
	"$build/tools/vublk-bench/vublk-bench" verity "$img" $* 2>/dev/null |
		awk 'function per_cpu(   i) {	# "N MB/s per CPU second"
			for (i = 3; i < NF; i++)
				if ($i == "per" && $(i + 1) == "CPU") return $(i - 2)
		     }
		     /^verified read:/ { read = per_cpu() }
		     /^sha256 raw:/ { raw = per_cpu() }
		     /^merkle hashing:/ { merkle = per_cpu() }
		     /^read \+ hashing:/ { bound = per_cpu() }
		     END { if (read == "" || merkle == "") exit 1
			   print read, raw == "" ? "-" : raw, merkle,
				 bound == "" ? "-" : bound }'
}

# median: of the numbers on stdin, one a line; "-" if there is none (an
# empty array printed with printf '%s\n' is one empty line).
median() {
	sort -g | awk 'NF { v[++n] = $1 } END {
		if (!n) { print "-"; exit }
		print n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}

echo "# $(date -u '+%F %T') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds; A=$a B=$b${extra:+; every row $extra}"
printf '%-28s %8s %8s %6s %6s %6s %6s %6s %7s\n' "row (MB/s per CPU s)" A B "B / A" \
	"A/raw" "B/raw" "A/mhb" "B/mhb" "B/bound"
for row in "${rows[@]}"; do
	name=${row%%|*} args="${row#*|} $extra"
	[[ $name == *"$only"* ]] || continue
	ra=() rb=() raw=() mhba=() mhbb=() bound=()
	for ((i = 1; i <= rounds; i++)); do
		read -r x r1 m1 _ < <(run "$a" $args) || { echo "$ME: $a failed on: $args" >&2; exit 1; }
		read -r y r2 m2 b2 < <(run "$b" $args) || { echo "$ME: $b failed on: $args" >&2; exit 1; }
		ra+=("$x") rb+=("$y") mhba+=("$m1") mhbb+=("$m2")
		[ "$r1" = - ] || raw+=("$r1")
		[ "$r2" = - ] || raw+=("$r2")
		[ "$b2" = - ] || bound+=("$(awk -v y="$y" -v b="$b2" 'BEGIN { print y / b }')")
	done
	ma=$(printf '%s\n' "${ra[@]}" | median)
	mb=$(printf '%s\n' "${rb[@]}" | median)
	mr=$(printf '%s\n' "${raw[@]}" | median)
	mma=$(printf '%s\n' "${mhba[@]}" | median)
	mmb=$(printf '%s\n' "${mhbb[@]}" | median)
	mbound=$(printf '%s\n' "${bound[@]}" | median)
	awk -v n="$name" -v a="$ma" -v b="$mb" -v r="$mr" -v ma="$mma" -v mb="$mmb" -v bb="$mbound" 'BEGIN {
		printf "%-28s %8.1f %8.1f %6.3f %6s %6s %6.3f %6.3f %7s\n", n, a, b,
			b / a, r == "-" ? "-" : sprintf("%.3f", a / r),
			r == "-" ? "-" : sprintf("%.3f", b / r), a / ma, b / mb,
			bb == "-" ? "-" : sprintf("%.3f", bb) }'
done
