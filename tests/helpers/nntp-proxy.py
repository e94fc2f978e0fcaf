#!/usr/bin/env python3
"""nntp-proxy.py LISTEN_PORT SERVER_PORT LOG [--drop-after N | --hang-after N]
   [--mark FILE]: a line-logging TCP proxy on 127.0.0.1 for the NNTP tests.

Every connection is forwarded to 127.0.0.1:SERVER_PORT; LOG gets one line
"connect" per connection and one line per command the client sent (its
first word and arguments, as sent), so a test counts what the server saw.
--drop-after N closes the client's connection when it sends its (N+1)th
ARTICLE command of the proxy's life (as a server that stops mid-run);
--hang-after N stops answering that connection then instead (a server
that times out); either happens once, later connections pass;
--mark FILE is created when that point is reached, so a test can kill the
client at a known point without timing.  Serves until killed.
"""
import os
import socket
import sys
import threading

listen_port, server_port, log_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
args = sys.argv[4:]
drop = hang = None
mark = None
while args:
    if args[0] == "--drop-after":
        drop = int(args[1])
    elif args[0] == "--hang-after":
        hang = int(args[1])
    elif args[0] == "--mark":
        mark = args[1]
    args = args[2:]
articles = 0
fired = [False]	# the drop or hang happens once; later connections pass
lock = threading.Lock()
log = open(log_path, "a", buffering=1)


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(client):
    global articles
    server = socket.create_connection(("127.0.0.1", server_port))
    with lock:
        log.write("connect\n")
    threading.Thread(target=pump, args=(server, client), daemon=True).start()
    buf = b""
    try:
        while True:
            data = client.recv(65536)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.rstrip(b"\r").decode("latin-1")
                stop = False
                with lock:
                    log.write(text + "\n")
                    if text.upper().startswith("ARTICLE"):
                        articles += 1
                        limit = drop if drop is not None else hang
                        if limit is not None and articles > limit and not fired[0]:
                            stop = fired[0] = True
                            if mark:
                                open(mark, "w").close()
                if stop and drop is not None:
                    client.shutdown(socket.SHUT_RDWR)
                    client.close()
                    server.close()
                    return
                if stop:
                    threading.Event().wait()	# hang: answer nothing, ever
                server.sendall(line + b"\n")
    except OSError:
        pass
    try:
        server.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", listen_port))
sock.listen(8)
while True:
    c, _ = sock.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
