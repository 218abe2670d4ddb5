#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Zero copy (UBLK_F_AUTO_BUF_REG, Linux 6.16): a loop device over a file
# moves its data straight between the backing file and the requests'
# pages.  Where the driver has it, a loop device uses it by default
# (`vublk list` shows auto_buf_reg), fio verifies random writes through
# the page cache and with O_DIRECT, also over an O_DIRECT backing file
# (--direct, where the device asks for the file's alignment), and f2fs
# survives a del + add; --zero-copy=off copies as before.  A 6.15 driver
# has zero copy without auto_buf_reg, and the server registers each
# request's pages itself: that path, forced on a newer driver by hiding
# auto_buf_reg (VUBLK_TEST_NO_AUTO_BUF_REG=1), passes the same fio
# verification.  Targets that cannot (verity must see the bytes; the pmem
# backend copies by design) refuse --zero-copy=on with one line, and so
# does a driver without zero copy (6.14 and older).
. "$(dirname "$0")/lib.sh"
need_cmd fio mkfs.f2fs sha256sum

VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity

# refused LINE ARGS...: vublk add ARGS fails with one line containing LINE
# and leaves no device.
refused() {
	local want=$1
	shift
	"$VUBLK" add "$@" >"$T/out" 2>"$T/err" && fail "vublk add $* worked: $(cat "$T/out")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "vublk add $*: not one line: $(cat "$T/err")"
	grep -qF -- "$want" "$T/err" || fail "vublk add $*: wanted '$want': $(cat "$T/err")"
	[ -z "$(ublk_disks)" ] || fail "a refused add left $(ublk_disks)"
}

# uses_zero_copy ID: device ID moves data in the requests' pages, the
# driver registering them (auto_buf_reg) or the server (zero_copy alone).
features_of() { device_field "$1" '",".join(d["features"])'; }
uses_zero_copy() { [[ ,$(features_of "$1"), =~ ,(auto_buf_reg|zero_copy), ]]; }
uses_explicit_reg() {
	local f
	f=,$(features_of "$1"),
	[[ $f == *,zero_copy,* && $f != *,auto_buf_reg,* ]]
}

# fio_verify NAME ARGS...: random writes verified on $DEV.
fio_verify() {
	local name=$1
	shift
	fio --name="$name" --filename="$DEV" --ioengine=io_uring --iodepth=16 \
		--rw=randwrite --bsrange=512-256k --size=32M --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --randrepeat=0 "$@" \
		--output="$T/fio-$name.out" ||
		fail "fio $name failed: $(cat "$T/fio-$name.out")"
	grep -q "err= 0" "$T/fio-$name.out" || fail "fio $name reported errors"
}

truncate -s 128M "$T/disk.img"
head -c 4M /dev/urandom >"$T/small.img"
digest=$("$VV" format "$T/small.img") || fail "vublk-verity format"
digest=${digest%% *}
refused "this verity device cannot leave its data in the requests' pages" -t verity -f "$T/small.img" --digest="$digest" --zero-copy=on
refused "bad --zero-copy value 'yes'" -t loop -f "$T/disk.img" --zero-copy=yes

if ! have_feature zero_copy; then
	refused "zero_copy feature (Linux 6.15+)" -t loop -f "$T/disk.img" --zero-copy=on
	vublk_add -t loop -f "$T/disk.img"
	! uses_zero_copy "$ID" || fail "a device uses zero copy on a driver without it"
	say "PASS (driver of $(uname -r) lacks zero copy: copies, and --zero-copy=on is refused)"
	exit 0
fi

# 1. The default uses zero copy; fio verifies buffered and O_DIRECT I/O,
# with buffers of any alignment fio gives.
vublk_add -t loop -f "$T/disk.img" -q 2
uses_zero_copy "$ID" || fail "a loop device does not use zero copy by default: $(device_json "$ID")"
fio_verify buffered --direct=0
fio_verify direct --direct=1
fio_verify direct-odd --direct=1 --iomem_align=512 --bsrange=4k-4k
f2fs_tree_write
say "zero copy: fio verified buffered and O_DIRECT, f2fs written"

# 2. Off: copies, as before, and reads back what zero copy wrote.
f2fs_tree_survives_readd -t loop -f "$T/disk.img" --zero-copy=off
! uses_zero_copy "$ID" || fail "--zero-copy=off uses zero copy"
say "--zero-copy=off: f2fs written with zero copy reads back"

# 3. An O_DIRECT backing file: the device asks for its alignment.
f2fs_tree_survives_readd -t loop -f "$T/disk.img" --direct --zero-copy=on
uses_zero_copy "$ID" || fail "--direct --zero-copy=on does not use zero copy"
umount "$MNT" || fail "umount"
# The filesystem is not needed any more: fio may write over it.
fio_verify backing-direct --direct=1 --offset=64M --bsrange=4k-256k
# The device asks for the backing file's O_DIRECT memory alignment (statx
# STATX_DIOALIGN; 512 on the lab's ext4 over virtio-blk): buffers at that
# alignment work, and the block layer refuses coarser ones before they
# reach vublk, as for any disk with such a limit.
align=$(cat "/sys/block/ublkb$ID/queue/dma_alignment")
if [ "$align" -lt 512 ]; then
	fio_verify backing-direct-odd --direct=1 --offset=64M --iomem_align=512 --bsrange=4k-4k
else
	fio --name=odd --filename="$DEV" --ioengine=io_uring --direct=1 --rw=randwrite \
		--bs=4k --size=1M --offset=64M --iomem_align=512 --output="$T/fio-odd.out" &&
		fail "a 512-byte aligned O_DIRECT buffer passed a device with dma_alignment $align"
fi
[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors"
say "zero copy over an O_DIRECT backing file: verified"

"$VUBLK" del -n "$ID" || fail "vublk del"

# 4. The server registers the pages (6.15's zero copy), forced here.
if have_feature auto_buf_reg; then
	VUBLK_TEST_NO_AUTO_BUF_REG=1 vublk_add -t loop -f "$T/disk.img" -q 2
	uses_explicit_reg "$ID" ||
		fail "with auto_buf_reg hidden, the device does not register its pages itself: $(features_of "$ID")"
	fio_verify explicit-buffered --direct=0
	fio_verify explicit-direct --direct=1
	"$VUBLK" del -n "$ID" || fail "vublk del"
	VUBLK_TEST_NO_AUTO_BUF_REG=1 vublk_add -t loop -f "$T/disk.img" --direct
	uses_explicit_reg "$ID" || fail "--direct: not registering its pages itself"
	fio_verify explicit-backing-direct --direct=1 --offset=64M --bsrange=4k-256k
	[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors"
	"$VUBLK" del -n "$ID" || fail "vublk del"
	say "zero copy registered by the server (6.15's way): fio verified buffered, O_DIRECT, over an O_DIRECT backing file"
fi
# The pmem backend always copies.
refused "this loop device cannot leave its data in the requests' pages" -t loop -f "$T/disk.img" --backend=pmem --zero-copy=on
say "PASS"
