#!/bin/bash
# Not a test (no NN- prefix: run-kernel-tests skips it): the VM
# measurements of docs/PERFORMANCE.md, "verity target": cold-cache
# sequential reads of one file (lib.sh's big one, BIG_MIB) through
# vublk's verity device in its three readahead modes, the kernel's
# fs-verity and dm-verity.
#
# Usage: bench-vm.sh [--kernel=6.12|7.3] [--base=BUILD] [ROUNDS]
#                                                     (default 9 rounds)
#   On the host it boots the VM lab once (tests/vm/run --kernel=SERIES,
#   default 7.3) and runs itself there, on $VUBLK_BUILD (default build/;
#   use a copy that no build touches during the run).  In a guest,
#   --kernel only checks that the guest runs that series.  --base=BUILD
#   adds a mode "base": another build's vublk (below).
#
# Guest rates on a loaded TCG host drift 2-3x within minutes, so a mode
# measured in one block and another mode ten minutes later compare the
# load, not the modes.  Here every round reads once in every mode, the
# order rotated from round to round (no mode always comes first after
# boot, or always follows the same one); the report takes per-mode
# medians over the rounds and, per round, each mode's ratio to
# `submission` measured in the same round (paired), with their spread.
# Just before and after each read the guest's SHA-256 speed is measured
# (openssl speed, 2 s each): every verity mode is bound by emulated
# hashing, so a rate divided by their mean may change less with the
# host's load than the rate itself.
#
# Modes, all reading the same file (`cat` after drop_caches, as
# in the 2020 fs-verity readahead commit's own benchmark):
#   off, completion, submission   vublk -t verity --readahead=MODE, the
#                                 sealed f2fs image mounted read-only
#   fs-verity                     the kernel's: the file copied onto an
#                                 f2fs made with -O extra_attr,verity on a
#                                 loop device, `fsverity enable`d
#   dm-verity                     veritysetup on a copy of the image's
#                                 data (loop devices), mounted read-only
#   plain                         vublk -t loop --read-only on that copy:
#                                 no verification, the ublk path alone
# Tree reads: vublk's tree_reads counter; dm-verity's read requests on its
# hash device.  fs-verity's tree is read through the file's own page cache
# from the same loop device as its data, in requests that merge with
# others differently from one cat to the next, so what is counted for it
# is bytes: the KiB its loop device read beyond a cold `cat` of an
# unverified copy of the file on the same filesystem (measured once: the
# data and f2fs metadata bytes cancel out).
#
# --base=BUILD adds a seventh mode, "base": vublk -t verity in its default
# readahead mode from another build directory (its own vublk), e.g. the
# commit before a change: the change's effect on the comparison with
# dm-verity is then read from one boot, paired round by round.
#
# To tell what limits the guest, it also measures (once) the latency of a
# 4 KiB read of the image file: tree reads x latency bounds what readahead
# can save.
set -u
ME=tests/kernel-tests/verity/bench-vm.sh

kernel='' rounds=9 base=''
for arg in "$@"; do
	case $arg in
	--kernel=*) kernel=${arg#--kernel=} ;;
	--base=*) base=$(realpath -e "${arg#--base=}") && [ -x "$base/daemon/vublk" ] ||
		{ echo "$ME: --base=${arg#--base=}: not a build directory with daemon/vublk" >&2; exit 2; } ;;
	-h|--help) sed -n '/^# Usage:/,/^# *$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) rounds=$arg ;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] ||
	{ echo "$ME: bad ROUNDS '$rounds': give a positive integer" >&2; exit 2; }

if [ -z "${VUBLK_IN_VM:-}" ]; then
	# A round is 6 cold reads of BIG_MIB, 7 with --base (200 MiB until
	# stop 30: 3-10 minutes under TCG on a busy 2-CPU host; now 96); the
	# image and copies take about 10 more.  --base is shared with the
	# guest: under /tmp or /var/tmp it would be hidden by a tmpfs there.
	cd "$(dirname "$0")/../../.." || exit 1
	export VUBLK_BUILD=${VUBLK_BUILD:-$PWD/build}
	exec tests/vm/run --kernel="${kernel:-7.3}" --timeout $((1200 + rounds * 900)) \
		${base:+--share "$base"} \
		-- "$ME" ${kernel:+--kernel="$kernel"} ${base:+--base="$base"} "$rounds"
fi

export VUBLK_SCRATCH=${VUBLK_SCRATCH:?run it through tests/vm/run}/verity-bench
mkdir -p "$VUBLK_SCRATCH"
. "$(dirname "$0")/lib.sh"
need_cmd veritysetup fsverity losetup fio
[ -z "$kernel" ] || [[ $(uname -r) == "$kernel".* ]] ||
	fail "--kernel=$kernel, but this guest runs $(uname -r)"
MODES=(off completion submission fs-verity dm-verity plain ${base:+base})
RESULTS=$SCRATCH/results	# "ROUND MODE MEASURE VALUE" lines

# Which tree readahead the kernel's own fs-verity does here.
if kernel_at_least 7.0; then
	KERNEL_RA="submission (fsverity_readahead(), Linux 7.0+)"
else
	KERNEL_RA="completion (REQ_RAHEAD bios, level 0: the 2020 commit)"
fi

prepare_image

export DM_DISABLE_UDEV=1
size=$("$VV" dump "$IMG" | sed -n 's/^  data size: *\([0-9]*\)$/\1/p' | head -n 1)
DATA=$SCRATCH/dm-data.img
head -c "$size" "$IMG" >"$DATA" || fail "cannot copy the data"
root=$(veritysetup format "$DATA" "$SCRATCH/dm-hash.img" |
	sed -n 's/^Root hash:[[:space:]]*//p')
[ -n "$root" ] || fail "veritysetup format printed no root hash"

FSV_IMG=$SCRATCH/fsverity.img
FSV_LOOP=
trap 'umount "$MNT" 2>/dev/null; veritysetup close vublk-dmv 2>/dev/null
	[ -z "$FSV_LOOP" ] || losetup -d "$FSV_LOOP"; cleanup' EXIT
: >"$RESULTS"

# sysfs_of DEV: DEV's directory in sysfs (by number: without udev,
# /dev/mapper/NAME is a node of its own, not a link to /dev/dm-N).
sysfs_of() { echo "/sys/dev/block/$(mountpoint -x "$1")"; }

# read_count DEV reads|kib: what block device DEV has read so far, in
# completed read requests or in KiB (its stat file's first and third
# fields: Documentation/block/stat.rst).
read_count() {
	local ios merges sectors
	read -r ios merges sectors _ <"$(sysfs_of "$1")/stat" || fail "no I/O statistics for $1"
	if [ "$2" = kib ]; then echo $((sectors / 2)); else echo "$ios"; fi
}

# cold_cat FILE: `cat FILE` after dropping caches; prints its wall time in ms.
cold_cat() {
	local start
	sync
	echo 3 >/proc/sys/vm/drop_caches
	start=$(date +%s%N)
	cat "$1" >/dev/null || fail "cat $1 failed"
	echo $((($(date +%s%N) - start) / 1000000))
}

# sha256_kbps: the guest's SHA-256 speed right now, kB/s (4 KiB blocks).
sha256_kbps() {
	local kbps
	kbps=$(openssl speed -seconds 2 -bytes 4096 -evp sha256 2>/dev/null |
		awk '/^sha256/ { sub(/k$/, "", $NF); print $NF }')
	[ -n "$kbps" ] || fail "openssl speed -evp sha256 printed no rate"
	echo "$kbps"
}

# The kernel's fs-verity on the same bytes: an f2fs with the verity
# feature on a loop device, holding the file twice, once verity-enabled.
prepare_fsverity() {
	local src=$SCRATCH/src ms before kib
	mkdir -p "$src"
	truncate -s $((2 * BIG_MIB + 240))M "$FSV_IMG" || fail "cannot create $FSV_IMG"
	FSV_LOOP=$(losetup -f --show "$FSV_IMG") || fail "losetup $FSV_IMG failed"
	mkfs.f2fs -q -f -O extra_attr,verity "$FSV_LOOP" >/dev/null ||
		fail "mkfs.f2fs -O extra_attr,verity failed on $FSV_LOOP"
	mount -t f2fs -o ro,loop "$DATA" "$src" || fail "cannot mount $DATA"
	mount -t f2fs "$FSV_LOOP" "$MNT" || fail "cannot mount the new f2fs"
	cp "$src/$BIG" "$MNT/$BIG" || fail "cannot copy $BIG onto the fs-verity f2fs"
	cp "$src/$BIG" "$MNT/unverified.bin" || fail "cannot copy $BIG again"
	umount "$src" || fail "umount $src failed"
	fsverity enable "$MNT/$BIG" || fail "fsverity enable failed on $MNT/$BIG"
	say "fs-verity: $(fsverity measure "$MNT/$BIG") on $FSV_LOOP"
	umount "$MNT" || fail "umount failed"
	mount -t f2fs -o ro "$FSV_LOOP" "$MNT" || fail "cannot mount $FSV_LOOP"
	before=$(read_count "$FSV_LOOP" kib)
	ms=$(cold_cat "$MNT/unverified.bin") || exit 1
	kib=$(($(read_count "$FSV_LOOP" kib) - before))
	echo "0 fs-verity data_kib $kib" >>"$RESULTS"
	say "unverified copy on the same f2fs: cat $ms ms, $kib KiB read"
	umount "$MNT" || fail "umount failed"
}

# start_mode MODE: bring up MODE's device as DEV (ID for vublk modes).
start_mode() {
	case $1 in
	fs-verity) DEV=$FSV_LOOP ;;
	dm-verity)
		veritysetup open "$DATA" vublk-dmv "$SCRATCH/dm-hash.img" "$root" ||
			fail "veritysetup open failed"
		DEV=/dev/mapper/vublk-dmv ;;
	plain) vublk_add -t loop -f "$DATA" --read-only ;;
	base) VUBLK=$base/daemon/vublk verity_add ;;
	*) verity_add --readahead="$1" ;;
	esac
}

# stop_mode MODE: tear MODE's device down; vublk's tree reads.
stop_mode() {
	local line
	case $1 in
	fs-verity) ;;
	dm-verity) veritysetup close vublk-dmv || fail "veritysetup close failed" ;;
	plain) "$VUBLK" del -n "$ID" || fail "vublk del -n $ID failed" ;;
	*)
		# base's own CLI reads the state its server wrote.
		local cli=$VUBLK
		[ "$1" != base ] || cli=$base/daemon/vublk
		line=$(VUBLK=$cli del_and_counters "$ID") || exit 1
		echo "$round $1 tree_reads $(counter tree_reads "$line")" >>"$RESULTS"
		say "round $round $1: ${line#*: }" ;;
	esac
}

# tree_dev MODE: the block device whose read requests are MODE's tree
# reads (dm-verity's hash device), or the one they are counted in
# (fs-verity); none for vublk, which counts its own.
tree_dev() {
	case $1 in
	fs-verity) echo "$FSV_LOOP" ;;
	dm-verity) veritysetup status vublk-dmv | sed -n 's/^ *hash device: *//p' ;;
	esac
}

# tree_unit MODE: what MODE's tree reads are counted in (read_count):
# KiB for fs-verity (see the top), requests for the others.
tree_unit() {
	if [ "$1" = fs-verity ]; then echo kib; else echo reads; fi
}

measure_mode() {	# measure_mode MODE
	local ms sha tdev unit before
	start_mode "$1"
	mount -t f2fs -o ro "$DEV" "$MNT" || fail "$1: mounting f2fs from $DEV failed"
	[ "$round" -gt 1 ] || say "$1: $DEV read_ahead_kb $(cat "$(sysfs_of "$DEV")/queue/read_ahead_kb")"
	tdev=$(tree_dev "$1") unit=$(tree_unit "$1")
	[ -z "$tdev" ] || before=$(read_count "$tdev" "$unit")
	sha=$(sha256_kbps) || exit 1
	ms=$(cold_cat "$MNT/$BIG") || exit 1
	[ -z "$tdev" ] ||
		echo "$round $1 tree_$unit $(($(read_count "$tdev" "$unit") - before))" >>"$RESULTS"
	sha="$sha $(sha256_kbps)" || exit 1
	umount "$MNT" || fail "$1: umount failed"
	echo "$round $1 cat_mibs $(python3 -c "print(f'{$BIG_MIB * 1000 / max($ms, 1):.3f}')")" >>"$RESULTS"
	echo "$round $1 sha256_kBps $(python3 -c "print(sum(map(float, '$sha'.split())) / 2)")" >>"$RESULTS"
	say "round $round $1: cat $ms ms; guest SHA-256 before, after: $sha kB/s"
	stop_mode "$1"
}

# One 4 KiB read's latency bounds what a tree readahead can save.
read_latency() {
	local lat
	sync
	echo 3 >/proc/sys/vm/drop_caches
	lat=$(fio --name=lat --filename="$IMG" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --runtime=3 --time_based --readonly \
		--output-format=terse | awk -F';' '{ print $40 }')
	say "4 KiB O_DIRECT random read of the image: mean ${lat:-?} us"
	echo "0 guest read_lat_us ${lat%.*}" >>"$RESULTS"
}

say "guest $(uname -r), $(nproc) vCPUs; kernel fs-verity tree readahead: $KERNEL_RA; $rounds rounds"
prepare_fsverity
read_latency
for round in $(seq "$rounds"); do
	for i in "${!MODES[@]}"; do
		measure_mode "${MODES[(i + round - 1) % ${#MODES[@]}]}"
	done
done

# Medians per mode, paired ratios to submission, spread.
python3 - "$RESULTS" "$rounds" "$(uname -r)" "$KERNEL_RA" "$BIG_MIB" "${MODES[@]}" <<'PY'
import statistics, sys
res, rounds, release, kernel_ra = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
big_mib, modes = float(sys.argv[5]), sys.argv[6:]
by = {}		# (mode, measure) -> {round: value}
for line in open(res):
    rnd, mode, what, v = line.split()
    by.setdefault((mode, what), {})[int(rnd)] = float(v)
med = statistics.median
def norm(m):	# rate / SHA-256 speed (MB/s) measured around it
    c, s = by[(m, "cat_mibs")], by[(m, "sha256_kBps")]
    return {r: c[r] / (s[r] / 1000) for r in c if s.get(r)}
def spread(vals):
    return f"{min(vals):.2f}-{max(vals):.2f}"
tree = {m: med(by[(m, "tree_reads")].values()) for m in modes
        if (m, "tree_reads") in by}
shown = {m: f"{round(v)}" for m, v in tree.items()}
if ("fs-verity", "tree_kib") in by:
    kib = med(by[("fs-verity", "tree_kib")].values()) - \
          by[("fs-verity", "data_kib")][0]
    shown["fs-verity"] = f"{round(kib)} KiB"
print(f"SUMMARY {release}, {rounds} rounds; kernel fs-verity readahead: {kernel_ra}")
print("| mode | cat MiB/s, median | min-max | cat / SHA-256 MB/s, median | min-max | tree reads |")
print("|---|---|---|---|---|---|")
for m in modes:
    c, n = list(by[(m, "cat_mibs")].values()), list(norm(m).values())
    print(f"| {m} | {med(c):.2f} | {spread(c)} | {med(n):.3f} | "
          f"{min(n):.3f}-{max(n):.3f} | {shown.get(m, '-')} |")
def paired(refmode):	# each mode / refmode, round by round
    print()
    print(f"| paired, per round: X / {refmode} | cat, median | min-max | "
          "normalised, median | min-max | X faster |")
    print("|---|---|---|---|---|---|")
    ref, nref = by[(refmode, "cat_mibs")], norm(refmode)
    for m in modes:
        if m == refmode:
            continue
        c, n = by[(m, "cat_mibs")], norm(m)
        r = [c[k] / ref[k] for k in c if k in ref]
        rn = [n[k] / nref[k] for k in n if k in nref]
        print(f"| {m} | {med(r):.2f} | {spread(r)} | {med(rn):.2f} | {spread(rn)} | "
              f"{sum(x > 1 for x in r)}/{len(r)} rounds |")
paired("submission")
if "base" in modes:
    paired("base")
print("\nper round, cat MiB/s:")
for m in modes:
    c = by[(m, "cat_mibs")]
    print(f"  {m:11s}" + " ".join(f"{c[k]:6.2f}" for k in sorted(c)))
# Upper bound of what tree readahead can save in off mode: every tree
# read waited for alone, at the measured 4 KiB read latency.
lat = by.get(("guest", "read_lat_us"), {}).get(0)
if lat and "off" in tree:
    cat_s = big_mib / med(by[("off", "cat_mibs")].values())
    print(f"off: {tree['off']:.0f} tree reads x {lat:.0f} us = "
          f"{tree['off'] * lat / 1e6:.2f} s of a {cat_s:.1f} s cat "
          f"({100 * tree['off'] * lat / 1e6 / cat_s:.1f}%): the most readahead can save")
sha = med(by[("submission", "sha256_kBps")].values())
print(f"hashing {big_mib:.0f} MiB at the guest's median SHA-256 speed ({sha / 1000:.0f} MB/s): "
      f"{big_mib * 1048576 / (sha * 1000):.1f} s")
PY
