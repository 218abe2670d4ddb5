#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk add -t pmem -f /dev/pmem0` is refused: libpmem2 maps only files
# and device-DAX.  One error line that says what to use instead, a
# non-zero exit, and no device left behind.
. "$(dirname "$0")/lib.sh"

[ -b "$VUBLK_PMEM_DEV" ] || fail "$VUBLK_PMEM_DEV is not a block device"
# `vublk list` rows after its header line.
devices() { "$VUBLK" list | tail -n +2; }
before=$(ublk_disks)
before_list=$(devices)
if "$VUBLK" add -t pmem -f "$VUBLK_PMEM_DEV" >"$T/out" 2>"$T/err"; then
	fail "vublk add -t pmem -f $VUBLK_PMEM_DEV succeeded: $(cat "$T/out")"
fi
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "expected one error line, got: $(cat "$T/err")"
grep -q "it is a block device, which libpmem2 cannot map; use a file on a filesystem mounted with -o dax" "$T/err" ||
	fail "unexpected message: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "add printed a device: $(cat "$T/out")"
[ "$(ublk_disks)" = "$before" ] || fail "ublk disks changed: '$before' -> '$(ublk_disks)'"
[ "$(devices)" = "$before_list" ] || fail "vublk list changed: '$before_list' -> '$(devices)'"
say "PASS: $(cat "$T/err")"
