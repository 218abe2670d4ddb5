#!/bin/bash
# Smoke test of the kernel lab (tests/vm): fio with io_uring and O_DIRECT
# writes a file on the scratch filesystem and reads it back verified
# (crc32c per block), as the ublk tests' fio runs will.
set -uo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

: "${VUBLK_SCRATCH:?VUBLK_SCRATCH must name a writable scratch directory}"
out=$(fio --name=lab-verify --filename="$VUBLK_SCRATCH/fio.dat" --size=16M \
	--rw=randwrite --bs=4k --ioengine=io_uring --direct=1 --iodepth=8 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 --output-format=terse \
	--terse-version=3 2>&1) || fail "fio failed: $out"
# Terse v3: field 5 is the job's error number, 6 the KiB read (the verify
# pass), 47 the KiB written.
IFS=';' read -r -a fields <<<"$(tail -n 1 <<<"$out")"
[[ ${fields[4]} == 0 ]] || fail "fio reported error ${fields[4]}: $out"
[[ ${fields[5]} -eq 16384 && ${fields[46]} -eq 16384 ]] ||
	fail "fio did not write and verify 16 MiB (read ${fields[5]} KiB, wrote ${fields[46]} KiB)"
echo "fio io_uring O_DIRECT: 16 MiB written and verified with crc32c"
