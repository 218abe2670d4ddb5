#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 64 devices at once (ublk_drv's ublks_max default; on 6.12 with the
# "limit only unprivileged ublk devices" change it caps only unprivileged
# devices, so root could add more), added by concurrent `vublk add`s, all
# live and serving, removed by one `vublk del -a`; then concurrent add/del
# cycles across all the ids.  Across the cycles nothing may leak: open
# files of the system, memory, ublk char devices, server processes, state
# files.
. "$(dirname "$0")/lib.sh"
need_cmd timeout pgrep python3
N=64
WORKERS=4		# concurrent `vublk add`/`vublk del` streams
CYCLES=150		# add/del cycles in all, or until CYCLE_SECONDS passed
CYCLE_SECONDS=45
MEM_SLACK_KB=$((24 << 10))	# MemAvailable may drift this much
FILES_SLACK=8			# and the allocated file handles this much,
				# once the dead servers' files are released

for i in $(seq 0 $((N - 1))); do
	truncate -s 4M "$T/disk$i.img" || fail "cannot create $T/disk$i.img"
done

# add_worker W: add the devices W, W + WORKERS, ... below N.
add_worker() {
	local id
	for ((id = $1; id < N; id += WORKERS)); do
		vublk_add -t loop -f "$T/disk$id.img" -n $id -q 1 -d 16
	done
}

# cycle_worker W QUOTA END: add, read, del device ids W, W + WORKERS, ...
# (round robin below N), QUOTA times or until SECONDS reaches END; prints
# the number of cycles done.
cycle_worker() {
	local w=$1 quota=$2 end=$3 done=0 id=$1
	while [ $done -lt "$quota" ] && [ $SECONDS -lt "$end" ]; do
		vublk_add -t loop -f "$T/disk$id.img" -n $id -q $((done % NR_CPUS + 1)) -d 32
		[ "$ID" = $id ] || fail "vublk add -n $id gave $DEV"
		timeout 30 dd if="$DEV" of=/dev/null bs=4k count=4 iflag=direct status=none ||
			fail "cycle $done of worker $w: reading $DEV failed"
		timeout 60 "$VUBLK" del -n $id || fail "cycle $done of worker $w: vublk del -n $id failed"
		done=$((done + 1))
		id=$(((id + WORKERS) % N))
	done
	echo $done
}

# run_workers FUNCTION ARGS...: FUNCTION W ARGS... for every worker W at
# once; fails if one failed; their outputs go to $T/worker.W.
run_workers() {
	local fn=$1 w pids=()
	shift
	for ((w = 0; w < WORKERS; w++)); do
		"$fn" $w "$@" >"$T/worker.$w" &
		pids+=($!)
	done
	for ((w = 0; w < WORKERS; w++)); do
		wait "${pids[$w]}" || fail "$fn worker $w failed"
	done
}

# 1. N devices at once, all live and serving.
run_workers add_worker
step "$N devices added"
[ "$(ublk_disks | wc -w)" -eq $N ] || fail "expected $N block devices, have $(ublk_disks | wc -w)"
check_list_json $N
"$VUBLK" list --json | python3 -c '
import json, os, sys, mmap
devs = json.load(sys.stdin)
bad = [d["id"] for d in devs if d["state"] != "live"]
if bad:
    sys.exit("devices not live: %s" % bad)
buf = mmap.mmap(-1, 4096)
for d in devs:
    fd = os.open(d["device"], os.O_RDONLY | os.O_DIRECT)
    if os.readv(fd, [buf]) != 4096:
        sys.exit("short read from " + d["device"])
    os.close(fd)
' || fail "not every one of the $N devices is live and serving"
[ "$(server_count)" -eq $N ] || fail "$(server_count) server processes for $N devices"
timeout 120 "$VUBLK" del -a || fail "vublk del -a of $N devices failed"
step "$N devices deleted"
[ -z "$(ublk_disks)" ] || fail "block devices left after del -a: $(ublk_disks)"
[ -z "$(ls /sys/class/ublk-char/ 2>/dev/null)" ] || fail "char devices left after del -a"

# What the system holds (sets FILES, MEM, CHARS, SERVERS, STATES and
# SNAPSHOT, their summary).  Taken after the first round, which warmed up
# caches and slabs, and with the page cache dropped.
snapshot() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	FILES=$(cut -f 1 /proc/sys/fs/file-nr)
	MEM=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	CHARS=$(ls /sys/class/ublk-char/ 2>/dev/null | wc -l)
	SERVERS=$(server_count)
	STATES=$(ls "$RUN_DIR"/*.json 2>/dev/null | wc -l)
	SNAPSHOT="files $FILES, MemAvailable $MEM kB, ublk char devices $CHARS, servers $SERVERS, state files $STATES"
}
snapshot
files0=$FILES mem0=$MEM
step "before the cycles: $SNAPSHOT"

# 2. add/read/del cycles over every id, WORKERS at a time.
run_workers cycle_worker $((CYCLES / WORKERS)) $((SECONDS + CYCLE_SECONDS))
cycles=0
for f in "$T"/worker.*; do cycles=$((cycles + $(cat "$f"))); done
step "$cycles add/del cycles done"
[ "$cycles" -ge $WORKERS ] || fail "only $cycles add/del cycles ran"

# A dead server's memory, io_uring and files are released asynchronously
# (io_uring/io_uring.c: io_ring_exit_work(), fs/file_table.c: delayed
# fput), so give them a bounded while to come back.
settled() {
	snapshot
	[ $((FILES - files0)) -le $FILES_SLACK ] && [ $((mem0 - MEM)) -le $MEM_SLACK_KB ]
}
for _ in $(seq 30); do
	settled && break
	sleep 1
done
step "after the cycles:  $SNAPSHOT"
[ "$CHARS" -eq 0 ] || fail "$CHARS ublk char devices left"
[ "$SERVERS" -eq 0 ] || fail "server processes left: $(pgrep -a -x vublk)"
[ "$STATES" -eq 0 ] || fail "state files left: $(ls "$RUN_DIR")"
[ -z "$(ublk_disks)" ] || fail "block devices left: $(ublk_disks)"
[ $((FILES - files0)) -le $FILES_SLACK ] ||
	fail "allocated files grew from $files0 to $FILES over $cycles cycles: a leak"
[ $((mem0 - MEM)) -le $MEM_SLACK_KB ] ||
	fail "MemAvailable fell from $mem0 to $MEM kB over $cycles cycles: a leak"
say "PASS"
