#!/usr/bin/env python3
"""cdp.py: load one page in headless Chromium and report what a person
would see go wrong: a small client of the DevTools protocol (CDP) over
--remote-debugging-pipe (file descriptors 3 and 4, NUL-terminated JSON),
so no WebSocket library and no TCP port are needed.

  cdp.py [--browser PATH] [--window-size W,H] [--dom FILE] [--screenshot FILE]
         [--console FILE] [--timeout S] URL

Loads URL, waits for its load event, then writes the DOM
(document.documentElement.outerHTML, as --dump-dom prints it) to --dom,
a PNG of the W x H viewport to --screenshot, and to --console one line per
problem the page raised: console.error/warn/assert calls, uncaught
exceptions, and the browser's own log entries at warning or error level
(a resource that failed to load, a blocked request, a CSP violation).
Each line is "LEVEL SOURCE: TEXT (URL:LINE)".  console.log/info/debug
calls are listed too, as "info", since a page of perfbot's runs no script.

Exit status: 0 when the page loaded and raised no problem, 1 when it
raised one (--console says which), 2 when the browser could not load the
page or did not answer within --timeout seconds (a guard against a hung
browser, not a measurement), 3 on a usage error.  Chromium runs with a
fresh profile in a temporary folder (two tests at once never share one),
with --no-sandbox when run as root (its sandbox refuses root).
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


def high_fd(fd):
    """fd moved to a number above 9 (close-on-exec)."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    def __init__(self, path, timeout):
        self.profile = tempfile.mkdtemp(prefix="cdp-profile-")
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        # the child's ends moved above 9, so that putting them on 3 and 4
        # below never overwrites one with the other
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        to_chrome_r, from_chrome_w = high_fd(to_chrome_r), high_fd(from_chrome_w)
        args = [path, "--headless", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-sync",
                "--hide-scrollbars", "--mute-audio"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")
        args.append("about:blank")

        def fds():
            # Chromium reads commands on fd 3 and writes on fd 4; dup2's
            # copies are inheritable, every other pipe end is close-on-exec
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        with open(os.path.join(self.profile, "stderr"), "w") as err:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err,
                                         close_fds=False, preexec_fn=fds)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self):
        """The next message, or None when the deadline passed or the
        browser went away."""
        while b"\0" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.from_chrome], [], [], left)
            if not r:
                return None
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        want = self.send(method, params, session)
        while True:
            msg = self.read()
            if msg is None:
                raise TimeoutError("no answer to %s within %ss" % (method, self.timeout))
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"].get("message")))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, session):
        for i, ev in enumerate(self.events):
            if ev["method"] == method and ev.get("sessionId") == session:
                del self.events[i]
                return ev
        while True:
            msg = self.read()
            if msg is None:
                raise TimeoutError("no %s within %ss" % (method, self.timeout))
            if "method" in msg:
                if msg["method"] == method and msg.get("sessionId") == session:
                    return msg
                self.events.append(msg)

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.to_chrome, self.from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


def problems(events, session):
    """The problem lines among the events the page raised."""
    out = []
    for ev in events:
        if ev.get("sessionId") != session:
            continue
        m, p = ev["method"], ev["params"]
        if m == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", a.get("type"))))
                            for a in p.get("args", []))
            frame = (p.get("stackTrace") or {}).get("callFrames") or [{}]
            level = {"error": "error", "warning": "warning", "assert": "error"}.get(p["type"], "info")
            out.append("%s console.%s: %s (%s:%s)" % (level, p["type"], text, frame[0].get("url", ""),
                                                     frame[0].get("lineNumber", 0) + 1))
        elif m == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            text = (d.get("exception") or {}).get("description") or d.get("text", "")
            out.append("error exception: %s (%s:%s)" % (text.splitlines()[0] if text else "",
                                                       d.get("url", ""), d.get("lineNumber", 0) + 1))
        elif m == "Log.entryAdded":
            e = p["entry"]
            if e["level"] in ("error", "warning"):
                out.append("%s %s: %s (%s:%s)" % (e["level"], e.get("source", "log"), e.get("text", ""),
                                                  e.get("url", ""), e.get("lineNumber", 0) + 1))
    return out


def main():
    ap = argparse.ArgumentParser(description="load a page in headless Chromium over CDP")
    ap.add_argument("--browser", default=os.environ.get("BROWSER_BIN", "chromium"))
    ap.add_argument("--window-size", default="1280,900")
    ap.add_argument("--dom")
    ap.add_argument("--screenshot")
    ap.add_argument("--console")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("url")
    try:
        a = ap.parse_args()
        w, h = (int(x) for x in a.window_size.split(","))
    except (SystemExit, ValueError):
        return 3
    b = Browser(a.browser, a.timeout)
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            b.call(domain + ".enable", session=s)
        b.call("Emulation.setDeviceMetricsOverride",
               {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False}, session=s)
        nav = b.call("Page.navigate", {"url": a.url}, session=s)
        if nav.get("errorText"):
            print("cdp.py: %s: %s" % (a.url, nav["errorText"]), file=sys.stderr)
            return 2
        b.wait_event("Page.loadEventFired", s)
        # a round trip after the load event: every message the page raised
        # while loading is read by the time its answer comes
        dom = b.call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                          "returnByValue": True}, session=s)["result"]["value"]
        if a.dom:
            with open(a.dom, "w", encoding="utf-8") as f:
                f.write(dom + "\n")
        if a.screenshot:
            png = b.call("Page.captureScreenshot", {"format": "png"}, session=s)["data"]
            with open(a.screenshot, "wb") as f:
                f.write(base64.b64decode(png))
        found = problems(b.events, s)
        if a.console:
            with open(a.console, "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in found))
        return 1 if found else 0
    except (TimeoutError, RuntimeError, OSError, KeyError) as e:
        print("cdp.py: %s" % e, file=sys.stderr)
        try:
            with open(os.path.join(b.profile, "stderr"), errors="replace") as f:
                tail = f.read().splitlines()[-5:]
            for line in tail:
                print("cdp.py: chromium: " + line, file=sys.stderr)
        except OSError:
            pass
        return 2
    finally:
        b.close()


if __name__ == "__main__":
    sys.exit(main())
