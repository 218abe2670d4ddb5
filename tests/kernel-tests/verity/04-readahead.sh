#!/bin/bash
# Merkle tree readahead (fs-verity: "implement readahead of Merkle tree
# pages"): after drop_caches, a buffered sequential read of the big file
# (BIG_MIB) issues at least 8x fewer tree reads with
# --readahead=completion and with --readahead=submission than with off,
# the data identical in all three; and buffered reads of /dev/ublkbN
# arrive flagged readahead.
# The times are printed for docs/PERFORMANCE.md (not asserted).
. "$(dirname "$0")/lib.sh"

prepare_image
want=$(grep "  \./$BIG\$" "$SUMS" | cut -d' ' -f1)

declare -A reads
for mode in off completion submission; do
	verity_add --readahead=$mode
	mount_ro
	sync
	echo 3 >/proc/sys/vm/drop_caches
	start=$(date +%s%N)
	sum=$(sha256sum <"$MNT/$BIG" | cut -d' ' -f1)
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$sum" = "$want" ] || fail "$mode: $BIG reads back wrong"
	umount "$MNT" || fail "umount failed"
	line=$(del_and_counters "$ID") || exit 1
	reads[$mode]=$(counter tree_reads "$line")
	say "$mode: cold sha256sum of $BIG in $ms ms ($((BIG_MIB * 1000 / (ms ? ms : 1))) MiB/s); $line"
	[ "$(counter readahead "$line")" -gt 0 ] ||
		fail "$mode: no readahead-flagged request while reading $BIG"
done
for mode in completion submission; do
	[ $((reads[$mode] * 8)) -le "${reads[off]}" ] ||
		fail "$mode: ${reads[$mode]} tree reads, not 8x fewer than off's ${reads[off]}"
done

# Buffered reads of the block device itself go through the page cache's
# readahead: their requests carry REQ_RAHEAD (-> VUBLK_REQ_READAHEAD).
verity_add
echo 3 >/proc/sys/vm/drop_caches
dd if="$DEV" of=/dev/null bs=1M count=64 2>/dev/null || fail "dd from $DEV failed"
line=$(del_and_counters "$ID") || exit 1
[ "$(counter readahead "$line")" -gt 0 ] ||
	fail "buffered dd from the device: no readahead-flagged request ($line)"
say "PASS: tree reads off ${reads[off]}, completion ${reads[completion]}, submission ${reads[submission]}"
