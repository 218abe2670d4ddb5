#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Boot-time devices, with this test playing systemd (the lab has no
# systemd as PID 1): systemd/vublk-generator turns a vublktab into units;
# the units' ExecStart= lines run as systemd runs them (Type=notify: the
# unit is up when its main process sends READY=1 to $NOTIFY_SOCKET); a
# real udev daemon with systemd/60-vublk.rules makes /dev/disk/by-vublk/
# NAME and NAME-partN; a server killed -9 is restarted the way Restart=
# does it, by the same ExecStart= line, and the device and the mount on it
# survive with their data and a write that waited; stopping is SIGTERM to
# the main process, which removes the device, its files and its links.
. "$(dirname "$0")/../ublk/lib.sh"
. "$VUBLK_SRC/tests/systemd/lib.sh"
need_cmd mkfs.f2fs blockdev sha256sum
# Under TCG on a loaded host every process start costs up to a second
# (a python3 several): checks are shell builtins where they can be, and
# one python3 listens on the notify socket for every unit.  Debian's, not
# a wrapper that starts a few processes more (pyenv).
PY=/usr/bin/python3
[ -x $PY ] || skip "no $PY"
GEN=$VUBLK_BUILD/systemd/vublk-generator
VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity
TEMPLATE=$VUBLK_SRC/systemd/vublk@.service
[ -f "$GEN" ] && [ -x "$VV" ] || fail "$GEN or $VV is not built"

# udev's daemon: installed, or unpacked by scripts/install-deps.
UDEVADM=
for u in /bin/udevadm "${VUBLK_VM_CACHE:-/var/cache/vublk-vm}/udev/bin/udevadm"; do
	[ -x "$u" ] && UDEVADM=$u && break
done
[ -n "$UDEVADM" ] || skip "no udevadm: run scripts/install-deps (it unpacks udev into /var/cache/vublk-vm/udev)"
# The lab runs the command chrooted into the host's root.
export SYSTEMD_IGNORE_CHROOT=1
RUN_DIR=${VUBLK_RUN_DIR:-/run/vublk}

UDEVD= DATA_PID= SEALED_PID= LISTENER=
boot_cleanup() {
	local p
	for p in $DATA_PID $SEALED_PID; do kill -TERM "$p" 2>/dev/null && wait "$p"; done
	[ -n "$LISTENER" ] && kill "$LISTENER" && wait "$LISTENER"
	cleanup
	if [ -n "$UDEVD" ]; then
		kill "$UDEVD" && wait "$UDEVD"
		rm -f /run/udev/rules.d/60-vublk.rules
	fi
}
trap boot_cleanup EXIT

# ---- systemd's notify socket, for every unit started below: each
# datagram becomes a line "PID MESSAGE" on a FIFO, PID the sender's (from
# SCM_CREDENTIALS, for the check systemd's NotifyAccess=main makes).  It
# starts now and comes up while the table is made; "0 BOUND" first.
NOTIFY=$T/notify.sock
mkfifo "$T/notify.fifo" || fail "mkfifo"
# Read and write, so that neither end's open waits for the other.
exec {NOTIFY_FD}<>"$T/notify.fifo"
$PY -c '
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
out = open(sys.argv[2], "w", buffering=1)
out.write("0 BOUND\n")
while True:
    msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
    pid = [struct.unpack("iII", d)[0] for l, t, d in anc if t == socket.SCM_CREDENTIALS]
    out.write("%s %s\n" % (pid[0] if pid else "?", " ".join(msg.decode().split())))
' "$NOTIFY" "$T/notify.fifo" &
LISTENER=$!

# ---- the table and the generator
say "generator (${SECONDS}s)"
head -c 1M /dev/urandom >"$T/sealed.img" || fail "making the image"
sealed_sum=$(sha256sum <"$T/sealed.img")
digest=$("$VV" format "$T/sealed.img") || fail "vublk-verity format"
truncate -s 64M "$T/data.img"
cat >"$T/vublktab" <<EOF
# the boot test's devices
data	loop	$T/data.img	queues=1
sealed	verity	$T/sealed.img	digest=${digest%% *},nofail
broken	loop
EOF
mkdir -p "$T/gen" "$T/gen-early" "$T/gen-late"
VUBLKTAB=$T/vublktab sh "$GEN" "$T/gen" "$T/gen-early" "$T/gen-late" 2>"$T/gen.err" ||
	fail "the generator failed: $(cat "$T/gen.err")"
[ "$(<"$T/gen.err")" = "vublk-generator: $T/vublktab:4: expected NAME TYPE BACKING [OPTIONS], found 2 fields; line ignored" ] ||
	fail "the generator's messages: $(<"$T/gen.err")"
# has_line FILE LINE: FILE has the line LINE (grep -qxF, in the shell);
# has_text FILE TEXT: FILE holds TEXT (grep -qF).
has_line() {
	local text
	text=$'\n'$(<"$1")$'\n'
	[[ $text == *$'\n'"$2"$'\n'* ]]
}
has_text() { [[ $(<"$1") == *"$2"* ]]; }
for name in data sealed; do
	c=$T/gen/vublk@$name.service.d/50-vublktab.conf
	for l in "Before=local-fs-pre.target" "After=systemd-remount-fs.service" \
		"Before=blockdev@dev-disk-by\\x2dvublk-$name.target"; do
		has_line "$c" "$l" || fail "vublk@$name: no '$l' in: $(<"$c")"
	done
	[ -L "$T/gen/dev-disk-by\\x2dvublk-$name.device.requires/vublk@$name.service" ] ||
		fail "no device link for vublk@$name: $(cd "$T/gen" && find . -type l)"
done
[ -L "$T/gen/local-fs.target.requires/vublk@data.service" ] &&
	[ -L "$T/gen/local-fs.target.wants/vublk@sealed.service" ] ||
	fail "target links: $(cd "$T/gen" && find . -type l)"
# What the template gives every instance: run and stopped as below.
for l in Type=notify Restart=on-failure; do
	has_line "$TEMPLATE" "$l" || fail "the template lacks $l"
done
[[ $'\n'$(<"$TEMPLATE") != *$'\n'ExecStop* ]] || fail "the template has an ExecStop="

# ---- udev
say "udevd (${SECONDS}s)"
mkdir -p /run/udev/rules.d
cp "$VUBLK_SRC/systemd/60-vublk.rules" /run/udev/rules.d/ || fail "installing the rule"
(exec -a systemd-udevd "$UDEVADM" >"$T/udevd.log" 2>&1) &
UDEVD=$!
wait_until 30 test -S /run/udev/control || fail "udevd did not start: $(cat "$T/udevd.log")"
settle() { "$UDEVADM" settle -t 60 || fail "udevadm settle timed out"; }

# ---- systemd's part
# start_unit NAME: run vublk@NAME's ExecStart= (its installed vublk is
# this build's) with the notify socket, as Type=notify; returns once the
# main process said READY=1.  Sets PID (the main process) and DEV.
start_unit() {
	local words sender msg
	mapfile -t words < <(unit_exec_words "$T/gen/vublk@$1.service.d/50-vublktab.conf")
	[ "${words[1]}" = add ] && [[ ${words[0]} == /*/sbin/vublk ]] ||
		fail "vublk@$1: ExecStart=${words[*]}"
	words[0]=$VUBLK
	NOTIFY_SOCKET=$NOTIFY "${words[@]}" >"$T/$1.out" 2>>"$T/$1.err" &
	PID=$!
	read -r -t 300 -u "$NOTIFY_FD" sender msg ||
		fail "vublk@$1: no READY=1 within 300 s: $(<"$T/$1.err")"
	[ "$sender $msg" = "$PID READY=1" ] ||
		fail "vublk@$1: notification '$sender $msg', not READY=1 from main pid $PID"
	kill -0 "$PID" || fail "vublk@$1: the main process exited after READY=1"
	mapfile -t words <"$T/$1.out"
	DEV=
	[ ${#words[@]} -eq 0 ] || DEV=${words[-1]}
	[ -b "$DEV" ] || fail "vublk@$1 printed '$DEV', not a block device"
}

# stop_unit NAME PID DEV: systemctl stop: SIGTERM to the main process (no
# ExecStop=); the server removes the device and exits 0.
stop_unit() {
	local id=${3#/dev/ublkb} status
	kill -TERM "$2" || fail "vublk@$1: no main process $2 to stop"
	wait "$2"
	status=$?
	[ $status -eq 0 ] || fail "vublk@$1 exited with status $status on SIGTERM: $(tail -n 3 "$T/$1.err")"
	settle
	[ ! -e "$3" ] && [ ! -e "/dev/disk/by-vublk/$1" ] ||
		fail "vublk@$1 stopped, but $3 or /dev/disk/by-vublk/$1 remains"
	# Its state files (a log of an earlier device with this id, left
	# for reading, is not the unit's: a foreground server keeps none).
	local f left=
	for f in "$RUN_DIR/$id".{json,stats.json,udev,ctl}; do
		[ ! -e "$f" ] || left="$left $f"
	done
	[ -z "$left" ] || fail "vublk@$1 stopped, but files remain:$left"
}

# list_state ID: STATE and SPID (the server's pid) of device ID from one
# `vublk list` (the first "state" and "pid" of its JSON are the device's:
# device_state and server_pid start three processes each).
list_state() {
	local json
	json=$("$VUBLK" list -n "$1" --json)
	STATE=? SPID=?
	[[ $json =~ \"state\":\ \"([a-z-]*)\",\ \"pid\":\ (-?[0-9]+) ]] &&
		STATE=${BASH_REMATCH[1]} SPID=${BASH_REMATCH[2]}
}
quiesced() { list_state "$1"; [ "$STATE" = quiesced ]; }

# by_vublk NAME DEV: /dev/disk/by-vublk/NAME is udev's link to DEV.
by_vublk() {
	settle
	[ "$(readlink "/dev/disk/by-vublk/$1")" = "../../${2#/dev/}" ] ||
		fail "/dev/disk/by-vublk/$1 -> '$(readlink "/dev/disk/by-vublk/$1")', not $2: $(ls -l /dev/disk/by-vublk 2>&1)"
}

say "start vublk@sealed and vublk@data (${SECONDS}s)"
read -r -t 60 -u "$NOTIFY_FD" sender msg && [ "$sender $msg" = "0 BOUND" ] ||
	fail "the notify socket did not come up"
start_unit sealed
SEALED_PID=$PID SEALED_DEV=$DEV
by_vublk sealed "$SEALED_DEV"
[ "$(sha256sum </dev/disk/by-vublk/sealed)" = "$sealed_sum" ] ||
	fail "/dev/disk/by-vublk/sealed does not read the sealed data"
[[ $(device_json "${SEALED_DEV#/dev/ublkb}") == *'"name": "sealed"'* ]] ||
	fail "vublk list does not name $SEALED_DEV sealed"

start_unit data
DATA_PID=$PID DATA_DEV=$DEV ID=${DEV#/dev/ublkb}
say "partition and f2fs through /dev/disk/by-vublk/data (${SECONDS}s)"
by_vublk data "$DATA_DEV"
# A partition: its link is named after the disk's.  One MBR entry (type
# 0x83, sector 2048 to the end), written here: Debian's sfdisk is in
# fdisk, which the lab does not need otherwise.  Sector 0 by printf:
# 446 zero bytes, the entry (status, CHS, type, CHS, first sector and
# count, little-endian), 3 empty entries, the signature.
read -r sectors <"/sys/class/block/${DATA_DEV#/dev/}/size" || fail "the size of $DATA_DEV"
le32() {
	printf -v "$1" '\\x%02x\\x%02x\\x%02x\\x%02x' $(($2 & 255)) $(($2 >> 8 & 255)) \
		$(($2 >> 16 & 255)) $(($2 >> 24 & 255))
}
le32 first 2048
le32 count $((sectors - 2048))
{
	printf '\0%.0s' {1..446}
	printf "\\x00\\xfe\\xff\\xff\\x83\\xfe\\xff\\xff$first$count"
	printf '\0%.0s' {1..48}
	printf '\x55\xaa'
} >/dev/disk/by-vublk/data && blockdev --flushbufs --rereadpt /dev/disk/by-vublk/data ||
	fail "partitioning /dev/disk/by-vublk/data"
by_vublk data-part1 "${DATA_DEV}p1"
mkfs.f2fs -q -f /dev/disk/by-vublk/data-part1 || fail "mkfs.f2fs on data-part1"
mount -t f2fs /dev/disk/by-vublk/data-part1 "$MNT" || fail "mounting data-part1"
head -c 512K /dev/urandom >"$MNT/before" && sync || fail "writing to the mount"
before_sum=$(sha256sum <"$MNT/before")

# ---- the server dies; Restart= runs the same line, which recovers
say "kill -9 the server of vublk@data, restart it (${SECONDS}s)"
kill -9 "$DATA_PID"
wait "$DATA_PID"
[ $? -eq 137 ] || fail "the data server was not killed by SIGKILL"
wait_until 30 quiesced "$ID" || fail "device $ID is '$STATE' after kill -9, not quiesced"
# A write while there is no server: it waits for the next one.
head -c 256K /dev/urandom >"$T/during"
during_sum=$(sha256sum <"$T/during")
cp "$T/during" "$MNT/during" && sync &
writer=$!
say "the restart (${SECONDS}s)"
start_unit data
DATA_PID=$PID
[ "$DEV" = "$DATA_DEV" ] || fail "the restarted unit serves $DEV, not $DATA_DEV"
has_text "$T/data.err" "device $ID is named data and has no server: vublk recover -n $ID" &&
	has_text "$T/data.err" "$DATA_DEV is recovered" ||
	fail "the restart did not recover device $ID: $(tail -n 5 "$T/data.err")"
wait "$writer" || fail "the write across the restart failed"
list_state "$ID"
[ "$STATE" = live ] && [ "$SPID" = "$DATA_PID" ] ||
	fail "after the restart, vublk list says device $ID is $STATE, server $SPID, not live, $DATA_PID"
by_vublk data "$DATA_DEV"
by_vublk data-part1 "${DATA_DEV}p1"
[ "$(sha256sum <"$MNT/before")" = "$before_sum" ] &&
	[ "$(sha256sum <"$MNT/during")" = "$during_sum" ] ||
	fail "the data on the mount differs after the restart"
echo 3 >/proc/sys/vm/drop_caches
[ "$(sha256sum <"$MNT/before")" = "$before_sum" ] ||
	fail "the data read back from the device differs after the restart"

# A second start of a running unit's line is refused, not a second device.
mapfile -t words < <(unit_exec_words "$T/gen/vublk@data.service.d/50-vublktab.conf")
words[0]=$VUBLK
"${words[@]}" >/dev/null 2>"$T/second.err" && fail "a second add --name=data succeeded"
has_text "$T/second.err" "a device named data is running already: $DATA_DEV" ||
	fail "a second add --name=data said: $(cat "$T/second.err")"

# ---- shutdown: the mount first (it is ordered after the unit), then SIGTERM
say "stop (${SECONDS}s)"
umount "$MNT" || fail "umount"
stop_unit data "$DATA_PID" "$DATA_DEV"
DATA_PID=
stop_unit sealed "$SEALED_PID" "$SEALED_DEV"
SEALED_PID=
say "PASS (${SECONDS}s)"
