#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The verity target under mixed readers on two queues with a tree cache
# far smaller than the tree: a 512 MiB image (4 MiB tree) filled by fio
# with crc32c verify headers through a loop device, sealed, then read by
# random and sequential, direct and buffered (readahead) fio jobs at once
# with --cache-mb 1.  fio must verify every block it reads, and the
# target's counters must agree with the kernel's and with each other.
. "$(dirname "$0")/lib.sh"
need_cmd fio timeout python3
"$VUBLK" verity --help >/dev/null 2>&1 || skip "this vublk has no verity target"
VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity
[ -x "$VV" ] || skip "$VV is not built"
SIZE_MB=512
CACHE_MB=1
BLOCK=4096

raw=$T/verity.img
truncate -s ${SIZE_MB}M "$raw" || fail "cannot create $raw"
vublk_add -t loop -f "$raw" -q "$NR_CPUS"
# Every 4 KiB carries its own header (offset + crc32c), whatever the
# block size of the job that reads it later.
verify=(--verify=crc32c --verify_interval=$BLOCK --ioengine=io_uring)
timeout 300 fio --name=fill --filename="$DEV" --rw=write --bs=1M --iodepth=8 \
	--direct=1 --size=${SIZE_MB}M --do_verify=0 "${verify[@]}" \
	>"$T/fill.log" 2>&1 || fail "fio fill of $DEV failed: $(tail -n 5 "$T/fill.log")"
timeout 60 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID failed"
step "$SIZE_MB MiB written through $DEV"
digest=$(timeout 300 "$VV" format "$raw") || fail "vublk-verity format $raw failed"
tree_bytes=$("$VV" dump "$raw" | sed -n 's/^  tree size: *\([0-9]*\)$/\1/p')
[ -n "$tree_bytes" ] && [ "$tree_bytes" -ge $((4 * (CACHE_MB << 20))) ] ||
	fail "the tree ($tree_bytes bytes) is not far larger than the ${CACHE_MB} MiB cache"
step "sealed: ${digest%% *}, tree $tree_bytes bytes"

vublk_add -t verity -f "$raw" --digest="${digest%% *}" -q 2 --cache-mb=$CACHE_MB
name=${DEV#/dev/}
# Five readers at once, all verifying fio's headers; each reads a bounded
# amount (the runtime is only a cap against a stall).
timeout 300 fio --filename="$DEV" --size=${SIZE_MB}M --runtime=120 \
	"${verify[@]}" --group_reporting=0 --randseed=42 \
	--name=rand4k --rw=randread --bs=4k --iodepth=16 --direct=1 --io_size=16M \
	--name=rand64k --rw=randread --bs=64k --iodepth=4 --direct=1 --io_size=32M \
	--name=seq-front --rw=read --bs=128k --iodepth=4 --direct=1 --io_size=48M \
	--name=seq-back --rw=read --bs=1M --iodepth=2 --direct=1 --offset=256M --io_size=48M \
	--name=buffered --rw=read --bs=4k --ioengine=psync --direct=0 --offset=128M --io_size=24M \
	>"$T/read.log" 2>&1
status=$?
[ $status -eq 0 ] || fail "fio readers failed (status $status): $(grep -E 'verify|err=' "$T/read.log" | head -n 5)"
errs=$(grep -c 'err= 0' "$T/read.log")
[ "$errs" -eq 5 ] || fail "only $errs of 5 fio jobs report err= 0: $(grep 'err=' "$T/read.log")"
grep -q 'verify' "$T/read.log" && fail "fio reported verify problems: $(grep -m3 verify "$T/read.log")"
step "fio: $(grep -m1 'READ:' "$T/read.log" | sed 's/^ *//')"

# The kernel's view (/sys/block/NAME/stat: read requests, sectors read)
# against the server's, once the stats file (rewritten every second) has
# caught up: every read request reached the target, every byte of it was
# verified, nothing failed.
read -r kreqs _ ksectors _ </sys/block/$name/stat
server_reads() { device_field "$ID" 'd["stats"]["reads"]'; }
reads_caught_up() { [ "$(server_reads)" = "$kreqs" ]; }
wait_until 10 reads_caught_up ||
	fail "the server counts $(server_reads) reads, the kernel $kreqs"
"$VUBLK" list -n "$ID" --json >"$T/list.json" || fail "vublk list -n $ID --json failed"
python3 - "$T/list.json" "$kreqs" "$ksectors" $BLOCK $((tree_bytes / BLOCK)) <<'PY' || fail "inconsistent counters (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
d = doc[0] if isinstance(doc, list) else doc
st, v = d["stats"], d["stats"]["verity"]
kreqs, ksectors, block, tree_blocks = map(int, sys.argv[2:])
read_blocks = ksectors * 512 // block
print("kernel: %d read requests, %d blocks; server: %s" % (kreqs, read_blocks, v))
checks = [
    ("every read request reached the target", st["reads"] == kreqs),
    ("every block read was verified", v["blocks_verified"] >= read_blocks),
    ("no verification failure", v["failures"] == 0),
    ("no I/O error", v["io_errors"] == 0 and st["errors"] == 0),
    ("buffered readers sent readahead", st["readahead"] > 0),
    # More tree blocks read than the tree has: the 1 MiB cache evicted
    # blocks that later reads needed again.
    ("the small cache evicted and re-read tree blocks",
     v["cache_misses"] > 0 and v["tree_blocks_read"] > tree_blocks),
]
bad = [name for name, ok in checks if not ok]
for name in bad:
    print("FAIL: " + name, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
timeout 60 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID failed"
step "final: $(grep "device $ID (verity .*) counters: " "$RUN_DIR/$ID.log" | tail -n 1)"
check_gone "$ID"
say "PASS"
