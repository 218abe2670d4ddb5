#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Not a test (no NN- prefix: run-kernel-tests skips it): the VM measurement
# of docs/PERFORMANCE.md, "nbd backend / VM": vublk's verified NBD read
# against the kernel's own stack, nbd-client + dm-verity, on ONE export.
# Needs a guest kernel with the nbd driver (the lab's 7.3 one):
#   VUBLK_BUILD=$PWD/build tests/vm/run --kernel=7.3 --timeout 3600 -- \
#       tests/kernel-tests/nbd/bench-vm.sh [ROUNDS] [DELAY_MS] [DATA_MIB]
#
# The export: DATA_MIB (default 128) MiB of random data sealed with
# vublk-verity format, served read-only by nbdkit (file plugin,
# --threads=64, reads delayed DELAY_MS ms, default 1) on a Unix socket.
# fs-verity's tree for 4 KiB blocks, SHA-256 and no salt is dm-verity's
# format 1 tree with an empty salt (levels stored from the top, 128
# digests per block zero-padded, the root hash the hash of the top block;
# drivers/md/dm-verity-target.c), so dm-verity opens the very same bytes:
# veritysetup --no-superblock --format=1 --salt=- --hash-offset=TREE_POS
# over /dev/nbd0, with the image's root hash.
#
# Modes, each round once in every mode, the order rotated round to round:
#   vublk       vublk -t verity -f URI (--readahead=submission; over NBD
#               the defaults hash on a verify thread, requests <= 256 KiB)
#   vublk-inline  the same with --verify-thread=off: hashing on the queue
#   dm-verity   nbd-client /dev/nbd0, veritysetup open over it
#   vublk-raw   vublk -t loop --read-only -f URI: the same path unverified
#   nbd-raw     /dev/nbd0 unverified
# Each read is cold (drop_caches): fio sequential read of the whole data,
# buffered (the kernel's readahead makes the requests), 128 KiB, psync.
# Prints per-mode medians (MB/s) and the ratios of the medians.
export VUBLK_SCRATCH=${VUBLK_SCRATCH:?run it through tests/vm/run}/nbd-bench
mkdir -p "$VUBLK_SCRATCH"
. "$(dirname "$0")/lib.sh"
need_cmd fio veritysetup nbd-client
rounds=${1:-5} delay=${2:-1} mib=${3:-128}
for v in "$rounds" "$delay" "$mib"; do
	[[ $v =~ ^[0-9]+$ ]] || fail "bad argument '$v': give whole numbers"
done
[ -b /dev/nbd0 ] || skip "no /dev/nbd0: this kernel has no nbd driver (use --kernel=7.3)"
export DM_DISABLE_UDEV=1
MODES=(vublk vublk-inline dm-verity vublk-raw nbd-raw)
RESULTS=$T/results	# "MODE MB/s" lines

IMG=$T/sealed.img
random_bytes $((mib << 20)) 7 >"$IMG" || fail "cannot write the data"
digest=$("$VV" format "$IMG") || fail "vublk-verity format"
DIGEST=${digest%% *}
dump=$("$VV" dump "$IMG")
field() { sed -n "s/^  $1: *//p" <<<"$dump" | head -n 1; }
root=$(field "root hash") tree_pos=$(field "tree position")
blocks=$(( $(field "data size") / 4096 ))
serve --threads=64 --filter=delay -r file "$IMG" delay-read="${delay}ms"

trap 'veritysetup close nbdv 2>/dev/null; nbd-client -d /dev/nbd0 >/dev/null 2>&1; cleanup; kill_nbdkit' EXIT

# start_mode MODE: its device as DEV.  The kernel's nbd, without
# nbd-client -t, waits for a request indefinitely (nbd_xmit_timeout()
# re-arms the timer); vublk gets 60 s: its default (8 s) gives up and
# reconnects under a loaded TCG guest, and nbdkit 1.32 can then abort (a
# reply on a closed connection: connections.c, raw_send_socket()).
start_mode() {
	case $1 in
	vublk) vublk_add -t verity -f "$URI" --digest="$DIGEST" \
			--readahead=submission --timeout=60 ;;
	vublk-inline) vublk_add -t verity -f "$URI" --digest="$DIGEST" \
			--readahead=submission --timeout=60 --verify-thread=off ;;
	vublk-raw) vublk_add -t loop --read-only -f "$URI" --timeout=60 ;;
	*)
		nbd-client -N nbdkit -b 4096 -R -u "$SOCK" /dev/nbd0 >/dev/null ||
			fail "nbd-client failed"
		DEV=/dev/nbd0
		[ "$1" = dm-verity ] || return 0
		veritysetup open /dev/nbd0 nbdv /dev/nbd0 "$root" \
			--no-superblock --format=1 --salt=- --hash=sha256 \
			--data-block-size=4096 --hash-block-size=4096 \
			--data-blocks="$blocks" --hash-offset="$tree_pos" ||
			fail "veritysetup open over /dev/nbd0 failed"
		DEV=/dev/mapper/nbdv ;;
	esac
}

stop_mode() {
	case $1 in
	vublk|vublk-inline|vublk-raw)
		# A round that stalls (once in about 40: docs/PERFORMANCE.md,
		# "VM: where the guest's CPU goes") leaves its cause here.
		grep -h "nbd .*queue [0-9]* lost its connection" \
			"$(device_log "$ID")" >&2
		"$VUBLK" del -n "$ID" || fail "vublk del" ;;
	*)
		[ "$1" = dm-verity ] && { veritysetup close nbdv || fail "veritysetup close"; }
		nbd-client -d /dev/nbd0 >/dev/null || fail "nbd-client -d" ;;
	esac
}

# cold_mbs DEV: cold buffered sequential read of the data; MB/s.
cold_mbs() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	fio --name=seq --filename="$1" --rw=read --bs=128k --ioengine=psync \
		--size="$((blocks * 4096))" --invalidate=1 --output-format=terse |
		awk -F';' '{ printf "%.1f\n", $7 * 1024 / 1e6 }'
}

# The same bytes through both sides, once, before timing anything.
want=$(head -c "$((blocks * 4096))" "$IMG" | sha256sum)
for mode in vublk vublk-inline; do
	start_mode $mode
	[ "$(sha256sum <"$DEV")" = "$want" ] || fail "$mode read other bytes"
	stop_mode $mode
done
start_mode dm-verity
[ "$(sha256sum <"$DEV")" = "$want" ] || fail "dm-verity read other bytes"
stop_mode dm-verity

for round in $(seq "$rounds"); do
	for i in "${!MODES[@]}"; do
		mode=${MODES[$(( (i + round) % ${#MODES[@]} ))]}
		start_mode "$mode"
		echo "$mode $(cold_mbs "$DEV")" >>"$RESULTS"
		stop_mode "$mode"
	done
	say "round $round: $(tail -n ${#MODES[@]} "$RESULTS" | tr '\n' ' ')"
done

python3 - "$RESULTS" "$delay" "$mib" <<'PY'
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    mode, mbs = line.split()
    r[mode].append(float(mbs))
med = {m: statistics.median(v) for m, v in r.items()}
print(f"nbd bench: {sys.argv[3]} MiB, reads delayed {sys.argv[2]} ms, "
      f"{len(r['vublk'])} rounds, cold sequential read, MB/s")
print("| mode | median | rounds |")
print("|---|---|---|")
for m in ("vublk", "vublk-inline", "dm-verity", "vublk-raw", "nbd-raw"):
    print(f"| {m} | {med[m]:.1f} | {' '.join(f'{x:.1f}' for x in r[m])} |")
print(f"vublk / dm-verity: {med['vublk'] / med['dm-verity']:.2f}; "
      f"vublk-inline / dm-verity: {med['vublk-inline'] / med['dm-verity']:.2f}; "
      f"vublk / vublk-raw: {med['vublk'] / med['vublk-raw']:.2f}; "
      f"dm-verity / nbd-raw: {med['dm-verity'] / med['nbd-raw']:.2f}")
PY
