#!/usr/bin/env python3
"""soak.py: the driver of tests/t/soak.sh (read that file first).

Runs perfbot's cron cycle ROUNDS times against the fault-injecting SMTP
peer (tests/helpers/smtp-peer.py --faults) while send, ingest and track
are killed with SIGKILL at seeded instants, drains with the faults off,
then checks the invariants against the peer's accept log and prints one
"ok ..." or "not ok ..." line each (a failure names the seed and, where
there is one, the round) and "N passed, M failed".

Everything random comes from generators seeded with SEED (one a round,
one a killable run): the comparisons queued, the outbox actions, the
replies and their commands, the Closes: commits, and the instants of the
kills (delays after a command starts).  The peer draws its faults from
SEED too; what differs between two runs of one seed is timing (where a
kill lands, which mail a fault meets).

Python 3 standard library only.
"""

import argparse
import copy
import email.utils
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time

T0 = 1772000000		# 2026-02-25T06:13:20Z: round 0's clock (PERFBOT_NOW)
ROUND_SECONDS = 600	# each round is ten minutes later
HANG_SECONDS = 300	# a run that takes longer hangs (a failure, not a timed assertion)
TOPICS = 100		# at most this many trees, one report (and its follow-ups) each


class Soak:
    def __init__(self, a):
        self.a = a
        self.seed = a.seed
        self.rng = random.Random("soak:%s" % a.seed)
        self.state = a.state
        self.db_path = os.path.join(a.state, "state.db")
        self.round = 0
        self.now = T0
        self.ncomp = 0
        self.nreply = 0
        self.comparisons = {}	# token -> {"topic", "round", "accepted"}
        self.topics = []	# tree names in use
        self.replies = {}	# reply Message-ID -> {"parent", "command", "round", "then"}
        self.closes = []	# (round, Message-ID) a Closes: commit names
        self.round_starts = []	# (wall-clock time, round): which round a time of the peer's log fell in
        self.snapshots = []	# (round, step, {id: (kind, thread_id, state, status)})
        self.kills = {"send": 0, "ingest": 0, "track": 0}
        self.runs = {"send": 0, "ingest": 0, "track": 0}
        self.crashes = []	# (round, what, rc, stderr tail)
        self.queue_refusals = []	# (round, token, topic, why)
        self.actions = {}	# (report id, command name) -> operator actions that exited 0
        self.code0 = {}		# a line showing a local error as code 0 -> the round it was first seen
        self.log = open(os.path.join(a.tmp, "soak.log"), "a")
        base = json.load(open(a.comparison))
        base["tests"] = [base["tests"][0]]
        base["still"] = []
        self.base = base
        self.head = subprocess.run(["git", "-C", a.repo, "rev-parse", base["commit"] + "^{commit}"],
                                   capture_output=True, text=True, check=True).stdout.strip()
        self.empty_tree = subprocess.run(["git", "-C", a.repo, "hash-object", "-t", "tree", "-w", "/dev/null"],
                                         capture_output=True, text=True, check=True).stdout.strip()

    # --- running perfbot --------------------------------------------------

    def env(self):
        e = dict(os.environ)
        e["PERFBOT_NOW"] = str(self.now)
        return e

    def pb(self, *args, kill=None):
        """Runs perfbot ARGS; with kill=NAME, maybe SIGKILLs it at a seeded
        instant.  Returns (rc, stdout, stderr); rc -9 when the kill found it
        at work."""
        cmd = [self.a.perfbot, "--config", self.a.config] + list(args)
        delay = None
        # the kills draw from a generator of their own (seed, round, command),
        # so the instants stay put when timing changes what a round does;
        # most runs take a few milliseconds (a send the peer delays, seconds):
        # most kills fall in the first 30 ms, or they would find none at work
        k = random.Random("soak:%s:%d:%s:kill" % (self.seed, self.round, kill))
        if kill and k.random() < self.a.kill_rate:
            delay = k.uniform(0.002, 0.03) if k.random() < 0.6 else k.uniform(0.03, 1.2)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env())
        hung = False
        try:
            out, err = p.communicate(timeout=delay if delay is not None else HANG_SECONDS)
        except subprocess.TimeoutExpired:
            hung = delay is None
            p.send_signal(signal.SIGKILL)
            out, err = p.communicate()
        err = err.decode("utf-8", "replace")
        if hung:
            self.crashes.append((self.round, " ".join(args[:2]), "hung: killed after %d s" % HANG_SECONDS,
                                 err.strip().splitlines()[-3:]))
        if kill:
            self.runs[kill] += 1
            if p.returncode == -signal.SIGKILL:
                self.kills[kill] += 1
        self.log.write("round %d %s: rc %d%s\n%s" % (self.round, " ".join(args), p.returncode,
                                                     " (kill after %.2f s)" % delay if delay else "", err))
        self.log.flush()
        return p.returncode, out.decode("utf-8", "replace"), err

    def expect(self, what, rc, err, allowed):
        if rc not in allowed and rc != -signal.SIGKILL:
            self.crashes.append((self.round, what, rc, err.strip().splitlines()[-3:]))

    def status(self):
        rc, out, err = self.pb("status", "--json")
        if rc != 0:
            self.crashes.append((self.round, "status --json", rc, err.strip().splitlines()[-3:]))
            return {"reports": []}
        d = json.loads(out)
        for r in d["reports"]:
            for reply in [r.get("last_reply")] + [x.get("reply") for x in r.get("recipients") or []]:
                if reply and re.match(r"0 ", reply):
                    self.code0.setdefault("%s %d: %s" % (r["kind"], r["id"], reply), self.round)
        return d

    def db(self):
        return sqlite3.connect(self.db_path, timeout=30)

    def snapshot(self, step):
        rows = {}
        if os.path.exists(self.db_path):
            c = self.db()
            try:
                for rid, kind, thread, st, status in c.execute(
                        "SELECT id, kind, thread_id, state, status FROM reports"):
                    rows[rid] = (kind, thread, st, status)
            except sqlite3.OperationalError as e:
                # a run killed before its first transaction leaves a database without tables
                if "no such table" not in str(e):
                    raise
            c.close()
        self.snapshots.append((self.round, step, rows))

    # --- the cycle ------------------------------------------------------------

    def comparison(self, tree):
        self.ncomp += 1
        token = "c%05d" % self.ncomp
        d = copy.deepcopy(self.base)
        d["tree"] = tree
        d["repo_url"] = "https://git.example.org/%s.git" % tree.split("/")[0]
        path = os.path.join(self.a.tmp, "in", token + ".json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(d, f)
        return token, path

    def step_queue(self):
        closed = set()
        for r in self.status()["reports"]:
            if r["kind"] == "report" and r["state"] != "open":
                closed.add(self.tree_of(r))
        for _ in range(self.rng.choice([0, 1, 2, 3])):
            # mostly follow-ups of open reports, some new reports, and some
            # comparisons of closed ones (queue or send must refuse them)
            open_topics = sorted(set(self.topics) - closed)
            x = self.rng.random()
            if not self.topics or (len(self.topics) < TOPICS and (x < 0.3 or not open_topics)):
                tree = "lab%d/master" % len(self.topics)
                self.topics.append(tree)
            elif open_topics and x < 0.85:
                tree = self.rng.choice(open_topics)
            else:
                tree = self.rng.choice(self.topics)
            # one comparison of a tree a round: two would coalesce
            if any(c["topic"] == tree and c["round"] == self.round for c in self.comparisons.values()):
                continue
            token, path = self.comparison(tree)
            rc, _, err = self.pb("queue", path)
            self.expect("queue", rc, err, (0, 65))
            self.comparisons[token] = {"topic": tree, "round": self.round, "accepted": rc == 0}
            if rc == 0:
                m = re.search(r"as incoming/(\S+)", err)
                if m:	# its arrival on the pinned clock
                    f = os.path.join(self.state, "spool", "incoming", m.group(1))
                    if os.path.exists(f):
                        os.utime(f, (self.now, self.now))
            else:
                self.queue_refusals.append((self.round, token, tree, err.strip()))

    def step_send(self):
        rc, _, err = self.pb("send", kill="send")
        for line in err.splitlines():
            if re.search(r": 0 127\.0\.0\.1:", line):
                self.code0.setdefault("send's log: " + line.strip(), self.round)
        # 78: the peer refused the greeting or EHLO for good (a fault)
        self.expect("send", rc, err, (0, 65, 75, 78) if "fault: refused" in err else (0, 65, 75))

    def step_outbox(self):
        if self.rng.random() >= 0.35:
            return
        reports = self.status()["reports"]
        if not reports:
            return
        r = self.rng.choice(reports)
        rid = str(r["id"])
        action = self.rng.choice(["hold", "release", "retry", "retry", "drop", "invalid"])
        if action == "hold" and r["status"] == "queued" and not r.get("held"):
            args = ["outbox", "hold", rid]
        elif action == "release" and r.get("held"):
            args = ["outbox", "release", rid]
        elif action == "retry" and r["status"] in ("queued", "failed"):
            args = ["outbox", "retry", rid]
        elif action == "drop" and r["status"] == "queued" and self.rng.random() < 0.3:
            args = ["outbox", "drop", "--why", "soak: dropped in round %d" % self.round, rid]
        elif action == "invalid" and r["kind"] == "report" and r["state"] == "open" and self.rng.random() < 0.5:
            args = ["report", rid, "--state", "invalid", "--why", "soak: round %d" % self.round]
        else:
            return
        self.operator(args)

    def operator(self, args):
        """An outbox action or report --state, counted when it exits 0."""
        rc, _, err = self.pb(*args)
        self.expect(" ".join(args[:2]), rc, err, (0, 65))
        if rc == 0:
            key = (int(args[1]), args[3]) if args[0] == "report" else (int(args[-1]), args[1])
            self.actions[key] = self.actions.get(key, 0) + 1

    def step_ingest(self):
        """Replies to mails the server accepted and to mails perfbot minted
        but has not sent, some with #perfbot invalid, then ingest."""
        st = self.status()
        rc, out, err = self.pb("status")
        for line in out.splitlines():
            if re.search(r"(^|[ :(])0 127\.0\.0\.1:", line):
                self.code0.setdefault("status: " + line.strip(), self.round)
        minted = {r["message_id"]: r for r in st["reports"]}
        accepted = [m for m in accepted_mids(self.a.accept_log) if m in minted]
        for _ in range(self.rng.choice([0, 0, 1, 1, 2])):
            pool = accepted if accepted and self.rng.random() < 0.7 else list(minted)
            if not pool:
                break
            parent = self.rng.choice(sorted(pool))
            root = thread_root(minted, minted[parent])
            sender = (root.get("to") or ["jose@example.org"])[0]
            command = "invalid" if self.rng.random() < 0.25 else None
            self.nreply += 1
            mid = "soak-%s-r%d-%d@example.org" % (self.seed, self.round, self.nreply)
            body = "On the soak's round %d:\n\n> a report\n\nA reply.\n" % self.round
            if command:
                body += "\n#perfbot %s\n" % command
            mail = ("From: Soak Maintainer <%s>\nTo: perfbot lab <perfbot@lab.example.org>\n"
                    "Subject: Re: %s\nDate: %s\nMessage-ID: <%s>\nIn-Reply-To: <%s>\n"
                    "References: <%s>\n\n%s") % (sender, root["subject"], email.utils.formatdate(self.now),
                                                mid, parent, parent, body)
            tmpf = os.path.join(self.a.maildir, "tmp", "%d.%d.soak" % (self.round, self.nreply))
            with open(tmpf, "w") as f:
                f.write(mail)
            os.rename(tmpf, os.path.join(self.a.maildir, "new", os.path.basename(tmpf)))
            self.replies[mid] = {"parent": parent, "command": command, "round": self.round,
                                 "then": minted[parent]["status"] + (" (held)" if minted[parent].get("held") else "")}
        rc, _, err = self.pb("ingest", "--maildir", self.a.maildir, kill="ingest")
        self.expect("ingest", rc, err, (0,))

    def step_track(self):
        if self.rng.random() >= 0.3:
            return
        st = self.status()
        minted = [r for r in st["reports"] if r["kind"] in ("report", "followup")]
        if minted and self.rng.random() < 0.7:
            r = self.rng.choice(minted)
            tree = self.tree_of(r)
            if tree:
                ref = "refs/remotes/%s" % tree
                tip = subprocess.run(["git", "-C", self.a.repo, "rev-parse", "-q", "--verify", ref],
                                     capture_output=True, text=True).stdout.strip() or self.head
                msg = "soak: fix round %d\n\nCloses: https://lore.kernel.org/all/%s\n" % (self.round, r["message_id"])
                e = dict(os.environ, GIT_AUTHOR_NAME="Dev Fixer", GIT_AUTHOR_EMAIL="fixer@example.org",
                         GIT_COMMITTER_NAME="Main Tainer", GIT_COMMITTER_EMAIL="maint@example.org",
                         GIT_AUTHOR_DATE="@%d +0000" % self.now, GIT_COMMITTER_DATE="@%d +0000" % self.now)
                c = subprocess.run(["git", "-C", self.a.repo, "commit-tree", self.empty_tree, "-p", tip],
                                   input=msg, capture_output=True, text=True, env=e, check=True).stdout.strip()
                subprocess.run(["git", "-C", self.a.repo, "update-ref", ref, c], check=True)
                self.closes.append((self.round, r["message_id"]))
        rc, _, err = self.pb("track", kill="track")
        self.expect("track", rc, err, (0,))

    def round_at(self, t):
        """'round N' for a wall-clock time of the peer's log ('the drain' after)."""
        r = 0
        for start, n in self.round_starts:
            if start <= t:
                r = n
        return "the drain" if r >= self.a.rounds else "round %d" % r

    def tree_of(self, r):
        m = re.match(r"(?:Re: )?\[([^:\]]+):([^\]]+)\]", r["subject"])
        return "%s/%s" % (m.group(1), m.group(2)) if m else None

    def cycle(self):
        for self.round in range(self.a.rounds):
            self.now = T0 + self.round * ROUND_SECONDS
            # one generator a round: a round that went otherwise (timing)
            # does not shift the draws of the next ones
            self.rng = random.Random("soak:%s:%d" % (self.seed, self.round))
            self.round_starts.append((time.time(), self.round))
            for name, step in (("queue", self.step_queue), ("send", self.step_send),
                               ("outbox", self.step_outbox), ("ingest", self.step_ingest),
                               ("track", self.step_track)):
                step()
                self.snapshot(name)

    def drain(self):
        """Faults off: ingest and track what killed runs left, release what
        is held, retry what waits, send until nothing is due."""
        open(self.a.faults_off, "w").close()
        self.round = self.a.rounds
        self.round_starts.append((time.time(), self.round))
        # a listener the peer closed opens again within seconds
        port = int(open(self.a.port_file).read())
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        for i in range(10):
            self.now = T0 + self.a.rounds * ROUND_SECONDS + (i + 1) * 7200
            rc, _, err = self.pb("ingest", "--maildir", self.a.maildir)
            self.expect("drain ingest", rc, err, (0,))
            self.snapshot("drain-ingest")
            rc, _, err = self.pb("track")
            self.expect("drain track", rc, err, (0,))
            self.snapshot("drain-track")
            before = {}
            for r in self.status()["reports"]:
                before[r["id"]] = r["status"]
                if r.get("held"):
                    self.operator(["outbox", "release", str(r["id"])])
                if r["status"] == "queued" and not r.get("dropped"):
                    self.operator(["outbox", "retry", str(r["id"])])
            rc, _, err = self.pb("send")
            self.expect("drain send", rc, err, (0, 65, 75))
            self.snapshot("drain-send")
            st = self.status()
            if i == 0:
                # faults off, nothing held, no back-off: one run sends all,
                # chains of follow-ups included
                self.left_after_first = [dict(r, parent_before=before.get(r.get("parent")))
                                         for r in st["reports"] if r["status"] == "queued"]
            if (not any(r["status"] == "queued" for r in st["reports"]) and
                    not os.listdir(os.path.join(self.state, "spool", "incoming"))):
                break


def thread_root(by_mid, r):
    by_id = {x["id"]: x for x in by_mid.values()}
    seen = 0
    while r.get("parent") and r["parent"] in by_id and seen < 10000 and r["kind"] != "digest":
        r = by_id[r["parent"]]
        seen += 1
    return r


def set_aside(by_id, r):
    """A queued follow-up or notice that waits for good, with its reason: its
    report is closed (it goes if the report is reopened), was dropped, or
    was refused by every recipient (no mail of the thread went: it waits
    for the report, which only the operator's outbox retry sends again)."""
    if r["status"] != "queued" or r["kind"] == "report":
        return False
    reason = (r.get("waiting") or {}).get("reason")
    root = r
    for _ in range(10000):
        if not root.get("parent") or root["parent"] not in by_id or root["kind"] in ("report", "digest"):
            break
        root = by_id[root["parent"]]
    return ((reason == "report-closed" and root["state"] != "open") or
            (reason == "parent-dropped" and root["status"] == "dropped") or
            (reason == "parent" and root["status"] == "failed"))


def read_log(path):
    ev = []
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line:
                ev.append(json.loads(line))
    return ev


def accepted_mids(path):
    return sorted({e["message_id"] for e in read_log(path) if e["ev"] == "accept" and e["message_id"]})


# --- the invariants --------------------------------------------------------------

class Checks:
    def __init__(self, soak):
        self.s = soak
        self.passed = 0
        self.failed = 0

    def result(self, name, problems, limit=8):
        tag = "seed %s" % self.s.seed
        if not problems:
            print("ok %s (%s)" % (name, tag))
            self.passed += 1
            return
        print("not ok %s (%s): %d problem%s" % (name, tag, len(problems), "" if len(problems) == 1 else "s"))
        for p in problems[:limit]:
            print("    %s" % p)
        if len(problems) > limit:
            print("    ... and %d more" % (len(problems) - limit))
        self.failed += 1

    def run(self):
        s = self.s
        st = s.status()
        reports = st["reports"]
        by_id = {r["id"]: r for r in reports}
        by_mid = {r["message_id"]: r for r in reports}
        events = read_log(s.a.accept_log)
        accepts = [e for e in events if e["ev"] == "accept"]
        replied = {(e["conn"], e["n"]) for e in events if e["ev"] == "replied"}
        closed = {e["conn"]: e for e in events if e["ev"] == "close"}
        last_in_conn = {}
        for i, e in enumerate(accepts):
            last_in_conn[e["conn"]] = i
        # An acceptance is a window when the client cannot have recorded it:
        # its 250 was never written, or it is the last of a connection that
        # ended without QUIT (the run was killed, or timed out, after it).
        windows = set()
        for i, e in enumerate(accepts):
            c = closed.get(e["conn"])
            if (e["conn"], e["n"]) not in replied or (last_in_conn[e["conn"]] == i and not (c and c["quit"])):
                windows.add(i)
        print("  soak: %d rounds, %d comparisons (%d refused by queue), %d replies, %d Closes: commits; "
              "%d acceptances by the server, %d in the unavoidable window; kills: %s of %s runs" % (
                  s.a.rounds, len(s.comparisons), len(s.queue_refusals), len(s.replies), len(s.closes),
                  len(accepts), len(windows),
                  "/".join("%s %d" % (k, v) for k, v in s.kills.items()),
                  "/".join("%s %d" % (k, v) for k, v in s.runs.items())))

        self.result("no perfbot run crashed or failed (exit codes)",
                    ["round %d: %s exited %s: %s" % (r, w, rc, " | ".join(t)) for r, w, rc, t in s.crashes])

        # every comparison accepted ends in one mail or is set aside with a reason
        c = s.db()
        sources = c.execute("SELECT name, report_id FROM report_sources").fetchall()
        c.close()
        rejected_dir = os.path.join(s.state, "spool", "rejected")
        rejected = os.listdir(rejected_dir) if os.path.isdir(rejected_dir) else []
        incoming = os.listdir(os.path.join(s.state, "spool", "incoming"))
        problems = []
        for token, comp in sorted(s.comparisons.items()):
            if not comp["accepted"]:
                continue
            where = ["report %d" % rid for name, rid in sources if token in name]
            where += ["rejected/%s" % f for f in rejected if token in f and not f.endswith(".why")]
            left = [f for f in incoming if token in f]
            tag = "comparison %s (round %d, %s)" % (token, comp["round"], comp["topic"])
            if left:
                problems.append("%s: still in spool/incoming after the drain" % tag)
            if len(where) != 1:
                problems.append("%s: %s" % (tag, "lost (in no report and not rejected)" if not where
                                            else "in %d places: %s" % (len(where), ", ".join(where))))
                continue
            if where[0].startswith("rejected/"):
                why = os.path.join(rejected_dir, where[0][len("rejected/"):] + ".why")
                if not os.path.exists(why) or not open(why).read().strip():
                    problems.append("%s: rejected without a .why" % tag)
                continue
            r = by_id.get(int(where[0].split()[1]))
            if r is None:
                problems.append("%s: its %s is not in status --json" % (tag, where[0]))
            elif r["status"] == "sent":
                if not any(a["message_id"] == r["message_id"] for a in accepts):
                    problems.append("%s: report %d says sent, the server never took <%s>" % (tag, r["id"], r["message_id"]))
            elif r["status"] == "failed":
                if not r.get("last_reply"):
                    problems.append("%s: report %d failed with no reason" % (tag, r["id"]))
            elif r["status"] == "dropped" or r.get("dropped"):
                pass
            elif set_aside(by_id, r):
                pass
            else:
                problems.append("%s: report %d is still %s after the drain" % (tag, r["id"], r["status"]))
        self.result("every comparison accepted ends in one mail or is set aside with a reason", problems)

        # nothing pending after the drain
        problems = []
        for r in reports:
            if set_aside(by_id, r):
                continue
            if r["status"] not in ("sent", "failed", "dropped"):
                problems.append("%s %d <%s>: %s after the drain (%s)" % (r["kind"], r["id"], r["message_id"],
                                                                       r["status"], r.get("last_reply")))
            for x in r.get("recipients") or []:
                if x["status"] in ("pending", "deferred") and r["status"] != "dropped":
                    problems.append("%s %d: recipient %s still %s" % (r["kind"], r["id"], x["address"], x["status"]))
        self.result("nothing is left queued, pending or deferred after the drain", problems)

        problems = []
        for r in s.left_after_first:
            if set_aside(by_id, r):
                continue
            w = r.get("waiting") or {}
            pr = by_id.get(r.get("parent"), {})
            problems.append("%s %d <%s> still queued after the first send of the drain (waiting: %s%s; "
                            "it answers %s %s: %s before that send, %s after it)" % (
                                r["kind"], r["id"], r["message_id"], w.get("reason"),
                                " until " + w["until"] if w.get("until") else "", pr.get("kind", "mail"),
                                r.get("parent"), r.get("parent_before"), pr.get("status")))
        self.result("the drain's first send, faults off, sends everything due (a chain of follow-ups in one run)",
                    problems)

        # acceptances against the record: recorded, duplicates only after a window
        problems = []
        dup_problems = []
        seen = {}	# (mid, rcpt) -> [index of acceptance]
        for i, e in enumerate(accepts):
            for rc in e["rcpts"]:
                seen.setdefault((e["message_id"], rc.lower()), []).append(i)
        duplicates = 0
        for (mid, rc), idx in sorted(seen.items()):
            r = by_mid.get(mid)
            if r is None:
                problems.append("the server took <%s> for %s: perfbot has no such mail" % (mid, rc))
                continue
            for k in range(1, len(idx)):
                duplicates += 1
                if idx[k - 1] not in windows:
                    dup_problems.append("%s: %s %d <%s> taken again for %s (acceptance %d) after acceptance %d, "
                                        "whose 250 arrived and was followed by more of the session" % (
                                            s.round_at(accepts[idx[k]]["time"]), r["kind"], r["id"], mid, rc,
                                            idx[k] + 1, idx[k - 1] + 1))
            if any(i not in windows for i in idx):
                got = [x["status"] for x in r.get("recipients") or [] if x["address"].lower() == rc]
                if got != ["delivered"]:
                    problems.append("%s %d <%s>: the server took it for %s in %s (its 250 arrived), status says %s" % (
                        r["kind"], r["id"], mid, rc, s.round_at(accepts[min(i for i in idx if i not in windows)]["time"]),
                        got or "no such recipient"))
        print("  soak: %d second acceptances of a mail for a recipient, %d windows" % (duplicates, len(windows)))
        self.result("every recipient the server accepted is recorded as delivered", problems)
        self.result("a second acceptance of a mail for a recipient only after the unavoidable window", dup_problems)

        # status --json agrees with the server's log
        problems = []
        taken = {k for k in seen}
        for r in reports:
            delivered = [x["address"] for x in r.get("recipients") or [] if x["status"] == "delivered"]
            for a in delivered:
                if (r["message_id"], a.lower()) not in taken:
                    problems.append("%s %d <%s>: status says delivered to %s, the server never took it for %s" % (
                        r["kind"], r["id"], r["message_id"], a, a))
            if r["status"] == "sent" and not delivered:
                problems.append("%s %d: sent, with no recipient delivered" % (r["kind"], r["id"]))
        self.result("status --json agrees with the server's log", problems)
        self.result("a local error is never shown as SMTP code 0 (send's log, status, status --json)",
                    ["round %d: %s" % (rnd, what) for what, rnd in sorted(s.code0.items(), key=lambda x: x[1])])

        # issue-25's rule: a follow-up or notice only after the mail it answers was taken
        problems = []
        first_accept = {}
        for i, e in enumerate(accepts):
            first_accept.setdefault(e["message_id"], i)
        for i, e in enumerate(accepts):
            p = e.get("in_reply_to")
            r = by_mid.get(e["message_id"])
            if not p or p not in by_mid or r is None or r["kind"] == "digest":
                continue
            if first_accept.get(p, len(accepts)) > i:
                pr = by_mid[p]
                problems.append("%s: %s %d <%s> went out (acceptance %d) before the mail it answers, %s %d <%s>%s" % (
                    s.round_at(e["time"]), r["kind"], r["id"], e["message_id"], i + 1, pr["kind"], pr["id"], p,
                    " (taken later, acceptance %d)" % (first_accept[p] + 1) if p in first_accept else
                    " (never taken: %s)" % pr["status"]))
        self.result("a follow-up or notice is accepted only after the mail it answers was", problems)

        # no follow-up for a closed report
        problems = []
        first_seen = {}
        prev = {}
        for rnd, step, rows in s.snapshots:
            for rid, (kind, thread, state, _) in rows.items():
                if rid in first_seen:
                    continue
                first_seen[rid] = (rnd, step)
                if kind == "followup" and thread in prev and prev[thread][2] != "open":
                    problems.append("follow-up %d made by %s in round %d for report %d, closed (%s) before" % (
                        rid, step, rnd, thread, prev[thread][2]))
            prev = rows
        for rnd, token, tree, why in s.queue_refusals:
            problems_ok = re.search(r"closed|no follow-up", why)
            if not problems_ok:
                problems.append("round %d: queue refused %s (%s): %s" % (rnd, token, tree, why.splitlines()[-1:]))
        self.result("no follow-up for a closed report", problems)

        # replies kept once, commands applied once
        c = s.db()
        kept = {m: (rid, origin) for m, rid, origin in
                c.execute("SELECT message_id, report_id, origin FROM messages")}
        cmds = {}
        for m, name in c.execute("SELECT message_id, name FROM commands WHERE message_id IS NOT NULL"):
            cmds.setdefault(m, []).append(name)
        opcmds = {}
        for rid, name in c.execute("SELECT report_id, name FROM commands WHERE message_id IS NULL"):
            opcmds[(rid, name)] = opcmds.get((rid, name), 0) + 1
        fixes = c.execute("SELECT report_id, commit_id, evidence FROM fixes").fetchall()
        notices = c.execute("SELECT report_id, commit_id, notice_id FROM notices").fetchall()
        integrity = c.execute("PRAGMA integrity_check").fetchall()
        c.close()
        problems = []
        for mid, rep in sorted(s.replies.items()):
            tag = "reply <%s> (round %d) to <%s>" % (mid, rep["round"], rep["parent"])
            pr = by_mid.get(rep["parent"])
            if mid not in kept:
                problems.append("%s: not kept (its parent is %s %s, %s when the reply came, %s now)" % (
                    tag, pr["kind"] if pr else "?", pr["id"] if pr else "?", rep["then"],
                    pr["status"] if pr else "unknown"))
                continue
            if rep["command"]:
                n = cmds.get(mid, []).count(rep["command"])
                if n != 1:
                    problems.append("%s: #perfbot %s recorded %d times" % (tag, rep["command"], n))
                root = thread_root(by_mid, pr) if pr else None
                if root and root["state"] == "open":
                    problems.append("%s: #perfbot %s, yet report %d is open" % (tag, rep["command"], root["id"]))
        self.result("every reply is kept once and its command applied once", problems)
        problems = ["report %d: %d operator %s recorded, %d done" % (k[0], opcmds.get(k, 0), k[1], n)
                    for k, n in sorted(s.actions.items()) if opcmds.get(k, 0) != n]
        problems += ["report %d: operator %s recorded %d times, never done" % (k[0], k[1], n)
                     for k, n in sorted(opcmds.items()) if k not in s.actions]
        self.result("every operator action (outbox, report --state) is recorded once", problems)

        # every fix recorded once with one notice
        problems = []
        # a notice is owed when the report was sent before track fixed it
        sent_when_fixed = {}
        prev = {}
        for rnd, step, rows in s.snapshots:
            for rid, row in rows.items():
                if row[2] == "fixed" and rid not in sent_when_fixed and step.endswith("track"):
                    sent_when_fixed[rid] = (rnd, prev.get(rid, row)[3] == "sent")
            prev = rows
        for rid, commit, evidence in fixes:
            if evidence == "fixed-by" or by_id.get(rid, {}).get("state") != "fixed":
                continue
            n = sum(1 for x in notices if x[0] == rid and x[1] == commit)
            rnd, owed = sent_when_fixed.get(rid, (None, False))
            if n > 1 or (owed and n != 1):
                problems.append("round %s: report %d (sent) fixed by %s: %d notices" % (rnd, rid, commit[:12], n))
        self.result("every fix is recorded once, with one notice", problems)

        self.result("the state database's integrity check", [] if integrity == [("ok",)] else [str(integrity)])

        # the archive: each delivered mail and each kept reply exactly once
        problems = []
        archived = {}
        gitdir = os.path.join(s.state, "archive", "git")
        epochs = sorted(os.listdir(gitdir)) if os.path.isdir(gitdir) else []
        for ep in epochs:
            g = os.path.join(gitdir, ep)
            fsck = subprocess.run(["git", "--git-dir", g, "fsck", "--no-progress"], capture_output=True, text=True)
            if fsck.returncode != 0 or fsck.stderr.strip():
                problems.append("git fsck %s: exit %d %s" % (ep, fsck.returncode, fsck.stderr.strip()[:300]))
            log = subprocess.run(["git", "--git-dir", g, "log", "--format=%H", "master"],
                                 capture_output=True, text=True).stdout.split()
            for h in log:
                blob = subprocess.run(["git", "--git-dir", g, "cat-file", "blob", h + ":m"],
                                      capture_output=True).stdout.decode("utf-8", "replace")
                head = blob.split("\n\n", 1)[0]
                m = re.search(r"^Message-ID:\s*<([^>]*)>", head, re.M | re.I)
                if m:
                    archived[m.group(1)] = archived.get(m.group(1), 0) + 1
        want = {r["message_id"] for r in reports
                if any(x["status"] == "delivered" for x in r.get("recipients") or [])}
        want |= {m for m, (rid, origin) in kept.items() if origin == "ingested"}
        for m in sorted(want):
            if archived.get(m, 0) != 1:
                problems.append("<%s> is in the archive %d times" % (m, archived.get(m, 0)))
        for m in sorted(set(archived) - want):
            problems.append("<%s> is in the archive (%d times) but neither delivered nor a kept reply" % (m, archived[m]))
        if not epochs:
            problems.append("no archive at %s" % gitdir)
        self.result("the archive holds each delivered mail and each kept reply exactly once; git fsck clean "
                    "(%d epochs, %d mails)" % (len(epochs), sum(archived.values())), problems)
        pi = subprocess.run(["sh", os.path.join(s.a.top, "tests", "helpers", "pi-check.sh"),
                             os.path.join(s.state, "archive")], capture_output=True, text=True)
        if pi.returncode == 77:
            print("skip: public-inbox-index is not installed: the archive was not indexed")
            self.skipped = 1
        else:
            self.result("public-inbox-index runs clean on the archive",
                        [] if pi.returncode == 0 else [pi.stdout.strip()[-500:]])


def main():
    p = argparse.ArgumentParser()
    for k in ("perfbot", "config", "state", "repo", "maildir", "accept-log", "faults-off", "port-file", "tmp",
              "comparison", "top", "seed"):
        p.add_argument("--" + k, required=True)
    p.add_argument("--rounds", type=int, required=True)
    p.add_argument("--kill-rate", type=float, default=0.35)
    a = p.parse_args()
    s = Soak(a)
    s.cycle()
    s.drain()
    checks = Checks(s)
    checks.skipped = 0
    checks.run()
    if checks.failed:
        print("  replay: make soak SEED=%s ROUNDS=%d (KEEP=1 keeps the folder, with the peer's accept.log "
              "and each run's stderr in soak.log)" % (a.seed, a.rounds))
    line = "%d passed, %d failed" % (checks.passed, checks.failed)
    if checks.skipped:
        line += ", %d skipped" % checks.skipped
    print(line)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
