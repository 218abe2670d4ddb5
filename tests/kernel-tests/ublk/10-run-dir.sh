#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The run directory ($VUBLK_RUN_DIR) is trusted only if it is ours alone,
# and nothing in it is followed (docs/SECURITY.md, "run directory"):
#  1. a world-writable directory, with symlinks planted for the next ids
#     and pids, is refused with one line; the symlinks' target is
#     unchanged and no device is left;
#  2. a directory of another user is refused the same way;
#  3. in a directory of ours with such symlinks planted anyway, add,
#     list and del work, replace the symlinks rather than follow them,
#     and the target is unchanged;
#  4. files get mode 0644 whatever the umask.
. "$(dirname "$0")/lib.sh"

truncate -s 16M "$T/disk.img"
echo "precious" >"$T/victim"
victim_sum=$(sha256sum <"$T/victim")

# plant DIR: symlinks to the victim where vublk may write next: the next
# ids' files and the next pids' add logs.  One process makes them all (an
# `ln` each took 8 minutes in a loaded TCG guest).
plant() {
	python3 - "$T/victim" "$1" "$$" <<'PY' || fail "planting symlinks in $1"
import os, sys
victim, where, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = [f"{i}.{ext}" for i in range(4) for ext in ("json", "log", "stats.json")]
names += [f"add-{p}.log" for p in range(pid, pid + 400)]
for name in names:
    os.symlink(victim, os.path.join(where, name))
PY
}

victim_intact() {
	[ "$(sha256sum <"$T/victim")" = "$victim_sum" ] || fail "$1: the symlinks' target was written"
}

# expect_refused DIR WANT: add refused with one line containing WANT.
expect_refused() {
	VUBLK_RUN_DIR=$1 "$VUBLK" add -t loop -f "$T/disk.img" >"$T/out" 2>"$T/err" &&
		fail "add with VUBLK_RUN_DIR=$1 succeeded"
	[ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$2" "$T/err" ||
		fail "add with VUBLK_RUN_DIR=$1: wanted one line with '$2', got: $(cat "$T/err")"
	[ -z "$(ublk_disks)" ] || fail "a device was left: $(ublk_disks)"
	victim_intact "$1"
}

mkdir -m 1777 "$T/world"
plant "$T/world"
expect_refused "$T/world" "run directory $T/world can be written by others (mode 1777): refusing it"
VUBLK_RUN_DIR=$T/world "$VUBLK" list >/dev/null 2>"$T/err" && fail "list in $T/world succeeded"
grep -q "can be written by others" "$T/err" || fail "list in $T/world: $(cat "$T/err")"

mkdir -m 0755 "$T/theirs"
chown 12345 "$T/theirs"
expect_refused "$T/theirs" "run directory $T/theirs belongs to uid 12345, not to uid 0 who runs vublk"

mkdir -m 0700 "$T/ours"
plant "$T/ours"
export VUBLK_RUN_DIR=$T/ours
DEV=$(umask 077; "$VUBLK" add -t loop -f "$T/disk.img") || fail "add in $T/ours failed"
ID=${DEV#/dev/ublkb}
victim_intact "after add"
for f in "$ID.json" "$ID.log"; do
	[ -f "$T/ours/$f" ] && [ ! -L "$T/ours/$f" ] || fail "$f is not a regular file of its own"
	[ "$(stat -c %a "$T/ours/$f")" = 644 ] ||
		fail "$f has mode $(stat -c %a "$T/ours/$f") under umask 077, not 644"
done
wait_until 5 test -f "$T/ours/$ID.stats.json" -a ! -L "$T/ours/$ID.stats.json" ||
	fail "$ID.stats.json is not a regular file"
dd if="$DEV" of=/dev/null bs=1M count=1 iflag=direct 2>/dev/null || fail "reading $DEV"
"$VUBLK" list -n "$ID" >/dev/null || fail "vublk list -n $ID"
"$VUBLK" del -n "$ID" || fail "vublk del -n $ID"
victim_intact "after del"
say "PASS"
