#!/usr/bin/env python3
"""imap-peer.py: a scripted IMAP server on 127.0.0.1 for perfbot's tests.

What a real server will not do on demand: go away at a chosen moment.  It
speaks just enough IMAP4rev1 for perfbot's reader (greeting, CAPABILITY,
LOGIN, EXAMINE, UID SEARCH, UID FETCH, LOGOUT) over plain TCP (perfbot
allows imap:// to loopback only), with an empty mailbox, and

    --close-after COMMAND   closes the connection (no reply) when the
                            client sends COMMAND (LOGIN, EXAMINE, UID, ...)
                            once the reply to the one before was sent;
                            with --reset the close is a TCP reset.
    --close-after-reply COMMAND
                            replies to COMMAND, then closes.

The port is printed as the first line of stdout (and written to
--port-file).  It serves connections one after another until killed.
Python 3 standard library only.
"""

import argparse
import socket
import struct
import sys


def serve(conn, args):
    f = conn.makefile("rwb", buffering=0)

    def send(line):
        f.write(line.encode() + b"\r\n")

    send("* OK [CAPABILITY IMAP4rev1] imap-peer ready")
    while True:
        line = f.readline()
        if not line:
            return
        words = line.decode(errors="replace").rstrip("\r\n").split(" ")
        tag = words[0]
        cmd = words[1].upper() if len(words) > 1 else ""
        if cmd == args.close_after:
            return "close"
        if cmd == "CAPABILITY":
            send("* CAPABILITY IMAP4rev1")
            send(tag + " OK done")
        elif cmd == "LOGIN":
            send(tag + " OK logged in")
        elif cmd in ("EXAMINE", "SELECT"):
            send("* 0 EXISTS")
            send("* OK [UIDVALIDITY 7] ok")
            send("* OK [UIDNEXT 1] ok")
            send(tag + " OK [READ-ONLY] done")
        elif cmd == "UID":
            send("* SEARCH")
            send(tag + " OK done")
        elif cmd == "LOGOUT":
            send("* BYE bye")
            send(tag + " OK done")
            return
        else:
            send(tag + " BAD unknown command")
        if cmd == args.close_after_reply:
            return "close"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file")
    ap.add_argument("--close-after", default="", type=str.upper)
    ap.add_argument("--close-after-reply", default="", type=str.upper)
    ap.add_argument("--reset", action="store_true")
    args = ap.parse_args()
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(5)
    port = s.getsockname()[1]
    print(port, flush=True)
    if args.port_file:
        with open(args.port_file, "w") as pf:
            pf.write("%d\n" % port)
    while True:
        conn, _ = s.accept()
        try:
            serve(conn, args)
        except (ConnectionError, OSError):
            pass
        if args.reset:
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()


if __name__ == "__main__":
    sys.exit(main())
