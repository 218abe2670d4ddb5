# SPDX-License-Identifier: GPL-2.0-only
# Shared by the stress kernel tests (sourced, not run).  They build on the
# ublk group's helpers (vublk_add, server_pid, device_state, device_field,
# wait_until, ublk_disks, fail/skip, the per-test directory $T and the
# del -a cleanup) and add what load and leak checks need.  Run them with
# `tests/vm/run-kernel-tests stress`.  Exit status: 0 pass, 1 fail, 77 skip.
. "$(dirname "${BASH_SOURCE[0]}")/../ublk/lib.sh"

RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}
NR_CPUS=$(nproc)

# step MESSAGE: progress with the seconds since the test started (TCG is
# slow and uneven: the log shows where the time went).
step() { say "[${SECONDS} s] $*"; }

# Server processes: the forked `vublk add` children that serve a device.
# Their command name is "vublk"; `vublk add` itself has exited by the time
# a test looks, and no other vublk runs in the VM.
server_count() { pgrep -x vublk | wc -l; }

# fio_under_fault LOG DEV DEPTH SECONDS: start fio in the background
# (FIO_PID): 4 KiB randrw, io_uring, O_DIRECT, one job per CPU, each with
# DEPTH requests in flight, for at most SECONDS.  The fault injected while
# it runs must end it early with an I/O error; `timeout` bounds a hang.
fio_under_fault() {
	timeout -k 5 $(($4 + 30)) fio --name=load --filename="$2" \
		--rw=randrw --bs=4k --ioengine=io_uring --direct=1 \
		--iodepth="$3" --iodepth_batch_submit=32 --numjobs="$NR_CPUS" \
		--group_reporting --time_based --runtime="$4" \
		--size=100% --norandommap --randrepeat=0 >"$1" 2>&1 &
	FIO_PID=$!
}

# fio_wait_failed LOG: fio (FIO_PID) ends, not through timeout, with a
# non-zero status and an I/O error in its log: the fault reached it as an
# error and nothing hung.
fio_wait_failed() {
	local status
	wait "$FIO_PID"
	status=$?
	[ $status -ne 124 ] && [ $status -ne 137 ] ||
		fail "fio hung after the fault (killed by timeout): $(tail -n 5 "$1")"
	[ $status -ne 0 ] ||
		fail "fio exited 0: the fault did not reach it: $(grep -m1 'err=' "$1")"
	grep -Eq 'err= *[1-9]|Input/output error|No such device' "$1" ||
		fail "fio exited $status without an I/O error: $(tail -n 5 "$1")"
	step "fio ended with status $status: $(grep -m1 -o 'error=[^)]*' "$1")"
}

# check_gone ID: no trace of device ID: no block or char device, no
# entry in `vublk list`, no state file, no server process at all.
check_gone() {
	[ ! -e "/dev/ublkb$1" ] || fail "/dev/ublkb$1 still exists"
	[ ! -e "/dev/ublkc$1" ] || fail "/dev/ublkc$1 still exists"
	[ ! -e "/sys/class/ublk-char/ublkc$1" ] || fail "ublkc$1 still in /sys/class/ublk-char"
	# The id is freed at the disk's last close: a reader that just ended
	# may still hold it while the kernel tears down its io_uring.
	wait_until 10 eval '! "$VUBLK" list -n "$1" >/dev/null 2>&1' ||
		fail "vublk list -n $1 still finds the device"
	[ ! -e "$RUN_DIR/$1.json" ] || fail "state file $RUN_DIR/$1.json left"
	[ "$(server_count)" -eq 0 ] || fail "server processes left: $(pgrep -a -x vublk)"
}

# check_id_free ID ARGS...: a new device takes id ID again, serves a read
# and deletes cleanly.
check_id_free() {
	local id=$1
	shift
	vublk_add "$@" -n "$id"
	[ "$ID" = "$id" ] || fail "vublk add -n $id gave $DEV"
	timeout 30 dd if="$DEV" of=/dev/null bs=4k count=16 iflag=direct status=none ||
		fail "reading the re-added $DEV failed"
	timeout 60 "$VUBLK" del -n "$id" || fail "vublk del -n $id of the re-added device"
	check_gone "$id"
}
