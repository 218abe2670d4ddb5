#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# systemd/vublk-generator on a vublktab of good and bad lines: one message
# per bad line (its line number and why), the others still turned into
# units; each good line's drop-in (ordering by its options, ExecStart=
# words as systemd splits them) and links; `systemd-analyze verify` on
# every unit made.  Then `vublk add --name` refusals that need no kernel.
# The kernel test tests/kernel-tests/boot/01-vublktab.sh runs the units.
# The generator is run with sh: meson does not keep the mode of a configured
# file in the build directory (it is installed 0755).
# usage: test_generator.sh BUILD/systemd/vublk-generator \
#            SRC/systemd/vublk@.service BUILD/daemon/vublk
set -u
GEN=$1 TEMPLATE_SRC=$2 VUBLK=$3
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/vublk-test-generator.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

TAB=$T/vublktab
# Fields separated by blanks and tabs, comments, a last line without a
# newline; every bad line with the message it must get.
printf '%s\n' \
	'# NAME  TYPE  BACKING  OPTIONS' \
	'' \
	'   # indented comment' \
	'data	verity	/var/lib/vublk/data.img  digest=sha256:0123abcd,cache-mb=128' \
	'scratch loop /srv/images/scratch.img late,nofail,queues=2,recovery=queue' \
	'remote verity nbd://images.example:10809/data noauto,digest=sha256:ab' \
	'sock loop nbd+unix:///img?socket=/run/nbd%2Fsock$x read-only' \
	'disk-2.a loop /dev/disk/by-id/virtio-x-1 nofail,direct' \
	'onlytwo loop' \
	'-x loop /a' \
	'data loop /b' \
	'x1 Loop /a' \
	'x2 loop rel/path' \
	'x3 loop /a noauto=1' \
	'x4 loop /a name=y' \
	'x5 loop /a a,,b' \
	'x6 loop /a Digest=x' \
	'x7 loop /a late,_netdev' \
	'x8 loop /a/b"c' \
	'x9 loop /a read-only extra' \
	"$(printf 'n%.0s' $(seq 64)) loop /a" \
	'x10 loop /a foreground' >"$TAB"
printf 'last pmem /var/lib/vublk/pmem.img' >>"$TAB"
expected_errors=(
	"9: expected NAME TYPE BACKING [OPTIONS], found 2 fields"
	"10: name '-x': use letters, digits"
	"11: name 'data' is already used by an earlier line"
	"12: type 'Loop' is not a target name"
	"13: backing 'rel/path' is neither an absolute path nor a URI"
	"14: option noauto takes no value"
	"15: option name: the unit sets it"
	"16: empty option in 'a,,b'"
	"17: option 'Digest' is not an option name"
	"18: options late and _netdev (or a remote URI) exclude each other"
	"19: backing '/a/b\"c' holds a quote or a backslash"
	"20: expected NAME TYPE BACKING [OPTIONS], found 5 fields"
	"21: name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn' is longer than 63 characters"
	"22: option foreground: the unit sets it"
)

OUT=$T/generator
mkdir -p "$OUT" "$T/early" "$T/late"
VUBLKTAB=$TAB sh "$GEN" "$OUT" "$T/early" "$T/late" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "the generator exited with $rc"
[ "$(wc -l <"$T/err")" -eq ${#expected_errors[@]} ] ||
	fail "expected ${#expected_errors[@]} error lines, got: $(cat "$T/err")"
for e in "${expected_errors[@]}"; do
	grep -qF -- "vublk-generator: $TAB:$e" "$T/err" && grep -F -- "$TAB:${e%%:*}:" "$T/err" | grep -q '; line ignored$' ||
		fail "no error line '$TAB:$e ...; line ignored' in: $(cat "$T/err")"
done
[ -z "$(find "$T/early" "$T/late" -mindepth 1)" ] || fail "the generator wrote into the early or late directory"

# Paths as configured by meson (prefix): the generator names them.
VUBLK_INSTALLED=$(sed -n 's/^VUBLK=//p' "$GEN")
TEMPLATE=$(sed -n 's/^TEMPLATE=//p' "$GEN")
case $VUBLK_INSTALLED$TEMPLATE in
/*/sbin/vublk/*/lib/systemd/system/vublk@.service) ;;
*) fail "the generator runs '$VUBLK_INSTALLED' with template '$TEMPLATE'" ;;
esac

units=$(cd "$OUT" && ls -d vublk@*.service.d | sed 's/\.d$//' | sort | tr '\n' ' ')
[ "$units" = "vublk@data.service vublk@disk-2.a.service vublk@last.service vublk@remote.service vublk@scratch.service vublk@sock.service " ] ||
	fail "units made: $units"

conf() { cat "$OUT/vublk@$1.service.d/50-vublktab.conf"; }
# has UNIT LINE...: the drop-in of UNIT holds each LINE exactly.
has() {
	local u=$1 l
	shift
	for l in "$@"; do
		conf "$u" | grep -qxF -- "$l" || fail "vublk@$u: no line '$l' in: $(conf "$u")"
	done
}
# lacks UNIT PATTERN: no line of the drop-in matches PATTERN.
lacks() {
	! conf "$1" | grep -q -- "$2" || fail "vublk@$1: a line matches '$2': $(conf "$1")"
}
# words UNIT WORD...: the ExecStart= line is exactly these words.
words() {
	local u=$1 got
	shift
	got=$(unit_exec_words "$OUT/vublk@$u.service.d/50-vublktab.conf") ||
		fail "vublk@$u: no ExecStart= line, or one with quotes"
	[ "$got" = "$(printf '%s\n' "$@")" ] || fail "vublk@$u: ExecStart= words are: $(echo $got)"
}
add="$VUBLK_INSTALLED add --foreground --recovery=reissue"
by_vublk() { echo "dev-disk-by\\x2dvublk-$1"; }

# Default: before every local mount.
has data "SourcePath=$TAB" "After=systemd-remount-fs.service" \
	"Before=local-fs-pre.target" "Wants=local-fs-pre.target" \
	"Before=blockdev@$(by_vublk data).target" "Wants=blockdev@$(by_vublk data).target"
lacks data RequiresMountsFor
words data $add --digest=sha256:0123abcd --cache-mb=128 --name=data -t verity -f /var/lib/vublk/data.img
# late: after the backing file's mount, before local-fs.target.
has scratch "After=systemd-remount-fs.service" "Before=local-fs.target" "RequiresMountsFor=/srv/images/scratch.img"
lacks scratch local-fs-pre
words scratch $add --queues=2 --recovery=queue --name=scratch -t loop -f /srv/images/scratch.img
# A remote URI: network ordering; no mount to wait for.
has remote "After=network-online.target remote-fs-pre.target" \
	"Wants=network-online.target" "Before=remote-fs.target"
lacks remote "RequiresMountsFor\|local-fs"
words remote $add --digest=sha256:ab --name=remote -t verity -f nbd://images.example:10809/data
# A local socket URI is local; % and $ pass through as written.
has sock "Before=local-fs-pre.target"
lacks sock "RequiresMountsFor\|network"
words sock $add --read-only --name=sock -t loop -f 'nbd+unix:///img?socket=/run/nbd%2Fsock$x'
# A block device: bound to its device unit (systemd-escape --path).
has disk-2.a "BindsTo=dev-disk-by\\x2did-virtio\\x2dx\\x2d1.device" \
	"After=dev-disk-by\\x2did-virtio\\x2dx\\x2d1.device" \
	"Before=blockdev@dev-disk-by\\x2dvublk-disk\\x2d2.a.target"
words disk-2.a $add --direct --name=disk-2.a -t loop -f /dev/disk/by-id/virtio-x-1
words last $add --name=last -t pmem -f /var/lib/vublk/pmem.img

# Links: to the template; by the options; the device always.
links=$(cd "$OUT" && find . -type l | sort | tr '\n' ' ')
want="./dev-disk-by\\x2dvublk-data.device.requires/vublk@data.service \
./dev-disk-by\\x2dvublk-disk\\x2d2.a.device.requires/vublk@disk-2.a.service \
./dev-disk-by\\x2dvublk-last.device.requires/vublk@last.service \
./dev-disk-by\\x2dvublk-remote.device.requires/vublk@remote.service \
./dev-disk-by\\x2dvublk-scratch.device.requires/vublk@scratch.service \
./dev-disk-by\\x2dvublk-sock.device.requires/vublk@sock.service \
./local-fs.target.requires/vublk@data.service \
./local-fs.target.requires/vublk@last.service \
./local-fs.target.requires/vublk@sock.service \
./local-fs.target.wants/vublk@disk-2.a.service \
./local-fs.target.wants/vublk@scratch.service "
[ "$links" = "$want" ] || fail "links made: $links"
for l in $(cd "$OUT" && find . -type l); do
	[ "$(readlink "$OUT/$l")" = "$TEMPLATE" ] || fail "$l points to $(readlink "$OUT/$l")"
done

# systemd loads every unit made: the template where the generator says
# it is installed, vublk where ExecStart= runs it, all under a root of
# their own; the generator's output in /etc/systemd/system there, since
# systemd-analyze reads generator directories only when it runs the
# generators, which read the host's /etc/vublktab.
if ! command -v systemd-analyze >/dev/null; then
	fail "systemd-analyze is missing (scripts/install-deps installs systemd)"
else
	mkdir -p "$T/root$(dirname "$TEMPLATE")" "$T/root$(dirname "$VUBLK_INSTALLED")"
	cp "$TEMPLATE_SRC" "$T/root$TEMPLATE"
	cp "$VUBLK" "$T/root$VUBLK_INSTALLED"
	mkdir -p "$T/root/etc/systemd"
	cp -a "$OUT" "$T/root/etc/systemd/system"
	for u in $units; do
		systemd-analyze verify --man=no --root="$T/root" "$u" >"$T/verify" 2>&1 &&
			[ ! -s "$T/verify" ] || fail "systemd-analyze verify $u: $(cat "$T/verify")"
	done
	# And notices a unit that is broken: the check can fail.
	echo "ExecStart=relative/vublk" >>"$T/root/etc/systemd/system/vublk@data.service.d/50-vublktab.conf"
	# (it says so, but exits 0).
	systemd-analyze verify --man=no --root="$T/root" vublk@data.service 2>&1 |
		grep -q "relative/vublk" || fail "systemd-analyze verify passed a unit with a relative ExecStart="
fi

# No table: nothing, quietly.
mkdir "$T/empty"
VUBLKTAB=$T/none sh "$GEN" "$T/empty" "$T/early" "$T/late" 2>"$T/err" && [ ! -s "$T/err" ] &&
	[ -z "$(ls -A "$T/empty")" ] || fail "without a table: $(cat "$T/err")"

# vublk add --name: a bad name is refused in one line before anything.
export VUBLK_RUN_DIR=$T/run VUBLK_CONTROL_DEV=$T/no-ublk-control
truncate -s 1M "$T/disk.img"
for bad in '' 'a/b' '-a' '.a' 'a b' "$(printf 'n%.0s' $(seq 64))"; do
	"$VUBLK" add -t loop -f "$T/disk.img" --name="$bad" >"$T/out" 2>"$T/err" &&
		fail "vublk add --name='$bad' succeeded"
	[ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF "bad --name value '$bad'" "$T/err" ||
		fail "vublk add --name='$bad': $(cat "$T/err")"
done
"$VUBLK" add -t loop -f "$T/disk.img" --name=good-1.x_y >"$T/out" 2>"$T/err"
grep -q "ublk-control not found" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ] ||
	fail "vublk add --name=good-1.x_y: $(cat "$T/err")"

[ $failures -eq 0 ] || exit 1
echo "PASS"
