#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A sealed image (ext4 made with mkfs.ext4 -d, vublk-verity format) served
# read-only by nbdkit: -t verity --digest over the URI mounts, every file
# checks, every block it read was verified; metadata, tree and data all
# came over NBD, in requests of at most 256 KiB.  Then the same image
# published by a plain HTTP server (busybox httpd; python3's http.server
# answers no Range requests, which the curl plugin needs) and reached
# through nbdkit's curl plugin: the example of docs/DAEMON.md.
. "$(dirname "$0")/lib.sh"
need_cmd busybox

sealed_image
serve -r file "$IMG"
vublk_add -t verity -f "$URI" --digest="$DIGEST"
# Requests of 256 KiB over NBD (the target's max_req_bytes), not 1 MiB.
max_kb=$(cat /sys/block/ublkb"$ID"/queue/max_sectors_kb)
[ "$max_kb" = 256 ] || fail "requests of up to $max_kb KiB over NBD, not 256"
mount -t ext4 -o ro "$DEV" "$MNT" || fail "mounting the verity device"
check_sums "verity over NBD"
umount "$MNT" || fail "umount"
counters "$ID" blocks_verified failures tree_reads
[ "${COUNT[blocks_verified]}" -ge $((8 << 8)) ] ||
	fail "only ${COUNT[blocks_verified]} blocks verified"
[ "${COUNT[failures]}" = 0 ] || fail "failures on an intact image"
[ "${COUNT[tree_reads]}" -gt 0 ] || fail "no tree reads"
"$VUBLK" del -n "$ID" || fail "vublk del"
kill_nbdkit TERM

# The docs' example: HTTP, the curl plugin, verity.
ip link set lo up 2>/dev/null
port=8765
busybox httpd -f -p "127.0.0.1:$port" -h "$NBD_SHARED" &
http=$!
serve -r curl "http://127.0.0.1:$port/sealed.img"
vublk_add -t verity -f "$URI" --digest="$DIGEST"
mount -t ext4 -o ro "$DEV" "$MNT" || fail "mounting the image from HTTP"
check_sums "verity over NBD over HTTP"
umount "$MNT"
"$VUBLK" del -n "$ID" || fail "vublk del"
kill "$http"
say "PASS: a sealed image over NBD (file and curl plugins) mounts and checks"
