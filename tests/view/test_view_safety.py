#!/usr/bin/env python3
"""tests/view/test_view_safety.py — `profkit view` on a machine shared with
other users and beside a browser that visits other sites (issue 32).

  test_view_safety.py --profkit P --mkdb M --gen G --work DIR

Checks, each on 127.0.0.1 and bounded in count and time (about 20 s in
all, most of it the slow clients' time limit):
- the session token: nothing is served without it (page, assets, API),
  a wrong one or another port's cookie is refused, the printed URL gives
  an HttpOnly SameSite=Strict cookie, --no-token serves with a warning;
- /api/source reads only under the directories the user named (-I), never
  a path the profile names elsewhere (a 0600 file, a symbolic link out),
  unless --any-source;
- hostile requests: regular expressions that glibc took 35-60 s and
  3.9 GB over, a GET with a body (400), all while other requests are
  answered; the server runs under a 1 GiB address-space limit;
- 100 slow clients that send a header line a second: the user's own
  request is answered at once, and every slow connection is closed within
  the per-request time limit (not only when idle);
- a database truncated while served: 503 naming the change, never data
  made of zeros; `view -o` of a database truncated while the report is
  made writes no file and says no 'wrote'.
Python 3 standard library only.
"""
import argparse, http.client, json, os, select, shutil, signal, socket, subprocess, sys, threading
import time, urllib.parse

FAILURES = []
ASAN = False


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


class Server:
    def __init__(self, profkit, args):
        cmd = [profkit, "view", *args, "--port", "0"]
        if not ASAN:  # AddressSanitizer cannot run under an address-space limit
            cmd = ["prlimit", "--as=%d" % (1 << 30), "--"] + cmd
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ready, _, _ = select.select([self.p.stdout], [], [], 60)
        self.url = self.p.stdout.readline().decode().strip() if ready else ""
        u = urllib.parse.urlparse(self.url)
        if not u.port:
            self.p.kill()
            raise RuntimeError("profkit view %s printed %r: %s" % (args, self.url, self.p.stderr.read()))
        self.host, self.port = u.hostname, u.port
        self.token = dict(urllib.parse.parse_qsl(u.query)).get("token")

    def get(self, path, headers=None, token=True, method="GET", body=None, timeout=30):
        c = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        h = {"X-Profkit-Token": self.token} if token and self.token else {}
        h.update(headers or {})
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, data

    def stop(self, want=0):
        self.p.send_signal(signal.SIGINT)
        try:
            rc = self.p.wait(20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "hung"
        err = self.p.stderr.read().decode(errors="replace")
        check(rc == want, "profkit view stops on SIGINT (exit %s): %s" % (rc, err[-300:]))
        return err


def check_token(profkit, db):
    srv = Server(profkit, [db])
    try:
        check(srv.token and len(srv.token) == 64, "the URL carries a 64-hex-digit token: %s" % srv.url)
        for path in ("/", "/app.js", "/app.css", "/api/profile", "/api/flat", "/api/source?file=x"):
            st, _, body = srv.get(path, token=False)
            check(st == 403 and b"token" in body, "no token: %s gave %d" % (path, st))
            st, _, _ = srv.get(path, token=False, headers={"X-Profkit-Token": "0" * 64})
            check(st == 403, "a wrong token: %s gave %d" % (path, st))
        st, h, body = srv.get("/?token=" + srv.token, token=False)
        cookie = h.get("set-cookie", "")
        check(st == 200 and b"<html" in body.lower(), "the printed URL opens the page")
        for attr in ("pk_token_%d=%s" % (srv.port, srv.token), "HttpOnly", "SameSite=Strict", "Path=/"):
            check(attr in cookie, "the page's cookie has %s: %r" % (attr.split("=")[0], cookie))
        jar = {"Cookie": "pk_token_%d=%s" % (srv.port, srv.token)}
        st, _, _ = srv.get("/api/profile", token=False, headers=jar)
        check(st == 200, "the cookie opens the API (%d)" % st)
        st, _, _ = srv.get("/app.js", token=False, headers=jar)
        check(st == 200, "the cookie opens the assets (%d)" % st)
        st, _, _ = srv.get("/api/profile", token=False,
                           headers={"Cookie": "pk_token_%d=%s" % (srv.port + 1, srv.token)})
        check(st == 403, "another port's cookie is not this server's (%d)" % st)
        st, _, _ = srv.get("/api/profile?token=" + srv.token, token=False)
        check(st in (400, 403), "the token is no API parameter (%d)" % st)
        st, _, body = srv.get("/api/profile", method="GET", body=b"x" * 5000)
        check(st == 400 and b"no body" in body, "a GET with a body is 400 (%d %r)" % (st, body[:80]))
    finally:
        srv.stop()
    srv = Server(profkit, [db, "--no-token"])
    try:
        check(srv.token is None, "--no-token prints a URL without one")
        st, _, _ = srv.get("/api/profile", token=False)
        check(st == 200, "--no-token serves without a token")
    finally:
        err = srv.stop()
    check("warning" in err and "--no-token" in err, "--no-token warns: %r" % err[:200])


def write_profile(path, source_file):
    with open(path, "w") as f:
        f.write("events: Ir\nfl=%s\nfn=main\n2 100\n3 50\n" % source_file)


def source_doc(srv, fn="main"):
    st, _, body = srv.get("/api/source?function=" + fn)
    return st, body


def check_sources(profkit, work):
    d = os.path.join(work, "src-test")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "named"))
    os.makedirs(os.path.join(d, "elsewhere"))
    secret = os.path.join(d, "elsewhere", "secret.c")
    with open(secret, "w") as f:
        f.write("int key = 0;\nSECRET_LINE_TWO\nSECRET_LINE_THREE\n")
    os.chmod(secret, 0o600)
    named = os.path.join(d, "named", "ok.c")
    with open(named, "w") as f:
        f.write("int main() {\nOK_LINE_TWO\nOK_LINE_THREE\n}\n")
    os.symlink(secret, os.path.join(d, "named", "link.c"))
    prof_secret, prof_named, prof_link = (os.path.join(d, n) for n in ("a.callgrind", "b.callgrind", "c.callgrind"))
    write_profile(prof_secret, secret)                      # an absolute path elsewhere
    write_profile(prof_named, "/build/tree/ok.c")            # found under -I by its tail
    write_profile(prof_link, "link.c")                       # under -I, but a link out of it
    named_dir = os.path.join(d, "named")
    cases = ((prof_secret, [], b"SECRET_LINE", False, "a path the profile names"),
             (prof_secret, ["-I", named_dir], b"SECRET_LINE", False, "a path outside -I"),
             (prof_named, ["-I", named_dir], b"OK_LINE_TWO", True, "a file under -I"),
             (prof_link, ["-I", named_dir], b"SECRET_LINE", False, "a symbolic link out of -I"),
             (prof_secret, ["--any-source"], b"SECRET_LINE", True, "--any-source"))
    for prof, opts, text, served, what in cases:
        srv = Server(profkit, [prof] + opts)
        try:
            st, body = source_doc(srv)
            check(st == 200, "/api/source of %s: %d" % (what, st))
            check((text in body) == served, "/api/source: %s is %s" % (what, "served" if served else "not served"))
            files = json.loads(body).get("files", [{}]) if st == 200 else [{}]
            check((files[0].get("source") is not None) == served,
                  "/api/source: %s names %r as its source" % (what, files[0].get("source")))
        finally:
            srv.stop()


def long_name_profile(path):
    name = "std::vector<" * 87381 + "a"  # one C++ name of 1 MB
    with open(path, "w") as f:
        f.write("events: Ir\nfn=main\n1 5\ncfn=%s\ncalls=1 1\n1 10\nfn=%s\n1 10\n" % (name, name))


def check_hostile_requests(profkit, work):
    prof = os.path.join(work, "longname.callgrind")
    long_name_profile(prof)
    srv = Server(profkit, [prof])
    q = urllib.parse.quote
    results = {}
    try:
        def hostile():
            for pat in ("(a{1,32767}){1,32767}", "^(.*)(.*)\\2\\1$", "(.*)\\1", "(s|st|std|:)*(<|v)*x$",
                        "((a|b){1,100}){1,100}"):
                t0 = time.time()
                st, _, body = srv.get("/api/flat?search=" + q(pat))
                results[pat] = (st, time.time() - t0, body[:200])

        def normal(k):
            for _ in range(10):
                t0 = time.time()
                st, _, _ = srv.get("/api/profile")
                results.setdefault("normal", []).append((st, time.time() - t0))

        threads = [threading.Thread(target=hostile)] + [threading.Thread(target=normal, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for pat in ("(a{1,32767}){1,32767}", "^(.*)(.*)\\2\\1$", "(.*)\\1", "((a|b){1,100}){1,100}"):
            st, took, body = results.get(pat, (None, 99, b""))
            check(st == 400 and took < 2, "search %s: %s in %.2f s %r" % (pat, st, took, body))
        st, took, _ = results.get("(s|st|std|:)*(<|v)*x$", (None, 99, b""))
        check(st == 200 and took < 5, "a hard search on a 1 MB name: %s in %.2f s" % (st, took))
        normal = results.get("normal", [])
        check(len(normal) == 40 and all(s == 200 for s, _ in normal), "concurrent requests answered")
        check(max(t for _, t in normal) < 5, "concurrent requests waited at most %.2f s" % max(t for _, t in normal))
    finally:
        srv.stop()


def check_slow_clients(profkit, db):
    srv = Server(profkit, [db])
    socks = []
    try:
        for i in range(100):  # slow loris: a request line, then a header a second
            s = socket.create_connection((srv.host, srv.port), timeout=5)
            s.sendall(b"GET /api/profile HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        t0 = time.time()
        st, _, _ = srv.get("/api/profile", timeout=10)
        took = time.time() - t0
        check(st == 200 and took < 2, "the user's request among 100 slow ones: %s in %.2f s" % (st, took))
        start, closed = time.time(), set()
        while time.time() - start < 16 and len(closed) < len(socks):
            for i, s in enumerate(socks):
                if i in closed:
                    continue
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                    r, _, _ = select.select([s], [], [], 0)
                    if r and s.recv(4096) == b"":
                        closed.add(i)
                except OSError:
                    closed.add(i)
            time.sleep(1)
        check(len(closed) == len(socks),
              "slow connections closed within the request time limit: %d of %d in %.0f s"
              % (len(closed), len(socks), time.time() - start))
        st, _, _ = srv.get("/api/profile", timeout=10)
        check(st == 200, "served after the slow clients (%s)" % st)
    finally:
        for s in socks:
            s.close()
        srv.stop()


def check_truncation(profkit, gen, work):
    db = os.path.join(work, "trunc.d")
    shutil.rmtree(db, ignore_errors=True)
    subprocess.run([gen, db, "--profiles", "16", "--contexts", "2000", "--seed", "5"], check=True,
                   capture_output=True)
    srv = Server(profkit, [db])
    try:
        st, _, _ = srv.get("/api/profile")
        check(st == 200, "served before the truncation")
        meta = json.loads(srv.get("/api/profile")[2])
        os.truncate(os.path.join(db, "profile.db"), 4096)
        for path in ("/api/profile", "/api/tree?depth=2&metric=" + urllib.parse.quote(meta["default_metric"]),
                     "/api/flat", "/api/trace"):
            st, _, body = srv.get(path)
            check(st == 503 and b"changed on disk" in body, "after truncation %s: %d %r" % (path, st, body[:120]))
    finally:
        err = srv.stop(want=1)  # exit 1 naming the damage, as every command
    check("shrank" in err, "the server says the file shrank when it stops")


def check_report_truncation(profkit, gen, work):
    seen = False
    for delay in (0.3, 0.2, 0.1, 0.05, 0.4, 0.6):
        db, out = os.path.join(work, "rep.d"), os.path.join(work, "rep.html")
        shutil.rmtree(db, ignore_errors=True)
        if os.path.exists(out):
            os.unlink(out)
        subprocess.run([gen, db, "--profiles", "64", "--contexts", "4000", "--seed", "3"], check=True,
                       capture_output=True)
        p = subprocess.Popen([profkit, "view", db, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        os.truncate(os.path.join(db, "profile.db"), 4096)
        _, err = p.communicate(timeout=60)
        err = err.decode(errors="replace")
        if p.returncode == 0:
            continue  # done before the truncation: try earlier
        check(p.returncode == 1, "view -o truncated: exit %d" % p.returncode)
        check("wrote" not in err, "view -o truncated says no 'wrote': %r" % err[:300])
        check(not os.path.exists(out), "view -o truncated leaves no report")
        leftovers = [f for f in os.listdir(work) if ".tmp-" in f]
        check(not leftovers, "view -o truncated leaves no temporary: %s" % leftovers)
        if "not written" in err:
            seen = True
            break
    check(seen, "a truncation while the report was made was caught (no delay hit it)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--mkdb", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    global ASAN
    ldd = subprocess.run(["ldd", a.profkit], capture_output=True, text=True)
    ASAN = "libasan" in ldd.stdout
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    db = os.path.join(a.work, "sample.d")
    subprocess.run([a.mkdb, db], check=True, capture_output=True)
    t0 = time.time()
    check_token(a.profkit, db)
    check_sources(a.profkit, a.work)
    check_hostile_requests(a.profkit, a.work)
    check_truncation(a.profkit, a.gen, a.work)
    check_report_truncation(a.profkit, a.gen, a.work)
    check_slow_clients(a.profkit, db)
    print("%d failure(s) in %.1f s" % (len(FAILURES), time.time() - t0))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
