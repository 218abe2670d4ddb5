#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Not a test (no NN- prefix): the VM measurement of docs/PERFORMANCE.md,
# "pmem".  fio psync 4 KiB random writes (then reads) at depth 1 on
# /dev/ublkbN, served by -t pmem and by -t loop from the SAME file on the
# lab's ext4 -o dax, alternating, ROUNDS times each, in one VM boot:
#   VUBLK_BUILD=$PWD/build tests/vm/run --pmem 1G --pmem-dax -- \
#       bash tests/kernel-tests/pmem/compare-loop.sh [SECONDS] [ROUNDS]
# Prints one line per fio run and the median IOPS per target.  TCG
# emulation makes absolute numbers meaningless; compare within one run.
. "$(dirname "$0")/lib.sh"
need_cmd fio
SECONDS_PER_RUN=${1:-5}
ROUNDS=${2:-3}

IMG=$(pmem_file disk.img 256)

# fio_iops RW: IOPS of a time-based psync 4 KiB run on $DEV.
fio_iops() {
	fio --name="$1" --filename="$DEV" --ioengine=psync --direct=1 \
		--bs=4k --rw="$1" --size=128M --runtime="$SECONDS_PER_RUN" \
		--time_based --randseed=42 --output-format=terse \
		--terse-version=3 --output="$T/fio.terse" ||
		fail "fio $1 on $DEV failed"
	# terse v3: field 8 read IOPS, field 49 write IOPS.
	awk -F';' -v rw="$1" '{ print (rw ~ /write/) ? $49 : $8 }' "$T/fio.terse"
}

declare -A results
for round in $(seq "$ROUNDS"); do
	for target in pmem loop; do
		vublk_add -t "$target" -f "$IMG"
		for rw in randwrite randread; do
			iops=$(fio_iops "$rw")
			echo "round $round: -t $target $rw: $iops IOPS"
			results[$target-$rw]+="$iops "
		done
		"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for rw in randwrite randread; do
	p=$(echo "${results[pmem-$rw]}" | median)
	l=$(echo "${results[loop-$rw]}" | median)
	echo "median $rw: pmem $p IOPS, loop $l IOPS, pmem/loop $(awk -v p="$p" -v l="$l" 'BEGIN { printf "%.2f", p / l }')"
done
