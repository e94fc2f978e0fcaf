#!/usr/bin/env python3
"""smtp-peer.py: a scripted SMTP server on 127.0.0.1 for perfbot's tests.

It does what a real server will not do on demand: 4xx and 5xx on any
command, a connection dropped in the middle of DATA, silence, STARTTLS
with any certificate, implicit TLS, AUTH that must succeed or fail.  It
serves every connection (one thread each) until it is killed.

The port it listens on is printed as the first line of stdout (and written
to --port-file).  --transcript FILE gets one line per event, flushed at
once, so a test can read it while the peer runs:

    CONNECT                 a client connected
    S: 250-peer.test        a line the peer sent
    C: MAIL FROM:<a@b>      a line the client sent (DATA content excepted)
    DATA: 1234 bytes        the message data, when it ended
    SNI: localhost          the server name the client sent (- for none)
    TLS: TLSv1.3            a TLS handshake completed
    TLS-FAILED: reason      a TLS handshake failed
    DROP                    the peer dropped the connection on purpose
    CLOSE                   the connection ended

--outdir DIR gets each message as DIR/N.raw (the DATA bytes exactly as they
came over the wire, dot-stuffing and CRLF included, without the final
".\\r\\n") and DIR/N.env (the MAIL FROM and RCPT TO command lines), N
counting from 1; both are written before the reply to the final dot.

--faults SEED turns on seeded random faults (the soak test, tests/t/soak.sh):
with probability --fault-rate at each command (the greeting, EHLO, MAIL,
RCPT, DATA and the message end) a 4xx, a 5xx or a dropped connection; at
the message end also a drop before the mail is taken, a drop after it was
taken (accepted, but the 250 never goes) and a delay before the 250;
and, at a new connection, the listener closed for a few seconds.  Each
connection draws from its own generator (SEED and its number), so a run
is replayed as far as the client's timing allows.  While the file named
by --faults-off-file exists, no fault is injected.  --accept-log FILE
gets one JSON object a line, flushed at once:

    {"ev": "accept", "conn": C, "n": N, "time": T, "message_id": ID,
     "in_reply_to": ID, "rcpts": [ADDR...], "fault": F}
                            the peer took message N (before its reply)
    {"ev": "replied", "conn": C, "n": N}   the 250 for it was written
    {"ev": "close", "conn": C, "quit": true|false, "time": T}
                            connection C ended (with QUIT or not)
    {"ev": "listener", "seconds": S, "time": T}  the listener was closed

Scripted replies are 'CODE TEXT' strings (or 'silent' or 'drop').  Repeated --mail-reply,
--data-reply and --end-reply options apply to the 1st, 2nd, ... MAIL
command, DATA command and message end; '-' keeps the default for that one,
and after the last one the default applies again.

Python 3 standard library only.
"""

import argparse
import base64
import json
import os
import random
import re
import socket
import socketserver
import ssl
import sys
import threading
import time


def printable(raw):
    """raw bytes as one transcript line: other than printable ASCII as \\xNN."""
    return "".join(chr(b) if 32 <= b < 127 else "\\x%02x" % b for b in raw)


class Peer:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.transcript = open(args.transcript, "a") if args.transcript else None
        self.counters = {"mail": 0, "data": 0, "end": 0, "message": 0}
        self.rcpt_replies = {}
        for spec in args.rcpt_reply:
            addr, _, reply = spec.partition("=")
            self.rcpt_replies[addr.lower()] = reply
        self.user, self.password = None, None
        if args.require_auth:
            self.user, _, self.password = args.require_auth.partition(":")
        self.accept_log = open(args.accept_log, "a") if args.accept_log else None
        self.conns = 0
        self.tls_context = None
        if args.mode in ("starttls", "ssl"):
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(args.cert, args.key)
            ctx.sni_callback = self.sni
            self.tls_context = ctx

    def log(self, line):
        if self.transcript is None:
            return
        with self.lock:
            self.transcript.write(line + "\n")
            self.transcript.flush()

    def event(self, obj):
        """One line of the accept log (a JSON object), flushed at once."""
        if self.accept_log is None:
            return
        with self.lock:
            self.accept_log.write(json.dumps(obj, sort_keys=True) + "\n")
            self.accept_log.flush()

    def next_conn(self):
        with self.lock:
            self.conns += 1
            return self.conns

    def faults_on(self):
        return (self.args.faults is not None and
                not (self.args.faults_off_file and os.path.exists(self.args.faults_off_file)))

    def sni(self, sslobj, name, ctx):
        self.log("SNI: %s" % (name if name else "-"))

    def next_reply(self, kind, scripted, default):
        """The reply for the n-th command of this kind."""
        with self.lock:
            n = self.counters[kind]
            self.counters[kind] += 1
        if n < len(scripted) and scripted[n] != "-":
            return scripted[n]
        return default

    def next_message(self):
        with self.lock:
            self.counters["message"] += 1
            return self.counters["message"]


class Silent(Exception):
    """The script says: answer nothing from now on."""


class Drop(Exception):
    """The script says: drop the connection now."""


class Session:
    def __init__(self, peer, sock, conn=0):
        self.peer = peer
        self.conn = conn
        self.quit = False
        self.rng = random.Random("%s:%d" % (peer.args.faults, conn))
        self.args = peer.args
        self.sock = sock
        self.rfile = sock.makefile("rb")
        self.tls = False
        self.authed = False
        self.ehlo = False
        self.reset()

    def reset(self):
        self.mail_from = None
        self.rcpts = []

    def send(self, text):
        lines = text.split("\n")
        for line in lines:
            self.peer.log("S: " + line)
        self.sock.sendall(("\r\n".join(lines) + "\r\n").encode())

    def reply(self, text):
        if text.startswith("silent"):
            raise Silent()
        if text.startswith("drop"):
            raise Drop()
        self.send(text)

    def fault(self, where):
        """A seeded fault for this command, or None: a reply, 'drop', or at
        the message end also 'drop-before', 'drop-after' and 'delay'."""
        if not self.peer.faults_on():
            return None
        rate = self.args.fault_rate
        if where == "END":
            x = self.rng.random()
            if x >= 3 * rate:
                return None
            return self.rng.choice(["451 4.3.0 fault: try again later", "554 5.6.0 fault: message refused",
                                    "drop-before", "drop-after", "delay", "delay"])
        if self.rng.random() >= rate:
            return None
        return self.rng.choice(["421 4.3.2 fault: service not available", "450 4.2.1 fault: busy",
                                "451 4.3.0 fault: local error", "550 5.7.1 fault: refused",
                                "drop", "drop"])

    def readline(self):
        line = self.rfile.readline(65536)
        if not line:
            return None
        return line

    def run(self):
        peer = self.peer
        if self.args.mode == "ssl":
            if not self.start_tls():
                return
        if self.args.silent:
            raise Silent()
        if "GREETING" in self.args.flood_at:
            self.flood()
            return
        greeting_fault = self.fault("GREETING")
        self.reply(greeting_fault or self.args.greeting)
        while True:
            raw = self.readline()
            if raw is None:
                return
            line = printable(raw.rstrip(b"\r\n"))
            peer.log("C: " + line)
            if not raw.endswith(b"\r\n"):
                peer.log("BARE-LF")
            verb = line.split(" ", 1)[0].upper()
            if verb in self.args.silent_at:
                raise Silent()
            if verb in self.args.flood_at:
                self.flood()
                return
            if (verb == "MAIL" and self.args.silent_after is not None
                    and self.peer.counters["message"] >= self.args.silent_after):
                raise Silent()
            handler = getattr(self, "cmd_" + verb.lower(), None)
            if handler is not None and verb in ("EHLO", "MAIL", "RCPT", "DATA"):
                f = self.fault(verb)
                if f is not None:
                    self.reply(f)
                    if f.startswith("421"):
                        raise Drop()
                    continue
            if handler is None:
                self.reply("500 5.5.2 unknown command")
                continue
            if handler(line) == "quit":
                return

    def flood(self):
        """Answers with a reply that never ends (one line, or continuation
        lines with --flood-lines) until the client hangs up, or 64 MiB."""
        if self.args.flood_lines:
            chunk = ("250-" + "x" * 76 + "\r\n").encode() * 800
        else:
            chunk = b"250 " + b"x" * 65532
        self.peer.log("S: (a reply that never ends)")
        sent = 0
        try:
            while sent < (64 << 20):
                self.sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass
        self.peer.log("FLOOD: %d bytes" % sent)

    def start_tls(self):
        try:
            self.sock = self.peer.tls_context.wrap_socket(self.sock, server_side=True)
        except (ssl.SSLError, OSError) as e:
            self.peer.log("TLS-FAILED: %s" % e)
            return False
        self.peer.log("TLS: %s" % self.sock.version())
        self.rfile = self.sock.makefile("rb")
        self.tls = True
        return True

    def capabilities(self):
        caps = ["peer.test", "PIPELINING", "SIZE 10240000", "8BITMIME"]
        if self.args.mode == "starttls" and not self.tls:
            caps.append("STARTTLS")
        if self.args.auth or self.args.require_auth:
            caps.append("AUTH PLAIN LOGIN")
        caps.append("HELP")
        return "\n".join("250%s%s" % ("-" if i < len(caps) - 1 else " ", c)
                         for i, c in enumerate(caps))

    def cmd_ehlo(self, line):
        if self.args.ehlo_reply:
            self.reply(self.args.ehlo_reply)
            return
        self.ehlo = True
        self.reply(self.capabilities())

    def cmd_helo(self, line):
        self.ehlo = True
        self.reply("250 peer.test")

    def cmd_starttls(self, line):
        if self.args.mode != "starttls" or self.tls:
            self.reply("502 5.5.1 STARTTLS not offered")
            return
        if self.args.starttls_reply:
            self.reply(self.args.starttls_reply)
            if not self.args.starttls_reply.startswith("220"):
                return
        else:
            self.reply("220 2.0.0 ready to start TLS" +
                       (("\n" + self.args.starttls_inject) if self.args.starttls_inject else ""))
        if "TLS" in self.args.silent_at:
            raise Silent()
        if not self.start_tls():
            raise Drop()
        self.ehlo = False
        self.authed = False
        self.reset()

    def check_credentials(self, user, password):
        if not self.args.require_auth:
            return True
        return user == self.peer.user and password == self.peer.password

    def read_auth_line(self):
        raw = self.readline()
        if raw is None:
            raise Drop()
        line = printable(raw.rstrip(b"\r\n"))
        self.peer.log("C: " + line)
        return line

    def cmd_auth(self, line):
        words = line.split()
        if not (self.args.auth or self.args.require_auth) or len(words) < 2:
            self.reply("503 5.5.1 AUTH not offered")
            return
        mech = words[1].upper()
        try:
            if mech == "PLAIN":
                blob = words[2] if len(words) > 2 else None
                if blob is None:
                    self.reply("334 ")
                    blob = self.read_auth_line()
                parts = base64.b64decode(blob).split(b"\0")
                if len(parts) != 3:
                    self.reply("501 5.5.2 bad PLAIN response")
                    return
                user, password = parts[1].decode(), parts[2].decode()
            elif mech == "LOGIN":
                if len(words) > 2:
                    user = base64.b64decode(words[2]).decode()
                else:
                    self.reply("334 VXNlcm5hbWU6")
                    user = base64.b64decode(self.read_auth_line()).decode()
                self.reply("334 UGFzc3dvcmQ6")
                password = base64.b64decode(self.read_auth_line()).decode()
            else:
                self.reply("504 5.5.4 mechanism not supported")
                return
        except (ValueError, UnicodeDecodeError):
            self.reply("501 5.5.2 cannot decode")
            return
        if self.check_credentials(user, password):
            self.authed = True
            self.reply("235 2.7.0 authentication successful")
        else:
            self.reply("535 5.7.8 authentication credentials invalid")

    def cmd_mail(self, line):
        if self.args.require_auth and not self.authed:
            self.reply("530 5.7.0 authentication required")
            return
        reply = self.peer.next_reply("mail", self.args.mail_reply, "250 2.1.0 ok")
        if reply.startswith("2"):
            self.reset()
            self.mail_from = line
        self.reply(reply)

    def cmd_rcpt(self, line):
        if self.mail_from is None:
            self.reply("503 5.5.1 need MAIL first")
            return
        addr = line[line.find("<") + 1:line.find(">")].lower() if "<" in line else ""
        reply = self.peer.rcpt_replies.get(addr, "250 2.1.5 ok")
        if reply.startswith("2"):
            self.rcpts.append(line)
        self.reply(reply)

    def cmd_data(self, line):
        if not self.rcpts:
            self.reply("503 5.5.1 no valid recipients")
            return
        reply = self.peer.next_reply("data", self.args.data_reply,
                                     "354 end data with <CR><LF>.<CR><LF>")
        self.reply(reply)
        if not reply.startswith("354"):
            return
        if self.args.drop_after_data_bytes == 0:
            # Closed with nothing unread: the client gets a FIN, not a
            # reset, so its second write fails with EPIPE (and SIGPIPE).
            raise Drop()
        data = bytearray()
        while True:
            raw = self.readline()
            if raw is None:
                raise Drop()
            if raw == b".\r\n":
                break
            data += raw
            limit = self.args.drop_after_data_bytes
            if limit is not None and len(data) >= limit:
                raise Drop()
        self.peer.log("DATA: %d bytes" % len(data))
        if "END" in self.args.silent_at:
            raise Silent()
        f = self.fault("END")
        if f == "drop-before":
            raise Drop()
        if f is not None and f[0] in "45":
            self.reply(f)
            self.reset()
            return
        n = self.peer.next_message()
        if self.args.outdir:
            self.write_message(n, bytes(data))
        self.log_accept(n, bytes(data), f)
        if f == "drop-after":
            raise Drop()
        if f == "delay":
            time.sleep(self.rng.uniform(0.2, 1.5))
        self.reply(self.peer.next_reply("end", self.args.end_reply,
                                        "250 2.0.0 ok: queued as M%d" % n))
        self.peer.event({"ev": "replied", "conn": self.conn, "n": n})
        self.reset()

    def log_accept(self, n, data, fault):
        """The accept log's record of message n: its Message-ID and
        In-Reply-To (unfolded, without <>) and its envelope recipients."""
        head = data.split(b"\r\n\r\n", 1)[0].decode("utf-8", "replace")
        fields = {}
        for line in re.sub(r"\r\n[ \t]+", " ", head).split("\r\n"):
            name, sep, value = line.partition(":")
            if sep and name.lower() not in fields:
                fields[name.lower()] = value.strip()

        def mid(v):
            m = re.search(r"<([^>]*)>", v or "")
            return m.group(1) if m else None
        rcpts = [r[r.find("<") + 1:r.find(">")] for r in self.rcpts]
        self.peer.event({"ev": "accept", "conn": self.conn, "n": n, "time": time.time(),
                         "message_id": mid(fields.get("message-id")),
                         "in_reply_to": mid(fields.get("in-reply-to")),
                         "rcpts": rcpts, "fault": fault})

    def write_message(self, n, data):
        base = os.path.join(self.args.outdir, str(n))
        with open(base + ".env.tmp", "w") as f:
            f.write(self.mail_from + "\n")
            for r in self.rcpts:
                f.write(r + "\n")
        with open(base + ".raw.tmp", "wb") as f:
            f.write(data)
        os.rename(base + ".raw.tmp", base + ".raw")
        os.rename(base + ".env.tmp", base + ".env")

    def cmd_rset(self, line):
        self.reset()
        self.reply("250 2.0.0 ok")

    def cmd_noop(self, line):
        self.reply("250 2.0.0 ok")

    def cmd_quit(self, line):
        self.quit = True
        self.reply("221 2.0.0 bye")
        return "quit"


def serve_connection(peer, sock, conn):
    peer.log("CONNECT")
    session = Session(peer, sock, conn)
    try:
        session.run()
    except Silent:
        # Keep the connection open and read whatever comes, until the
        # client gives up.
        try:
            while session.sock.recv(65536):
                pass
        except OSError:
            pass
    except Drop:
        try:
            session.sock.close()
        except OSError:
            pass
        peer.log("DROP")
    except (OSError, ssl.SSLError, ValueError) as e:
        peer.log("ERROR: %s" % e)
    finally:
        try:
            session.sock.close()
        except OSError:
            pass
        peer.log("CLOSE")
        peer.event({"ev": "close", "conn": conn, "quit": session.quit, "time": time.time()})


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        peer = self.server.peer
        serve_connection(peer, self.request, peer.next_conn())


def listen(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(16)
    return s


def serve_faulty(peer, lsock):
    """The accept loop of --faults: like the threading server, but it may
    close its listener for a few seconds (a restarting server) and open it
    again on the same port."""
    port = lsock.getsockname()[1]
    while True:
        sock, _ = lsock.accept()
        conn = peer.next_conn()
        rng = random.Random("%s:listener:%d" % (peer.args.faults, conn))
        if peer.faults_on() and rng.random() < peer.args.fault_rate / 2:
            seconds = rng.uniform(1, 4)
            peer.log("LISTENER-CLOSED: %.1f s" % seconds)
            peer.event({"ev": "listener", "seconds": seconds, "time": time.time()})
            sock.close()
            lsock.close()
            time.sleep(seconds)
            lsock = listen(port)
            continue
        threading.Thread(target=serve_connection, args=(peer, sock, conn), daemon=True).start()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    p = argparse.ArgumentParser(description="scripted SMTP server on 127.0.0.1")
    p.add_argument("--mode", choices=["plain", "starttls", "ssl"], default="plain")
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--auth", action="store_true", help="offer AUTH PLAIN LOGIN, accept anyone")
    p.add_argument("--require-auth", metavar="USER:PASS")
    p.add_argument("--greeting", default="220 peer.test ESMTP smtp-peer")
    p.add_argument("--ehlo-reply")
    p.add_argument("--starttls-reply")
    p.add_argument("--starttls-inject", metavar="LINE",
                   help="send LINE right after the 220 to STARTTLS, in the same write")
    p.add_argument("--mail-reply", action="append", default=[])
    p.add_argument("--rcpt-reply", action="append", default=[], metavar="ADDR=REPLY")
    p.add_argument("--data-reply", action="append", default=[])
    p.add_argument("--end-reply", action="append", default=[])
    p.add_argument("--drop-after-data-bytes", type=int, metavar="N",
                   help="drop the connection once N bytes of message data came "
                        "(0: right after the 354 reply)")
    p.add_argument("--silent", action="store_true", help="accept and never answer")
    p.add_argument("--silent-at", action="append", default=[], metavar="VERB",
                   help="stop answering when VERB arrives (EHLO, MAIL, ...; "
                        "TLS: after the 220 to STARTTLS; END: after the data)")
    p.add_argument("--silent-after", type=int, metavar="N",
                   help="stop answering at the MAIL after N messages were taken")
    p.add_argument("--flood-at", action="append", default=[], metavar="VERB",
                   help="answer VERB (or GREETING: greet) with a reply that never ends")
    p.add_argument("--flood-lines", action="store_true",
                   help="the endless reply is continuation lines, not one line")
    p.add_argument("--faults", metavar="SEED",
                   help="seeded random faults (4xx, 5xx, drops, delays, a closed listener)")
    p.add_argument("--fault-rate", type=float, default=0.05, metavar="P",
                   help="the probability of a fault at each command (default 0.05)")
    p.add_argument("--faults-off-file", metavar="FILE",
                   help="no fault is injected while FILE exists")
    p.add_argument("--accept-log", metavar="FILE",
                   help="a JSON line per message taken, reply written and connection ended")
    p.add_argument("--outdir")
    p.add_argument("--transcript")
    p.add_argument("--port-file")
    args = p.parse_args()
    args.silent_at = [v.upper() for v in args.silent_at]
    args.flood_at = [v.upper() for v in args.flood_at]
    if args.mode != "plain" and not (args.cert and args.key):
        p.error("--mode %s needs --cert and --key" % args.mode)

    peer = Peer(args)
    if args.faults is not None:
        server = None
        lsock = listen(0)
        port = lsock.getsockname()[1]
    else:
        server = Server(("127.0.0.1", 0), Handler)
        server.peer = peer
        port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.rename(args.port_file + ".tmp", args.port_file)
    sys.stdout.write("%d\n" % port)
    sys.stdout.flush()
    try:
        if server is None:
            serve_faulty(peer, lsock)
        else:
            server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
