#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The protocol vublk speaks: on a driver that answers GET_FEATURES
# (6.5+), every command goes ioctl-encoded; `vublk features` lists the
# driver's flags by name, and `vublk list` those a device uses, in UTF-8
# JSON whatever the backing file's name.  The legacy
# encoding (the plain numbers a kernel without it needs, kept by
# CONFIG_BLKDEV_UBLK_LEGACY_OPCODES) still serves a device when forced.
. "$(dirname "$0")/lib.sh"
need_cmd fio python3

"$VUBLK" features >"$T/features.txt" || fail "vublk features failed"
"$VUBLK" features --json >"$T/features.json" || fail "vublk features --json failed"
python3 - "$T/features.json" <<'PY' || fail "vublk features --json: $(cat "$T/features.json")"
import json, sys
f = json.load(open(sys.argv[1]))
assert f["encoding"] == "ioctl", f
mask = int(f["mask"], 16)
assert f["features"]["cmd_ioctl_encode"] and f["features"]["user_recovery"], f
assert mask & 0x40 and mask & 0x8, hex(mask)
PY
grep -q "cmd_ioctl_encode *yes" "$T/features.txt" || fail "the table: $(cat "$T/features.txt")"
say "$(head -n 1 "$T/features.txt")"

truncate -s 32M "$T/disk.img"
vublk_add -t loop -f "$T/disk.img" -r
device_field "$ID" '",".join(d["features"])' >"$T/dev.features"
grep -q "cmd_ioctl_encode" "$T/dev.features" && grep -q "user_recovery" "$T/dev.features" ||
	fail "vublk list --json features of device $ID: $(cat "$T/dev.features")"
"$VUBLK" list | grep -q "features .*user_recovery" || fail "vublk list: $("$VUBLK" list)"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

# A backing file whose name is not UTF-8: the list stays UTF-8 JSON, the
# byte as U+FFFD (the state file keeps the raw bytes: test_state).
latin1=$T/disk-$'\xe9'.img
cp "$T/disk.img" "$latin1" || fail "cannot copy the image to a Latin-1 name"
vublk_add -t loop -f "$latin1" -r
"$VUBLK" list -n "$ID" --json | python3 -c '
import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))[0]
assert d["backing_file"].endswith("/disk-\ufffd.img"), d["backing_file"]
' || fail "vublk list --json with a Latin-1 backing file name: $("$VUBLK" list -n "$ID" --json | od -c | head -n 20)"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID of the Latin-1 name"

# Forced legacy opcodes: the same device life, and fio verifies.
export VUBLK_TEST_LEGACY_OPCODES=1
"$VUBLK" features --json | grep -q '"encoding": "legacy"' ||
	fail "VUBLK_TEST_LEGACY_OPCODES=1 did not force the legacy encoding"
vublk_add -t loop -f "$T/disk.img"
fio --name=legacy --filename="$DEV" --ioengine=io_uring --iodepth=16 \
	--direct=1 --rw=randwrite --bs=4k --size=16M --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --output="$T/fio.out" ||
	{ cat "$T/fio.out"; fail "fio with legacy opcodes failed"; }
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID with legacy opcodes"
say "PASS"
