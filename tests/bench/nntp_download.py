"""nntp_download.py PORT GROUP: the protocol's limit for `make bench`'s
NNTP benchmark.  Downloads every article of GROUP from 127.0.0.1:PORT the
way perfbot ingest --nntp asks for them, over one plain connection and
doing nothing else: GROUP, XOVER of 1,000 numbers at a time, ARTICLE of
each number the overviews list (one at a time, as perfbot does), QUIT.
Prints "N articles, BYTES bytes, SECONDS s"."""
import socket, sys, time
port, group = int(sys.argv[1]), sys.argv[2]
t0 = time.monotonic()
s = socket.create_connection(("127.0.0.1", port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
f = s.makefile("rb", buffering=1 << 16)
def cmd(c):
    s.sendall(c.encode() + b"\r\n")
    return f.readline()
def multi():
    out = []
    while True:
        l = f.readline()
        if l == b".\r\n": return out
        out.append(l)
f.readline()
r = cmd("GROUP " + group).split()
first, last = int(r[2]), int(r[3])
nums, total = [], 0
for lo in range(first, last + 1, 1000):
    if cmd("XOVER %d-%d" % (lo, min(lo + 999, last))).startswith(b"224"):
        nums += [int(l.split(b"\t", 1)[0]) for l in multi()]
for n in nums:
    if cmd("ARTICLE %d" % n).startswith(b"220"):
        total += sum(len(l) for l in multi())
cmd("QUIT")
print("%d articles, %d bytes, %.3f s" % (len(nums), total, time.monotonic() - t0))
