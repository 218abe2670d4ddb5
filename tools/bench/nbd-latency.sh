#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# nbd-latency.sh: `vublk-bench nbd` against nbdkit with added latency, the
# rows of docs/PERFORMANCE.md "nbd backend / Host".  A sealed image of
# --size bytes of random data in a directory of its own under /var/tmp,
# served read-only by nbdkit (file plugin, --threads=64, the delay
# filter's delay-read) on a Unix socket.  Per latency and round: a
# depth-1 4 KiB probe (the latency a request really sees), a sequential
# pass (128 KiB requests, depth 16, the whole image once, cold tree
# cache) and random 4 KiB reads (depth 16, --seconds), each unverified
# (the loop target) and verified in each readahead mode.  The rounds
# interleave the latencies; each row is the median over the rounds.  A
# benchmark, not a test.
#
# Usage (from the repo, on the host):
#   tools/bench/nbd-latency.sh [--rounds N] [--size SIZE] [--seconds N]
#                              [--delays "0 1 5"] [--plot PREFIX]
#                              [--server-cpu N] [BUILD]
#   BUILD: the build directory (default build); delays in milliseconds.
#   Whole ones go through nbdkit's delay filter; fractions (0.2) through
#   BUILD/tools/nbdkit-delay-us-filter.so (tools/bench/nbdkit-delay-us.c),
#   since nbdkit 1.32's filter takes whole milliseconds only; meson
#   builds it where nbdkit-plugin-dev is installed.
#   --plot PREFIX: vublk-bench --plot charts of the last round (one
#   round: every bar of a chart from the same minutes), PREFIX-seq.svg
#   and PREFIX-rand.svg, a group of bars per latency (needs gnuplot).
#   --server-cpu N: nbdkit runs on CPU N only and vublk-bench on every
#   other CPU (taskset), as if the server were another machine: without
#   it, on a small host, the server's CPU time and the client's hashing
#   compete for the same CPUs.
set -uo pipefail

ME=tools/bench/nbd-latency.sh
rounds=3 size=256M seconds=3 delays="0 1 2 5" build=build plot= server_cpu=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:-}; shift 2 ;;
	--size) size=${2:-}; shift 2 ;;
	--seconds) seconds=${2:-}; shift 2 ;;
	--delays) delays=${2:-}; shift 2 ;;
	--plot) plot=${2:-}; shift 2 ;;
	--server-cpu) server_cpu=${2:-}; shift 2 ;;
	-h|--help) sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "$ME: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) build=$1; shift ;;
	esac
done
BENCH=$build/tools/vublk-bench/vublk-bench
VV=$build/tools/vublk-verity/vublk-verity
for x in "$BENCH" "$VV"; do
	[ -x "$x" ] || { echo "$ME: $x is not built (ninja -C $build)" >&2; exit 2; }
done
command -v nbdkit >/dev/null || { echo "$ME: nbdkit is not installed" >&2; exit 2; }
DELAY_US_FILTER=$build/tools/nbdkit-delay-us-filter.so
for ms in $delays; do
	[[ $ms =~ ^[0-9]+(\.[0-9]{1,3})?$ ]] ||
		{ echo "$ME: --delays: '$ms' is not a number of milliseconds (e.g. \"0 0.2 1 5\")" >&2; exit 2; }
	[[ $ms =~ ^[0-9]+$ ]] || [ -f "$DELAY_US_FILTER" ] ||
		{ echo "$ME: --delays: $ms ms needs $DELAY_US_FILTER (apt-get install nbdkit-plugin-dev, then meson setup --reconfigure $build && ninja -C $build)" >&2; exit 2; }
done
# --server-cpu: the commands that start nbdkit and vublk-bench.
SERVER_PIN=() CLIENT_PIN=()
if [ -n "$server_cpu" ]; then
	ncpu=$(getconf _NPROCESSORS_ONLN)
	[[ $server_cpu =~ ^[0-9]+$ ]] && [ "$server_cpu" -lt "$ncpu" ] && [ "$ncpu" -ge 2 ] ||
		{ echo "$ME: --server-cpu '$server_cpu': give a CPU number below $ncpu, on a host of 2 CPUs or more" >&2; exit 2; }
	command -v taskset >/dev/null ||
		{ echo "$ME: --server-cpu needs taskset (apt-get install util-linux)" >&2; exit 2; }
	SERVER_PIN=(taskset -c "$server_cpu")
	CLIENT_PIN=(taskset -c "$(seq 0 $((ncpu - 1)) | grep -vx "$server_cpu" | paste -sd,)")
fi
if [ -n "$plot" ]; then
	command -v gnuplot >/dev/null ||
		{ echo "$ME: --plot needs gnuplot (apt-get install gnuplot-nox)" >&2; exit 2; }
	# This run's results only.
	rm -f "$plot"-{seq,rand}.{svg,dat,gp}
fi

D=$(mktemp -d /var/tmp/vublk-nbd-bench.XXXXXX) || exit 1
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT

head -c "$size" /dev/urandom >"$D/img" && "$VV" format "$D/img" >/dev/null ||
	{ echo "$ME: cannot make the sealed image" >&2; exit 1; }
URI="nbd+unix:///?socket=$D/sock"

# serve MS: nbdkit on $D/sock with reads delayed by MS milliseconds.
serve() {
	local delay=(--filter=delay -r file "$D/img" delay-read="${1}ms")

	[[ $1 =~ ^[0-9]+$ ]] ||
		delay=(--filter="$DELAY_US_FILTER" -r file "$D/img"
		       delay-read-us="$(awk -v ms="$1" 'BEGIN { printf "%d", ms * 1000 + 0.5 }')")
	[ -n "$server" ] && kill "$server" && wait "$server" 2>/dev/null
	rm -f "$D/sock" "$D/pid"
	"${SERVER_PIN[@]}" nbdkit -f --threads=64 -U "$D/sock" -P "$D/pid" "${delay[@]}" &
	server=$!
	for _ in $(seq 100); do [ -s "$D/pid" ] && return 0; sleep 0.05; done
	echo "$ME: nbdkit did not start" >&2
	exit 1
}

# bench MS ROW ARGS: one vublk-bench nbd run, one result line per side:
# "MS ROW SIDE MB/s IOPS"; in the last round with --plot, into the chart
# of ROW too.
bench() {
	local ms=$1 row=$2
	shift 2
	if [ -n "$plot" ] && [ "$round" = "$rounds" ] && [ "$row" != probe ]; then
		set -- "$@" --plot="$plot-$row.svg" --plot-label="$ms ms"
	fi
	"${CLIENT_PIN[@]}" "$BENCH" nbd "$URI" "$@" 2>/dev/null | awk -v ms="$ms" -v row="$row" '
		/^unverified/ { print ms, row, "unverified", $4, $6 }
		/^verified/ { m = $3; sub(/\)/, "", m); print ms, row, m, $4, $6 }'
}

results=$D/results
for round in $(seq "$rounds"); do
	for ms in $delays; do
		serve "$ms"
		bench "$ms" probe --pattern=rand --io-size=4096 --depth=1 \
			--seconds=1 --readahead=off >>"$results"
		bench "$ms" seq >>"$results"
		bench "$ms" rand --pattern=rand --io-size=4096 \
			--seconds="$seconds" >>"$results"
	done
	echo "round $round of $rounds done" >&2
done

python3 - "$results" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    ms, row, side, mbs, iops = line.split()
    rows[(float(ms), row, side)].append((float(mbs), float(iops)))
def med(ms, row, side, i):
    v = rows.get((ms, row, side))
    return statistics.median(x[i] for x in v) if v else float("nan")
print("| delay | request latency (depth 1) | pattern | unverified | off | completion | submission | submission / unverified | submission / off |")
print("|---|---|---|---|---|---|---|---|---|")
for ms in sorted({k[0] for k in rows}):
    lat = 1000 / med(ms, "probe", "unverified", 1)
    for row, i, unit in (("seq", 0, "MB/s"), ("rand", 1, "IOPS")):
        u, off, comp, sub = (med(ms, row, s, i) for s in
                             ("unverified", "off", "completion", "submission"))
        print(f"| {ms:g} ms | {lat:.2f} ms | {row} ({unit}) | {u:.0f} | {off:.0f} | "
              f"{comp:.0f} | {sub:.0f} | {sub / u:.2f} | {sub / off:.2f} |")
print(f"({len(next(iter(rows.values())))} rounds, medians)")
PY
[ -z "$plot" ] || echo "charts of round $rounds: $plot-seq.svg $plot-rand.svg"
