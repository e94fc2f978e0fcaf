#!/usr/bin/env python3
"""tcp-cut.py: a TCP relay on 127.0.0.1 that stops a server on cue.

    tcp-cut.py --port-file FILE [--port PORT] --to PORT --at TEXT [--kill-pid PID]

Listens on 127.0.0.1 (on --port, else a free port; the port is written to
FILE once listening) and
relays one client's connection to 127.0.0.1:PORT, unchanged, until the
client sends a line holding TEXT (case-insensitive), e.g.
"EXAMINE test.inbox.1".  That line is not passed on: the server's process
PID is sent SIGTERM (the server stopped in the middle of a run), both
connections are closed, and the relay exits.  So a test can stop a real
server at a chosen point of the conversation without timing anything.
"""
import argparse
import os
import signal
import socket
import sys
import threading


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--to", type=int, required=True)
    ap.add_argument("--at", required=True)
    ap.add_argument("--kill-pid", type=int)
    a = ap.parse_args()

    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", a.port))
    ls.listen(1)
    with open(a.port_file + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(a.port_file + ".tmp", a.port_file)

    client, _ = ls.accept()
    server = socket.create_connection(("127.0.0.1", a.to))
    done = threading.Event()

    def down():
        while not done.is_set():
            try:
                data = server.recv(65536)
            except OSError:
                break
            if not data:
                break
            try:
                client.sendall(data)
            except OSError:
                break
        done.set()

    threading.Thread(target=down, daemon=True).start()
    cue = a.at.lower().encode()
    pending = b""
    cut = False
    while not done.is_set():
        try:
            data = client.recv(65536)
        except OSError:
            break
        if not data:
            break
        pending += data
        out = b""
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if cue in line.lower():
                cut = True
                break
            out += line + b"\n"
        if out:
            server.sendall(out)
        if cut:
            break
    if cut and a.kill_pid:
        os.kill(a.kill_pid, signal.SIGTERM)
    done.set()
    for s in (client, server):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()
    return 0 if cut else 1


if __name__ == "__main__":
    sys.exit(main())
