#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk recover` refuses, with one clear line and no change: a device
# added without -r (its server killed), a device whose server is alive, an
# unknown id.  --recovery=fail is refused where the kernel lacks it (6.12).
. "$(dirname "$0")/lib.sh"

IMG=$T/disk.img
truncate -s 16M "$IMG"

# expect_refusal SUBSTRING ARGS...: one stderr line holding SUBSTRING,
# non-zero exit, nothing on stdout.
expect_refusal() {
	local want=$1 rc
	shift
	timeout 60 "$VUBLK" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "vublk $* exited $rc"
	[ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF -- "$want" "$T/err" ||
		fail "vublk $*: wanted one line with '$want', got: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "vublk $* printed: $(cat "$T/out")"
}

# 1. Without -r: the killed server's device is dead for good.
vublk_add -t loop -f "$IMG"
kill_server "$ID"
expect_refusal "was not added with -r (--recovery)" recover -n "$ID"
expect_refusal "delete it with: vublk del -n $ID" recover -n "$ID"
[ "$(device_state "$ID")" = dead ] || fail "device $ID is '$(device_state "$ID")' after the refusal, not dead"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

# 2. A live server: nothing to recover, and it keeps serving.
vublk_add -t loop -f "$IMG" -r
pid=$(server_pid "$ID")
expect_refusal "recover: device $ID: server pid $pid is alive: nothing to recover" recover -n "$ID"
[ "$(server_pid "$ID")" = "$pid" ] && kill -0 "$pid" || fail "the live server changed"
dd if="$DEV" of=/dev/null bs=4k count=1 iflag=direct status=none || fail "the device stopped serving"
grep -q '"recovery": "queue"' "$RUN_DIR/$ID.json" || fail "state file lacks the recovery mode: $(cat "$RUN_DIR/$ID.json")"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"

# 3. Unknown id, and usage.
expect_refusal "recover: no device with id 77" recover -n 77
expect_refusal "give the device with -n ID" recover

# 4. --recovery=fail needs UBLK_F_USER_RECOVERY_FAIL_IO (Linux 6.13).
if ! kernel_at_least 6.13; then
	expect_refusal "--recovery needs the ublk driver's user_recovery_fail_io feature (Linux 6.13+)" add -t loop -f "$IMG" --recovery=fail
	[ -z "$(ublk_disks)" ] || fail "a refused add left $(ublk_disks)"
else
	vublk_add -t loop -f "$IMG" --recovery=fail
	"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
fi
say "PASS"
