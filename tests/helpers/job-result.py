#!/usr/bin/env python3
"""job-result.py JOB RESULT BASE HEAD FIX: what a lab's pipeline makes of
a test job (`perfbot requests take`): a result JSON (perfbot-json(5), "Test
results") whose first test's headline has the means BASE (the base), HEAD
(the reported commit) and FIX (the commit tested), each with a small
stddev, for the site's tests (site-state.sh, site-changes.sh)."""
import json
import sys

def number(text):
    return int(text) if text.lstrip("-").isdigit() else float(text)


job_path, out, base, head, fix = sys.argv[1:]
job = json.load(open(job_path))
t0 = job["tests"][0]
test = {k: t0[k] for k in ("testcase", "tbox_group", "machine", "kconfig", "compiler", "rootfs",
                           "params", "headline")}
test["metrics"] = [{"name": t0["headline"], "base": {"mean": number(base), "stddev_percent": 0.5},
                    "head": {"mean": number(head), "stddev_percent": 1.2},
                    "extra": [{"mean": number(fix), "stddev_percent": 0.8}]}]
json.dump({"perfbot": 1, "tree": job["tree"],
           "repo_url": "https://git.kernel.org/pub/scm/linux/kernel/git/x/linux.git",
           "base": job["base"], "commit": job["head"], "request": job["request"], "tests": [test],
           "extra": [{"commit": job["test"]["commit"], "label": "the fix"}]}, open(out, "w"))
