#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk add -t pmem` refuses what libpmem2 cannot serve -- a block device,
# a directory, a missing file, an empty file -- with ONE line on stderr
# that says why and what to use instead, a non-zero exit, and no device
# state left behind.  The target refuses in init, before the core touches
# /dev/ublk-control, so this runs on a host without ublk_drv.
# usage: refusals.sh VUBLK
set -u
VUBLK=${1:?usage: refusals.sh VUBLK}
T=$(mktemp -d /var/tmp/vublk-pmem-refusals.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export VUBLK_RUN_DIR=$T/run
failed=0

fail() { echo "FAIL: $*" >&2; failed=1; }

# refused PATH PATTERN: add fails with one stderr line matching PATTERN.
refused() {
	local path=$1 pattern=$2 rc lines
	"$VUBLK" add -t pmem -f "$path" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err")
	[ $rc -ne 0 ] || fail "add -f $path succeeded"
	[ "$lines" -eq 1 ] || fail "add -f $path: $lines stderr lines, want 1: $(cat "$T/err")"
	grep -Eq -- "$pattern" "$T/err" ||
		fail "add -f $path: '$(cat "$T/err")' does not match /$pattern/"
	[ ! -s "$T/out" ] || fail "add -f $path printed a device: $(cat "$T/out")"
	if ls "$VUBLK_RUN_DIR"/*.json >/dev/null 2>&1; then
		fail "add -f $path left state: $(ls "$VUBLK_RUN_DIR")"
	fi
	echo "ok: $path: $(cat "$T/err")"
}

mkdir "$T/dir"
: >"$T/empty"
if mknod "$T/blockdev" b 7 0 2>/dev/null; then
	refused "$T/blockdev" 'it is a block device, which libpmem2 cannot map; use a file on a filesystem mounted with -o dax'
else
	echo "note: cannot mknod a block device node here; block-device case left to the VM test"
fi
refused "$T/dir" 'is a directory'
refused "$T/missing" 'No such file or directory'
refused "$T/empty" 'the file is empty; .*truncate -s'
exit $failed
