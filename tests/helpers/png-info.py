#!/usr/bin/env python3
"""png-info.py PNG [RRGGBB...]: prints "WIDTH HEIGHT DISTINCT_COLOURS" of an
8-bit RGB or RGBA PNG (what Chromium writes), then for each colour given
the number of pixels within 12 of it in every channel, one a line.  Pure
python3 (zlib and the five PNG filters), so a test can tell a screenshot
that shows the charts from a blank one.  Exit 1 when the file is not such
a PNG."""
import struct
import sys
import zlib


def decode(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("not an 8-bit RGB(A) PNG without interlacing")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    try:
        with open(sys.argv[1], "rb") as f:
            w, h, bpp, rows = decode(f.read())
    except (OSError, ValueError, IndexError, TypeError, zlib.error, struct.error) as e:
        print("png-info.py: %s" % e, file=sys.stderr)
        return 1
    want = [tuple(int(c[k:k + 2], 16) for k in (0, 2, 4)) for c in sys.argv[2:]]
    counts = [0] * len(want)
    seen = set()
    for row in rows:
        for x in range(0, len(row), bpp):
            px = (row[x], row[x + 1], row[x + 2])
            seen.add(px)
            for k, c in enumerate(want):
                if abs(px[0] - c[0]) <= 12 and abs(px[1] - c[1]) <= 12 and abs(px[2] - c[2]) <= 12:
                    counts[k] += 1
    print(w, h, len(seen))
    for n in counts:
        print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
