#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# vm-loop-perf.sh: what the ublk path costs.  In ONE guest of the VM lab
# (tests/vm/run), the same fio jobs run against a file on the scratch
# disk's ext4 (O_DIRECT: the raw disk through the filesystem), against a
# vublk loop device backed by that same file, buffered (the default) and
# with --direct, and against the kernel's own loop driver on the file
# (buffered, and --direct-io=on); where the driver has zero copy
# (UBLK_F_AUTO_BUF_REG, Linux 6.16), each vublk device both with it (the
# default) and with --zero-copy=off.  Every configuration runs once per
# round, rounds rotate the order; prints the median IOPS / MB/s and each
# device's ratio to the file.  Before that it prints what explains the 1 MiB
# numbers: the guest's memory copy bandwidth (a read of a tmpfs file: one
# copy_to_user() per byte, the copy ublk adds), measured just before each
# 1 MiB run, and each device's queue limits; after each read run, the
# average request size the device saw.
# This is a benchmark, not a test; results and commands: docs/PERFORMANCE.md.
#
# Usage (from the repo, on the host):
#   tools/bench/vm-loop-perf.sh [-q QUEUES] [-d DEPTH] [-j FIO_JOBS]
#                               [-t SECONDS] [--qd QD] [--size MIB]
#                               [--rounds N] [--kernel=6.12|7.3]
#                               [--alt-build DIR] [--backing scratch|ramdisk]
#                               [--only RW] [--icount SHIFT]
#   -q   device queues (default 2)       -d  device depth (default 128)
#   -j   fio jobs per workload (default 1) -t seconds per run (default 5)
#   --qd fio iodepth of the 4 KiB jobs (default 32; 1 MiB reads use 4)
#   --size backing file MiB (default 1024)
#   --rounds N  every configuration N times, interleaved (default 1)
#   --kernel=K  the lab kernel to boot (tests/vm/run --kernel)
#   --alt-build DIR  also measure DIR/daemon/vublk --direct (another build,
#        e.g. one with a different per-request buffer) in the same guest
#   --backing ramdisk  the file on ext4 on a RAM block device (brd, tests/vm/run
#        --ramdisk) instead of the scratch disk: the same filesystem and
#        block layer, O_DIRECT included, but no I/O leaves the guest, so
#        every configuration costs only guest CPU (with --icount, guest
#        instructions).  (Not tmpfs: a perf profile on 7.3 showed
#        io_uring handing vublk's reads of a tmpfs file to its worker
#        threads, a cost that a file on ext4 does not have.)
#   --only RW  only the workloads of fio --rw=RW (randread, randwrite, read)
#   --icount SHIFT  boot the guest with tests/vm/run --icount SHIFT: a
#        guest clock that counts instructions, so that rates in guest
#        time do not move with the host's load (with --backing ramdisk)
# Environment: VUBLK_BUILD (default build).  Inside the VM (VUBLK_IN_VM=1)
# it runs the measurements itself.
set -uo pipefail

ME=tools/bench/vm-loop-perf.sh
QUEUES=2 DEPTH=128 JOBS=1 SECS=5 QD=32 SIZE_MIB=1024 ALT_BUILD= ROUNDS=1
BACKING=scratch ONLY=
VM_ARGS=()

die() { echo "$ME: error: $*" >&2; exit 1; }

usage() {
	sed -n '/^# Usage/,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit 2
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		-q) QUEUES=$2; shift 2 ;;
		-d) DEPTH=$2; shift 2 ;;
		-j) JOBS=$2; shift 2 ;;
		-t) SECS=$2; shift 2 ;;
		--qd) QD=$2; shift 2 ;;
		--size) SIZE_MIB=$2; shift 2 ;;
		--rounds) ROUNDS=$2; shift 2 ;;
		--kernel=*) VM_ARGS+=("$1"); shift ;;
		--icount) VM_ARGS+=(--icount "$2"); shift 2 ;;
		--backing) BACKING=$2; shift 2
			[[ $BACKING == @(scratch|ramdisk) ]] || die "--backing '$BACKING': give scratch or ramdisk" ;;
		--only) ONLY=$2; shift 2
			[[ $ONLY == @(randread|randwrite|read) ]] || die "--only '$ONLY': give randread, randwrite or read" ;;
		--alt-build) ALT_BUILD=$(realpath "$2") || die "--alt-build '$2': no such directory"
			shift 2 ;;
		-h|--help) usage ;;
		*) echo "$ME: unknown argument '$1'" >&2; usage ;;
		esac
	done
	local v
	for v in "$QUEUES" "$DEPTH" "$JOBS" "$SECS" "$QD" "$SIZE_MIB" "$ROUNDS"; do
		[[ $v =~ ^[1-9][0-9]*$ ]] || die "'$v' is not a positive number; see --help"
	done
}

# blk_name TARGET: the block device whose /sys/block/NAME/stat counts
# TARGET's requests (for a file: the disk under its filesystem).
blk_name() {
	local dev=$1
	[ -b "$dev" ] || dev=$(findmnt -no SOURCE --target "$dev")
	dev=$(basename "$(readlink -f "$dev")")
	# A partition counts in its own stat file too; keep it.
	echo "$dev"
}

# blk_reads NAME: "reads-completed sectors-read" of /sys/class/block/NAME
# ("0 0" where there is none).
blk_reads() {
	if [ -e "/sys/class/block/$1/stat" ]; then
		awk '{ print $1, $3 }' "/sys/class/block/$1/stat"
	else
		echo 0 0
	fi
}

# fio_run NAME TARGET RW BS QD: one time-based fio run on TARGET; prints
# IOPS for 4 KiB jobs, MB/s for the 1 MiB one.  For reads, the average
# request size TARGET's block device saw goes to stderr.
fio_run() {
	local name=$1 target=$2 rw=$3 bs=$4 qd=$5 out blk before after
	sync
	echo 3 >/proc/sys/vm/drop_caches
	blk=$(blk_name "$target")
	before=$(blk_reads "$blk")
	out=$(fio --name="$name" --filename="$target" --size="${SIZE_MIB}M" \
		--rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$JOBS" \
		--ioengine=io_uring --direct=1 --time_based --runtime="$SECS" \
		--ramp_time=1 --group_reporting --randrepeat=0 --norandommap \
		--output-format=json) || die "fio $name on $target failed"
	after=$(blk_reads "$blk")
	[[ $rw == *read ]] && awk -v b="$before" -v a="$after" -v d="$blk" 'BEGIN {
		split(b, x); split(a, y); n = y[1] - x[1]
		if (n > 0) printf "    %s: %d reads, %.0f KiB each\n", d, n, (y[2] - x[2]) / 2 / n
	}' >&2
	python3 -c '
import json, sys
job = json.loads(sys.argv[1])["jobs"][0]
io = job["write"] if sys.argv[2].endswith("write") else job["read"]
print("%.0f" % (io["iops"] if sys.argv[3] != "1M" else io["bw_bytes"] / 1e6))
' "$out" "$rw" "$bs"
}

WORKLOADS_ALL=("randread 4k" "randwrite 4k" "read 1M")
WORKLOADS=()
LABELS=()		# configurations, in table order
declare -A HEADER	# label -> table header
declare -A HOW		# label -> "raw" | "ublk VUBLK OPTIONS..." | "kloop OPTIONS..."
declare -A MEMCPY	# label -> guest memcpy MB/s before its 1 MiB reads (list)

# config LABEL HEADER HOW...: a configuration to measure.
config() {
	LABELS+=("$1")
	HEADER[$1]=$2
	shift 2
	HOW[${LABELS[-1]}]="$*"
}

# measure LABEL TARGET: every workload on TARGET, appended to RESULT[LABEL,i]
# (one value per round).
declare -A RESULT
measure() {
	local label=$1 target=$2 i rw bs qd v
	show_limits "$target"
	for i in "${!WORKLOADS[@]}"; do
		read -r rw bs <<<"${WORKLOADS[$i]}"
		qd=$QD
		[ "$bs" = 1M ] && qd=4
		# The host's load changes by the minute: the copy bandwidth
		# that bounds a 1 MiB read is measured next to it.
		[ "$bs" = 1M ] && MEMCPY[$label]+=" $(memcpy_mbps)"
		v=$(fio_run "$label-$rw" "$target" "$rw" "$bs" "$qd") || exit 1
		RESULT[$label,$i]+=" $v"
		echo "  $label $rw $bs QD$qd: $v" >&2
	done
}

# median VALUES...: the middle value (the lower middle of an even count).
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# show_limits TARGET: the queue limits that decide how a 1 MiB read is cut.
show_limits() {
	local q f line=
	q=/sys/class/block/$(blk_name "$1")/queue
	[ -d "$q" ] || q=$(dirname "$(readlink -f "$q")")/../queue
	for f in max_sectors_kb max_hw_sectors_kb max_segments max_segment_size \
		optimal_io_size read_ahead_kb nr_requests; do
		line+=" $f=$(cat "$q/$f" 2>/dev/null || echo ?)"
	done
	echo "  limits of $(blk_name "$1"):$line" >&2
}

# ublk_measure LABEL VUBLK [LOOP OPTIONS]: a vublk loop device on the
# file, measured.
ublk_measure() {
	local label=$1 vublk=$2 dev
	shift 2
	dev=$("$vublk" add -t loop -f "$FILE" -q "$QUEUES" -d "$DEPTH" "$@") ||
		die "$vublk add -t loop -f $FILE $* failed"
	echo "  $label: $("$vublk" list -n "${dev#/dev/ublkb}" | tail -n 1)" >&2
	measure "$label" "$dev"
	"$vublk" del -n "${dev#/dev/ublkb}" || die "vublk del of $dev failed"
}

# kloop_measure LABEL [LOSETUP OPTIONS]: the kernel loop driver.
kloop_measure() {
	local label=$1 dev
	shift
	dev=$(losetup -f --show "$@" "$FILE") || die "losetup $* $FILE failed"
	measure "$label" "$dev"
	losetup -d "$dev" || die "losetup -d $dev failed"
}

# measure_config LABEL: one round of one configuration.
measure_config() {
	# shellcheck disable=SC2086 # HOW holds words
	set -- ${HOW[$1]}
	local how=$1
	shift
	case $how in
	raw) measure "$LABEL" "$FILE" ;;
	ublk) ublk_measure "$LABEL" "$@" ;;
	kloop) kloop_measure "$LABEL" "$@" ;;
	esac
}

# memcpy_mbps: MB/s of reading a page-cached tmpfs file: the kernel's
# copy_to_user(), i.e. the guest's memcpy, on one vCPU.
memcpy_mbps() {
	local f=/tmp/vm-loop-perf-memcpy
	[ -e "$f" ] || head -c 128M /dev/zero >"$f" || die "cannot fill $f"
	dd if="$f" of=/dev/null bs=1M 2>&1 | awk '/copied/ {
		for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i - 1)
		printf "%.0f", $1 / s / 1e6 }'
}

# One row per workload and configuration: the median of the rounds, its
# ratio to the file's median, and every round's value.
print_table() {
	local i rw bs unit raw label med
	printf '%-14s %-5s %-26s %8s %6s  %s\n' workload unit configuration median "/file" rounds
	for i in "${!WORKLOADS[@]}"; do
		read -r rw bs <<<"${WORKLOADS[$i]}"
		unit=IOPS
		[ "$bs" = 1M ] && unit=MB/s
		# shellcheck disable=SC2086 # lists of numbers
		raw=$(median ${RESULT[raw,$i]})
		for label in "${LABELS[@]}"; do
			# shellcheck disable=SC2086
			med=$(median ${RESULT[$label,$i]})
			printf '%-14s %-5s %-26s %8s %6s %s\n' "$rw $bs" $unit "${HEADER[$label]}" \
				"$med" "$(awk -v a="$med" -v b="$raw" 'BEGIN { printf "%.2f", a / b }')" \
				"${RESULT[$label,$i]}"
		done
	done
	for label in "${LABELS[@]}"; do
		printf '%-14s %-5s %-26s %8s %6s %s\n' "guest memcpy" MB/s "${HEADER[$label]}" \
			"" "" "${MEMCPY[$label]}"
	done
}

guest_main() {
	VUBLK=${VUBLK_BUILD:-build}/daemon/vublk
	[ -x "$VUBLK" ] || die "$VUBLK is missing: build first (ninja -C build)"
	[ -e /dev/ublk-control ] || die "no /dev/ublk-control: ublk_drv is not loaded"
	FILE=${VUBLK_SCRATCH:?}/loop-perf.img
	[ "$BACKING" = ramdisk ] && FILE=${VUBLK_RAM_DIR:?}/loop-perf.img
	local w
	for w in "${WORKLOADS_ALL[@]}"; do
		[ -n "$ONLY" ] && [ "${w%% *}" != "$ONLY" ] && continue
		WORKLOADS+=("$w")
	done
	# Real blocks, not holes: reads of a hole cost the disk nothing.
	fio --name=fill --filename="$FILE" --size="${SIZE_MIB}M" --rw=write --bs=1M \
		--ioengine=io_uring --direct=1 --iodepth=8 >/dev/null ||
		die "cannot fill $FILE"
	echo "guest: $(uname -r), $(nproc) vCPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo)," \
		"file on $(findmnt -no SOURCE,FSTYPE --target "$FILE" | tr '\n' ' ')," \
		"file ${SIZE_MIB} MiB; vublk -q $QUEUES -d $DEPTH; fio $(fio --version)" \
		"io_uring direct=1, $JOBS job(s), ${SECS} s + 1 s ramp per run, QD $QD (1 MiB: QD 4)" >&2
	config raw "file O_DIRECT" raw
	if "$VUBLK" features --json | grep -q '"auto_buf_reg": true'; then
		config loop "ublk loop (zero copy)" ublk "$VUBLK"
		config loopcopy "ublk loop, copy" ublk "$VUBLK" --zero-copy=off
		config direct "ublk --direct (zero copy)" ublk "$VUBLK" --direct
		config directcopy "ublk --direct, copy" ublk "$VUBLK" --direct --zero-copy=off
	else
		config loop "ublk loop" ublk "$VUBLK"
		config direct "ublk loop --direct" ublk "$VUBLK" --direct
	fi
	[ -z "$ALT_BUILD" ] || config alt "alt --direct" ublk "$ALT_BUILD/daemon/vublk" --direct
	config kloop "kernel loop" kloop
	config kloopdio "kernel loop dio" kloop --direct-io=on
	local round n=${#LABELS[@]} k
	for ((round = 0; round < ROUNDS; round++)); do
		echo "round $((round + 1)) of $ROUNDS" >&2
		for ((k = 0; k < n; k++)); do
			LABEL=${LABELS[$(((k + round) % n))]}
			measure_config "$LABEL"
		done
	done
	print_table
}

parse_args "$@"
if [ -n "${VUBLK_IN_VM:-}" ]; then
	guest_main
else
	cd "$(dirname "$0")/../.." || exit 1
	# ext4's own blocks on top of the file's.
	[ "$BACKING" = ramdisk ] && VM_ARGS+=(--ramdisk $((SIZE_MIB + SIZE_MIB / 16 + 64)))
	exec tests/vm/run "${VM_ARGS[@]}" --timeout $((2400 * ROUNDS)) -- "$ME" "$@"
fi
