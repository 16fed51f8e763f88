#!/usr/bin/env python3
"""tests/view/test_view_api.py — `profkit view`'s HTTP API and report file.

Starts `profkit view FILE --port 0` on a Callgrind file, an HPCToolkit
database and a Cube file (the corpus' when present, else the project's
samples), with and without --base, reads the URL from stdout and checks
every route's schema and numbers against the CLI's own --json outputs
(flat totals and rows, tree root, threads; a node's path from the root;
the Location as any selector --location takes; what the Locations and
Source panes show before a selection: `threads --json` and `annotate
--json -n 3` exactly; --source-dir), the error cases (404, 405,
400, paths outside the API refused, Host check), the escaping of names
that hold markup, quotes and control bytes (JSON and report), the
report's canonical keys and contents, the default bind, and that
SIGINT/SIGTERM end the server with exit status 0.

  test_view_api.py --profkit BIN --mkdb PK_MKDB --source DIR --work DIR [--corpus DIR]

Python 3 standard library only (urllib, http.client).
"""
import argparse
import glob
import http.client
import json
import math
import os
import re
import select
import signal
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return cond


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9 * max(1.0, abs(a), abs(b)))


class Server:
    def __init__(self, profkit, args, env=None):
        self.p = subprocess.Popen([profkit, "view", *args, "--port", "0"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env)
        ready, _, _ = select.select([self.p.stdout], [], [], 120)
        line = self.p.stdout.readline().decode() if ready else ""
        if not re.fullmatch(r"http://[^/]+:\d+/(\?token=[0-9a-f]{64})?\n", line):
            self.p.kill()
            raise RuntimeError("profkit view %s printed %r, stderr %r" %
                               (args, line, self.p.stderr.read().decode(errors="replace")))
        self.url = line.strip()
        u = urllib.parse.urlparse(self.url)
        self.host, self.port = u.hostname, u.port
        # the session token (docs/view.md): sent as the header programs use
        self.token = dict(urllib.parse.parse_qsl(u.query)).get("token")

    def get(self, path, method="GET", headers=None):
        """(status, headers, body bytes) of a request for a raw path."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=60)
        h = {"X-Profkit-Token": self.token} if self.token else {}
        h.update(headers or {})
        c.request(method, path, headers={k: v for k, v in h.items() if v is not None})
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body

    def api(self, route, **params):
        q = urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
        status, _, body = self.get("/api/%s%s" % (route, "?" + q if q else ""))
        return status, json.loads(body)

    def ok(self, route, **params):
        status, doc = self.api(route, **params)
        check(status == 200, "/api/%s %s: status %d %s" % (route, params, status, doc))
        return doc

    def stop(self, sig=signal.SIGINT):
        self.p.send_signal(sig)
        try:
            rc = self.p.wait(30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "hung"
        err = self.p.stderr.read().decode(errors="replace")
        check(rc == 0, "signal %d: exit %s, stderr %s" % (sig, rc, err[-500:]))
        return err


def cli(profkit, *args):
    r = subprocess.run([profkit, *args], capture_output=True, check=False)
    if r.returncode != 0:
        raise RuntimeError("profkit %s: %s" % (args, r.stderr.decode(errors="replace")))
    return json.loads(r.stdout)


def walk(node):
    """Every node of a nested tree, iteratively."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.get("children") or [])


def check_profile(srv, profkit, path, label):
    prof = srv.ok("profile")
    check(prof.get("schema") == "profkit.view.profile/1", label + ": profile schema")
    for key in ("title", "path", "format", "complete", "callgraph", "metrics", "default_metric",
                "locations", "locations_total", "features", "report", "base", "page_threshold"):
        check(key in prof, "%s: profile lacks %s" % (label, key))
    check(prof.get("page_threshold") == 0.1, label + ": the page's default threshold is 0.1 %")
    names = [m["name"] for m in prof["metrics"]]
    check(prof["default_metric"] in names, label + ": default metric listed")
    metric = prof["default_metric"]
    threads = cli(profkit, "threads", path, "-m", metric, "--json", "-n", "0")
    want = {t["index"]: t["total"] for t in threads["locations"]}
    got = {l["index"]: l["total"] for l in prof["locations"]}
    check(set(want) == set(got) and all(close(want[i], got[i], 1e-6) for i in want),
          label + ": location totals as `threads --json`")
    check(prof["locations_total"] == threads["count"], label + ": locations_total")
    return prof


def check_flat(srv, profkit, path, metric, label):
    flat = srv.ok("flat", metrics=metric, top=0)
    check(flat.get("schema") == "profkit.flat/1", label + ": flat schema")
    want = cli(profkit, "flat", path, "-m", metric, "--json", "-n", "0")
    check(close(flat["metrics"][0]["total"], want["total"], 1e-6),
          "%s: flat total %s vs %s" % (label, flat["metrics"][0]["total"], want["total"]))
    rows = {r["name"]: r for r in want["rows"]}
    check(len(flat["rows"]) == len(rows), "%s: %d flat rows vs %d" % (label, len(flat["rows"]), len(rows)))
    for r in flat["rows"][:20]:
        w = rows.get(r["name"])
        if check(w is not None, "%s: flat row %r not in the CLI's" % (label, r["name"])):
            check(close(r["self"], w["self"], 1e-9) and close(r["inclusive"], w["inclusive"], 1e-9),
                  "%s: flat row %r values" % (label, r["name"]))
    two = srv.ok("flat", metrics=metric + "," + metric, by="file", top=5)
    check(all(len(r["values"]) == 2 for r in two["rows"]), label + ": flat with two metrics")
    return flat


def check_tree(srv, profkit, path, metric, label):
    tree = srv.ok("tree", metric=metric, depth=2)
    check(tree.get("schema") == "profkit.tree/1", label + ": tree schema")
    root = tree["root"]
    want = cli(profkit, "tree", path, "-m", metric, "--json")
    check(close(root["inclusive"], want["root"]["inclusive"], 1e-6),
          "%s: tree root %s vs %s" % (label, root["inclusive"], want["root"]["inclusive"]))
    check(root["node"] == 0 and root["kind"] == "root", label + ": root node")
    kids = root["children"] or []
    check(len(kids) + root["more"] == root["child_count"], label + ": child_count")
    check(all(kids[i]["inclusive"] >= kids[i + 1]["inclusive"] for i in range(len(kids) - 1)),
          label + ": children largest first")
    for k in kids:
        if k["child_count"]:
            check(k["children"] is not None, label + ": depth 2 loads grandchildren")
            sub = srv.ok("tree", metric=metric, node=k["node"])
            check(sub["root"]["node"] == k["node"] and close(sub["root"]["inclusive"], k["inclusive"]),
                  label + ": expanding a node")
            check(all(g["children"] is None or g["child_count"] == 0 for g in sub["root"]["children"]),
                  label + ": depth 1 leaves grandchildren unloaded")
            break
    check("path" not in tree, label + ": the root's document has no path")
    for k in kids:  # a grandchild's document says how to get there from the root
        for g in k["children"] or []:
            sub = srv.ok("tree", metric=metric, node=g["node"], depth=0)
            check(sub.get("path") == [0, k["node"]], "%s: node %d's path %r, want [0, %d]"
                  % (label, g["node"], sub.get("path"), k["node"]))
            break
        else:
            continue
        break
    hot = [n for n in walk(root) if n.get("hot")]
    check(root["hot"] and len(hot) >= 1, label + ": hot path marked")
    for mode in ("loops", "lines"):
        srv.ok("tree", metric=metric, mode=mode)
    return tree


def check_flame(srv, metric, tree, label, base=False):
    flame = srv.ok("flame", metric=metric)
    check(flame.get("schema") == "profkit.tree/1", label + ": flame schema")
    check(flame.get("min_share") == 0.1, label + ": the flame graph's default is the page's threshold")
    check(close(flame["root"]["inclusive"], tree["root"]["inclusive"]), label + ": flame root")
    cut = abs(flame["root"]["inclusive"]) * 0.001
    for f in walk(flame["root"]):
        if f is not flame["root"]:
            check(abs(f["inclusive"]) >= cut * (1 - 1e-12), label + ": flame frame below min")
        check(("base_inclusive" in f) == base, label + ": base values only with --base")
        if not f["children"]:
            continue
        check(sum(c["inclusive"] for c in f["children"]) <= f["inclusive"] * (1 + 1e-9) + 1e-9,
              label + ": flame children within their parent")
    return flame


def check_function_panes(srv, metric, fn, prof, label):
    for route in ("callers", "callees"):
        d = srv.ok(route, metric=metric, function=fn)
        check(d.get("schema") == "profkit.callers/1" and d.get("pattern") == fn and
              d["functions"] and d["functions"][0]["name"] == fn,
              "%s: %s document" % (label, route))
    loc = srv.ok("locations", metric=metric, function=fn)
    check(loc.get("schema") == "profkit.threads/1" and loc.get("function") == fn,
          label + ": locations schema")
    check(loc["count"] == prof["locations_total"], label + ": a value per location")
    for key in ("count", "sum", "min", "max", "mean", "stddev", "imbalance"):
        check(key in loc, "%s: locations lack %s" % (label, key))
    status, src = srv.api("source", metric=metric, function=fn)
    check(status in (200, 404), label + ": source answers")
    if status == 200:
        check(src.get("schema") == "profkit.annotate/1", label + ": source schema")


def check_unselected(srv, profkit, path, metric, label):
    """Before anything is selected the Locations pane shows each location's
    total and the Source pane the top functions: `threads --json` and
    `annotate --json -n 3`, the same documents."""
    check(srv.ok("locations", metric=metric) == cli(profkit, "threads", path, "-m", metric, "--json"),
          label + ": /api/locations without a function is `threads --json`")
    status, src = srv.api("source", metric=metric)
    r = subprocess.run([profkit, "annotate", path, "-m", metric, "--json", "-n", "3"], capture_output=True)
    if status == 200:
        check(r.returncode == 0 and src == json.loads(r.stdout),
              label + ": /api/source without a function is `annotate --json -n 3`")
    else:
        check(status == 404 and r.returncode == 1, "%s: /api/source without a function: %d, annotate exit %d"
              % (label, status, r.returncode))


def check_locations(srv, profkit, path, prof, metric, label):
    """The Location is any selector --location takes: "#N" and KIND=ID."""
    locs = prof["locations"]
    if len(locs) < 2:
        return
    last = locs[-1]["name"].split(" / ")[-1].split(" ")
    sels = ["#%d" % locs[-1]["index"]] + (["%s=%s" % (last[0].lower(), last[1])] if len(last) == 2 else [])
    for sel in sels:
        got = srv.ok("tree", metric=metric, location=sel, stat="mean", depth=1)
        want = cli(profkit, "tree", path, "-m", metric, "--location", sel, "--stat", "mean", "--json")
        check(got["location_count"] == want["location_count"] >= 1 and
              close(got["root"]["inclusive"], want["root"]["inclusive"], 1e-9),
              "%s: location %s: %r vs `tree --location` %r" % (label, sel, got["root"]["inclusive"],
                                                                 want["root"]["inclusive"]))


def check_trace(srv, prof, label):
    status, tr = srv.api("trace")
    if not prof["features"]["trace"]:
        check(status == 404, label + ": trace without traces is 404")
        return
    # the CLI's document (profkit trace --json --timeline), docs/view.md
    check(status == 200 and tr.get("schema") == "profkit.trace/1", label + ": trace schema")
    n = len(tr["functions"])
    for row in tr["timeline"]["rows"]:
        last = tr["from_ns"]
        for b, e, f in row["spans"]:
            check(last <= b <= e <= tr["to_ns"] and -3 <= f < n, label + ": trace span in order")
            last = e
    mid = (tr["begin_ns"] + tr["end_ns"]) // 2
    srv.ok("trace", begin=tr["begin_ns"], end=mid, width=100, first=0, count=2)


def check_errors(srv, label):
    for path, want in (("/nope", 404), ("/api/nope", 404), ("/api/", 404), ("/../etc/passwd", 404),
                       ("/%2e%2e/%2e%2e/etc/passwd", 404), ("/app.js/../../etc/passwd", 404),
                       ("/index.html", 404), ("//etc/passwd", 404)):
        status, headers, body = srv.get(path)
        check(status == want, "%s: %s gave %d" % (label, path, status))
        check(json.loads(body).get("schema") == "profkit.view.error/1", label + ": error document")
    for method in ("POST", "PUT", "DELETE", "OPTIONS"):
        status, headers, _ = srv.get("/api/profile", method=method)
        check(status == 405 and "GET" in headers.get("allow", ""), "%s: %s is 405" % (label, method))
    status, headers, body = srv.get("/api/profile", method="HEAD")
    check(status == 200 and body == b"", label + ": HEAD")
    bad = [("tree", {"depth": "abc"}), ("tree", {"depth": "-1"}), ("tree", {"bogus": "1"}),
           ("tree", {"stat": "median"}), ("tree", {"side": "c"}), ("tree", {"mode": "x"}),
           ("tree", {"location": "rank="}), ("tree", {"location": "#x"}),
           ("flame", {"min": "nan"}), ("flame", {"min": "1e999"}),
           ("flat", {"by": "planet"}), ("flat", {"search": "("}), ("flat", {"sort": "5"}),
           ("flat", {"top": "1 OR 1"}), ("trace", {"width": "0"}),
           ("tree", {"node": "18446744073709551616"})]
    for route, params in bad:
        status, doc = srv.api(route, **params)
        check(status == 400 or (route == "trace" and status == 404),
              "%s: /api/%s %s gave %d" % (label, route, params, status))
        check(doc.get("schema") == "profkit.view.error/1" and doc.get("error"), label + ": 400 document")
    for route, params in (("tree", {"node": "4000000000"}), ("tree", {"metric": "no such metric"}),
                          ("tree", {"location": "nosuchkind=1"}), ("tree", {"location": "#99999"}),
                          ("callers", {"function": "no_such_function_xyz"}),
                          ("locations", {"function": "no_such_function_xyz"}),
                          ("source", {"file": "/etc/passwd"}), ("source", {"file": "../../../../etc/passwd"}),
                          ("diff", {})):
        status, doc = srv.api(route, **params)
        check(status == 404, "%s: /api/%s %s gave %d" % (label, route, params, status))
    # hostile queries: repeated, too many, too long, NUL, bad escapes
    for q in ("depth=1&depth=2", "&".join("p%d=1" % i for i in range(40)), "search=" + "a" * 5000,
              "metric=a%00b", "%00=1", "depth=%zz", "=1", "depth"):
        status, _, body = srv.get("/api/tree?" + q)
        check(status == 400, "%s: hostile query %.40s gave %d" % (label, q, status))
    status, _, _ = srv.get("/api/tree?" + "x" * 200000)
    check(status in (400, 414, 431, 413), label + ": a huge request line is refused")
    status, _, _ = srv.get("/api/profile", headers={"Host": "evil.example:80"})
    check(status == 403, label + ": a foreign Host header is refused (DNS rebinding)")
    status, _, _ = srv.get("/api/profile", headers={"Host": "localhost:9"})
    check(status == 200, label + ": Host localhost with another port (SSH forward) is served")


def check_assets(srv, label):
    for path, ctype in (("/", "text/html"), ("/app.js", "text/javascript"), ("/app.css", "text/css")):
        status, headers, body = srv.get(path)
        check(status == 200 and headers.get("content-type", "").startswith(ctype) and body,
              "%s: asset %s" % (label, path))
        check(headers.get("x-content-type-options") == "nosniff" and
              headers.get("cache-control") == "no-store" and
              headers.get("content-security-policy", "").startswith("default-src 'self'"),
              "%s: security headers of %s" % (label, path))


def check_input(profkit, path, label):
    srv = Server(profkit, [path])
    try:
        check(srv.url.startswith("http://127.0.0.1:"), label + ": bound to 127.0.0.1 by default")
        check_assets(srv, label)
        prof = check_profile(srv, profkit, path, label)
        metric = prof["default_metric"]
        flat = check_flat(srv, profkit, path, metric, label)
        tree = check_tree(srv, profkit, path, metric, label)
        check_flame(srv, metric, tree, label)
        fns = [r["name"] for r in flat["rows"] if not r["name"].startswith("<")]
        if fns:
            check_function_panes(srv, metric, fns[0], prof, label)
        check_unselected(srv, profkit, path, metric, label)
        check_locations(srv, profkit, path, prof, metric, label)
        check_trace(srv, prof, label)
        check_errors(srv, label)
    finally:
        srv.stop()


def check_base(profkit, a, b, label):
    srv = Server(profkit, [a, "--base", b])
    try:
        prof = srv.ok("profile")
        check(prof["features"]["base"] and prof["base"]["path"] == b, label + ": base profile")
        metric = prof["default_metric"]
        diff = srv.ok("diff", metric=metric)
        # the view's diff is `diff BASE PATH`: before -> after, the library's changes
        want = cli(profkit, "diff", b, a, "-m", metric, "--json")
        check(diff.get("schema") == "profkit.diff/1", label + ": diff schema")
        check(close(diff["a_total"], want["a_total"], 1e-6) and close(diff["b_total"], want["b_total"], 1e-6),
              label + ": diff totals as `diff --json BASE PATH`")
        rows = [(r["name"], r["status"], r["change"], r["change_percent"])
                for k in ("functions", "paths") for r in diff[k]]
        check(rows == [(r["name"], r["status"], r["change"], r["change_percent"])
                       for k in ("functions", "paths") for r in want[k]][:len(rows)],
              label + ": diff rows and changes as `diff --json BASE PATH`")
        check(all(close(r["change"], r["b_" + s] - r["a_" + s], 1e-9 * max(1, abs(r["a_" + s])))
                  for k, s in (("functions", "self"), ("paths", "inclusive")) for r in diff[k]),
              label + ": change is B less A")
        tree = srv.ok("tree", metric=metric)
        check_flame(srv, metric, tree, label, base=True)
        treeb = srv.ok("tree", metric=metric, side="b")
        want_b = cli(profkit, "tree", b, "-m", metric, "--json")
        check(close(treeb["root"]["inclusive"], want_b["root"]["inclusive"], 1e-6), label + ": side b tree")
    finally:
        srv.stop(signal.SIGTERM)


def report_data(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="pk-data" type="application/json">(.*?)</script>', text, re.S)
    check(m is not None, path + ": the report holds #pk-data")
    return text, m.group(1), json.loads(m.group(1))


def encode(v):
    return urllib.parse.quote(v, safe="-_.!~*'()")


def check_report_keys(data, label, want_routes):
    routes = set()
    for key in data:
        u = urllib.parse.urlsplit(key)
        check(u.path.startswith("/api/"), "%s: report key %s" % (label, key))
        routes.add(u.path[5:])
        pairs = [p.split("=", 1) for p in u.query.split("&")] if u.query else []
        names = [p[0] for p in pairs]
        check(names == sorted(names), "%s: key parameters sorted: %s" % (label, key))
        for name, value in pairs:
            raw = urllib.parse.unquote(value, errors="strict")
            check(encode(raw) == value and value, "%s: key value canonical: %s" % (label, key))
    for r in want_routes:
        check(r in routes, "%s: the report covers /api/%s" % (label, r))


def check_report(profkit, path, work, label, base=None, routes=()):
    out = os.path.join(work, label + ".html")
    args = [profkit, "view", path, "-o", out, "-f"] + (["--base", base] if base else [])
    r = subprocess.run(args, capture_output=True, check=False)
    if not check(r.returncode == 0, "%s: report: %s" % (label, r.stderr.decode(errors="replace"))):
        return None
    check(b"wrote" in r.stderr, label + ": the report's size on stderr")
    text, raw, data = report_data(out)
    check("<" not in raw, label + ": no '<' inside the report's data")
    check(data["/api/profile"]["report"]["threshold"] == 0.5, label + ": report threshold stated")
    check_report_keys(data, label, ["profile", "flat", "tree", "flame", *routes])
    prof = data["/api/profile"]
    metric = prof["default_metric"]
    check("/api/tree?depth=2&metric=" + encode(metric) + "&threshold=0.5" in data, label + ": tree root in report")
    # the same answers the server gives for the same URLs
    srv = Server(profkit, [path] + (["--base", base] if base else []))
    try:
        for key, doc in data.items():
            if key.startswith("/api/flame") or key == "/api/profile":
                continue  # pruned at the threshold / says it is a report
            status, _, body = srv.get(key)
            # a 404 is an answer too (no source line known): kept, as served
            kept = status == 200 or (status == 404 and doc.get("schema") == "profkit.view.error/1")
            check(kept and json.loads(body) == doc, "%s: report answer of %s" % (label, key))
    finally:
        srv.stop()
    check("Content-Security-Policy" in text and 'src="/app.js"' not in text, label + ": inlined page")
    return text, raw, data


def check_hostile_names(profkit, source, work):
    path = os.path.join(source, "tests/data/callgrind/hostile-names.callgrind")
    names = ["<script>alert(1)</script>", 'a"b&c<!--', "ctl\x01\x1b[31mred\x7f", "bad\ufffdutf8"]
    srv = Server(profkit, [path])
    try:
        flat = srv.ok("flat")
        got = [r["name"] for r in flat["rows"]]
        for n in names:
            check(n in got, "hostile: name %r comes back exactly" % n)
        status, _, body = srv.get("/api/flat")
        check(b"<script>" in body and b"\x01" not in body and b"\x1b" not in body,
              "hostile: control bytes escaped in JSON")
        for n in names:
            d = srv.ok("callers", function=n)
            check(d.get("pattern") == n and d["functions"][0]["name"] == n,
                  "hostile: callers of %r" % n)
            srv.ok("locations", function=n)
        tree = srv.ok("tree", depth=3)
        check(set(names) <= {x["name"] for x in walk(tree["root"])}, "hostile: names in the tree")
    finally:
        srv.stop()
    res = check_report(profkit, path, work, "hostile", routes=("callers", "callees", "locations"))
    if res:
        text, raw, data = res
        outside = text.replace(raw, "")
        check("alert(" not in outside, "hostile: no name outside the report's data")
        page = open(os.path.join(source, "src/view/assets/index.html")).read()
        parts = os.path.join(source, "src/view/assets/js")
        js = "".join(open(os.path.join(parts, f)).read() for f in sorted(os.listdir(parts)))
        own = page.lower().count("<script") - 1 + 2 + js.lower().count("<script")
        check(text.lower().count("<script") == own, "hostile: no '<script' beyond the page's own")
        for n in names:
            check("/api/callers?function=%s&metric=Ir" % encode(n) in data, "hostile: report key for %r" % n)


def check_source_dir(profkit, source, work):
    """--source-dir: the Source pane reads files under DIR, as annotate -I."""
    cg = os.path.join(source, "tests/data/callgrind/sample.callgrind")
    d = os.path.join(work, "demo-src")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "demo.c"), "w") as f:
        f.write("".join("/* demo.c line %d */\n" % i for i in range(1, 46)))
    for args, found in (([], False), (["--source-dir", d], True)):
        r = subprocess.run([profkit, "view", cg, *args, "--api", "source?function=work&metric=Ir"],
                           capture_output=True, check=False)
        doc = json.loads(r.stdout) if r.returncode == 0 else {}
        files = doc.get("files") or [{}]
        check((files[0].get("source") is not None) == found and
              any(("demo.c line" in (l.get("text") or "")) == found for l in files[0].get("lines", [{}])),
              "view %s: source of work %s" % (args, "found" if found else "not found"))


def check_cli(profkit, sample):
    r = subprocess.run([profkit, "view", "--help"], capture_output=True, check=False)
    check(r.returncode == 0 and b"--port" in r.stdout, "view --help")
    for bad in (["--port", "70000"], ["--port", "x"], ["-t", "200"], ["--bogus"]):
        r = subprocess.run([profkit, "view", sample, *bad], capture_output=True, check=False)
        check(r.returncode == 2, "view %s: exit %d" % (bad, r.returncode))
    srv = Server(profkit, [sample, "--bind", "0.0.0.0"])
    err = srv.stop()
    check("warning" in err and "anyone" in err, "--bind 0.0.0.0 warns")
    env = dict(os.environ, PROFKIT_VIEW_ASSETS="/nonexistent-dir")
    srv = Server(profkit, [sample], env=env)
    try:
        status, _, _ = srv.get("/app.js")
        check(status == 500, "PROFKIT_VIEW_ASSETS: a missing asset is an error, not a path")
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--mkdb", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus", default="")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    src = a.source
    cg = os.path.join(src, "tests/data/callgrind/sample.callgrind")
    cg_b = os.path.join(src, "tests/data/callgrind/sample-b.callgrind")
    cube = os.path.join(src, "tests/data/cube/sample.cubex")
    db = os.path.join(a.work, "sample.d")
    subprocess.run([a.mkdb, db], check=True, capture_output=True)
    inputs = [(cg, "callgrind"), (db, "hpctoolkit-sample"), (cube, "cube-sample")]
    corpus = a.corpus
    if corpus and os.path.isdir(corpus):
        traced = os.path.join(corpus, "hpctoolkit/hpctoolkit-tests-dbase/loops-cputime-t.d")
        cubes = sorted(glob.glob(os.path.join(corpus, "cube/extrap-lulesh-p27-v45/*.cubex")))
        for p, l in ((traced, "hpctoolkit-traced"), (cubes[0] if cubes else "", "cube-lulesh")):
            if p and os.path.exists(p):
                inputs.append((p, l))
    for path, label in inputs:
        check_input(a.profkit, path, label)
    check_base(a.profkit, cg, cg_b, "callgrind-base")
    check_report(a.profkit, cg, a.work, "callgrind-base-report", base=cg_b,
                 routes=("callers", "callees", "locations", "source", "diff"))
    for path, label in inputs[1:]:
        rep = check_report(a.profkit, path, a.work, label + "-report", routes=("callers", "callees", "locations"))
        if rep and "traced" in label:
            check("/api/trace" in rep[2], label + ": the report holds the trace overview")
    check_hostile_names(a.profkit, src, a.work)
    check_source_dir(a.profkit, src, a.work)
    check_cli(a.profkit, cg)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
