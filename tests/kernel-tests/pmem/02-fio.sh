#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fio psync 4 KiB random writes with crc32c verify headers on a pmem
# device (DAX file), read back and checked; then a separate verify-only
# pass of random reads over the same data.
. "$(dirname "$0")/lib.sh"
need_cmd fio

IMG=$(pmem_file disk.img 64)
vublk_add -t pmem -f "$IMG" -q 2

# run_fio NAME ARGS...: fio must exit 0 and report no errors.
run_fio() {
	local name=$1
	shift
	fio --name="$name" --filename="$DEV" --ioengine=psync --direct=1 \
		--bs=4k --size=4M --offset=0 --verify=crc32c --verify_fatal=1 \
		--randseed=1234 --output="$T/$name.out" "$@" ||
		{ cat "$T/$name.out"; fail "fio $name failed"; }
	grep -q "err= 0" "$T/$name.out" ||
		{ cat "$T/$name.out"; fail "fio $name reported errors"; }
}

run_fio randwrite-verify --rw=randwrite --do_verify=1
# Same seed, same offsets: a pure read pass that checks every block.
run_fio randread-verify --rw=randwrite --verify_only=1
[ "$(device_counter "$ID" errors)" = 0 ] || fail "the server counted errors"
wait_until 10 counter_above "$ID" writes 1023 ||
	fail "the server counted $(device_counter "$ID" writes) writes, expected >= 1024"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
