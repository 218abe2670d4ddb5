#!/bin/bash
# Not a test (no NN- prefix: run-kernel-tests skips it): the VM
# measurements of docs/PERFORMANCE.md, "verity target".  Run with
#   VUBLK_BUILD=$PWD/build tests/vm/run --timeout 1800 -- \
#       tests/kernel-tests/verity/bench-vm.sh [REPEATS]
# For each readahead mode (and dm-verity over the same data): a cold-cache
# `cat` of the 200 MiB file on the read-only f2fs mount, and fio seqread
# (buffered, 128 KiB) on the device; with the tree-read counters.
export VUBLK_SCRATCH=${VUBLK_SCRATCH:?run it through tests/vm/run}/verity-bench
mkdir -p "$VUBLK_SCRATCH"
. "$(dirname "$0")/lib.sh"
need_cmd fio veritysetup
repeats=${1:-2}

prepare_image

# ms CMD...: run CMD after dropping caches, print its wall time in ms.
cold_ms() {
	local start
	sync
	echo 3 >/proc/sys/vm/drop_caches
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1 || fail "$* failed"
	echo $((($(date +%s%N) - start) / 1000000))
}

fio_seq() {
	fio --name=seq --filename="$1" --rw=read --bs=128k --ioengine=psync \
		--size=200M --invalidate=1 --output-format=terse |
		awk -F';' '{ print int($7 / 1024) " MiB/s" }'
}

report() {	# report WHAT MS
	echo "RESULT $1: $2 ms, $((200 * 1000 / ($2 ? $2 : 1))) MiB/s"
}

for rep in $(seq "$repeats"); do
	for mode in off completion submission; do
		verity_add --readahead=$mode
		mount_ro
		report "vublk $mode cat" "$(cold_ms cat "$MNT/$BIG")"
		umount "$MNT"
		echo "RESULT vublk $mode fio seqread: $(echo 3 >/proc/sys/vm/drop_caches; fio_seq "$DEV")"
		echo "COUNTERS vublk $mode: $(del_and_counters "$ID" | sed 's/.*: requests/requests/')"
	done
done

export DM_DISABLE_UDEV=1
size=$("$VV" dump "$IMG" | sed -n 's/^  data size: *\([0-9]*\)$/\1/p' | head -n 1)
head -c "$size" "$IMG" >"$SCRATCH/dm-data.img"
root=$(veritysetup format "$SCRATCH/dm-data.img" "$SCRATCH/dm-hash.img" |
	sed -n 's/^Root hash:[[:space:]]*//p')
veritysetup open "$SCRATCH/dm-data.img" vublk-dmv "$SCRATCH/dm-hash.img" "$root" ||
	fail "veritysetup open failed"
trap 'umount "$MNT" 2>/dev/null; veritysetup close vublk-dmv; cleanup' EXIT
for rep in $(seq "$repeats"); do
	mount -t f2fs -o ro /dev/mapper/vublk-dmv "$MNT" || fail "mount of dm-verity failed"
	report "dm-verity cat" "$(cold_ms cat "$MNT/$BIG")"
	umount "$MNT"
	echo "RESULT dm-verity fio seqread: $(echo 3 >/proc/sys/vm/drop_caches; fio_seq /dev/mapper/vublk-dmv)"
done
