#!/bin/bash
# vublk-bench runs the verity read path in-process on a small sealed image:
# every mode and pattern completes without a read error, prints its
# report, and bad options get one line and exit status 2.
# Usage: bench_smoke.sh VUBLK_BENCH VUBLK_VERITY
set -u
bench=$1 vv=$2
dir=$(mktemp -d /tmp/vublk-bench-smoke.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

head -c $((6 << 20)) /dev/urandom >"$dir/img" || fail "cannot write the image"
"$vv" format "$dir/img" >/dev/null || fail "vublk-verity format failed"
for ra in off completion submission; do
	for pattern in seq rand; do
		out=$("$bench" verity "$dir/img" --readahead=$ra --pattern=$pattern \
			--io-size=64K --depth=8 --bytes=12M 2>/dev/null) ||
			fail "$ra $pattern: exit status $?: $out"
		grep -q "^verified read: .* 0 errors)" <<<"$out" || fail "$ra $pattern: $out"
		grep -q "^ratio:" <<<"$out" || fail "$ra $pattern: no ratio: $out"
	done
done
# Hashing on the verify thread or on the queue: the same clean read.
for vt in on off; do
	out=$("$bench" verity "$dir/img" --verify-thread=$vt --io-size=256K \
		--bytes=12M 2>/dev/null) || fail "--verify-thread=$vt: exit status $?: $out"
	grep -q "^verified read: .* 0 errors)" <<<"$out" || fail "--verify-thread=$vt: $out"
	grep -qx "verify thread: *$vt" <<<"$out" || fail "--verify-thread=$vt not taken: $out"
done
# Reading in place or not: the same clean read, and off means none of it
# (on: some; the target reads in place wherever the CPU has SHA-NI).
for rip in on off; do
	out=$("$bench" verity "$dir/img" --read-in-place=$rip --pattern=rand \
		--io-size=4K --seconds=1 2>&1) || fail "--read-in-place=$rip: exit status $?: $out"
	grep -q "^verified read: .* 0 errors)" <<<"$out" || fail "--read-in-place=$rip: $out"
	share=$(sed -n 's/^read in place: *\([0-9.]*\)%.*/\1/p' <<<"$out")
	if [ $rip = on ] && grep -qw sha_ni /proc/cpuinfo; then
		grep -q "(cached blocks read in place)" <<<"$out" ||
			fail "--read-in-place=on on a CPU with SHA-NI: the target does not read in place: $out"
	fi
	if [ $rip = off ] || ! grep -q "(cached blocks read in place)" <<<"$out"; then
		[ "$share" = 0.0 ] || fail "--read-in-place=$rip: $share% read in place: $out"
	else
		[ -n "$share" ] && [ "$share" != 0.0 ] ||
			fail "--read-in-place=on: nothing read in place: $out"
	fi
done
# --rounds: a line per round, then the medians of the rounds' measures.
out=$("$bench" verity "$dir/img" --rounds=4 --bytes=6M 2>/dev/null) ||
	fail "--rounds=4: exit status $?: $out"
[ "$(grep -c '^round [1-4]: MB/s per CPU second: verified ' <<<"$out")" = 4 ] ||
	fail "--rounds=4: not 4 round lines: $out"
grep -q "^verified read: .* per CPU second (medians of 4 rounds of 6291456 bytes, 0 errors)" <<<"$out" ||
	fail "--rounds=4: no medians: $out"
grep -q "^ratio, hashing: " <<<"$out" || fail "--rounds=4: no ratio to the hashing: $out"
# The verified rate and the hashing ratio reported are the medians of
# the rounds' own (4 rounds: the mean of the middle two), to within the
# rounding of the digits printed.
middle2() { sort -g | sed -n '2,3p' | awk '{ s += $1 } END { print s / 2 }'; }
rate=$(awk '/^round/ { print $8 + 0 }' <<<"$out" | middle2)
ratio=$(sed -n 's/^round.* hashing \([0-9.]*\),.*/\1/p' <<<"$out" | middle2)
awk -v r="$rate" -v h="$ratio" '
	function off(a, b) { return a > b ? a - b : b - a }
	/^verified read:/ { gr = $6 } /^ratio, hashing:/ { gh = $5 }
	END { exit !(r > 0 && off(r, gr) <= 0.11 && off(h, gh) <= 0.006) }' <<<"$out" ||
	fail "--rounds=4: medians $rate, $ratio; reported: $out"
out=$("$bench" verity "$dir/img" --rounds=3 --pattern=rand --seconds=1 2>/dev/null) ||
	fail "--rounds=3 --seconds=1: exit status $?: $out"
grep -q "^verified read: .* per CPU second (medians of 3 rounds of 1 s, 0 errors)" <<<"$out" ||
	fail "--rounds=3 --seconds=1: $out"
# A tampered image: the run reports errors and fails.
# (flip the byte: writing a fixed value would change nothing 1 time in 256)
old=$(od -An -tu1 -j 5000 -N1 "$dir/img" | tr -d ' ')
printf "\\$(printf %03o $((old ^ 0xff)))" |
	dd of="$dir/img" bs=1 seek=5000 conv=notrunc 2>/dev/null
"$bench" verity "$dir/img" --bytes=6M >/dev/null 2>&1 && fail "a corrupt image benchmarked clean"
# ... and --rounds stops at the first round that saw one.
out=$("$bench" verity "$dir/img" --bytes=6M --rounds=50 2>/dev/null) &&
	fail "a corrupt image benchmarked clean in rounds"
[ "$(grep -c '^round ' <<<"$out")" = 1 ] || fail "--rounds went on after read errors: $out"
for bad in "--depth=0" "--io-size=100" "--io-size=513" "--pattern=zigzag" "--seconds=1 --bytes=1M" \
	   "--verify-thread=maybe" "--read-in-place=maybe" "--bogus" "--direct=1" "--depth" "--rounds=0" "--rounds=x"; do
	err=$("$bench" verity "$dir/img" $bad 2>&1 >/dev/null)
	status=$?
	[ $status = 2 ] || fail "$bad: exit status $status, expected 2"
	[ "$(grep -c . <<<"$err")" = 1 ] || fail "$bad: not one line: $err"
done
# getopt's refusals in our words, naming what was typed.
err=$("$bench" verity "$dir/img" --direct=1 2>&1 >/dev/null)
[ "$err" = "vublk-bench: option '--direct' takes no value: '--direct=1' (see --help)" ] ||
	fail "--direct=1: $err"
err=$("$bench" pmem "$dir/new" --bogus 2>&1 >/dev/null)
[ "$err" = "vublk-bench: unknown option '--bogus' (see --help)" ] || fail "pmem --bogus: $err"
err=$("$bench" pmem "$dir/new" --seconds=x 2>&1 >/dev/null)
[[ $err == "vublk-bench: bad --seconds value 'x': "* ]] || fail "pmem --seconds=x: $err"
# A mode given the other mode's argument.
err=$("$bench" nbd "$dir/img" 2>&1 >/dev/null)
[ $? = 2 ] && [[ $err == *"is not an NBD URI"* ]] || fail "nbd FILE: $err"
err=$("$bench" verity nbd+unix:///?socket=/nowhere 2>&1 >/dev/null)
[ $? = 2 ] && [[ $err == *"is an NBD URI"* ]] || fail "verity URI: $err"
err=$("$bench" nbd nbd+unix:///?socket=/nowhere --rounds=3 2>&1 >/dev/null)
[ $? = 2 ] && [[ $err == *"--rounds"*"not with nbd"* ]] || fail "nbd --rounds: $err"
# A FIFO for an image: refused, not waited on.
mkfifo "$dir/fifo"
err=$(timeout 10 "$bench" verity "$dir/fifo" 2>&1 >/dev/null)
[[ $err == *"not a regular file or block device"* ]] || fail "verity FIFO: $err"
# A refused image: its one line on stderr, nothing on stdout.
out=$(timeout 10 "$bench" verity "$dir/fifo" 2>/dev/null)
[ -z "$out" ] || fail "verity FIFO: printed on stdout: $out"
echo "OK"
