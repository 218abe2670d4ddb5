#!/bin/bash
# fio with verification against the verity device (2 queues, iodepth 32):
# the data was written by fio with crc32c verify headers through a loop
# device, then sealed; sequential and random reads must verify.
. "$(dirname "$0")/lib.sh"
need_cmd fio

raw=$SCRATCH/fio.img
size=128M
common=(--bs=64k --size=$size --verify=crc32c --verify_state_save=0
	--ioengine=io_uring --direct=1 --iodepth=32 --randseed=1234)
cd "$SCRATCH" || fail "cannot enter $SCRATCH"	# fio writes files in its cwd

truncate -s $size "$raw" || fail "cannot create $raw"
vublk_add -t loop -f "$raw"
fio --name=write --rw=write --do_verify=0 "${common[@]}" --filename="$DEV" \
	>"$SCRATCH/fio-write.log" || fail "fio write failed: $(tail -n 5 "$SCRATCH/fio-write.log")"
"$VUBLK" del -n "$ID" || fail "vublk del failed"
digest=$("$VV" format "$raw") || fail "vublk-verity format failed"
vublk_add -t verity -q 2 -f "$raw" --digest="${digest%% *}"
for rw in read randread; do
	fio --name=$rw --rw=$rw --verify_only "${common[@]}" --filename="$DEV" \
		>"$SCRATCH/fio-$rw.log" 2>&1 ||
		fail "fio $rw --verify=crc32c failed: $(tail -n 5 "$SCRATCH/fio-$rw.log")"
	grep -q "err= 0" "$SCRATCH/fio-$rw.log" || fail "fio $rw reported errors"
	say "$rw: $(grep -m1 -o 'READ: bw=[^,]*' "$SCRATCH/fio-$rw.log")"
done
line=$(del_and_counters "$ID") || exit 1
[ "$(counter failures "$line")" = 0 ] || fail "verification failures"
say "PASS: $line"
