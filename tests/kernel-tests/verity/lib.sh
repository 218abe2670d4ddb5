# SPDX-License-Identifier: GPL-2.0-only
# Shared by the verity kernel tests (sourced, not run): the ublk group's
# helpers (vublk_add, device_field, device_log, need_cmd, fail/skip, the
# per-test directory $T with its mount point $MNT and the del -a cleanup)
# plus the sealed test image.  They run as root in the VM lab
# (tests/vm/run-kernel-tests verity) with VUBLK_BUILD and VUBLK_SCRATCH.
# Exit status: 0 pass, 1 fail, 77 skip.
#
# The test image (an f2fs filesystem of IMG_MIB holding a tree of files,
# one of them BIG_MIB, sealed with vublk-verity format) is made once per VM by
# prepare_image and kept next to the scripts' own scratch directories, in
# $VERITY_SHARED; a script run alone makes it itself.  Tests that damage it
# undo their damage (the same XOR again) before they exit.
. "$(dirname "${BASH_SOURCE[0]}")/../ublk/lib.sh"

VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity
VERITY_SHARED=$(dirname "$SCRATCH")/verity-shared
# VERITY_IMG and VERITY_BACKEND let another group run a script of this one
# on a copy of the image elsewhere, with another --backend (e.g.
# tests/kernel-tests/pmem/08-verity-pmem-tamper.sh: a copy on a DAX
# filesystem, --backend=pmem).
IMG=${VERITY_IMG:-$VERITY_SHARED/f2fs.img}	# sealed
BACKEND_ARGS=(${VERITY_BACKEND:+--backend="$VERITY_BACKEND"})
SUMS=$VERITY_SHARED/sums		# sha256sum of every file, relative
BIG=big.bin				# the BIG_MIB file
# Sizes: more than 64 MiB of data gives the tree three levels (a level-1
# block covers 128 * 128 blocks: 02-tamper damages one); a big file of
# 96 MiB spans 192 level-0 blocks, enough for readahead's 8x (04); f2fs
# keeps 114 MiB of 192 for files (160 would keep 88).  Every MiB more is
# read several times over by the group at TCG's 10-20 MiB/s (the group
# took 8-9 minutes a pass with 200 of 320; docs/TESTING.md).
BIG_MIB=96
IMG_MIB=192

[ -x "$VV" ] || fail "$VV is missing: build first (ninja -C \$VUBLK_BUILD)"
need_cmd mkfs.f2fs python3 openssl sha256sum

mkdir -p "$VERITY_SHARED"
FLIPS=()	# "pos" of bytes flipped in $IMG, undone at exit

# flip_byte POS: XOR the byte at offset POS of $IMG with 0xff (in place).
flip_byte() {
	python3 - "$IMG" "$1" <<'PY' || fail "cannot flip byte $1 of $IMG"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1)[0]
    f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0xff]))
PY
}

damage() { flip_byte "$1"; FLIPS+=("$1"); }

repair_all() {
	local pos
	for pos in "${FLIPS[@]}"; do flip_byte "$pos"; done
	FLIPS=()
}

# After the ublk group's cleanup: no device holds the image any more.
trap 'cleanup; repair_all' EXIT

# Pseudo-random bytes, fast even under TCG: an AES-CTR keystream.
# random_bytes SIZE SEED
random_bytes() {
	openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$2")" \
		-iv 00000000000000000000000000000000 </dev/zero 2>/dev/null |
		head -c "$1"
}

# verity_add [OPTIONS]: the sealed image as a verity device, pinned.
verity_add() {
	vublk_add -t verity -f "$IMG" --digest="$(cat "$VERITY_SHARED/digest")" \
		"${BACKEND_ARGS[@]}" "$@"
}

# Counters logged when device $1 is deleted: deletes it and prints its
# "device N (verity FILE) counters: name value, ..." line, the final
# counts (the core's request counters, then the target's).
del_and_counters() {
	local log line
	log=$(device_log "$1") || fail "no log path for device $1"
	"$VUBLK" del -n "$1" || fail "vublk del -n $1 failed"
	line=$(grep "device $1 (verity .*) counters: " "$log" | tail -n 1)
	[ -n "$line" ] || fail "no counters line for device $1 in $log"
	echo "$line"
}

# counter NAME LINE: a counter from a del_and_counters line.
counter() { sed -n "s/.*[ ,]$1 \([0-9]*\).*/\1/p" <<<"$2"; }

mount_ro() {
	mount -t f2fs -o ro "$DEV" "$MNT" || fail "mounting f2fs read-only from $DEV failed"
}

check_sums() {
	(cd "$MNT" && sha256sum --quiet -c "$SUMS") || fail "file contents differ ($1)"
}

# Fill a fresh f2fs with a tree of files; the big one takes most of it.
fill_tree() {
	local d f
	random_bytes $((BIG_MIB << 20)) 1 >"$MNT/$BIG" || fail "cannot write $BIG"
	for d in 1 2 3; do
		mkdir -p "$MNT/dir$d/sub" || fail "mkdir failed"
		for f in 1 2 3 4 5 6; do
			random_bytes $(((d * 37 + f * 101) * 1021)) $((d * 10 + f)) \
				>"$MNT/dir$d/f$f" || fail "cannot write dir$d/f$f"
		done
		random_bytes 5000 $((d + 100)) >"$MNT/dir$d/sub/small"
	done
	: >"$MNT/empty"
	ln -s dir1/f1 "$MNT/link"
	(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 sha256sum) \
		>"$SUMS.tmp" || fail "sha256sum of the new files failed"
}

# The life of the image up to sealing: loop device, mkfs.f2fs, files,
# umount, del, vublk-verity format.  Sets VERITY_SHARED/{f2fs.img,digest,sums}.
make_image() {
	local raw=$VERITY_SHARED/f2fs.raw digest
	rm -f "$VERITY_SHARED"/*
	truncate -s ${IMG_MIB}M "$raw" || fail "cannot create $raw"
	vublk_add -t loop -f "$raw"
	mkfs.f2fs -q -f "$DEV" >/dev/null || fail "mkfs.f2fs failed on $DEV"
	mount -t f2fs "$DEV" "$MNT" || fail "mounting the new f2fs failed"
	fill_tree
	umount "$MNT" || fail "umount failed"
	"$VUBLK" del -n "$ID" || fail "vublk del -n $ID failed"
	digest=$("$VV" format "$raw") || fail "vublk-verity format $raw failed"
	digest=${digest%% *}
	[[ $digest == sha256:* ]] || fail "vublk-verity format printed '$digest'"
	echo "$digest" >"$VERITY_SHARED/digest"
	mv "$SUMS.tmp" "$SUMS" && mv "$raw" "$IMG" || fail "cannot store the image"
	say "sealed $IMG: $digest"
}

prepare_image() {
	[ -f "$IMG" ] && [ -f "$SUMS" ] && [ -f "$VERITY_SHARED/digest" ] && return 0
	make_image
}

# Image geometry from vublk-verity dump: tree position and level offsets.
# tree_level_offset LEVEL: image offset of the first block of LEVEL.
tree_level_offset() {
	"$VV" dump "$IMG" | sed -n "s/^  level $1: [0-9]* blocks at offset \([0-9]*\),.*/\1/p"
}

# file_runs FILE: "START LENGTH" lines, the physically contiguous runs of
# FILE's blocks (mounted) in 4 KiB device blocks, from FIEMAP (filefrag -v
# works on f2fs; it reports f2fs's 2 MiB segments as separate extents,
# merged here).
file_runs() {
	filefrag -v "$MNT/$1" | python3 -c '
import re, sys
runs = []
for line in sys.stdin:
    m = re.match(r"\s*\d+:\s*\d+\.\.\s*\d+:\s*(\d+)\.\.\s*\d+:\s*(\d+):", line)
    if not m:
        continue
    start, length = int(m.group(1)), int(m.group(2))
    if runs and runs[-1][0] + runs[-1][1] == start:
        runs[-1][1] += length
    else:
        runs.append([start, length])
for r in runs:
    print(*r)'
}

# longest_run FILE: "START LENGTH" of FILE's longest run.
longest_run() {
	file_runs "$1" | sort -k2,2n | tail -n 1
}

# best_cover RUNS SPAN: the index k of the SPAN-block-aligned range
# [k*SPAN, (k+1)*SPAN) that overlaps the runs ("START LENGTH" lines) most.
best_cover() {
	python3 -c '
import sys
span = int(sys.argv[2]); cover = {}
for line in sys.argv[1].splitlines():
    s, n = map(int, line.split()); e = s + n
    k = s // span
    while k * span < e:
        cover[k] = cover.get(k, 0) + min(e, (k + 1) * span) - max(s, k * span)
        k += 1
print(max(cover, key=cover.get))' "$1" "$2"
}
