#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The verity target recovers too: a sealed image served with
# --recovery=reissue, read whole by dd while its server is killed -9 and
# recovered (same image, same --digest), reads back exactly the data that
# was sealed; the recovered server verifies with the same trust.
. "$(dirname "$0")/lib.sh"
"$VUBLK" verity --help >/dev/null 2>&1 || skip "no verity target in this vublk"
VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity
[ -x "$VV" ] || skip "$VV is not built"
need_cmd sha256sum

IMG=$T/verity.img
head -c 64M /dev/urandom >"$IMG" || fail "creating the data"
want=$(sha256sum <"$IMG")
digest=$("$VV" format "$IMG") || fail "vublk-verity format $IMG"
vublk_add -t verity -f "$IMG" --digest="${digest%% *}" --recovery=reissue -q 2
grep -q -- "--digest=" "$RUN_DIR/$ID.json" || fail "state file lacks the target options"

timeout 300 dd if="$DEV" bs=64k iflag=direct status=none 2>"$T/dd.err" | sha256sum >"$T/got" &
reader=$!
wait_until 60 counter_above "$ID" reads 20 || fail "the reader did not get going"
[ -n "$(jobs -r)" ] || fail "the reader ended before the kill: make the image larger"
kill_server "$ID"
recover "$ID"
wait $reader
[ "$(cat "$T/got")" = "$want" ] || fail "data read across the recovery differs: $(cat "$T/dd.err")"
# A second full read through the recovered server, verified.
[ "$(dd if="$DEV" bs=1M iflag=direct status=none | sha256sum)" = "$want" ] ||
	fail "a read through the recovered server differs"
"$VUBLK" list -n "$ID" --json | grep -q '"failures": 0' || fail "verification failures: $("$VUBLK" list -n "$ID" --json)"
check_dmesg_clean
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
