#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# vm-loop-perf.sh: what the ublk path costs.  In ONE guest of the VM lab
# (tests/vm/run), the same fio jobs run against a file on the scratch
# disk's ext4 (O_DIRECT: the raw disk through the filesystem) and against
# a vublk loop device backed by that same file, buffered (the default) and
# with --direct; prints IOPS / MB/s and each device's ratio to the file.
# This is a benchmark, not a test; results and commands: docs/PERFORMANCE.md.
#
# Usage (from the repo, on the host):
#   tools/bench/vm-loop-perf.sh [-q QUEUES] [-d DEPTH] [-j FIO_JOBS]
#                               [-t SECONDS] [--qd QD] [--size MIB]
#   -q   device queues (default 2)       -d  device depth (default 128)
#   -j   fio jobs per workload (default 1) -t seconds per run (default 5)
#   --qd fio iodepth of the 4 KiB jobs (default 32; 1 MiB reads use 4)
#   --size backing file MiB (default 1024)
# Environment: VUBLK_BUILD (default build).  Inside the VM (VUBLK_IN_VM=1)
# it runs the measurements itself.
set -uo pipefail

ME=tools/bench/vm-loop-perf.sh
QUEUES=2 DEPTH=128 JOBS=1 SECS=5 QD=32 SIZE_MIB=1024

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
		-h|--help) usage ;;
		*) echo "$ME: unknown argument '$1'" >&2; usage ;;
		esac
	done
	local v
	for v in "$QUEUES" "$DEPTH" "$JOBS" "$SECS" "$QD" "$SIZE_MIB"; do
		[[ $v =~ ^[1-9][0-9]*$ ]] || die "'$v' is not a positive number; see --help"
	done
}

# fio_run NAME TARGET RW BS QD: one time-based fio run on TARGET; prints
# IOPS for 4 KiB jobs, MB/s for the 1 MiB one.
fio_run() {
	local name=$1 target=$2 rw=$3 bs=$4 qd=$5 out
	sync
	echo 3 >/proc/sys/vm/drop_caches
	out=$(fio --name="$name" --filename="$target" --size=${SIZE_MIB}M \
		--rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$JOBS" \
		--ioengine=io_uring --direct=1 --time_based --runtime="$SECS" \
		--ramp_time=1 --group_reporting --randrepeat=0 --norandommap \
		--output-format=json) || die "fio $name on $target failed"
	python3 -c '
import json, sys
job = json.loads(sys.argv[1])["jobs"][0]
io = job["write"] if sys.argv[2].endswith("write") else job["read"]
print("%.0f" % (io["iops"] if sys.argv[3] != "1M" else io["bw_bytes"] / 1e6))
' "$out" "$rw" "$bs"
}

WORKLOADS=("randread 4k" "randwrite 4k" "read 1M")

# measure LABEL TARGET: every workload on TARGET into RESULT[LABEL,i].
declare -A RESULT
measure() {
	local label=$1 target=$2 i rw bs qd
	for i in "${!WORKLOADS[@]}"; do
		read -r rw bs <<<"${WORKLOADS[$i]}"
		qd=$QD
		[ "$bs" = 1M ] && qd=4
		RESULT[$label,$i]=$(fio_run "$label-$rw" "$target" "$rw" "$bs" "$qd") || exit 1
		echo "  $label $rw $bs QD$qd: ${RESULT[$label,$i]}" >&2
	done
}

# ublk_measure LABEL [LOOP OPTIONS]: a loop device on the file, measured.
ublk_measure() {
	local label=$1 dev
	shift
	dev=$("$VUBLK" add -t loop -f "$FILE" -q "$QUEUES" -d "$DEPTH" "$@") ||
		die "vublk add -t loop -f $FILE $* failed"
	measure "$label" "$dev"
	"$VUBLK" del -n "${dev#/dev/ublkb}" || die "vublk del of $dev failed"
}

print_table() {
	local i rw bs unit raw
	printf '%-16s %-6s %12s %18s %18s\n' workload unit "file O_DIRECT" \
		"ublk loop" "ublk loop --direct"
	for i in "${!WORKLOADS[@]}"; do
		read -r rw bs <<<"${WORKLOADS[$i]}"
		unit=IOPS
		[ "$bs" = 1M ] && unit=MB/s
		raw=${RESULT[raw,$i]}
		printf '%-16s %-6s %12s %10s (%4s) %10s (%4s)\n' "$rw $bs" $unit "$raw" \
			"${RESULT[loop,$i]}" "$(awk -v a="${RESULT[loop,$i]}" -v b="$raw" 'BEGIN { printf "%.2f", a / b }')" \
			"${RESULT[direct,$i]}" "$(awk -v a="${RESULT[direct,$i]}" -v b="$raw" 'BEGIN { printf "%.2f", a / b }')"
	done
}

guest_main() {
	VUBLK=${VUBLK_BUILD:-build}/daemon/vublk
	[ -x "$VUBLK" ] || die "$VUBLK is missing: build first (ninja -C build)"
	[ -e /dev/ublk-control ] || die "no /dev/ublk-control: ublk_drv is not loaded"
	FILE=${VUBLK_SCRATCH:?}/loop-perf.img
	# Real blocks, not holes: reads of a hole cost the disk nothing.
	fio --name=fill --filename="$FILE" --size=${SIZE_MIB}M --rw=write --bs=1M \
		--ioengine=io_uring --direct=1 --iodepth=8 >/dev/null ||
		die "cannot fill $FILE"
	echo "guest: $(uname -r), $(nproc) vCPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo)," \
		"scratch $(findmnt -no SOURCE,FSTYPE "$VUBLK_SCRATCH" | tr '\n' ' ')," \
		"file ${SIZE_MIB} MiB; vublk -q $QUEUES -d $DEPTH; fio $(fio --version)" \
		"io_uring direct=1, $JOBS job(s), ${SECS} s + 1 s ramp per run, QD $QD (1 MiB: QD 4)" >&2
	measure raw "$FILE"
	ublk_measure loop
	ublk_measure direct --direct
	print_table
}

parse_args "$@"
if [ -n "${VUBLK_IN_VM:-}" ]; then
	guest_main
else
	cd "$(dirname "$0")/../.." || exit 1
	exec tests/vm/run --timeout 900 -- "$ME" "$@"
fi
