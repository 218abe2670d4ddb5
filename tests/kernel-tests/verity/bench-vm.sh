#!/bin/bash
# Not a test (no NN- prefix: run-kernel-tests skips it): the VM
# measurements of docs/PERFORMANCE.md, "verity target".  Run with
#   VUBLK_BUILD=$PWD/build tests/vm/run --timeout 5400 -- \
#       tests/kernel-tests/verity/bench-vm.sh [ROUNDS]
# (5 rounds took 60 minutes on a 2-CPU host at load average 10-25.)
#
# Guest rates on a loaded TCG host drift 2-3x within minutes, so a mode
# measured in one block and another mode ten minutes later compare the
# load, not the modes.  Here every round reads once in every mode, the
# order rotated from round to round (no mode always comes first after
# boot, or always follows the same one), and the report takes per-mode
# medians over the rounds and the ratios of those medians.
#
# Modes, all over the same f2fs image (the 200 MiB file among others):
#   off, completion, submission   vublk -t verity --readahead=MODE
#   dm-verity                     veritysetup on a copy of the data
#   plain                         vublk -t loop --read-only on that copy:
#                                 no verification, the ublk path alone
# Each read is cold (drop_caches first): `cat` of the 200 MiB file on the
# read-only mount, then fio seqread (buffered, 128 KiB) of the device.
#
# To tell what limits the guest, it also measures (once) its SHA-256
# speed and the latency of a 4 KiB read of the image file, which bound
# what readahead can save: tree reads x latency.
export VUBLK_SCRATCH=${VUBLK_SCRATCH:?run it through tests/vm/run}/verity-bench
mkdir -p "$VUBLK_SCRATCH"
. "$(dirname "$0")/lib.sh"
need_cmd fio veritysetup
rounds=${1:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || fail "bad ROUNDS '$rounds': give a positive integer"
MODES=(off completion submission dm-verity plain)
RESULTS=$SCRATCH/results	# "MODE MEASURE VALUE" lines

prepare_image

export DM_DISABLE_UDEV=1
size=$("$VV" dump "$IMG" | sed -n 's/^  data size: *\([0-9]*\)$/\1/p' | head -n 1)
DATA=$SCRATCH/dm-data.img
head -c "$size" "$IMG" >"$DATA" || fail "cannot copy the data"
root=$(veritysetup format "$DATA" "$SCRATCH/dm-hash.img" |
	sed -n 's/^Root hash:[[:space:]]*//p')
[ -n "$root" ] || fail "veritysetup format printed no root hash"
trap 'umount "$MNT" 2>/dev/null; veritysetup close vublk-dmv 2>/dev/null; cleanup' EXIT
: >"$RESULTS"

# cold_ms CMD...: run CMD after dropping caches; print its wall time in ms.
cold_ms() {
	local start
	sync
	echo 3 >/proc/sys/vm/drop_caches
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1 || fail "$* failed"
	echo $((($(date +%s%N) - start) / 1000000))
}

# fio_kib DEV: cold buffered sequential read of 200 MiB; KiB/s.
fio_kib() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	fio --name=seq --filename="$1" --rw=read --bs=128k --ioengine=psync \
		--size=200M --invalidate=1 --output-format=terse |
		awk -F';' '{ print $7 }'
}

# start_mode MODE: bring up MODE's device as DEV (ID for vublk modes).
start_mode() {
	case $1 in
	dm-verity)
		veritysetup open "$DATA" vublk-dmv "$SCRATCH/dm-hash.img" "$root" ||
			fail "veritysetup open failed"
		DEV=/dev/mapper/vublk-dmv ;;
	plain) vublk_add -t loop -f "$DATA" --read-only ;;
	*) verity_add --readahead="$1" ;;
	esac
}

# stop_mode MODE: tear MODE's device down; record its tree reads.
stop_mode() {
	local line
	case $1 in
	dm-verity) veritysetup close vublk-dmv || fail "veritysetup close failed" ;;
	plain) "$VUBLK" del -n "$ID" || fail "vublk del -n $ID failed" ;;
	*)
		line=$(del_and_counters "$ID") || exit 1
		echo "$1 tree_reads $(counter tree_reads "$line")" >>"$RESULTS"
		say "round $round $1: ${line#*: }" ;;
	esac
}

measure_mode() {	# measure_mode MODE
	local ms kib
	start_mode "$1"
	mount -t f2fs -o ro "$DEV" "$MNT" || fail "$1: mounting f2fs from $DEV failed"
	ms=$(cold_ms cat "$MNT/$BIG") || exit 1
	umount "$MNT" || fail "$1: umount failed"
	kib=$(fio_kib "$DEV")
	[ -n "$kib" ] || fail "$1: fio on $DEV printed no result"
	echo "$1 cat_mibs $(python3 -c "print(f'{200 * 1000 / max($ms, 1):.2f}')")" >>"$RESULTS"
	echo "$1 fio_mibs $(python3 -c "print(f'{$kib / 1024:.2f}')")" >>"$RESULTS"
	say "round $round $1: cat $ms ms, fio $((kib / 1024)) MiB/s"
	stop_mode "$1"
}

# What bounds a readahead gain here: the guest's own SHA-256 speed (every
# byte is hashed in every verity mode) and one 4 KiB read's latency.
guest_limits() {
	local sha lat
	sha=$(openssl speed -seconds 2 -bytes 4096 -evp sha256 2>/dev/null |
		awk '/^sha256/ { print $NF }')
	sync
	echo 3 >/proc/sys/vm/drop_caches
	lat=$(fio --name=lat --filename="$IMG" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --runtime=3 --time_based --readonly \
		--output-format=terse | awk -F';' '{ print $40 }')
	say "guest: openssl sha256 (4 KiB blocks) ${sha:-?}; 4 KiB O_DIRECT random read of the image: mean ${lat:-?} us"
	echo "guest sha256_kBps ${sha%k}" >>"$RESULTS"
	echo "guest read_lat_us ${lat%.*}" >>"$RESULTS"
}

guest_limits
for round in $(seq "$rounds"); do
	for i in "${!MODES[@]}"; do
		measure_mode "${MODES[(i + round - 1) % ${#MODES[@]}]}"
	done
done

# Medians per mode and their ratios.
python3 - "$RESULTS" "$rounds" <<'PY'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    mode, what, v = line.split()
    vals.setdefault((mode, what), []).append(float(v))
med = {k: statistics.median(v) for k, v in vals.items()}
print(f"SUMMARY {sys.argv[2]} rounds; per-mode medians (all values: MiB/s)")
print("| mode | cat 200 MiB | fio seqread | tree reads | cat (all rounds) |")
print("|---|---|---|---|---|")
for m in ("off", "completion", "submission", "dm-verity", "plain"):
    tr = med.get((m, "tree_reads"))
    print(f"| {m} | {med[(m, 'cat_mibs')]:.1f} | {med[(m, 'fio_mibs')]:.1f} | "
          f"{'-' if tr is None else int(tr)} | "
          + " ".join(f"{x:.1f}" for x in vals[(m, "cat_mibs")]) + " |")
def ratio(a, b, what):
    return med[(a, what)] / med[(b, what)]
print("| ratio | cat | fio |")
print("|---|---|---|")
for a, b in (("submission", "off"), ("completion", "off"),
             ("submission", "dm-verity"), ("completion", "dm-verity"),
             ("submission", "plain"), ("dm-verity", "plain")):
    print(f"| {a}/{b} | {ratio(a, b, 'cat_mibs'):.2f} | {ratio(a, b, 'fio_mibs'):.2f} |")
# Upper bound of what tree readahead can save in off mode: every tree
# read waited for alone, at the measured 4 KiB read latency.
lat = med.get(("guest", "read_lat_us"))
if lat:
    cat_s = 200 / med[("off", "cat_mibs")]
    reads = med[("off", "tree_reads")] / 2  # the counters cover cat + fio
    print(f"off, cat: {reads:.0f} tree reads x {lat:.0f} us = "
          f"{reads * lat / 1e6:.2f} s of {cat_s:.1f} s "
          f"({100 * reads * lat / 1e6 / cat_s:.1f}%): the most readahead can save")
sha = med.get(("guest", "sha256_kBps"))
if sha:
    print(f"hashing 200 MiB at the guest's SHA-256 speed ({sha / 1000:.0f} MB/s): "
          f"{200 * 1048576 / (sha * 1000):.1f} s")
PY
