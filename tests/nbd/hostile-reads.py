#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""hostile-reads.py SOCK PIDFILE MODE: an NBD server (fixed newstyle,
structured replies) of a 1 MiB export of 0xAA bytes whose answers to READ
break the protocol in a way libnbd lets through to the completion callback:

  short  one data chunk covering only the first 512 bytes, then DONE
  twice  the first half of the range sent twice, the second half never

Every other command succeeds.  It writes PIDFILE once it listens, as
nbdkit -P does, and serves one client after another until killed.  For
tests/nbd/test_nbd_backend.c: a READ so answered must fail, or at least
never return bytes the buffer held before (an earlier request's).
"""
import os
import socket
import struct
import sys

SIZE = 1 << 20
OPTS_MAGIC = 0x3e889045565a9
REQ_MAGIC = 0x25609513
STRUCTURED_MAGIC = 0x668e33ef
SIMPLE_MAGIC = 0x67446698
OPT_GO, OPT_INFO, OPT_STRUCTURED_REPLY = 7, 6, 8
REP_ACK, REP_INFO, REP_ERR_UNSUP = 1, 3, 0x80000001
CMD_READ, CMD_DISC = 0, 2
CHUNK_OFFSET_DATA, FLAG_DONE = 1, 1


def recv_exact(conn, n):
    data = b""
    while len(data) < n:
        more = conn.recv(n - len(data))
        if not more:
            raise EOFError
        data += more
    return data


def negotiate(conn):
    """Fixed newstyle handshake; True if structured replies were agreed."""
    conn.sendall(b"NBDMAGIC" + b"IHAVEOPT" + struct.pack(">H", 1 | 2))
    recv_exact(conn, 4)  # the client's flags
    structured = False
    while True:
        _, opt, length = struct.unpack(">QII", recv_exact(conn, 16))
        recv_exact(conn, length)

        def reply(kind, payload=b""):
            conn.sendall(struct.pack(">QIII", OPTS_MAGIC, opt, kind,
                                     len(payload)) + payload)
        if opt == OPT_STRUCTURED_REPLY:
            structured = True
            reply(REP_ACK)
        elif opt in (OPT_GO, OPT_INFO):
            # NBD_INFO_EXPORT: size, flags HAS_FLAGS | READ_ONLY
            reply(REP_INFO, struct.pack(">HQH", 0, SIZE, 1 | 2))
            reply(REP_ACK)
            if opt == OPT_GO:
                return structured
        else:
            reply(REP_ERR_UNSUP)


def data_chunk(cookie, offset, length, done):
    payload = struct.pack(">Q", offset) + b"\xaa" * length
    return struct.pack(">IHHQI", STRUCTURED_MAGIC, FLAG_DONE if done else 0,
                       CHUNK_OFFSET_DATA, cookie, len(payload)) + payload


def serve(conn, mode):
    structured = negotiate(conn)
    while True:
        magic, _, kind, cookie, offset, length = struct.unpack(
            ">IHHQQI", recv_exact(conn, 28))
        if magic != REQ_MAGIC or kind == CMD_DISC:
            return
        if kind == CMD_READ and structured:
            if mode == "short":
                conn.sendall(data_chunk(cookie, offset, min(512, length), True))
            else:
                half = length // 2
                conn.sendall(data_chunk(cookie, offset, half, False) +
                             data_chunk(cookie, offset, half, True))
        else:
            conn.sendall(struct.pack(">IIQ", SIMPLE_MAGIC, 0, cookie))


def main():
    sock_path, pidfile, mode = sys.argv[1:4]
    if mode not in ("short", "twice"):
        sys.exit("hostile-reads.py: MODE is short or twice, not " + mode)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock_path)
    srv.listen(4)
    with open(pidfile, "w") as f:
        f.write("%d\n" % os.getpid())
    while True:
        conn, _ = srv.accept()
        try:
            serve(conn, mode)
        except (EOFError, ConnectionError):
            pass
        conn.close()


if __name__ == "__main__":
    main()
