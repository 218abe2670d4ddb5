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

. "$(dirname "$0")/../refused.sh"

mkdir "$T/dir"
: >"$T/empty"
if mknod "$T/blockdev" b 7 0 2>/dev/null; then
	refused 'it is a block device, which libpmem2 cannot map; use a file on a filesystem mounted with -o dax' \
		-t pmem -f "$T/blockdev"
else
	echo "note: cannot mknod a block device node here; block-device case left to the VM test"
fi
refused 'is a directory' -t pmem -f "$T/dir"
refused 'No such file or directory' -t pmem -f "$T/missing"
refused 'the file is empty; .*truncate -s' -t pmem -f "$T/empty"
exit $failed
