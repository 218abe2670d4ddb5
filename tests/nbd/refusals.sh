#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `vublk add` refuses an NBD export it cannot serve -- no server on the
# socket, a port out of range, a relative socket path, a read-only
# export without --read-only, --direct with a URI, --retry or --timeout
# with a plain file, --f2fs-file in an export that holds no f2fs -- with ONE
# line on stderr that says why, a non-zero exit, and no device state left
# behind.  The target refuses in init, before the core touches
# /dev/ublk-control, so this runs on a host without ublk_drv.
# usage: refusals.sh VUBLK
set -u
VUBLK=${1:?usage: refusals.sh VUBLK}
T=$(mktemp -d /var/tmp/vublk-nbd-refusals.XXXXXX) || exit 1
export VUBLK_RUN_DIR=$T/run
export VUBLK_CONTROL_DEV=$T/no-such-ublk-control
failed=0
server=

cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

. "$(dirname "$0")/../refused.sh"

truncate -s 4M "$T/disk.img"
nbdkit -f -U "$T/ro.sock" -P "$T/ro.pid" -r file "$T/disk.img" &
server=$!
for _ in $(seq 200); do [ -s "$T/ro.pid" ] && break; sleep 0.05; done
[ -s "$T/ro.pid" ] || fail "nbdkit did not start"

refused "nbd nbd\+unix:///\?socket=$T/none.sock: cannot connect: .*No such file or directory" \
	-t loop -f "nbd+unix:///?socket=$T/none.sock"
refused "nbd nbd://localhost:99999/x: port '99999' is not a port number \(1 to 65535\)" \
	-t loop -f "nbd://localhost:99999/x"
refused "port '0' is not a port number" -t loop -f "nbd://user@localhost:0/x"
refused "port '99999' is not a port number" -t loop -f "nbd://h:99999/x?tls=+unix://"
refused "give the socket as an absolute path" \
	-t loop -f "nbd+unix:///?socket=relative.sock"
refused "give the socket as an absolute path" \
	-t loop -f "nbd+unix:///x?tls=off&socket=relative.sock"
# The socket as libnbd reads it (lib/uri.c): the last socket=, a ';'
# between parameters where there is no '&', %-escapes decoded.
refused "give the socket as an absolute path" \
	-t loop -f "nbd+unix:///x?socket=/abs.sock&socket=rel.sock"
refused "give the socket as an absolute path" \
	-t loop -f "nbd+unix:///x?tls=off;socket=rel.sock"
refused "cannot connect: .*No such file" \
	-t loop -f "nbd+unix:///?socket=%2F${T#/}/none.sock"
# Only the scheme says the transport, and only a parameter named socket
# is the socket: these are not taken for relative sockets.
refused "nbd nbd://127.0.0.1:1/x\?q=\+unix://&socket=rel: cannot connect" \
	-t loop -f "nbd://127.0.0.1:1/x?q=+unix://&socket=rel"
refused "nbd nbd\+unix:///\?xsocket=rel&socket=$T/none.sock: cannot connect: .*No such file" \
	-t loop -f "nbd+unix:///?xsocket=rel&socket=$T/none.sock"
refused "the export is read-only \(add --read-only\)" \
	-t loop -f "nbd+unix:///?socket=$T/ro.sock"
refused "--direct bypasses a local page cache" \
	-t loop --direct -f "nbd+unix:///?socket=$T/ro.sock" --read-only
refused "--retry and --timeout apply to NBD exports .*, not to $T/disk.img, which the file backend serves" \
	-t loop --retry=2 -f "$T/disk.img"
refused "bad --timeout value '0'" \
	-t verity --timeout=0 -f "nbd+unix:///?socket=$T/ro.sock"
refused "is not a sealed verity image" \
	-t verity -f "nbd+unix:///?socket=$T/ro.sock"
refused "no f2fs superblock .*: not an f2fs image" \
	-t verity --f2fs-file=/a -f "nbd+unix:///?socket=$T/ro.sock"
exit $failed
