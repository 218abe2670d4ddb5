#!/bin/bash
# vublk-bench --plot: each run's result (as its own report prints it)
# lands in FILE.dat under its label and readahead mode, a rerun replaces
# it, and gnuplot draws FILE.svg from them all; without gnuplot the
# results still print, the data and gnuplot input are written, and one
# line says so (exit 1).  Bad --plot options and a damaged FILE.dat get
# one line each.
# Usage: bench_plot.sh VUBLK_BENCH VUBLK_VERITY
set -u
bench=$1 vv=$2
dir=$(mktemp -d /tmp/vublk-bench-plot.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v gnuplot >/dev/null || fail "gnuplot is not installed (scripts/install-deps installs gnuplot-nox)"

head -c $((4 << 20)) /dev/urandom >"$dir/img" || fail "cannot write the image"
"$vv" format "$dir/img" >/dev/null || fail "vublk-verity format failed"
chart=$dir/chart.svg

# run LABEL MODE ARGS...: one benchmark run with --plot=$chart; its
# result must be the line "LABEL<TAB>MODE<TAB>MB/s<TAB>reads/GiB<TAB>RATE"
# of its .dat, with the numbers its report printed: MB/s by wall clock,
# or with --plot-rate=cpu per CPU second.
run() {
	local label=$1 mode=$2 out mbps reads rate=wall dat=${chart%.svg}.dat
	shift 2
	[[ " $* " == *" --plot-rate=cpu "* ]] && rate=cpu
	out=$("$bench" verity "$dir/img" --readahead="$mode" --plot="$chart" "$@" 2>"$dir/err") ||
		fail "--plot $*: exit status $?: $(cat "$dir/err")"
	if [ $rate = cpu ]; then
		mbps=$(sed -n 's/^verified read: .* MB\/s wall, \([0-9.]*\) MB\/s per CPU second.*/\1/p' <<<"$out")
	else
		mbps=$(sed -n 's/^verified read: *\([0-9.]*\) MB\/s wall.*/\1/p' <<<"$out")
	fi
	reads=$(sed -n 's/^tree reads: *\([0-9.]*\) per GiB.*/\1/p' <<<"$out")
	grep -qxF "$(printf '%s\t%s\t%s\t%s\t%s' "$label" "$mode" "$mbps" "$reads" $rate)" "$dat" ||
		fail "no result '$label $mode $mbps $reads $rate' in: $(cat "$dat")"
	grep -qxF "chart:          $chart ($(wc -l <"$dat") results; data $dat)" <<<"$out" ||
		fail "no chart line in: $out"
}
run "page cache" off --bytes=8M
run "page cache" submission --bytes=8M
run O_DIRECT off --direct --bytes=8M
run "1 ms" completion --plot-label="1 ms" --bytes=4M
# The same label and mode again: replaced, not added.
run "page cache" off --bytes=4M
[ "$(wc -l <"$dir/chart.dat")" = 4 ] || fail "expected 4 results: $(cat "$dir/chart.dat")"
# Off reads every hash block once; readahead reads them in fewer reads.
off=$(awk -F'\t' '$1 == "page cache" && $2 == "off" { print $4 }' "$dir/chart.dat")
sub=$(awk -F'\t' '$1 == "page cache" && $2 == "submission" { print $4 }' "$dir/chart.dat")
awk -v o="$off" -v s="$sub" 'BEGIN { exit !(o > 4 * s) }' ||
	fail "tree reads per GiB: off $off, submission $sub"

# The chart: an SVG document with both charts, every label and mode, and
# each result's value in the gnuplot input it was drawn from.
grep -q '<svg' "$chart" && grep -q '</svg>' "$chart" || fail "$chart is not an SVG document"
for t in "vublk-bench verity: verified reads by tree readahead mode" throughput \
	"MB/s (wall clock)" "tree reads" "tree reads per GiB read" "page cache" O_DIRECT "1 ms" \
	off completion submission; do
	grep -qF ">$t<" "$chart" || fail "no text '$t' in $chart"
done
# in_block BLOCK LABEL MODE VALUE: gnuplot's data block BLOCK ($rate,
# $tree) has VALUE in row LABEL, column MODE.
in_block() {
	awk -F'\t' -v blk="$1 << EOD" -v label="$2" -v mode="$3" -v want="$4" '
		$0 == blk { inb = 1; next }
		inb && $0 == "EOD" { inb = 0 }
		inb && $1 == "label" { for (i = 2; i <= NF; i++) col[$i] = i; next }
		inb && $1 == label && (mode in col) && $(col[mode]) == want { found = 1 }
		END { exit !found }' "$dir/chart.gp"
}
while IFS=$'\t' read -r label mode mbps reads _; do
	in_block '$rate' "$label" "$mode" "$mbps" && in_block '$tree' "$label" "$mode" "$reads" ||
		fail "$label $mode: $mbps MB/s, $reads reads/GiB are not the data of $dir/chart.gp"
done <"$dir/chart.dat"

# Each bar's value is written on it.
while IFS=$'\t' read -r label mode mbps reads _; do
	for v in "$mbps" "$reads"; do
		grep -qF ">$(printf '%.0f' "$v")<" "$chart" || fail "$label $mode: no value $v on a bar of $chart"
	done
done <"$dir/chart.dat"

# --plot-rate=cpu: MB/s per CPU second, in a chart of its own; a chart
# has one measure, and a line of an earlier vublk-bench (4 fields) is
# wall clock.
wall_chart=$chart
chart=$dir/cpu.svg
run "page cache" off --bytes=4M --plot-rate=cpu
run O_DIRECT completion --direct --bytes=4M --plot-rate=cpu
grep -qF ">MB/s per CPU second<" "$chart" || fail "no y label 'MB/s per CPU second' in $chart"
err=$("$bench" verity "$dir/img" --bytes=1M --plot="$wall_chart" --plot-rate=cpu 2>&1 >/dev/null)
[ $? = 1 ] && [ "$(grep -v '^vublk:' <<<"$err")" = "vublk-bench: $dir/chart.dat holds MB/s by wall clock: one chart, one measure; give --plot-rate=wall or delete it to start a new chart" ] ||
	fail "cpu into a wall-clock chart: $err"
chart=$dir/old.svg
printf 'page cache\toff\t100.0\t2000.0\n' >"$dir/old.dat"
run "page cache" completion --bytes=4M --plot-rate=wall
grep -qxF "$(printf 'page cache\toff\t100.0\t2000.0\twall')" "$dir/old.dat" ||
	fail "a 4-field line was not read as wall clock: $(cat "$dir/old.dat")"
chart=$wall_chart

# vublk-bench nbd: the unverified run and one per readahead mode, each a
# result under the label (default: the pattern).
if command -v nbdkit >/dev/null; then
	nbdkit -f -U "$dir/sock" -P "$dir/nbd.pid" -r file "$dir/img" &
	server=$!
	for _ in $(seq 100); do [ -s "$dir/nbd.pid" ] && break; sleep 0.05; done
	nchart=$dir/nbd.svg
	for l in "2 ms" ""; do
		out=$("$bench" nbd "nbd+unix:///?socket=$dir/sock" --bytes=2M --plot="$nchart" \
			${l:+--plot-label="$l"} 2>"$dir/err") ||
			{ kill $server; fail "nbd --plot: exit status $?: $(cat "$dir/err")"; }
	done
	kill $server && wait $server 2>/dev/null
	for l in "2 ms" seq; do
		for m in unverified off completion submission; do
			grep -q "^$l	$m	[0-9.]*	[0-9.]*	wall\$" "$dir/nbd.dat" ||
				fail "nbd: no result '$l $m' in: $(cat "$dir/nbd.dat")"
		done
		awk -F'\t' -v l="$l" '$1 == l && $2 == "unverified" && $4 != "0.0" { exit 1 }
			$1 == l && $2 == "off" && $4 + 0 == 0 { exit 1 }' "$dir/nbd.dat" ||
			fail "nbd: tree reads: $(cat "$dir/nbd.dat")"
	done
	[ "$(wc -l <"$dir/nbd.dat")" = 8 ] || fail "nbd: expected 8 results: $(cat "$dir/nbd.dat")"
	for t in "vublk-bench nbd: reads unverified and verified, by tree readahead mode" \
		"2 ms" seq unverified submission; do
		grep -qF ">$t<" "$nchart" || fail "nbd: no text '$t' in $nchart"
	done
fi

# Without gnuplot: the results, the data, the input, and one line.
rm -f "$chart"
out=$(PATH=/nonexistent "$bench" verity "$dir/img" --readahead=off --plot="$chart" --bytes=4M 2>"$dir/err")
[ $? = 1 ] || fail "without gnuplot: exit status not 1"
grep -q "^verified read: .* 0 errors)" <<<"$out" || fail "without gnuplot: no results: $out"
[ "$(grep -v '^vublk:' "$dir/err")" = "vublk-bench: gnuplot is not installed: $chart not drawn; its input is $dir/chart.gp (apt-get install gnuplot-nox, then: gnuplot $dir/chart.gp)" ] ||
	fail "without gnuplot: $(cat "$dir/err")"
[ ! -e "$chart" ] && [ "$(wc -l <"$dir/chart.dat")" = 4 ] || fail "without gnuplot: files"

# Refusals: one line each.
check_refused() {
	local want=$1 status
	shift
	err=$("$bench" verity "$dir/img" "$@" 2>&1 >/dev/null)
	status=$?
	[ $status = "$want" ] || fail "$*: exit status $status, expected $want"
	[ "$(grep -v '^vublk:' <<<"$err" | grep -c .)" = 1 ] || fail "$*: not one line: $err"
}
check_refused 2 --plot="$dir/chart.png"
check_refused 2 --plot-label=x
check_refused 2 --plot-rate=cpu
check_refused 2 --plot="$chart" --plot-rate=both
check_refused 2 --plot="$chart" --plot-label='a"b'
# A directory the chart cannot go to: refused before the run, not after.
check_refused 2 --plot="$dir/no-such-dir/chart.svg"
[[ $err == *"cannot write in $dir/no-such-dir: No such file or directory"* ]] ||
	fail "--plot in a missing directory: $err"
echo garbage >"$dir/chart.dat"
check_refused 1 --plot="$chart" --bytes=1M
echo "OK"
