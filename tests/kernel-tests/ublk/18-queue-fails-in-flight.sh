#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A queue that fails while its target still has requests in flight goes
# on until the device stops: those requests finish (their buffers, and
# the target's queue state, are freed only after), new ones fail at once,
# and the device's stop then ends the queue as any stop does.  Run on
# O_DIRECT reads of the loop target into our buffers, the same with
# explicit zero copy (each request's registration in flight too, where
# the driver has zero copy), and verity's reads with its verify thread:
# the reader ends, the server stops the device and exits.  The failure is the test knob
# VUBLK_TEST_FAIL_QUEUE_AFTER=N: the queue fails as if the driver had
# refused a command once N requests went to the target.
. "$(dirname "$0")/lib.sh"
need_cmd fio timeout

RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
head -c 64M /dev/urandom >"$T/data" || fail "cannot write the data"

# fail_in_flight WHAT ADD_ARGS...: add a device whose queue fails after
# 300 requests, read it at depth 64 until then, and check the stop.
fail_in_flight() {
	local what=$1 pid log start took
	shift
	VUBLK_TEST_FAIL_QUEUE_AFTER=300 vublk_add "$@" -q 1 -d 64
	pid=$(server_pid "$ID")
	log=$RUN_DIR/$ID.log
	[ -n "$pid" ] || fail "$what: no server pid for device $ID"
	start=$SECONDS
	timeout 120 fio --name=fail --filename="$DEV" --ioengine=io_uring \
		--iodepth=64 --direct=1 --rw=randread --bs=16k --size=64M \
		--time_based --runtime=10 --output="$T/fio.out" >/dev/null 2>&1
	[ $? -ne 124 ] || fail "$what: the reader hung after the queue failed"
	wait_until 60 eval '! kill -0 "$pid" 2>/dev/null' ||
		fail "$what: the server (pid $pid) still runs after its queue failed"
	took=$((SECONDS - start))
	grep -q "queue 0 stopped on an error" "$log" ||
		fail "$what: the queue did not fail: $(cat "$log")"
	grep -Eq "queue 0: failing new requests until the device stops \([1-9][0-9]* requests? still in the target\)" "$log" ||
		fail "$what: the queue did not go on for its target's requests: $(cat "$log")"
	grep -q "device $ID: a queue failed; stopping the device" "$log" ||
		fail "$what: the server did not stop the device: $(cat "$log")"
	! grep -Eq "stopping anyway|STOP_DEV did not complete" "$log" ||
		fail "$what: requests were left behind: $(cat "$log")"
	! grep -q "AddressSanitizer" "$log" ||
		fail "$what: the sanitizer reported: $(cat "$log")"
	# 1-2 s, or fio's whole --runtime when its next reads came only
	# after the disk was gone: those read 0 bytes without an error, and
	# fio reads on.  (The server no longer waits for fio to close the
	# disk: ublk/19.)
	[ $took -lt 30 ] || fail "$what: reader and server took $took s to end: $(cat "$log")"
	"$VUBLK" del -n "$ID" >/dev/null 2>&1
	say "$what: $(grep -Eo '[0-9]+ requests? still in the target' "$log"); reader and server done in ${took} s"
}

cp "$T/data" "$T/disk.img"
fail_in_flight "loop --direct, our buffers" -t loop -f "$T/disk.img" --direct --zero-copy=off
if have_feature zero_copy; then
	VUBLK_TEST_NO_AUTO_BUF_REG=1 fail_in_flight "loop --direct, explicit zero copy" \
		-t loop -f "$T/disk.img" --direct --zero-copy=on
fi

cp "$T/data" "$T/sealed.img"
"$VUBLK_BUILD/tools/vublk-verity/vublk-verity" format "$T/sealed.img" >"$T/digest" ||
	fail "vublk-verity format failed"
fail_in_flight "verity, verify thread" -t verity -f "$T/sealed.img" \
	--digest="$(cut -d' ' -f1 "$T/digest")" --direct --verify-thread=on
say "PASS"
