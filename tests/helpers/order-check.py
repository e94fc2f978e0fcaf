#!/usr/bin/env python3
"""order-check.py: perfbot's order rule over what scripted SMTP peers took.

    python3 tests/helpers/order-check.py [--known ID]... DIR...

Each DIR is the --outdir of a run of tests/helpers/smtp-peer.py, with its
--transcript DIR/transcript; give them in the order the peers ran.  A
message counts as accepted when the peer answered the end of its data
with a 2xx (its N.raw is the Nth "DATA:" of the transcript); one refused,
dropped or left without an answer does not.  The rule (perfbot-send(1),
Order): every accepted message whose In-Reply-To names a Message-ID
answers one accepted before it, by these peers or named with --known (a
mail accepted before the first DIR).  Prints one line per message that
breaks it and exits 1; exits 0 when none does.  Python 3 standard
library only.
"""

import argparse
import email.parser
import os
import re
import sys


def accepted(d):
    """The Message-ID and In-Reply-To of each message peer dir d accepted, in order."""
    out = []
    try:
        lines = open(os.path.join(d, "transcript"), errors="replace").read().split("\n")
    except OSError:
        return out
    n = 0
    for i, line in enumerate(lines):
        if not line.startswith("DATA: "):
            continue
        n += 1
        answer = next((x for x in lines[i + 1:] if x.startswith("S: ") or x in ("DROP", "CLOSE", "CONNECT")), "")
        if not re.match(r"S: 2\d\d", answer):
            continue
        raw = open(os.path.join(d, "%d.raw" % n), "rb").read()
        m = email.parser.BytesParser().parsebytes(raw, headersonly=True)
        out.append(((m.get("Message-ID") or "").strip(), (m.get("In-Reply-To") or "").strip()))
    return out


def main():
    p = argparse.ArgumentParser(description="perfbot's order rule over smtp-peer.py outdirs")
    p.add_argument("--known", action="append", default=[], metavar="ID",
                   help="a Message-ID (with <>) accepted before the first DIR")
    p.add_argument("dirs", nargs="+", metavar="DIR")
    args = p.parse_args()
    seen, bad = set(args.known), []
    for d in args.dirs:
        for mid, irt in accepted(d):
            if irt and irt not in seen:
                bad.append("%s: %s answers %s, which no server accepted before it" % (d, mid, irt))
            seen.add(mid)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
