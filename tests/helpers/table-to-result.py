#!/usr/bin/env python3
"""table-to-result.py TABLE.txt META.json: a test result's comparison JSON
(perfbot-json(5)) with the numbers of a real compare table.

TABLE.txt is the table as LKP's compare prints it (the id row, its dashes,
the two header lines, then the rows) with any lines before it; every column
is read at its fixed place: a 10-wide value and a 6-wide stddev mark for the
first commit, then per later commit a 12-wide change, a value and a mark.
The means and changes are given as printed and each stddev mark as its
percentage + 0.5, so that perfbot prints them back unchanged.  META.json gives the rest (tree,
commits, request, extra, the test's axes) and is merged in; its test's
"headline" must name a row.  Prints the JSON on stdout."""
import json
import re
import sys


def number(s):
    s = s.strip()
    return int(s) if re.fullmatch(r"-?\d+", s) else float(s)


def side(value, mark):
    out = {"mean": number(value)}
    mark = mark.strip()
    if mark:
        # the mark is the truncated percentage, shown above 2: p + 0.5
        # truncates to p and is above 2 for the smallest mark, 2
        out["stddev_percent"] = int(mark.lstrip("\u00b1").rstrip("%")) + 0.5
    return out


def main():
    lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
    meta = json.load(open(sys.argv[2], encoding="utf-8"))
    at = next(i for i, l in enumerate(lines) if l.startswith("----------------"))
    ncols = lines[at].count("-" * 16)
    rows = []
    for l in lines[at + 3:]:
        if not l.strip():
            break
        off = 16
        row = {"base": side(l[0:10], l[10:16])}
        extra = []
        for c in range(1, ncols):
            change = l[off:off + 12].strip().rstrip("%")
            s = side(l[off + 12:off + 22], l[off + 22:off + 28])
            s["change"] = float(change)
            off += 28
            if c == 1:
                row["head"] = {k: v for k, v in s.items() if k != "change"}
                row["change"] = s["change"]
            else:
                extra.append(s)
        name = l[off + 2:]
        row = {"name": name, **row}
        if extra:
            row["extra"] = extra
        rows.append(row)
    meta["tests"][0]["metrics"] = rows
    json.dump(meta, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


main()
