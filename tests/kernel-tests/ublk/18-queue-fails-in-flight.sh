#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A queue that stops on an error while its target still has requests in
# flight waits for them before its teardown frees the buffers they are
# read into and the target's queue state: O_DIRECT reads of the loop
# target into our buffers, the same with explicit zero copy (each
# request's registration in flight too, where the driver has zero copy),
# and verity's reads with its verify thread.  The reader ends in
# seconds, and the server exits having waited for its requests.  The
# failure is the test knob VUBLK_TEST_FAIL_QUEUE_AFTER=N: the queue fails
# as if the driver had refused a command once N requests went to the
# target.
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
		--time_based --runtime=30 --output="$T/fio.out" >/dev/null 2>&1
	[ $? -ne 124 ] || fail "$what: the reader hung after the queue failed"
	wait_until 60 eval '! kill -0 "$pid" 2>/dev/null' ||
		fail "$what: the server (pid $pid) still runs after its queue failed"
	took=$((SECONDS - start))
	# 1-2 s here; the block layer's 30 s timeout would mean a request
	# left holding its tag, which closing the ring cannot abort.
	[ $took -lt 20 ] || fail "$what: reader and server took $took s to end"
	grep -q "queue 0 stopped on an error" "$log" ||
		fail "$what: the queue did not fail: $(cat "$log")"
	grep -Eq "queue 0: waiting for [1-9][0-9]* requests? still in the target before stopping" "$log" ||
		fail "$what: the queue did not wait for its target's requests: $(cat "$log")"
	! grep -q "stopping anyway" "$log" ||
		fail "$what: requests were left in the target: $(cat "$log")"
	! grep -q "AddressSanitizer" "$log" ||
		fail "$what: the sanitizer reported: $(cat "$log")"
	"$VUBLK" del -n "$ID" >/dev/null 2>&1
	say "$what: $(grep -Eo 'waiting for [0-9]+ requests?' "$log"); reader and server done in ${took} s"
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
