#!/usr/bin/env python3
"""jinja2_render.py: the peer perfbot's render is measured against.

    jinja2_render.py N FACTS.json...
    jinja2_render.py --print FACTS.json


For each FACTS.json (written by `bench-render --dump-facts DIR`, beside it
NAME.eml, the mail perfbot rendered) this renders the same mail from the
same comparison JSON with Python and jinja2 (tests/bench/report.j2): the
commit facts, recipients, Message-ID, the two forms of the creation time
and the configuration values come ready-made from FACTS.json; everything
else is computed here as perfbot computes it (report-format.md): the kind
from "kind" or the headline's change and the polarity patterns, changes
(relative, or absolute for perf-profile* and *% rows; a zero base divided
as 1e-100; a given "change" printed instead), the value, stddev and change
columns, fail:runs rows, axes sorted by key=value, the "In addition" box,
the still lines, the Subject rule, the artifacts URL, and the header block
folded (and RFC 2047-encoded where needed) as perfbot's header.c does it.

Like perfbot's bench, the JSON is read once per file (values turned into
means and population standard deviations then, as report_load_file does),
and each timed render does everything after that and returns the mail as
UTF-8 bytes.

Before timing, the rendered mail is compared with NAME.eml byte for byte,
headers included; a difference stops the run (exit 1): an unequal peer
measures nothing.  Timing as bench-render's: wall clock over all N, the
fastest of 10 batches, and the process's CPU time.  Output: per file and
overall reports/s and µs/report, and "result jinja2 NAME N SECONDS BEST_US
CPU_SECONDS" lines for scripts.

--print renders one mail to stdout and does nothing else: the process-level
peer of one `perfbot render` (start-up, imports and template compilation
included).

The polarity patterns are perfbot's POSIX extended regular expressions,
matched here with Python's re (fullmatch): the same for the patterns
perfbot ships and the fixtures use; POSIX bracket classes would differ.
"""

import base64
import json
import math
import os
import re
import sys
import time

import jinja2

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# Loading: the comparison JSON, once per file (perfbot: report_load_file).


def format_number(d):
    """value_format_number(): how perfbot prints a JSON number param."""
    if d == 0:
        return "0"
    if math.isnan(d):
        return "nan"
    if math.isinf(d):
        return "-inf" if d < 0 else "inf"
    if abs(d) < 9007199254740992.0 and d == int(d):
        return "%d" % int(d)
    for prec in range(1, 18):
        s = "%.*g" % (prec, d)
        if float(s) == d:
            break
    return s


def param_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return format_number(float(v))
    return v


def side_stats(values):
    """Mean and population stddev (% of |mean|), as report.c's side_stats():
    scaled by a power of two first, summed in order."""
    v = [float(x) for x in values]
    n = len(v)
    if all(x == v[0] for x in v):
        return {"mean": v[0], "has_stddev": n > 1 and v[0] != 0, "stddev_percent": 0.0}
    e = math.frexp(max(abs(x) for x in v))[1]
    s = 0.0
    for x in v:
        s += math.ldexp(x, -e)
    mean = s / n
    ss = 0.0
    for x in v:
        d = math.ldexp(x, -e) - mean
        ss += d * d
    return {
        "mean": math.ldexp(mean, e),
        "has_stddev": mean != 0,
        "stddev_percent": math.sqrt(ss / n) / abs(mean) * 100 if mean != 0 else 0.0,
    }


def load_side(s):
    if "values" in s:
        return side_stats(s["values"])
    return {
        "mean": float(s["mean"]),
        "has_stddev": "stddev_percent" in s,
        "stddev_percent": float(s.get("stddev_percent", 0)),
    }


def load_fail_side(s):
    if "values" in s:
        return int(sum(s["values"])), len(s["values"])
    return int(s["fails"]), int(s["runs"])


def load_report(path):
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    tests = []
    for t in j["tests"]:
        metrics = []
        for m in t["metrics"]:
            metrics.append({
                "name": m["name"],
                "base": load_side(m["base"]),
                "head": load_side(m["head"]),
                "change": float(m["change"]) if "change" in m else None,
            })
        failures = []
        for fl in t.get("failures", []):
            bf, br = load_fail_side(fl["base"])
            hf, hr = load_fail_side(fl["head"])
            failures.append({"name": fl["name"], "base_fails": bf, "base_runs": br,
                             "head_fails": hf, "head_runs": hr})
        tests.append({
            "testcase": t["testcase"], "headline": t["headline"],
            "tbox_group": t["tbox_group"], "machine": t["machine"],
            "kconfig": t["kconfig"], "compiler": t["compiler"], "rootfs": t["rootfs"],
            "params": [(k, param_text(v)) for k, v in t["params"].items()],
            "kind": t.get("kind"), "failures": failures, "metrics": metrics,
            "headline_row": next(m for m in metrics if m["name"] == t["headline"]),
        })
    tree = j["tree"]
    return {
        "tree": tree,
        "repo_url": j.get("repo_url"),
        "branch": j.get("branch", tree.split("/", 1)[1]),
        "kind": j.get("kind"),
        "still": j.get("still", []),
        "tests": tests,
    }


# ---------------------------------------------------------------------------
# The computed columns (compare.c).


def is_absolute(name):
    return name.startswith("perf-profile") or name.endswith("%")


def metric_change(m):
    if m["change"] is not None:
        return m["change"]
    base, head = m["base"]["mean"], m["head"]["mean"]
    if is_absolute(m["name"]):
        return head - base
    if base == 0:
        base = 1e-100
    return 100.0 * (head - base) / abs(base)


def fmt_value(side):
    v = side["mean"]
    a = abs(v)
    if a < 1000:
        return "%10.2f" % v
    if a > 100000000:
        return "%10.4g" % v
    return "%10d" % int(v)      # int() truncates toward zero, like perfbot's cast


def fmt_stddev(side):
    if side["has_stddev"] and side["mean"] != 0 and side["stddev_percent"] > 2:
        return " \u00b1%3d%%" % int(side["stddev_percent"])
    return "      "


def fmt_change(m):
    c = metric_change(m)
    if is_absolute(m["name"]):
        return "%+10.1f  " % c
    if abs(c) >= 100000:
        return "%+10.2g%% " % c
    return "%+10.1f%% " % c


def fmt_fail_runs(fails, runs):
    return ("%11d" % fails if fails else " " * 11) + ":%-4d" % runs


def fmt_failure(f):
    change = 100.0 * (f["head_fails"] / f["head_runs"] - f["base_fails"] / f["base_runs"])
    return "%s%10.0f%% %s" % (fmt_fail_runs(f["base_fails"], f["base_runs"]), change,
                              fmt_fail_runs(f["head_fails"], f["head_runs"]))


def pad_bytes(s, width, left=False):
    """printf's %-*s / %*s: pads to width bytes of UTF-8, not characters."""
    n = width - len(s.encode())
    if n <= 0:
        return s
    return s + " " * n if left else " " * n + s


def commit_display(c):
    return c["tag"] if c["tag"] else '%s ("%s")' % (c["id"][:10], c["subject"])


def commit_column(c, width):
    return pad_bytes(c["tag"], width) if c["tag"] else c["id"][:width]


# ---------------------------------------------------------------------------
# Header fields (header.c): folded at white space within 78 octets, non-ASCII
# words RFC 2047-encoded.  Everything is ASCII once encoded, so columns are
# counted in characters.

FOLD_WIDTH = 78
WORD_MAX = 75
ENC_OVERHEAD = 12
ENC_MIN_ROOM = 30
PHRASE_PLAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!*+-/")


class Fold:
    def __init__(self, name):
        self.parts = [name, ":"]
        self.col = len(name) + 1
        self.words = False

    def add(self, s):
        self.parts.append(s)
        self.col += len(s)

    def brk(self):
        self.parts.append("\n")
        self.col = 0
        self.words = False

    def put(self, ws, w):
        if self.words and ws and self.col + len(ws) + len(w) > FOLD_WIDTH:
            self.brk()
        self.add(ws)
        self.add(w)
        self.words = True

    def plain(self, ws, s):
        i, n = 0, len(s)
        while i < n:
            j = i
            while j < n and s[j] not in " \t":
                j += 1
            if j > i:
                self.put(ws, s[i:j])
            else:
                self.add(ws)
            k = i = j
            while i < n and s[i] in " \t":
                i += 1
            ws = s[k:i]
            if i == n and ws:
                self.add(ws)

    def text(self):
        return "".join(self.parts)


def needs_encoding(b):
    return any(c < 0x20 or c >= 0x7f for c in b) or b"=?" in b


def q_plain(c, phrase):
    if phrase:
        return c in PHRASE_PLAIN
    return 0x20 < c < 0x7f and c not in b"=?_"


def q_cost(c, phrase):
    return 1 if q_plain(c, phrase) or c == 0x20 else 3


def utf8_len(c):
    return 1 if c < 0x80 else 2 if c < 0xe0 else 3 if c < 0xf0 else 4


def encode_word(s, use_b, phrase, limit):
    used = cost = 0
    n = len(s)
    while used < n:
        ln = min(utf8_len(s[used]), n - used)
        if use_b:
            c = 4 * ((used + ln + 2) // 3)
        else:
            c = cost + sum(q_cost(x, phrase) for x in s[used:used + ln])
        if used and ENC_OVERHEAD + c > limit:
            break
        used += ln
        cost = c
    if use_b:
        return "=?UTF-8?B?" + base64.b64encode(s[:used]).decode() + "?=", used
    out = []
    for c in s[:used]:
        if c == 0x20:
            out.append("_")
        elif q_plain(c, phrase):
            out.append(chr(c))
        else:
            out.append("=%02X" % c)
    return "=?UTF-8?Q?" + "".join(out) + "?=", used


def fold_encoded(f, ws, s, phrase):
    use_b = 4 * ((len(s) + 2) // 3) < sum(q_cost(c, phrase) for c in s)
    while s:
        col = f.col + len(ws)
        room = FOLD_WIDTH - col if col < FOLD_WIDTH else 0
        w, used = encode_word(s, use_b, phrase, WORD_MAX)
        if len(w) > room:
            if f.words and room < ENC_MIN_ROOM:
                f.brk()
                room = FOLD_WIDTH - len(ws) if len(ws) < FOLD_WIDTH else 0
            if len(w) > room:
                w, used = encode_word(s, use_b, phrase, room)
        f.add(ws)
        f.add(w)
        f.words = True
        s = s[used:]
        ws = " "


def header(name, value):
    f = Fold(name)
    if value:
        f.plain(" ", value)
    return f.text()


def header_text(name, text):
    """An unstructured field (Subject): header_add_text()."""
    f = Fold(name)
    b = text.encode()
    if b:
        f.add(" ")
    p, n = 0, len(b)

    def word_end(i):
        while i < n and b[i] not in b" \t":
            i += 1
        return i

    def wsp_end(i):
        while i < n and b[i] in b" \t":
            i += 1
        return i

    while p < n:
        q = wsp_end(p)
        ws = b[p:q].decode()
        if q == n:
            f.add(ws)
            break
        w, p = q, word_end(q)
        if not needs_encoding(b[w:p]):
            f.put(ws, b[w:p].decode())
            continue
        end = p
        while end < n:
            q = wsp_end(end)
            e = word_end(q)
            if e == q or not needs_encoding(b[q:e]):
                break
            end = e
        fold_encoded(f, ws, b[w:end], 0)
        p = end
    return f.text()


def header_addresses(name, addrs):
    """From/To/Cc: header_add_addresses(); each address as perfbot formats it."""
    f = Fold(name)
    n = len(addrs)
    for i, a in enumerate(addrs):
        comma = "," if i + 1 < n else ""
        unit = a["formatted"] + comma
        if f.words and f.col + 1 + len(unit) > FOLD_WIDTH:
            f.brk()
        nb = a["name"].encode()
        if nb and needs_encoding(nb):
            fold_encoded(f, " ", nb, 1)
            f.put(" ", "<%s>%s" % (a["email"], comma))
        else:
            f.plain(" ", unit)
    return f.text()


# ---------------------------------------------------------------------------
# One render: the view (everything the template shows), then the template.


def resolve_kind(report, i, polarity):
    t = report["tests"][i]
    kind = t["kind"] or (report["kind"] if i == 0 else None)
    if kind:
        return kind
    hl = t["headline_row"]
    for rx, higher in polarity:
        if rx.fullmatch(hl["name"]):
            return "improvement" if higher == (metric_change(hl) >= 0) else "regression"
    raise SystemExit("tests[%d]: no kind and no polarity for %s" % (i, hl["name"]))


def box_entries(report, kinds):
    """The "In addition" box: rows per further test, and the width W."""
    entries, width = [], 0
    for i in range(1, len(report["tests"])):
        t = report["tests"][i]
        c = metric_change(t["headline_row"])
        rows = [("testcase: change", "%s: %s %s%.1f%% %s" % (
                    t["testcase"], t["headline"], " " if math.copysign(1, c) < 0 else "",
                    abs(c), kinds[i])),
                ("test machine", t["machine"])]
        for j, (k, v) in enumerate(sorted(t["params"], key=lambda p: p[0])):
            rows.append(("test parameters" if j == 0 else "", "%s=%s" % (k, v)))
        width = max([width] + [len(r) for _, r in rows])
        entries.append(rows)
    return entries, width


def test_view(t, base):
    fixed = [("tbox_group", t["tbox_group"]), ("testcase", t["testcase"]),
             ("rootfs", t["rootfs"]), ("kconfig", t["kconfig"]), ("compiler", t["compiler"])]
    return {
        "t": t,
        "axes": [{"key": k, "value": v, "sort": "%s=%s" % (k, v)} for k, v in t["params"] + fixed],
        "base": base,
    }


def render(tmpl, report, facts, polarity):
    cfg = facts["config"]
    head = facts["head"]
    kinds = [resolve_kind(report, i, polarity) for i in range(len(report["tests"]))]
    t0 = report["tests"][0]
    percent = "%.1f" % abs(metric_change(t0["headline_row"]))
    tree = report["tree"]
    slash = tree.find("/")
    colon = head["subject"].find(":")
    subject = "[%s:%s] %s%s: %s %s%% %s" % (
        tree[:slash], tree[slash + 1:],
        "[%s]  " % head["subject"][:colon] if colon > 0 else "",
        head["id"][:10], t0["headline"], percent, kinds[0])
    mid = facts["message_id"]
    artifacts = None
    if cfg["artifacts_url"]:
        artifacts = re.sub("%(.)", lambda m: {"D": facts["date_stamp"][:8], "M": mid, "%": "%"}
                           .get(m.group(1), m.group(0)), cfg["artifacts_url"])
    on_width = max([len(s["on"].encode()) for s in report["still"]] + [0])
    box, box_width = box_entries(report, kinds)
    text = tmpl.render(
        from_=cfg["from"], to=facts["to"], cc=facts["cc"], subject=subject,
        date=facts["date"], message_id=mid,
        percent=percent, kind=kinds[0], regression=kinds[0] == "regression",
        headline=t0["headline"], commit=head,
        repo_url=report["repo_url"] or cfg["tree_urls"][tree[:slash]], branch=report["branch"],
        still=[dict(s, on_padded=pad_bytes(s["on"], on_width, left=True)) for s in report["still"]],
        test=test_view(t0, facts["bases"][0]),
        further=[test_view(report["tests"][i], facts["bases"][i])
                 for i in range(1, len(report["tests"]))],
        box=box, box_width=box_width,
        reported_by=cfg["reported_by"], closes=cfg["closes_url"] + mid, artifacts=artifacts,
        sender=cfg["sender"], signature=cfg["signature"], disclaimer=cfg["disclaimer"])
    return text.encode()


def make_env():
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE), autoescape=False, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.globals.update(header=header, header_text=header_text, header_addresses=header_addresses,
                       commit_display=commit_display, commit_column=commit_column,
                       fmt_failure=fmt_failure)
    env.filters.update(value=fmt_value, stddev=fmt_stddev, change=fmt_change)
    return env


def first_difference(a, b):
    al, bl = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return "line %d:\n  perfbot: %r\n  jinja2:  %r" % (i + 1, x, y)
    return "line %d: one mail ends, the other goes on (%d vs %d lines)" % (
        min(len(al), len(bl)) + 1, len(al), len(bl))


BATCHES = 10


def print_rate(what, renders, seconds, best, cpu):
    print("  %-34s %6d renders %7.3f s %7.1f \u00b5s/report %6.0f reports/s "
          "(best batch %.1f \u00b5s, cpu %.1f \u00b5s)"
          % (what, renders, seconds, seconds / renders * 1e6, renders / seconds, best * 1e6,
             cpu / renders * 1e6))


def print_one(path):
    with open(path, encoding="utf-8") as f:
        facts = json.load(f)
    polarity = [(re.compile(p["pattern"]), p["higher"]) for p in facts["config"]["polarity"]]
    mail = render(make_env().get_template("report.j2"), load_report(facts["input"]), facts, polarity)
    sys.stdout.buffer.write(mail)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--print":
        return print_one(argv[2])
    if len(argv) < 3 or not argv[1].isdigit() or int(argv[1]) < 1:
        sys.stderr.write("usage: jinja2_render.py N FACTS.json... | --print FACTS.json\n")
        return 64
    n = int(argv[1])
    tmpl = make_env().get_template("report.j2")
    results = []
    print("jinja2 %s (Python %s, in process, template compiled once; the mail compared with "
          "perfbot's, headers included, before timing):" % (jinja2.__version__, sys.version.split()[0]))
    for path in argv[2:]:
        name = os.path.basename(path)[:-len(".facts.json")]
        with open(path, encoding="utf-8") as f:
            facts = json.load(f)
        with open(path[:-len(".facts.json")] + ".eml", "rb") as f:
            expected = f.read()
        report = load_report(facts["input"])
        polarity = [(re.compile(p["pattern"]), p["higher"]) for p in facts["config"]["polarity"]]
        got = render(tmpl, report, facts, polarity)
        if got != expected:
            with open(path[:-len(".facts.json")] + ".jinja2.eml", "wb") as f:
                f.write(got)
            sys.stderr.write("jinja2_render.py: %s: the jinja2 mail differs from perfbot's at %s\n"
                             "(both kept beside %s; an unequal peer measures nothing)\n"
                             % (name, first_difference(expected, got), path))
            return 1
        for _ in range(10):
            render(tmpl, report, facts, polarity)
        seconds, best, done = 0.0, None, 0
        batches = min(BATCHES, n)
        cpu = time.process_time()
        for b in range(batches):
            size = n * (b + 1) // batches - done
            start = time.perf_counter()
            for _ in range(size):
                render(tmpl, report, facts, polarity)
            t = time.perf_counter() - start
            seconds += t
            done += size
            if size and (best is None or t / size < best):
                best = t / size
        cpu = time.process_time() - cpu
        results.append((name, seconds, best, cpu))
        print_rate(name, n, seconds, best, cpu)
        sys.stdout.flush()
    print_rate("all", n * len(results), sum(r[1] for r in results),
               sum(r[2] for r in results) / len(results), sum(r[3] for r in results))
    for name, seconds, best, cpu in results:
        print("result jinja2 %s %d %.9f %.3f %.9f" % (name, n, seconds, best * 1e6, cpu))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
