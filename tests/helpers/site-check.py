#!/usr/bin/env python3
"""site-check.py WHAT SITEDIR: checks of a site perfbot site wrote
(tests/t/site.sh).  Prints one line per problem and exits 1 when there is
one, else prints nothing and exits 0.  Python 3 standard library only.

  links    every href and src in every .html names a file of the site
           (relative, not /x, not a bare folder) or is an http(s) URL
  feeds    every .xml parses and is Atom (RFC 4287): feed id, title,
           updated, a self link, an author; each entry an id (urn:),
           title, updated; the dates RFC 3339
  hostile  no executable content: no <script> element, no on*=
           attribute, no javascript: URL, in any file; no raw C0
           (but TAB, LF), DEL, C1 or bidirectional control anywhere
  whole    every .html ends with </html> and every .xml with </feed>
"""
import html.parser
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

what, top = sys.argv[1], sys.argv[2]
problems = []


def files(ext):
    for d, _, names in os.walk(top):
        for n in sorted(names):
            if n.endswith(ext) and not n.startswith("."):
                yield os.path.join(d, n)


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    handle_startendtag = handle_starttag


def tags_of(path):
    p = Tags()
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    return p.tags


if what == "links":
    for f in files(".html"):
        for tag, attrs in tags_of(f):
            for k, v in attrs:
                if k not in ("href", "src") or v is None:
                    continue
                u = urllib.parse.urlsplit(v)
                if u.scheme in ("http", "https"):
                    continue
                if u.scheme or v.startswith("/") or v.endswith("/") or not u.path:
                    problems.append("%s: %s=%r is not a relative link to a file" % (f, k, v))
                    continue
                target = os.path.normpath(os.path.join(os.path.dirname(f), urllib.parse.unquote(u.path)))
                if os.path.relpath(target, top).split(os.sep)[0] == ".." or not os.path.isfile(target):
                    problems.append("%s: %s=%r names no file of the site" % (f, k, v))
elif what == "feeds":
    A = "{http://www.w3.org/2005/Atom}"
    date = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
    n = 0
    for f in files(".xml"):
        n += 1
        try:
            root = ET.parse(f).getroot()
        except ET.ParseError as e:
            problems.append("%s: not XML: %s" % (f, e))
            continue
        if root.tag != A + "feed":
            problems.append("%s: the root is %s, not an Atom feed" % (f, root.tag))
            continue
        for k in ("id", "title", "updated", "author"):
            if root.find(A + k) is None:
                problems.append("%s: the feed has no %s" % (f, k))
        if not [l for l in root.findall(A + "link") if l.get("rel") == "self" and l.get("href")]:
            problems.append("%s: the feed has no self link" % f)
        if root.find(A + "updated") is not None and not date.match(root.find(A + "updated").text or ""):
            problems.append("%s: the feed's updated is no RFC 3339 date" % f)
        ids = set()
        for e in root.findall(A + "entry"):
            i = e.find(A + "id")
            if i is None or not (i.text or "").startswith("urn:"):
                problems.append("%s: an entry without a urn: id" % f)
            elif i.text in ids:
                problems.append("%s: the id %s twice" % (f, i.text))
            else:
                ids.add(i.text)
            if e.find(A + "title") is None:
                problems.append("%s: an entry without a title" % f)
            u = e.find(A + "updated")
            if u is None or not date.match(u.text or ""):
                problems.append("%s: an entry without an RFC 3339 updated" % f)
    if not n:
        problems.append("no feed at all")
elif what == "hostile":
    bad = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
    for d, _, names in os.walk(top):
        for n in names:
            f = os.path.join(d, n)
            text = open(f, encoding="utf-8", errors="strict").read()
            m = bad.search(text)
            if m:
                problems.append("%s: a raw U+%04X at %d" % (f, ord(m.group()), m.start()))
            if not n.endswith(".html"):
                continue
            for tag, attrs in tags_of(f):
                if tag == "script":
                    problems.append("%s: a <script> element" % f)
                for k, v in attrs:
                    if k.startswith("on"):
                        problems.append("%s: an %s attribute on <%s>" % (f, k, tag))
                    if v and re.match(r"\s*javascript:", v, re.I):
                        problems.append("%s: a javascript: URL in %s" % (f, k))
elif what == "whole":
    for f in files(".html"):
        if not open(f, encoding="utf-8").read().rstrip().endswith("</html>"):
            problems.append("%s: not whole" % f)
    for f in files(".xml"):
        if not open(f, encoding="utf-8").read().rstrip().endswith("</feed>"):
            problems.append("%s: not whole" % f)
else:
    sys.exit("usage: site-check.py links|feeds|hostile|whole SITEDIR")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
