#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verity-rounds.sh: issue 19's rows of `vublk-bench verity` for one build,
# each row one process of --rounds=N (the verified read, the unverified
# read and the limits, N times in turn): per row the median of the
# rounds' own ratios to raw SHA-256, to merkle_hash_blocks and to "read +
# hashing", with the range of the first two over the rounds.  Ratios
# taken a second apart within a round stay steady where a host's load
# comes and goes (docs/PERFORMANCE.md, "Round by round").  This is a
# benchmark, not a test.
#
# Usage (from the repo, on the host):
#   tools/bench/verity-rounds.sh [--rounds N] [--rows TEXT] IMAGE BUILD
#   IMAGE: sealed with vublk-verity format (e.g. 256 MiB of random data);
#   BUILD: a build directory.  --rounds: 9 by default; --rows runs only
#   the rows whose name holds TEXT (e.g. "O_DIRECT").
#   On a shared host, run it under `taskset -c CPU`: an O_DIRECT read
#   sleeps and may wake on the other CPU, whose hashing speed can differ
#   from the one its limits ran on (docs/PERFORMANCE.md, "On one CPU").
set -uo pipefail

ME=tools/bench/verity-rounds.sh
rounds=9 only=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:-}; shift 2 || { echo "$ME: $1 needs a value" >&2; exit 2; } ;;
	--rows) only=${2:-}; shift 2 || { echo "$ME: $1 needs a value" >&2; exit 2; } ;;
	-h|--help) sed -n '3,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "$ME: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 2 ]; then
	echo "$ME: give IMAGE BUILD (see --help)" >&2
	exit 2
fi
img=$1 bench=$2/tools/vublk-bench/vublk-bench
[ -x "$bench" ] || {
	echo "$ME: $bench is not built: meson setup $2 && ninja -C $2" >&2
	exit 2
}

rows=(
	"seq, page cache, submission|--readahead=submission --bytes=1G"
	"seq, page cache, completion|--readahead=completion --bytes=1G"
	"seq, page cache, off|--readahead=off --bytes=1G"
	"seq, O_DIRECT, submission|--direct --readahead=submission --bytes=1G"
	"seq, O_DIRECT, off|--direct --readahead=off --bytes=1G"
	"rand 4 KiB, page cache|--pattern=rand --io-size=4096 --seconds=2"
	"rand 128 KiB, page cache|--pattern=rand --io-size=131072 --seconds=2"
)

# The range of one ratio ("hashing" or "raw") over the round lines on stdin.
range() {
	sed -n "s/^round .*[:,] $1 \([0-9.]*\).*/\1/p" | sort -g |
		awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'
}

echo "# $(date -u '+%F %T') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds; $2"
printf '%-28s %16s %16s %6s\n' "row (medians, range)" "/ raw" "/ mhb" "/ bound"
for row in "${rows[@]}"; do
	name=${row%%|*} args=${row#*|}
	[[ $name == *"$only"* ]] || continue
	# shellcheck disable=SC2086 # the row's options
	out=$("$bench" verity "$img" $args --rounds="$rounds" 2>/dev/null) ||
		{ echo "$ME: vublk-bench failed on: $args" >&2; exit 1; }
	raw=$(sed -n 's/^ratio: .* \([0-9.]*\) CPU.*/\1/p' <<<"$out")
	mhb=$(sed -n 's/^ratio, hashing: .* \([0-9.]*\) CPU.*/\1/p' <<<"$out")
	bound=$(sed -n 's/^ratio, bound: *\([0-9.]*\) CPU.*/\1/p' <<<"$out")
	printf '%-28s %16s %16s %6s\n' "$name" \
		"$raw ($(range raw <<<"$out"))" "$mhb ($(range hashing <<<"$out"))" "$bound"
done
echo "# end $(date -u '+%T') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
