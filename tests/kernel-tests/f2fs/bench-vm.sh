#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Not a test (no NN- prefix: run-kernel-tests skips it): the measurements
# of docs/PERFORMANCE.md, "f2fs check".  Run with
#   VUBLK_BUILD=$PWD/build tests/vm/run --timeout 3600 --share "$OUT" -- \
#       tests/kernel-tests/f2fs/bench-vm.sh [ROUNDS] [OUT]
#
# A 1 GiB f2fs image (mkfs.f2fs -O extra_attr,verity) holding 772 MiB of
# verity files: one of 512 MiB, 24 of 10 MiB, 160 of 128 KiB, with 4 KiB,
# 2 KiB and 1 KiB Merkle blocks.  Each round, in rotated order, with a
# cold cache (drop_caches) each time:
#   kernel  mount, `cat` every verity file (fs-verity checks every block
#           it reads, fs/verity/verify.c), umount
#   check1  vublk-verity f2fs check -j 1 on the unmounted image
#   check2  vublk-verity f2fs check -j 2 (the default: one per CPU)
# and the report gives per-mode medians of the wall-clock seconds.  With
# OUT, the image is also copied there (sparse) for the host comparison.
export VUBLK_SCRATCH=${VUBLK_SCRATCH:?run it through tests/vm/run}/f2fs-bench
mkdir -p "$VUBLK_SCRATCH"
. "$(dirname "$0")/lib.sh"
rounds=${1:-3}
out=${2:-}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || fail "bad ROUNDS '$rounds': give a positive integer"
MODES=(kernel check1 check2)

make_f2fs 1G
put_file big $((512 << 20));	verity big
for i in $(seq 1 24); do
	put_file "mid/m$i" $((10 << 20)); verity "mid/m$i" --block-size=$((1024 << (i % 3)))
done
python3 - "$MNT/small" <<'PY' || fail "writing small/"
import os, sys
os.mkdir(sys.argv[1])
for i in range(160):
    with open(os.path.join(sys.argv[1], "s%d" % i), "wb") as f:
        f.write(os.urandom(128 << 10))
PY
for i in $(seq 0 159); do verity "small/s$i"; done
unmount
say "image ready: $(wc -l <"$T/verity-files") verity files"

cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# seconds MODE: one cold run of MODE, wall-clock seconds.
seconds() {
	local start end
	cold
	start=$EPOCHREALTIME
	case $1 in
	kernel)
		remount
		(cd "$MNT" && xargs -d '\n' cat <"$T/verity-files" >/dev/null) ||
			fail "the kernel's read failed"
		end=$EPOCHREALTIME
		unmount
		;;
	check1|check2)
		"$VV" f2fs check -j "${1#check}" "$IMG" >/dev/null || fail "f2fs check failed"
		end=$EPOCHREALTIME
		;;
	esac
	echo "$end - $start" | bc
}

for r in $(seq 1 "$rounds"); do
	for k in 0 1 2; do
		m=${MODES[$(((r + k) % 3))]}
		echo "$m $(seconds "$m")" | tee -a "$T/results"
	done
done
for m in "${MODES[@]}"; do
	echo "median $m $(awk -v m="$m" '$1 == m { print $2 }' "$T/results" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') s"
done
[ -z "$out" ] || cp --sparse=always "$IMG" "$out/f2fs-bench.img" || fail "cannot copy the image to $out"
