#!/usr/bin/env python3
"""trailer-corpus.py: perfbot's trailer reading (bot/trailer.h) against git's
own, on generated messages (tests/t/trailers-git.sh runs it).

    trailer-corpus.py DRIVER SEED COUNT WORKDIR

DRIVER is tests/unit/test-trailer (its --parse mode).  COUNT messages are
generated from SEED (the same ones on every machine): commit messages and
patch mails built from the shapes that decide where trailers are, mixed at
random (and a fifth of them token soup of the same pieces): kernel splats, "---" lines of every shape, a patch below a divider,
trailers after blank lines, continuation lines, comment lines, git
commit's leftovers (scissors, Conflicts:), CRLF, text lines among trailers
at various ratios, Signed-off-by and cherry-picked lines, keys with spaces
or blanks before the colon, empty values, blank lines at the start.

Each message is read three ways by git and by the driver:
    no-divider  git interpret-trailers --parse --no-divider
    mail        git interpret-trailers --parse
    commit      git log --format='%(trailers:only,unfold)' of a commit
                holding the message (git fast-import)
git interpret-trailers runs once a mode, with --in-place over one file a
message.  Prints one line a mode, "MODE COMPARED DIFFERENT EXCLUDED", and
on stderr the first differences.  EXCLUDED counts the mail-mode messages
left out because git 2.39 never returns on them (a scissors line below a
"---" divider: bot/trailer.h says so); with a later git none are.
"""
import os
import random
import subprocess
import sys

CUT = "# ------------------------ >8 ------------------------"

KEYS = ["Fixes", "Closes", "Link", "Reported-by", "Reviewed-by", "Acked-by",
        "Tested-by", "Cc", "Suggested-by", "Co-developed-by", "CLOSES",
        "reported-BY", "X-Coverity-ID", "Bug", "Change-Id", "Message-ID"]
ODD_KEYS = ["Acked by", "Bug #42", "Key=value", "-", "Re:", "a b c",
            "Fix\u00e9s", "Closes\u00a0", "Tested-by\t", "Link "]
NAMES = ["Jane Doe <jane@example.org>", "kernel test robot <lkp@intel.com>",
         "<bare@example.com>", "Ren\u00e9 Sch\u00e4fer <rene@example.de>",
         "Jane Doe <jane@example.org> # v6.1+", "stable@vger.kernel.org"]
URLS = ["https://lore.kernel.org/oe-lkp/202603091350.abcdef01-lkp@intel.com",
        "https://lore.kernel.org/r/20260309.12345-1-jane@example.org",
        "https://bugzilla.kernel.org/show_bug.cgi?id=218000",
        "<https://lore.kernel.org/all/a:b@c/>", "https://x/y"]
TEXT = ["The kernel test robot reported a regression in this path.",
        "Free the object after the grace period, not before.",
        "This is a text line: with a colon in it.",
        "Note: the lock is taken twice here.",
        "See the report: it has the details",
        "    indented code();", "\tmore code;", "-- ", "> quoted reply",
        "Signed-off-by:no-space <x@y>", "signed-off-by: lowercase <x@y>",
        "(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)",
        "#1 not a comment in a title?", "v2: rebased", "Changes in v3:",
        "  - fixed the typo", "a:b", "1: first", "https://example.com/path"]
# lines that are neither trailers, continuations nor comments
PLAIN = ["The kernel test robot reported a regression in this path.",
         "This is a text line: with a colon in it.", "See the report: it has the details",
         "Changes in v3:", "-- ", "> quoted reply", "signed-off-by lowercase <x@y>"]
DASHES = ["---", "--- ", "---\t", "----", "--- a/mm/slub.c", "---[ end trace ]---",
          "------------[ cut here ]------------", "---x", "--", "--- \t ",
          "---\r", "---[ end trace 0000000000000000 ]---"]
SPLAT = ["------------[ cut here ]------------",
         "WARNING: CPU: 1 PID: 1 at mm/slub.c:4321 kfree+0x1a/0x2b",
         "Modules linked in:",
         "CPU: 1 PID: 1 Comm: swapper/0 Not tainted 6.8.0-rc1 #1",
         "RIP: 0010:kfree+0x1a/0x2b",
         "Call Trace:",
         " <TASK>",
         " ? __warn+0x7d/0x130",
         " </TASK>",
         "---[ end trace 0000000000000000 ]---"]


def trailer_line(r):
    """One line of a trailer block, and whether git counts it a trailer."""
    k = r.random()
    if k < 0.08:
        return "Signed-off-by: " + r.choice(NAMES)
    if k < 0.11:
        return "(cherry picked from commit %040x)" % r.getrandbits(160)
    if k < 0.16:
        return r.choice(ODD_KEYS) + ": " + r.choice(NAMES)
    key = r.choice(KEYS)
    sep = r.choice([":", ":", ":", " :", "\t:", ":  ", " \t: "])
    v = r.random()
    if v < 0.1:
        value = r.choice(["", " ", "\t"])
    elif v < 0.5:
        value = " " + r.choice(NAMES)
    elif v < 0.8:
        value = " " + r.choice(URLS)
    else:
        value = " %012x (\"mm: a subject: with colons\")" % r.getrandbits(48)
    if r.random() < 0.1:
        value += r.choice([" ", "\t", "  "])
    return key + sep + value


def block(r):
    """A paragraph of trailers, with continuation, comment and text lines."""
    lines = []
    for _ in range(r.randint(1, 7)):
        lines.append(trailer_line(r))
        k = r.random()
        if k < 0.12:
            lines.append(r.choice([" continued", "\tcontinued too", "   ", " \t",
                                   "  https://x/z", " (\"a long", "  subject\")"]))
        elif k < 0.18:
            lines.append("# " + r.choice(["a comment", "Please enter the message", ""]))
        elif k < 0.18 + r.choice([0.0, 0.05, 0.15, 0.3]):
            lines.append(r.choice(TEXT))
        elif k < 0.55 and r.random() < 0.05:
            lines.append(r.choice(DASHES))
    return lines


def ratio_block(r):
    """A paragraph near the 25% line: k trailer lines (one git-generated,
    or none) among about 3k text lines, shuffled."""
    k = r.randint(1, 3)
    lines = [trailer_line(r) for _ in range(k - 1)]
    lines.append(r.choice(["Signed-off-by: Jane Doe <jane@example.org>",
                           "(cherry picked from commit %040x)" % r.getrandbits(160),
                           "Reviewed-by: Jane Doe <jane@example.org>"]))
    lines += [r.choice(PLAIN) for _ in range(3 * k + r.choice([-1, 0, 0, 1, k]))]
    if r.random() < 0.3:
        lines.insert(r.randint(1, len(lines)), r.choice([" continued", "# a comment"]))
    r.shuffle(lines)
    return lines


def paragraph(r):
    k = r.random()
    if k < 0.25:
        return list(SPLAT[:r.randint(1, len(SPLAT))]) if r.random() < 0.5 else list(SPLAT)
    if k < 0.4:
        return [r.choice(DASHES)]
    if k < 0.5:
        return [r.choice(TEXT), r.choice(DASHES), r.choice(TEXT)]
    if k < 0.6:
        return block(r)
    return [r.choice(TEXT) for _ in range(r.randint(1, 4))]


def patch(r):
    lines = [r.choice(["---", "--- ", "---\t", "---"]),
             " mm/slub.c | 2 +-", " 1 file changed, 1 insertion(+), 1 deletion(-)", "",
             "diff --git a/mm/slub.c b/mm/slub.c", "index 0123456..789abcd 100644",
             "--- a/mm/slub.c", "+++ b/mm/slub.c", "@@ -1,3 +1,3 @@",
             " static void f(void)", "-Fixes: not this", "+Link: nor this", " }"]
    if r.random() < 0.3:
        lines += ["-- ", "2.39.5"]
    return lines


# the pieces of token soup: the bytes and prefixes git's rule looks at
SOUP = [b"\n", b"\n", b"\n\n", b"\r\n", b" ", b"\t", b"-", b"#", b":", b"a", b"K", b"Key: v",
        b"(", b"---", b"--- ", b"Signed-off-by: ", b"(cherry picked from commit ",
        (CUT + "\n").encode(), b"Conflicts:\n", b"\xff"]


def message(r):
    if r.random() < 0.2:
        # token soup: the shapes no one thought of
        return b"".join(r.choice(SOUP) for _ in range(r.randint(0, 40)))
    paras = []
    title = [r.choice(["mm/slub: fix a use after free", "Revert \"x\"", "subject",
                       "Fixes: a title that looks like a trailer", "--- a title",
                       "# a comment first", ""])]
    if r.random() < 0.15:
        title.append(r.choice(["second title line", "# comment in the title",
                               "Closes: in the title"]))
    paras.append(title)
    for _ in range(r.randint(0, 3)):
        paras.append(paragraph(r))
    k = r.random()
    if k < 0.7:
        paras.append(block(r))
    elif k < 0.85:
        paras.append(ratio_block(r))
    tail = []
    k = r.random()
    if k < 0.1:
        tail = [[r.choice(TEXT)]]
    elif k < 0.2:
        tail = [["", "  ", "\t", ""][:r.randint(1, 4)]]
    elif k < 0.27:
        tail = [["# Please enter the commit message", "#", "# On branch master"]]
    elif k < 0.32:
        tail = [["Conflicts:", "\tmm/slub.c", "\tmm/slab.c"]]
    elif k < 0.37:
        tail = [[CUT, "# Do not modify or remove the line above.", "diff --git a/x b/x",
                 "Fixes: after the scissors"]]
    elif k < 0.6:
        tail = [patch(r)]
    lines = []
    for i, p in enumerate(paras + tail):
        if i:
            lines.append(r.choice(["", "", "", " ", "\t", "  "]) if r.random() < 0.2 else "")
        lines.extend(p)
    if r.random() < 0.05:
        # the blank lines before a title, which `git log` passes over
        lines[:0] = [r.choice(["", " ", "\t", ""]) for _ in range(r.randint(1, 2))]
    k = r.random()
    eol = "\r\n" if k < 0.15 else "\n"
    text = eol.join(lines)
    if k >= 0.15 and k < 0.2:
        # mixed line ends
        text = "".join(l + r.choice(["\n", "\r\n"]) for l in lines)
    elif r.random() < 0.9:
        text += eol
    if r.random() < 0.03:
        text += r.choice(["\n\n", " \n", "---", "#"])
    return text.encode("utf-8")


def divider_then_scissors(m):
    """git 2.39 loops forever on these in mail mode (see the top)."""
    pos = 0
    while pos < len(m):
        nl = m.find(b"\n", pos)
        end = len(m) if nl < 0 else nl + 1
        if m.startswith(b"---", pos) and pos + 3 < len(m) and m[pos + 3:pos + 4] in b" \t\r\n":
            # git 2.39 takes the first scissors line anywhere for the end
            # of the message, and loops when it is below the divider
            cut = m.find(b"\n" + CUT.encode() + b"\n")
            return not m.startswith(CUT.encode() + b"\n") and cut >= 0 and cut + 1 > pos
        pos = end
    return False


def git_in_place(workdir, msgs, args, env):
    d = os.path.join(workdir, "it-" + "-".join(a.strip("-") for a in args))
    os.mkdir(d)
    files = []
    for i, m in enumerate(msgs):
        f = os.path.join(d, "%05d" % i)
        with open(f, "wb") as fh:
            fh.write(m)
        files.append(f)
    # one process for many files; a few batches keep the command line short
    for i in range(0, len(files), 500):
        subprocess.run(["git", "interpret-trailers", "--in-place", "--parse"] + args +
                       files[i:i + 500], env=env, check=True, timeout=300)
    out = []
    for f in files:
        with open(f, "rb") as fh:
            out.append(fh.read())
    return out


def git_log(workdir, msgs, env):
    repo = os.path.join(workdir, "repo.git")
    subprocess.run(["git", "init", "-q", "--bare", repo], env=env, check=True)
    stream = bytearray()
    for i, m in enumerate(msgs):
        stream += b"commit refs/heads/m\ncommitter A <a@example.org> %d +0000\ndata %d\n" % (
            1700000000 + i, len(m))
        stream += m + b"\n"
    subprocess.run(["git", "fast-import", "--quiet"], input=bytes(stream), cwd=repo, env=env,
                   check=True, timeout=300)
    out = subprocess.run(["git", "log", "-z", "--reverse", "--format=%(trailers:only,unfold)", "m"],
                         cwd=repo, env=env, check=True, capture_output=True, timeout=300).stdout
    got = out.split(b"\0")
    if got and got[-1] in (b"", b"\n"):
        got.pop()
    return got


def driver(path, mode, msgs):
    out = subprocess.run([path, "--parse", mode], input=b"\0".join(msgs) + b"\0",
                         check=True, capture_output=True, timeout=300).stdout
    got = out.split(b"\0")
    got.pop()
    return got


def main():
    drv, seed, count, workdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    r = random.Random(seed)
    msgs = [message(r) for _ in range(count)]
    env = dict(os.environ, HOME=workdir, XDG_CONFIG_HOME=workdir, GIT_CONFIG_NOSYSTEM="1",
               LC_ALL="C")
    with open(os.path.join(workdir, "messages"), "wb") as fh:
        fh.write(b"\0".join(msgs))
    mail_msgs = [m for m in msgs if not divider_then_scissors(m)]
    runs = [
        ("no-divider", msgs, lambda: git_in_place(workdir, msgs, ["--no-divider"], env)),
        ("mail", mail_msgs, lambda: git_in_place(workdir, mail_msgs, [], env)),
        ("commit", msgs, lambda: git_log(workdir, msgs, env)),
    ]
    for mode, these, git in runs:
        want = git()
        got = driver(drv, mode, these)
        if len(want) != len(these) or len(got) != len(these):
            print("%s: %d messages, git gave %d answers, perfbot %d" %
                  (mode, len(these), len(want), len(got)), file=sys.stderr)
            print("%s %d %d %d" % (mode, len(these), len(these), count - len(these)))
            continue
        diff = [i for i in range(len(these)) if want[i] != got[i]]
        for i in diff[:5]:
            print("%s: message %d differs:\n  text %r\n  git  %r\n  perfbot %r" %
                  (mode, i, these[i], want[i], got[i]), file=sys.stderr)
        with_trailers = sum(1 for w in want if w)
        print("%s %d %d %d %d" % (mode, len(these), len(diff), count - len(these), with_trailers))


if __name__ == "__main__":
    main()
