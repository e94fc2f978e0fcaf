#!/usr/bin/env python3
"""Run the official mustache spec suite through `perfbot template`.

usage: mustache-spec.py PERFBOT SPECDIR

For each test of the modules below (SPECDIR/MODULE.json), writes the
template, the partials (as NAME.txt) and the data to a temporary folder,
runs `PERFBOT template --lenient --html-escape --partials DIR T DATA` and
compares its stdout with `expected`, byte for byte.  Prints one line per
test and finally "N passed, M failed"; exits 0 only if all passed.
Python 3 standard library only.
"""

import json
import os
import subprocess
import sys
import tempfile

MODULES = ["comments", "delimiters", "interpolation", "inverted", "partials",
           "sections", "~inheritance"]


def write(path, text):
    with open(path, "wb") as f:
        f.write(text.encode("utf-8"))


def run_test(perfbot, tmp, test):
    """Returns (ok, detail)."""
    partials = os.path.join(tmp, "partials")
    os.mkdir(partials)
    for name, text in test.get("partials", {}).items():
        write(os.path.join(partials, name + ".txt"), text)
    template = os.path.join(tmp, "template.mustache")
    data = os.path.join(tmp, "data.json")
    write(template, test["template"])
    write(data, json.dumps(test["data"]))
    proc = subprocess.run(
        [perfbot, "template", "--lenient", "--html-escape", "--partials", partials,
         template, data],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    expected = test["expected"].encode("utf-8")
    if proc.returncode != 0:
        return False, "exit %d: %r" % (proc.returncode, proc.stderr.decode("utf-8", "replace"))
    if proc.stdout != expected:
        return False, "expected %r got %r" % (expected.decode("utf-8", "replace"),
                                              proc.stdout.decode("utf-8", "replace"))
    return True, ""


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: mustache-spec.py PERFBOT SPECDIR\n")
        return 64
    perfbot, specdir = os.path.abspath(argv[1]), argv[2]
    passed = failed = 0
    for module in MODULES:
        path = os.path.join(specdir, module + ".json")
        try:
            with open(path, encoding="utf-8") as f:
                spec = json.load(f)
        except (OSError, ValueError) as e:
            print("FAIL %s: cannot read %s: %s" % (module, path, e))
            failed += 1
            continue
        for test in spec["tests"]:
            with tempfile.TemporaryDirectory(prefix="mustache-spec.") as tmp:
                try:
                    ok, detail = run_test(perfbot, tmp, test)
                except (OSError, subprocess.SubprocessError) as e:
                    ok, detail = False, "cannot run %s: %s" % (perfbot, e)
            if ok:
                passed += 1
                print("ok %s: %s" % (module, test["name"]))
            else:
                failed += 1
                print("FAIL %s: %s: %s" % (module, test["name"], detail))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
