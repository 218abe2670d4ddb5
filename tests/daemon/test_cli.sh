#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# CLI errors that need no kernel: each gives one line on stderr naming the
# problem, a non-zero exit, and leaves nothing in the run directory.
# usage: test_cli.sh PATH/TO/vublk
set -u
VUBLK=$1
T=$(mktemp -d /tmp/vublk-test-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
export VUBLK_RUN_DIR=$T/run
export VUBLK_CONTROL_DEV=$T/no-such-ublk-control
truncate -s 1M "$T/disk.img"
truncate -s 100 "$T/small.img"
failures=0

# expect_error EXPECTED-STDERR-SUBSTRING vublk-args...
expect_error() {
	want=$1; shift
	# Bounded: a command that hangs (an open(2) waiting on a FIFO) fails.
	timeout 20 "$VUBLK" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err")
	if [ $rc -eq 0 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" "$T/err" ||
	   [ -s "$T/out" ]; then
		echo "FAIL: vublk $*: rc=$rc, stderr ($lines lines):"
		cat "$T/err"
		echo "  wanted one line containing: $want"
		failures=$((failures + 1))
	fi
	if [ -d "$VUBLK_RUN_DIR" ] && [ -n "$(ls -A "$VUBLK_RUN_DIR")" ]; then
		echo "FAIL: vublk $*: left files in the run dir: $(ls -A "$VUBLK_RUN_DIR")"
		failures=$((failures + 1))
	fi
}

ctl="$VUBLK_CONTROL_DEV not found: the ublk_drv kernel module is not loaded (run: modprobe ublk_drv)"
expect_error "vublk: $ctl" add -t loop -f "$T/disk.img"
expect_error "vublk: $ctl" add -t loop -f "$T/disk.img" --foreground
expect_error "vublk: $ctl" list
expect_error "vublk: $ctl" del -n 0
expect_error "vublk: $ctl" del -a
expect_error "cannot open backing file $T/missing.img: No such file or directory" \
	add -t loop -f "$T/missing.img"
expect_error "backing file $T/small.img is too small: 100 bytes" \
	add -t loop -f "$T/small.img"
expect_error "backing file $T/small.img is too small: 100 bytes, less than one 4096-byte block" \
	add -t loop -f "$T/disk.img" --block-size 4096 -q 1 -d 1 -n 3 --read-only --direct -f "$T/small.img"
expect_error "unknown target type 'nope'" add -t nope -f "$T/disk.img"
expect_error "unknown target type ''" add -t "" -f "$T/disk.img"
expect_error "no target type given" add -f "$T/disk.img"
# -t in every form getopt takes, found before the target's options exist;
# twice only with the same type.
expect_error "add: -t given twice ('loop', then 'verity'): give one target type" \
	add -t loop -f "$T/disk.img" -t verity
expect_error "vublk: $ctl" add -rt loop -f "$T/disk.img"
expect_error "vublk: $ctl" add --typ=loop -f "$T/disk.img"
expect_error "vublk: $ctl" add -tloop -t loop -f "$T/disk.img"
expect_error "bad --digest value 'x'" add -t verity --digest x -f "$T/disk.img"
d64=sha256:$(printf '0%.0s' $(seq 64))
expect_error "--digest given twice: give the one digest the image must have" \
	add -t verity --digest=$d64 -f "$T/disk.img" --digest=$d64
expect_error "no backing file given" add -t loop
expect_error "no backing file given (-f is empty)" add -t loop -f ""
# Another node as the control device: refused, not taken as an empty list
# or a done deletion.
not_ctl="is not the ublk control device (/dev/ublk-control, a character device): check VUBLK_CONTROL_DEV"
VUBLK_CONTROL_DEV=/dev/null
expect_error "vublk: /dev/null $not_ctl" list
expect_error "vublk: /dev/null $not_ctl" del -n 0
VUBLK_CONTROL_DEV=$T/no-such-ublk-control
# No command at all: the usage on stderr and a failure.
"$VUBLK" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] || [ -s "$T/out" ] || ! grep -q '^usage: vublk add' "$T/err"; then
	echo "FAIL: vublk without arguments: rc=$rc, stdout $(wc -c <"$T/out") bytes, stderr:"
	head -3 "$T/err"
	failures=$((failures + 1))
fi
expect_error "bad -q (queues) value '0'" add -t loop -f "$T/disk.img" -q 0
expect_error "bad -q (queues) value 'abc'" add -t loop -f "$T/disk.img" -q abc
expect_error "bad -q (queues) value '-1'" add -t loop -f "$T/disk.img" -q -1
expect_error "bad -d (queue depth) value '99999'" add -t loop -f "$T/disk.img" -d 99999
expect_error "bad -d (queue depth) value '0'" add -t loop -f "$T/disk.img" -d 0
expect_error "bad -d (queue depth) value '12x'" add -t loop -f "$T/disk.img" -d 12x
expect_error "bad -n (device id) value '1048576'" add -t loop -f "$T/disk.img" -n 1048576
# Numbers are decimal: "08" is eight (strtoull's base 0 refused it as bad
# octal, and read "010" as eight); hex, signs and blanks are refused.
expect_error "vublk: $ctl" add -t loop -f "$T/disk.img" -q 08 -d 010 -n 010
expect_error "bad -n (device id) value '0x10'" add -t loop -f "$T/disk.img" -n 0x10
expect_error "bad -d (queue depth) value '+4'" add -t loop -f "$T/disk.img" -d +4
expect_error "bad -q (queues) value ' 1'" add -t loop -f "$T/disk.img" -q " 1"
expect_error "bad --cache-mb value '0x40'" add -t verity -f "$T/disk.img" --cache-mb 0x40
expect_error "bad --block-size value '1000'" add -t loop -f "$T/disk.img" --block-size 1000
# Certificates and signatures are read while the options are parsed: a
# refusal after that frees them (under ASan a leak report would add lines).
if openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" \
	-out "$T/cert.pem" -days 2 -subj /CN=vublk-test-cli 2>/dev/null; then
	expect_error "bad --signature value '$T/missing.sig'" add -t verity -f "$T/disk.img" \
		--trusted-cert="$T/cert.pem" --signature="$T/missing.sig"
	expect_error "$T/disk.img is not a sealed verity image" add -t verity -f "$T/disk.img" \
		--trusted-cert="$T/cert.pem"
else
	echo "FAIL: openssl cannot make a test certificate"
	failures=$((failures + 1))
fi
expect_error "unknown option '--bogus'" add -t loop -f "$T/disk.img" --bogus
expect_error "missing value for option '-q'" add -t loop -f "$T/disk.img" -q
expect_error "unknown option '-=' in '-r=queue'" add -t loop -f "$T/disk.img" -r=queue
expect_error "option '--read-only' takes no value: '--read-only=1'" add -t loop -f "$T/disk.img" --read-only=1
# --help without -t: the general help, not "no target type given".
if ! "$VUBLK" add --help >"$T/out" || ! grep -q "^usage: vublk add -t TYPE -f FILE" "$T/out"; then
	echo "FAIL: vublk add --help did not print the usage"
	failures=$((failures + 1))
fi
# A FIFO no one writes to: refused at once (its open(2) would wait).
mkfifo "$T/fifo"
expect_error "$T/fifo is not a regular file or block device" add -t loop --read-only -f "$T/fifo"
expect_error "$T/fifo is not a regular file or block device" add -t verity -f "$T/fifo"
expect_error "not a URI vublk serves" add -t loop -f http://example.com/disk.img
expect_error "cannot serve --f2fs-file from $T/disk.img: no f2fs superblock" add -t verity -f "$T/disk.img" --f2fs-file=/x
expect_error "unexpected argument 'extra'" add -t loop -f "$T/disk.img" extra
expect_error "unknown command 'frobnicate'" frobnicate
expect_error "give exactly one of -n ID and -a" del
expect_error "bad -n (device id) value 'x'" del -n x
# vublk recover: usage errors before the kernel is asked; the rest (no such
# device, a device added without -r) is tests/kernel-tests/recovery.
expect_error "vublk: $ctl" recover -n 0
expect_error "recover: give the device with -n ID" recover
expect_error "recover: give the device with -n ID" recover --foreground
expect_error "bad -n (device id) value 'x'" recover -n x
expect_error "bad -n (device id) value '-3'" recover -n -3
expect_error "bad -n (device id) value '1048576'" recover -n 1048576
expect_error "recover: missing value for option '-n'" recover -n
expect_error "recover: unknown option '--bogus'" recover -n 1 --bogus
expect_error "recover: unexpected argument 'extra'" recover -n 1 extra
expect_error "vublk: $ctl" recover -n 0 --restart
# del --safe, update-size, features: usage errors; what needs a kernel is
# tests/kernel-tests/ublk (12-update-size, 13-del-safe).
expect_error "vublk: $ctl" del -n 0 --safe
expect_error "vublk: $ctl" features
expect_error "features: unexpected argument 'x'" features x
expect_error "update-size: give the device with -n ID" update-size
expect_error "update-size: give the device with -n ID" update-size --size=1M
expect_error "bad --size value '48X'" update-size -n 1 --size=48X
expect_error "bad --size value '0x100'" update-size -n 1 --size=0x100
expect_error "bad --size value '-5'" update-size -n 1 --size=-5
expect_error "bad --size value '100'" update-size -n 1 --size=100
expect_error "bad --size value '8T1'" update-size -n 1 --size=8T1
expect_error "bad --size value '9999999999T'" update-size -n 1 --size=9999999999T
expect_error "update-size: unknown option '--bogus'" update-size -n 1 --bogus
expect_error "update-size: device 1 has no running server to ask" update-size -n 1 --size=48M

# Help and version succeed and print to stdout.
for args in help --version "loop --help" "add -t loop --help"; do
	# shellcheck disable=SC2086
	if ! "$VUBLK" $args >"$T/out" 2>"$T/err" || ! [ -s "$T/out" ] || [ -s "$T/err" ]; then
		echo "FAIL: vublk $args did not print help/version cleanly"
		failures=$((failures + 1))
	fi
done
"$VUBLK" help | grep -q "^  loop  *a file" || {
	echo "FAIL: vublk help does not list the loop target"
	failures=$((failures + 1))
}

[ $failures -eq 0 ] && echo ok
exit $((failures != 0))
