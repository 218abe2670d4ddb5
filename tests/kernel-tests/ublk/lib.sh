# SPDX-License-Identifier: GPL-2.0-only
# Shared by the ublk kernel tests (sourced, not run).  They run as root in
# the VM lab (tests/vm) with VUBLK_BUILD (meson build dir) and
# VUBLK_SCRATCH (a writable directory on a real filesystem).
# Exit status: 0 pass, 1 fail, 77 skip.
set -u

VUBLK=${VUBLK_BUILD:?VUBLK_BUILD must name the meson build directory}/daemon/vublk
SCRATCH=${VUBLK_SCRATCH:?VUBLK_SCRATCH must name a writable directory}
TEST_NAME=$(basename "$0" .sh)

say() { echo "$TEST_NAME: $*"; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*" >&2; exit 1; }

# need_no_ulimit_v: skip where $VUBLK is an ASan build, which reserves
# terabytes of address space for its shadow at start and so aborts under
# any `ulimit -v` before its own code runs.
need_no_ulimit_v() {
	! grep -qa 'libasan\.so' "$VUBLK" || skip "an ASan build cannot start under ulimit -v"
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
	done
}

# In a sanitizer build, a UBSan finding stops the server (and so the
# test) instead of scrolling by in its log.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# --- Which kernel this is: a test that needs a kernel feature skips (77)
# with a reason on a kernel without it (the lab boots 6.12 and 7.3).

# kernel_at_least MAJOR.MINOR: the running kernel is that version or newer.
kernel_at_least() {
	local major minor
	IFS=. read -r major minor _ <<<"$(uname -r)"
	minor=${minor%%[!0-9]*}
	[ "$major" -gt "${1%%.*}" ] ||
		{ [ "$major" -eq "${1%%.*}" ] && [ "$minor" -ge "${1#*.}" ]; }
}

# need_kernel MAJOR.MINOR WHAT: skip unless the kernel has WHAT, which came
# in Linux MAJOR.MINOR.  For what a version alone tells; a build option or
# a ublk feature bit is the better test where there is one.
need_kernel() {
	kernel_at_least "$1" || skip "$2 needs Linux $1 or newer; this is $(uname -r)"
}

# The running kernel's build configuration file: the VM lab's (tests/vm/run
# sets VUBLK_KERNEL_CONFIG) or a host's /boot/config-RELEASE, if its
# "# Linux/ARCH VERSION Kernel Configuration" line (the third) names this
# kernel's version; else /proc/config.gz, which is always the running
# kernel's.  Fails when there is none.  Shell builtins where they do:
# under TCG on a busy host every process start costs most of a second.
kernel_config_file() {
	local file release line
	read -r release </proc/sys/kernel/osrelease
	for file in "${VUBLK_KERNEL_CONFIG:-}" "/boot/config-$release"; do
		[ -n "$file" ] && [ -r "$file" ] || continue
		{ read -r line; read -r line; read -r line; } <"$file"
		line=${line#\# Linux/* }
		line=${line% Kernel Configuration}
		case $release in "$line"|"$line"[!0-9.]*) echo "$file"; return 0 ;; esac
	done
	[ -r /proc/config.gz ] && echo /proc/config.gz
}

# kernel_config NAME: the value of CONFIG_NAME in the running kernel (y, m,
# a number or a quoted string; empty when not set).  Status 2 when the
# configuration cannot be found.
kernel_config() {
	local file
	file=$(kernel_config_file) || return 2
	case $file in
	*.gz) zcat "$file" | sed -n "s/^CONFIG_$1=//p" ;;
	*) sed -n "s/^CONFIG_$1=//p" "$file" ;;
	esac
}

# need_kernel_config NAME WHAT: skip unless CONFIG_NAME is y or m.  Where
# the configuration cannot be found (a host without /boot/config-*), the
# test goes on and finds out itself.
need_kernel_config() {
	local value status
	value=$(kernel_config "$1")
	status=$?
	[ $status -eq 2 ] && return 0
	case $value in
	y|m) ;;
	*) skip "$2 needs CONFIG_$1, which is ${value:-not set} in $(uname -r)" ;;
	esac
}

# module_param MODULE NAME: the value of a loaded or built-in module's
# parameter (/sys/module/MODULE/parameters/NAME); fails if it has none.
module_param() {
	cat "/sys/module/$1/parameters/$2" 2>/dev/null
}

[ -x "$VUBLK" ] || fail "$VUBLK is missing: build first (ninja -C \$VUBLK_BUILD)"
[ -e /dev/ublk-control ] || modprobe ublk_drv 2>/dev/null
[ -e /dev/ublk-control ] || skip "no /dev/ublk-control and modprobe ublk_drv failed"

T=$(mktemp -d "$SCRATCH/$TEST_NAME.XXXXXX") || fail "cannot create a directory in $SCRATCH"
MNT=$T/mnt
mkdir -p "$MNT"
cd "$T" || fail "cannot enter $T"	# tools like fio write state files here

cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	"$VUBLK" del -a >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

# vublk_add ARGS...: start a device, set DEV (/dev/ublkbN) and ID.
vublk_add() {
	DEV=$("$VUBLK" add "$@") || fail "vublk add $* failed"
	[ -b "$DEV" ] || fail "vublk add $* printed '$DEV', not a block device"
	ID=${DEV#/dev/ublkb}
}

# f2fs_tree_write: make f2fs on $DEV, mount it on $MNT and write a tree of
# files of assorted sizes (empty, sub-block, unaligned, large) and a
# symlink; their checksums go to $T/sums.
f2fs_tree_write() {
	local i=0 size d
	mkfs.f2fs -q -f "$DEV" || fail "mkfs.f2fs on $DEV failed"
	mount -t f2fs "$DEV" "$MNT" || fail "mount of f2fs on $DEV failed"
	for size in 0 1 511 4095 4096 4097 65536 100000 1048576 3000001 8388608; do
		d=$MNT/dir$((i % 3))/sub$((i % 2))
		mkdir -p "$d"
		head -c "$size" /dev/urandom >"$d/file$i" || fail "writing $d/file$i"
		i=$((i + 1))
	done
	ln -s dir0/sub0/file0 "$MNT/link" || fail "symlink in $MNT"
	(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/sums" ||
		fail "checksumming the tree"
	[ "$(wc -l <"$T/sums")" -eq $i ] || fail "expected $i files in the tree"
}

# f2fs_tree_survives_readd ADD_ARGS...: umount $MNT, del the device, add
# it again with ADD_ARGS (setting DEV and ID), mount it and check every
# file of f2fs_tree_write against its checksum.  Leaves it mounted.
f2fs_tree_survives_readd() {
	sync
	umount "$MNT" || fail "umount $MNT"
	"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
	[ ! -e "$DEV" ] || fail "$DEV still exists after del"
	vublk_add "$@"
	mount -t f2fs "$DEV" "$MNT" || fail "mount of f2fs on $DEV after re-add failed"
	(cd "$MNT" && sha256sum --quiet -c "$T/sums") || fail "checksums differ after del + add"
	[ -L "$MNT/link" ] || fail "symlink lost after del + add"
}

# The server pid of device $1, from `vublk list --json`.
server_pid() {
	"$VUBLK" list -n "$1" --json | sed -n 's/.*"pid": \([0-9-]*\).*/\1/p' | head -n 1
}

# device_json ID: the JSON of device ID from `vublk list` (one line).
device_json() {
	"$VUBLK" list -n "$1" --json
}

# device_field ID EXPR: a value from `vublk list -n ID --json`, by a Python
# expression on the device's object d (e.g. d["stats"]["reads"]).
device_field() {
	device_json "$1" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
d = doc[0] if isinstance(doc, list) else doc
print(eval(sys.argv[1]))' "$2"
}

# The server's log file of device $1.
device_log() { device_field "$1" 'd["log"]'; }

# State of device $1 per `vublk list` (live, dead, ...).
device_state() {
	"$VUBLK" list -n "$1" --json | sed -n 's/.*"state": "\([a-z-]*\)".*/\1/p' | head -n 1
}

# check_still_up PID ID WHEN: after a fault, the server PID still runs and
# device ID is still live.
check_still_up() {
	kill -0 "$1" 2>/dev/null || fail "$3: the server (pid $1) died"
	[ "$(device_state "$2")" = live ] ||
		fail "$3: device $2 is $(device_state "$2"), not live"
}

# Counter $2 of device $1 from `vublk list --json` "stats".
device_counter() {
	"$VUBLK" list -n "$1" --json | sed -n "s/.*\"stats\": {.*\"$2\": \([0-9]*\).*/\1/p"
}

# `vublk list --json` is one valid JSON array with N entries.
check_list_json() {
	"$VUBLK" list --json | python3 -c '
import json, sys
devs = json.load(sys.stdin)
assert isinstance(devs, list) and len(devs) == int(sys.argv[1]), devs
for d in devs:
    assert d["device"] == "/dev/ublkb%d" % d["id"], d
' "$1" || fail "vublk list --json is not a valid array of $1 devices"
}

# counter_above ID NAME MIN: the server's counter NAME exceeds MIN.
counter_above() { [ "$(device_counter "$1" "$2")" -gt "$3" ] 2>/dev/null; }

# wait_until SECONDS CMD...: poll CMD until it succeeds; bounded by the
# clock (on a loaded TCG guest one poll can take a second).
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# have_feature NAME: the running ublk driver has feature NAME (as `vublk
# features` names it, e.g. update_size); tests of a feature skip without it.
have_feature() {
	"$VUBLK" features --json | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["features"].get(sys.argv[1]) else 1)' "$1"
}

# need_feature NAME WHAT: skip (77) with a reason when the driver lacks NAME.
need_feature() {
	have_feature "$1" ||
		skip "the ublk driver of $(uname -r) lacks $1, which $2 needs"
}

# The ublk block devices that exist.
ublk_disks() {
	ls /dev/ublkb* 2>/dev/null | sort | tr '\n' ' '
}

# counters ID NAME...: the device's counters NAME... into COUNT[NAME], all
# from ONE `vublk list --json` (a snapshot; device_counter spawns two
# processes per counter, and each costs a second on a loaded TCG guest).
declare -A COUNT
counters() {
	local id=$1 json name re stats=${VUBLK_RUN_DIR:-/run/vublk}/$1.stats.json
	shift
	# The server rewrites its stats file once a second (core/server.c):
	# wait for a write after this call, so that the counters hold every
	# request that ended before it (an ASan server on 7.3 had not yet
	# written those of a whole mount when read at once).
	: >"$T/counters.ref" || fail "cannot write $T/counters.ref"
	wait_until 10 test "$stats" -nt "$T/counters.ref" ||
		fail "the stats file of device $id was not rewritten within 10 s"
	json=$("$VUBLK" list -n "$id" --json) || fail "vublk list -n $id"
	json=${json#*\"stats\": \{}
	for name in "$@"; do
		re="\"$name\": ([0-9]+)"
		[[ $json =~ $re ]] || fail "device $id has no counter $name"
		COUNT[$name]=${BASH_REMATCH[1]}
	done
}
