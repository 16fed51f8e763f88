#!/usr/bin/env python3
"""tests/view/test_view_start.py — how `profkit view` starts and what it says
(issue 34):
- the default port (8080) in use: the next free port is taken and the URL
  printed, as `pprof -http=:` does; a busy `--port N` is exit 1 with one
  line naming the port and suggesting --port 0;
- --open starts $BROWSER on the URL, through a page of mode 0600 when the
  URL holds the session token (never the token on a command line), the
  page gone when the server stops; without a browser it says so, and
  serves on;
- `view -o r.html` says once what the report could not hold (the source of
  its functions), on one line, and its banner's note says the same.

  test_view_start.py PROFKIT SOURCE_DIR WORK [CORPUS]
"""
import json, os, re, select, signal, socket, stat, subprocess, sys

profkit, source, work = sys.argv[1:4]
corpus = sys.argv[4] if len(sys.argv) > 4 else ""
os.makedirs(work, exist_ok=True)
FAILURES = []
sample = os.path.join(source, "tests/data/callgrind/sample.callgrind")


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return cond


def start(args, env=None):
    """`profkit view ARGS`: the process and the first line of stdout."""
    p = subprocess.Popen([profkit, "view", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    ready, _, _ = select.select([p.stdout], [], [], 60)
    return p, (p.stdout.readline().strip() if ready else "")


def stop(p):
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "hung"
    err = p.stderr.read()
    check(rc == 0, "SIGINT: exit %s (%s)" % (rc, err[-300:]))
    return err


def hold(port):
    """A listening socket on 127.0.0.1:port, or None when another has it."""
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        s.listen(1)
        return s
    except OSError:
        s.close()
        return None


def ports():
    holder = hold(8080)  # whoever holds it, 8080 is busy while this runs
    try:
        with socket.create_connection(("127.0.0.1", 8080), timeout=2):
            pass
        busy = True
    except OSError:
        busy = False
    if not check(busy, "8080 could not be made busy"):
        return
    p, url = start([sample])
    m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=[0-9a-f]{64}", url)
    err = stop(p)
    check(m and int(m.group(1)) != 8080, "8080 busy, no --port: the URL of another port, got %r" % url)
    check(m and "port 8080 is in use; using port %s" % m.group(1) in err,
          "the port taken instead is said: %r" % err)
    if holder:
        holder.close()
    # an explicit port that is busy: one line, the port, --port 0; nothing on stdout
    other = hold(0)
    n = other.getsockname()[1]
    r = subprocess.run([profkit, "view", sample, "--port", str(n)], capture_output=True, text=True, timeout=60)
    lines = r.stderr.strip().split("\n")
    check(r.returncode == 1 and r.stdout == "" and len(lines) == 1 and
          "port %d is in use" % n in lines[0] and "--port 0" in lines[0],
          "--port %d busy: exit %d, stdout %r, stderr %r" % (n, r.returncode, r.stdout, r.stderr))
    other.close()


def browser():
    seen = os.path.join(work, "browser-arg.txt")
    script = os.path.join(work, "browser.sh")
    with open(script, "w") as f:  # what a browser gets: its argument, and the page it names
        f.write('#!/bin/sh\nprintf "%%s\\n" "$1" > %s.tmp\n'
                'case "$1" in file://*) cat "${1#file://}" >> %s.tmp; '
                'stat -c %%a "${1#file://}" >> %s.tmp;; esac\nmv %s.tmp %s\n'
                % (seen, seen, seen, seen, seen))
    os.chmod(script, 0o755)
    if os.path.exists(seen):
        os.remove(seen)
    env = dict(os.environ, BROWSER="/nonexistent-browser:" + script)
    p, url = start([sample, "--port", "0", "--open"], env=env)
    for _ in range(200):
        if os.path.exists(seen):
            break
        select.select([], [], [], 0.05)
    got = open(seen).read().split("\n") if os.path.exists(seen) else []
    page = got[0][len("file://"):] if got and got[0].startswith("file://") else ""
    stop(p)
    check(url and got and url not in got[0] and page,
          "--open: the browser gets a page, not the URL with its token: %r" % got[:1])
    check(url and any('url=%s"' % url in g for g in got), "--open: the page goes on to %s" % url)
    check(len(got) > 1 and got[-2] == "600", "--open: the page is the user's alone: mode %r" % got[-2:])
    check(page and not os.path.exists(page), "--open: the page is removed when the server stops")
    # --no-token: nothing secret, the URL itself
    if os.path.exists(seen):
        os.remove(seen)
    p, url = start([sample, "--port", "0", "--open", "--no-token"], env=env)
    for _ in range(200):
        if os.path.exists(seen):
            break
        select.select([], [], [], 0.05)
    got = open(seen).read().split("\n") if os.path.exists(seen) else []
    stop(p)
    check(got and got[0] == url, "--open --no-token: the browser gets the URL: %r" % got[:1])
    # no browser at all: said, and the server serves on
    env = dict(os.environ, PATH="/nonexistent")
    env.pop("BROWSER", None)
    p, url = start([sample, "--port", "0", "--open"], env=env)
    err = stop(p)
    check(url.startswith("http://127.0.0.1:") and "--open: no browser found" in err,
          "--open without a browser: %r, %r" % (url, err))


def report():
    """A profile without source lines: one line says so, not one per function."""
    cube = os.path.join(corpus, "cube/pycubexr-fastest-p16/profile.cubex")
    if not os.path.exists(cube):
        cube = os.path.join(source, "tests/data/cube/sample.cubex")
    out = os.path.join(work, "start-report.html")
    r = subprocess.run([profkit, "view", cube, "-o", out, "-f"], capture_output=True, text=True, timeout=300)
    lines = r.stderr.strip().split("\n")
    gaps = [l for l in lines if "source" in l]
    check(r.returncode == 0 and len(lines) <= 2 and len(gaps) == 1 and
          re.search(r"no source text for (\d+) of the report's \1 functions: no source line known for \1$", gaps[0]),
          "view -o: what the report lacks, once: %r" % lines[:5])
    text = open(out, encoding="utf-8").read() if r.returncode == 0 else ""
    m = re.search(r'<script id="pk-data" type="application/json">(.*?)</script>', text, re.S)
    note = json.loads(m.group(1))["/api/profile"]["report"]["note"] if m else ""
    check(gaps and gaps[0].split(": ", 1)[1] in note, "the report's banner says it too: %r" % note)


ports()
browser()
report()
print("%d failure(s)" % len(FAILURES))
sys.exit(1 if FAILURES else 0)
