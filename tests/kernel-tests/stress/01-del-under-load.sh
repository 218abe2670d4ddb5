#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk del` of a device under full load: fio randrw at the device's
# depth (256), one job per CPU, on a loop device with one queue per CPU.
# del must finish (STOP_DEV drains or aborts every request in flight), fio
# must end with I/O errors, nothing may hang, and the id must be free.
. "$(dirname "$0")/lib.sh"
need_cmd fio timeout pgrep
DEPTH=256
LOAD_SECONDS=60		# upper bound only: the del ends fio long before

IMG=$T/disk.img
truncate -s 256M "$IMG" || fail "cannot create $IMG"
vublk_add -t loop -f "$IMG" -q "$NR_CPUS" -d $DEPTH
fio_under_fault "$T/fio.log" "$DEV" $DEPTH $LOAD_SECONDS
# The stats file is rewritten every second: a few hundred completed
# writes means fio runs at full depth.
wait_until 30 counter_above "$ID" writes 200 ||
	fail "fio did not get going on $DEV: $(tail -n 5 "$T/fio.log")"
step "fio running: $(device_counter "$ID" reads) reads, $(device_counter "$ID" writes) writes done"

log=$RUN_DIR/$ID.log
timeout 60 "$VUBLK" del -n "$ID" || fail "vublk del -n $ID under load failed or hung (status $?)"
step "del done"
fio_wait_failed "$T/fio.log"
grep -q "device $ID stopped and deleted" "$log" ||
	fail "the server did not log a clean stop: $(tail -n 5 "$log")"
check_gone "$ID"
step "device $ID gone"
check_id_free "$ID" -t loop -f "$IMG" -q "$NR_CPUS" -d $DEPTH
say "PASS"
