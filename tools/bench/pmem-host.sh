#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pmem-host.sh: `vublk-bench pmem` in the protocol docs/PERFORMANCE.md
# reports: for each store granularity (PAGE, and libpmem2's forced
# CACHE_LINE), ROUNDS rounds that alternate two builds (by default the
# default build and the -Dpmem_checked_copy=true build; or any two, e.g.
# before and after a change), then one --calibrate run of the first
# (every side does the bare copy: the harness's own bias).  Prints one
# line per run, labelled with the build directory's name, and the median
# ratio of each column.
# This is a benchmark, not a test.
#
# Usage (from the repo, on the host):
#   tools/bench/pmem-host.sh [--rounds N] [--seconds N] [--size MIB]
#                            [--dir DIR] [DEFAULT_BUILD CHECKED_BUILD]
#   builds default to build and build-checked (meson setup build-checked
#   -Dpmem_checked_copy=true); DIR (default /dev/shm) holds the bench file.
#   Two builds of the same name: give their paths differently (a/build,
#   b/build): the label is the path as given.
set -uo pipefail

ME=tools/bench/pmem-host.sh
rounds=3 seconds=2 size=128 dir=/dev/shm
builds=()
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:-}; shift 2 ;;
	--seconds) seconds=${2:-}; shift 2 ;;
	--size) size=${2:-}; shift 2 ;;
	--dir) dir=${2:-}; shift 2 ;;
	-h|--help) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "$ME: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) builds+=("$1"); shift ;;
	esac
done
[ ${#builds[@]} -eq 0 ] && builds=(build build-checked)
if [ ${#builds[@]} -ne 2 ]; then
	echo "$ME: give two build directories (e.g. default and checked), or none" >&2
	exit 2
fi
for n in "$rounds" "$seconds" "$size"; do
	case $n in ''|*[!0-9]*|0)
		echo "$ME: '$n' is not a whole number > 0 (see --help)" >&2; exit 2 ;;
	esac
done
for b in "${builds[@]}"; do
	if [ ! -x "$b/tools/vublk-bench/vublk-bench" ]; then
		echo "$ME: $b/tools/vublk-bench/vublk-bench is not built: meson setup $b && ninja -C $b" >&2
		exit 2
	fi
done
file=$dir/vublk-bench-pmem.$$.img
trap 'rm -f "$file"' EXIT

# run LABEL BUILD GRANULARITY [bench options]: one line
# "LABEL  write: target lib | read: target lib" (ratios to bare).
run() {
	local label=$1 build=$2 gran=$3 out
	shift 3
	rm -f "$file"
	if ! out=$(env ${gran:+PMEM2_FORCE_GRANULARITY=$gran} \
		"$build/tools/vublk-bench/vublk-bench" pmem "$file" \
		--seconds "$seconds" --size "$size" "$@" 2>/dev/null); then
		echo "$ME: vublk-bench pmem failed ($label)" >&2
		return 1
	fi
	echo "$out" | awk -v label="$label" '
		/^(write|read)/ {
			for (i = 1; i <= NF; i++) if ($i == "ratio") r[++n] = $(i + 1)
		}
		END {
			gsub(",", "", r[1]); gsub(",", "", r[2])
			gsub(",", "", r[3]); gsub(",", "", r[4])
			printf "%-28s write: target %s lib %s | read: target %s lib %s\n",
				label, r[1], r[2], r[3], r[4]
		}'
}

# medians LINES...: the median of each of the four ratio columns.
medians() {
	awk '{ w[NR] = $4; wl[NR] = $6; r[NR] = $10; rl[NR] = $12 }
	function med(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END { printf "  median                     write: target %.3f lib %.3f | read: target %.3f lib %.3f\n",
		med(w, NR), med(wl, NR), med(r, NR), med(rl, NR) }'
}

echo "# $(date -u '+%F %T') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds, $seconds CPU-s per side, $size MiB in $dir"
for gran in "" CACHE_LINE; do
	g=${gran:-PAGE}
	a_lines="" b_lines=""
	for ((i = 1; i <= rounds; i++)); do
		line=$(run "$g/${builds[0]}/$i" "${builds[0]}" "$gran") || exit 1
		echo "$line"; a_lines+="$line"$'\n'
		line=$(run "$g/${builds[1]}/$i" "${builds[1]}" "$gran") || exit 1
		echo "$line"; b_lines+="$line"$'\n'
	done
	echo "$g ${builds[0]}:"; printf '%s' "$a_lines" | medians
	echo "$g ${builds[1]}:"; printf '%s' "$b_lines" | medians
	run "$g/calibrate" "${builds[0]}" "$gran" --calibrate || exit 1
done
