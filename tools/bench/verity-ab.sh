#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verity-ab.sh: `vublk-bench verity` of two builds side by side, the rows
# of docs/PERFORMANCE.md "verity target / Host".  ROUNDS rounds run each
# build once per row (A first in odd rounds, B first in even ones, so that
# neither always runs on the other's heels).  Per row:
#  - the median verified read of each build, MB/s per CPU second, and
#    their ratio (B / A);
#  - the geometric mean of the rounds' own B / A, with its 95% confidence
#    interval (Student's t over the log ratios).  An interval that holds 1
#    does not show the row moved; a build against a copy of itself shows
#    how wide the host's noise makes it;
#  - each build's ratio to raw SHA-256 and to merkle_hash_blocks measured
#    in the same run (the limits of the issue-19 goals; each build against
#    its own merkle_hash_blocks, which a change to lib/merkle moves; no raw
#    SHA-256 for a SHA-512 image: "-");
#  - B's ratio to "read + hashing" (the unverified read plus the hashing:
#    what a verified read could reach; "-" if B's vublk-bench does not
#    print it).
# For "no path got slower" checks of a change.  This is a benchmark, not a
# test.
#
# Usage (from the repo, on the host):
#   tools/bench/verity-ab.sh [--rounds N] [--bytes SIZE] [--seconds N]
#                            [--rows TEXT] [--args TEXT] IMAGE BUILD_A BUILD_B
#   IMAGE: sealed with vublk-verity format (e.g. 256 MiB of random data);
#   BUILD_A, BUILD_B: build directories (e.g. the base commit's and
#   yours).  Sequential rows read --bytes (default 1G), random rows run
#   --seconds (default 3).  --rows runs only the rows whose name holds
#   TEXT (e.g. "rand 4").  An even --rounds runs each build first
#   equally often.  --args adds options to every row of both
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

# run_into NAME BUILD ARGS: NAME = run's line, or the script stops.
run_into() {
	local -n line=$1
	local build=$2
	shift 2
	# shellcheck disable=SC2034 # line names the caller's variable
	line=$(run "$build" "$@") || { echo "$ME: $build failed on: $*" >&2; exit 1; }
}

# median: of the numbers on stdin, one a line; "-" if there is none (an
# empty array printed with printf '%s\n' is one empty line).
median() {
	sort -g | awk 'NF { v[++n] = $1 } END {
		if (!n) { print "-"; exit }
		print n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}

# paired_ratio: of the rounds' "A B" pairs on stdin (ra and rb side by
# side), "MEAN LOW-HIGH": the geometric mean of B / A and its 95%
# confidence interval, from the mean and standard error of log(B / A)
# and Student's t at rounds - 1 degrees of freedom (the table's entry at
# or below them, rounded up: never too narrow); "- -" below two rounds.
paired_ratio() {
	awk 'function t95(df,   t) {	# df 1-10, then 15, 20, 30, 60
		split("12.707 4.303 3.183 2.777 2.571 2.447 2.365 2.307 2.263 2.229", t)
		if (df <= 10) return t[df]
		if (df < 15) return t[10]
		if (df < 20) return 2.132
		if (df < 30) return 2.086
		return df < 60 ? 2.043 : 2.001
	     }
	     NF == 2 { d[++n] = log($2 / $1); s += d[n] }
	     END {
		if (n < 2) { print "- -"; exit }
		m = s / n
		for (i = 1; i <= n; i++) v += (d[i] - m) ^ 2
		h = t95(n - 1) * sqrt(v / (n - 1) / n)
		printf "%.3f %.3f-%.3f\n", exp(m), exp(m - h), exp(m + h)
	     }'
}

echo "# $(date -u '+%F %T') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds; A=$a B=$b${extra:+; every row $extra}"
printf '%-28s %8s %8s %6s %6s %-13s %6s %6s %6s %6s %7s\n' "row (MB/s per CPU s)" A B "B / A" \
	paired "95% interval" "A/raw" "B/raw" "A/mhb" "B/mhb" "B/bound"
for row in "${rows[@]}"; do
	name=${row%%|*} args="${row#*|} $extra"
	[[ $name == *"$only"* ]] || continue
	ra=() rb=() raw=() mhba=() mhbb=() bound=() out_a= out_b=
	for ((i = 1; i <= rounds; i++)); do
		# shellcheck disable=SC2086 # the row's options
		if ((i % 2)); then
			run_into out_a "$a" $args
			run_into out_b "$b" $args
		else
			run_into out_b "$b" $args
			run_into out_a "$a" $args
		fi
		read -r x r1 m1 _ <<<"$out_a"
		read -r y r2 m2 b2 <<<"$out_b"
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
	paired=$(paste -d ' ' <(printf '%s\n' "${ra[@]}") <(printf '%s\n' "${rb[@]}") |
		paired_ratio)
	awk -v n="$name" -v a="$ma" -v b="$mb" -v p="$paired" -v r="$mr" -v ma="$mma" -v mb="$mmb" -v bb="$mbound" 'BEGIN {
		split(p, pr, " ")
		printf "%-28s %8.1f %8.1f %6.3f %6s %-13s %6s %6s %6.3f %6.3f %7s\n", n, a, b,
			b / a, pr[1], pr[2], r == "-" ? "-" : sprintf("%.3f", a / r),
			r == "-" ? "-" : sprintf("%.3f", b / r), a / ma, b / mb,
			bb == "-" ? "-" : sprintf("%.3f", bb) }'
done
