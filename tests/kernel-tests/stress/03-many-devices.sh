#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 64 devices at once (ublk_drv's ublks_max default; on 6.12 with the
# "limit only unprivileged ublk devices" change it caps only unprivileged
# devices, so root could add more), in rounds: concurrent `vublk add`s
# without -n take ids 0..COUNT-1, every device is live and serves a read,
# then concurrent `vublk del -n`s remove three quarters of them and one
# `vublk del -a` the rest.  A warm-up round of WARMUP devices fills caches and slabs;
# then rounds of 64 (128 add and del operations each), at least one and
# at most ROUNDS (two: the second reuses every id and char device the
# first freed; a leak per device shows 64-fold in either), each only
# while the rounds so far leave it time within BUDGET seconds: under TCG
# on a busy host a round takes 1-7 minutes
# (every add and del is a process start and a device set-up or tear-down,
# all CPU-bound), on an idle one well under a minute, so the test ends in
# bounded time and does as many operations as the machine allows (it
# prints how many).  Across the rounds nothing may leak: open files of the
# system and of the processes that remain, memory, ublk ids and char
# devices, server processes, state files.
. "$(dirname "$0")/lib.sh"
need_cmd timeout pgrep python3
N=64
WARMUP=8
ROUNDS=2
BUDGET=200
WORKERS=4		# concurrent `vublk add`/`vublk del` streams
MEM_SLACK_KB=$((24 << 10))	# MemAvailable may drift this much
FILES_SLACK=8			# and the allocated file handles and the
				# processes' open fds this much, once the
				# dead servers' files are released

truncate -s 4M "$T"/disk{0..63}.img || fail "cannot create the backing files in $T"

# add_worker W ROUND COUNT: add the backing files W, W + WORKERS, ...
# below COUNT, ids chosen by the driver, ROUND % NR_CPUS + 1 queues each.
add_worker() {
	local i
	for ((i = $1; i < $3; i += WORKERS)); do
		vublk_add -t loop -f "$T/disk$i.img" -q $(($2 % NR_CPUS + 1)) -d 16
	done
}

# del_worker W COUNT: delete the ids W, W + WORKERS, ... below 3/4 COUNT.
del_worker() {
	local id
	for ((id = $1; id < $2 * 3 / 4; id += WORKERS)); do
		"$VUBLK" del -n $id || fail "vublk del -n $id failed"
	done
}

# run_workers FUNCTION ARGS...: FUNCTION W ARGS... for every worker W at
# once; fails if one failed.
run_workers() {
	local fn=$1 w pids=()
	shift
	for ((w = 0; w < WORKERS; w++)); do
		"$fn" $w "$@" &
		pids+=($!)
	done
	for ((w = 0; w < WORKERS; w++)); do
		wait "${pids[$w]}" || fail "$fn worker $w failed"
	done
}

# check_all_serving COUNT: ids 0..COUNT-1 exactly, every device live and
# serving a read, one server each.
check_all_serving() {
	[ "$(server_count)" -eq "$1" ] || fail "$(server_count) server processes for $1 devices"
	"$VUBLK" list --json | python3 -c '
import json, os, sys, mmap
n = int(sys.argv[1])
devs = json.load(sys.stdin)
ids = sorted(d["id"] for d in devs)
if ids != list(range(n)):
    sys.exit("ids are %s, not 0..%d: an id leaked" % (ids, n - 1))
bad = [d["id"] for d in devs if d["state"] != "live"]
if bad:
    sys.exit("devices not live: %s" % bad)
buf = mmap.mmap(-1, 4096)
for d in devs:
    if d["device"] != "/dev/ublkb%d" % d["id"]:
        sys.exit("device %d is %s" % (d["id"], d["device"]))
    fd = os.open(d["device"], os.O_RDONLY | os.O_DIRECT)
    if os.readv(fd, [buf]) != 4096:
        sys.exit("short read from " + d["device"])
    os.close(fd)
' "$1" || fail "not all of the $1 devices are live and serving (above)"
}

# check_none_left: no device of any kind remains.
check_none_left() {
	[ -z "$(ublk_disks)" ] || fail "block devices left: $(ublk_disks)"
	[ -z "$(ls /sys/class/ublk-char/ 2>/dev/null)" ] || fail "char devices left: $(ls /sys/class/ublk-char/)"
	[ "$(server_count)" -eq 0 ] || fail "server processes left: $(pgrep -a -x vublk)"
	[ -z "$(ls "$RUN_DIR"/*.json 2>/dev/null)" ] || fail "state files left: $(ls "$RUN_DIR")"
}

# round R COUNT: COUNT devices at once, then all deleted: three quarters
# by concurrent del -n, the rest by one del -a (which signals all their
# servers, then waits for each).
round() {
	local start=$SECONDS
	run_workers add_worker "$1" "$2"
	step "round $1: $2 devices added"
	check_all_serving "$2"
	run_workers del_worker "$2"
	timeout 120 "$VUBLK" del -a || fail "round $1: vublk del -a failed"
	check_none_left
	step "round $1: $2 devices served and deleted in $((SECONDS - start)) s"
	LAST_ROUND_SECONDS=$((SECONDS - start))
}

# What the system holds (sets FILES, FDS, MEM and SNAPSHOT, their summary),
# with the page cache dropped.  FDS: the open fds of every process, this
# shell's included (the same ones each time).
snapshot() {
	local fds
	sync
	echo 3 >/proc/sys/vm/drop_caches
	FILES=$(cut -f 1 /proc/sys/fs/file-nr)
	fds=(/proc/[0-9]*/fd/*)
	FDS=${#fds[@]}
	MEM=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	SNAPSHOT="allocated files $FILES, open fds $FDS, MemAvailable $MEM kB"
}

round 0 $WARMUP
snapshot
files0=$FILES fds0=$FDS mem0=$MEM
step "after the warm-up round: $SNAPSHOT"
start=$SECONDS
round 1 $N
for ((r = 2; r <= ROUNDS; r++)); do
	[ $((SECONDS - start + LAST_ROUND_SECONDS)) -le $BUDGET ] || break
	round $r $N
done
ROUNDS=$((r - 1))
OPS=$((2 * (WARMUP + ROUNDS * N)))

# A dead server's memory, io_uring and files are released asynchronously
# (io_uring/io_uring.c: io_ring_exit_work(), fs/file_table.c: delayed
# fput), so give them a bounded while to come back.
settled() {
	snapshot
	[ $((FILES - files0)) -le $FILES_SLACK ] && [ $((FDS - fds0)) -le $FILES_SLACK ] &&
		[ $((mem0 - MEM)) -le $MEM_SLACK_KB ]
}
for _ in $(seq 30); do
	settled && break
	sleep 1
done
step "after $ROUNDS rounds of $N ($OPS add and del operations in all): $SNAPSHOT"
[ $((FILES - files0)) -le $FILES_SLACK ] ||
	fail "allocated files grew from $files0 to $FILES over $ROUNDS rounds: a leak"
[ $((FDS - fds0)) -le $FILES_SLACK ] ||
	fail "open fds grew from $fds0 to $FDS over $ROUNDS rounds: a leak"
[ $((mem0 - MEM)) -le $MEM_SLACK_KB ] ||
	fail "MemAvailable fell from $mem0 to $MEM kB over $ROUNDS rounds: a leak"
# The driver hands out the lowest free id: 0 again unless one leaked.
vublk_add -t loop -f "$T/disk0.img" -q 1 -d 16
[ "$ID" = 0 ] || fail "after the rounds a new device got id $ID, not 0: an id leaked"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
say "PASS"
