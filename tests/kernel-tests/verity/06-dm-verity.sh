#!/bin/bash
# Same data, same guest: dm-verity (veritysetup format on a copy of the
# data, separate hash file) and the vublk verity device read the same
# bytes.  Cold-cache read times of both are printed for
# docs/PERFORMANCE.md (not asserted).
. "$(dirname "$0")/lib.sh"
need_cmd veritysetup cmp

prepare_image
export DM_DISABLE_UDEV=1
size=$("$VV" dump "$IMG" | sed -n 's/^  data size: *\([0-9]*\)$/\1/p' | head -n 1)
data=$SCRATCH/dm-data.img
hash=$SCRATCH/dm-hash.img
head -c "$size" "$IMG" >"$data" || fail "cannot copy the data"
root=$(veritysetup format "$data" "$hash" | sed -n 's/^Root hash:[[:space:]]*//p')
[ -n "$root" ] || fail "veritysetup format printed no root hash"
veritysetup open "$data" vublk-dmv "$hash" "$root" || fail "veritysetup open failed"
trap 'veritysetup close vublk-dmv 2>/dev/null; cleanup' EXIT
verity_add

# cold_read DEV: a buffered sequential read of DEV after drop_caches.
cold_read() {
	local start ms
	echo 3 >/proc/sys/vm/drop_caches
	start=$(date +%s%N)
	dd if="$1" of=/dev/null bs=1M 2>/dev/null || fail "reading $1 failed"
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "$((size * 1000 / 1048576 / (ms ? ms : 1))) MiB/s ($ms ms)"
}
say "dm-verity: $(cold_read /dev/mapper/vublk-dmv)"
say "vublk verity: $(cold_read "$DEV")"
# Both now in the page cache: cmp compares what each device returned.
cmp /dev/mapper/vublk-dmv "$DEV" || fail "dm-verity and vublk verity read different bytes"
line=$(del_and_counters "$ID") || exit 1
say "counters: $line"
say "PASS: dm-verity and vublk verity read the same $size bytes"
