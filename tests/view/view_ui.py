#!/usr/bin/env python3
"""tests/view/view_ui.py — the `profkit view` page in headless Chromium.

For each case (a profile, optionally with --base) the page is loaded twice:
served (`profkit view PATH --port 0`, the URL is stdout's first line) and
as a report written with `-o` and opened from disk (file://). Each time a
real browser clicks through every pane and the DOM is checked:
- the flat table shows the hottest function of `profkit flat --json` with
  its value (read back from the digits and unit the page prints);
- selecting a function in the flat table makes callers/callees, source and
  locations follow it, and selecting another one follows again;
- expanding a tree node adds its children;
- clicking a flame graph frame zooms to it (it spans the width), searching
  highlights matches and shows the matched share, reset un-zooms;
- diff (with --base) shows coloured rows; the timeline (with traces)
  draws spans and a wheel zooms it;
- a report's location, stat and profile choices are off (it holds all
  locations summed, for PATH);
- no exception, console error, failed load or dialog happened.
A case named xss holds names like "<script>alert(1)</script>": they must
show as text and run nothing. Screenshots of each pane of the served page
(and of any page that failed) go to ARTIFACTS.

Usage: view_ui.py PROFKIT WORK ARTIFACTS NAME=PATH[@BASE]...
Exit 77 (skipped) when chromium or python3-websocket is missing.
"""
import json, os, re, select, signal, subprocess, sys, time, urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import devtools  # noqa: E402

profkit, work, artifacts = sys.argv[1:4]
cases = [(a.split("=", 1)[0], *(a.split("=", 1)[1].split("@") + [None])[:2]) for a in sys.argv[4:]]
why = devtools.missing()
if why:
    print("%s: view UI test skipped" % why)
    sys.exit(77)
os.makedirs(work, exist_ok=True)
os.makedirs(artifacts, exist_ok=True)

TIME = {"s": 0, "sec": 0, "secs": 0, "second": 0, "seconds": 0, "ms": -3, "msec": -3, "us": -6,
        "usec": -6, "µs": -6, "microseconds": -6, "ns": -9, "nsec": -9, "nanoseconds": -9}
BYTES = {"b": 0, "byte": 0, "bytes": 0, "kib": 1, "mib": 2, "gib": 3, "tib": 4, "pib": 5}
NO_SOURCE = {}  # (case, function) -> the note the served page showed: no source lines
SUFFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


def unit_value(unit):
    """A unit's size in seconds or bytes (1 for a plain count), by its text."""
    m = re.match(r"^([0-9.]+(?:[eE][-+]?[0-9]+)?)\s*(.*)$", unit or "")
    factor, name = (float(m.group(1)), m.group(2)) if m else (1.0, unit or "")
    if name.lower() in TIME:
        return factor * 10.0 ** TIME[name.lower()]
    if name.lower() in BYTES:
        return factor * 1024.0 ** BYTES[name.lower()]
    return factor


def metric_unit(metric):
    if metric.get("unit"):
        return metric["unit"]
    m = re.search(r"\(([^()]+)\)$", metric["name"])
    return m.group(1) if m and m.group(1).lower() in TIME else ""


def shown_number(text):
    """The value a cell shows: "7,386,556", "3.025", "213.1M", "1.234e-05"."""
    t = text.replace(",", "").strip()
    mult = SUFFIX.get(t[-1:], 1) if t else 1
    return float(t.rstrip("KMGTPE")) * mult


def cli_json(*args):
    return json.loads(subprocess.run([profkit] + list(args), check=True, capture_output=True).stdout)


class Check:
    def __init__(self, page, name, mode, profile_path):
        self.p, self.name, self.mode, self.path = page, name, mode, profile_path
        self.tag = "%s-%s" % (name, mode)
        self.allowed_404 = []  # a function without source lines: 404 by docs/view.md

    def shot(self, pane):
        """A pane's screenshot, of the served page: a report draws the same
        page (and a failed case is shot in either mode), and each shot
        costs the browser a PNG of the whole window."""
        if self.mode == "served":
            self.p.screenshot(os.path.join(artifacts, "%s-%s.png" % (self.tag, pane)))

    def state(self, pane, want=("ready",), timeout=15):
        js = "document.getElementById(%s).dataset.state" % json.dumps(pane)
        end = time.time() + timeout
        s = None
        while time.time() < end:
            s = self.p.js(js)
            if s and s != "loading":
                break
            time.sleep(0.05)
        note = self.p.js("(function(){var n=document.querySelector('#%s .note');return n?n.textContent:''})()" % pane)
        assert s in want, "%s: pane %s is %r (%s)" % (self.tag, pane, s, note)
        return s

    def tab(self, pane, want=("ready",)):
        self.p.click("#tab-" + pane)
        return self.state("pane-" + pane, want)

    def enabled(self, pane, feature):
        on = not self.p.js("document.getElementById('tab-%s').disabled" % pane)
        assert on == bool((self.profile.get("features") or {}).get(feature, True)), \
            "%s: the %s tab is %s, features say %r" % (self.tag, pane, "on" if on else "off", self.profile.get("features"))
        return on

    def run(self):
        p = self.p
        p.wait_for("(function(){var e=document.getElementById('error');"
                   "return !!(document.body && document.body.dataset.ready) || !!(e && !e.hidden)})()", 20,
                   "the page to load")
        err = p.js("document.getElementById('error').hidden ? '' : document.getElementById('error').textContent")
        assert not err, "%s: %s" % (self.tag, err)
        self.profile = p.js("PK.state.profile")
        if self.mode == "report":
            banner = p.js("document.getElementById('banner').textContent")
            assert "pruned at %s %%" % self.profile["report"]["threshold"] in banner, banner
        self.state("flat")
        self.hottest()
        self.tree()
        self.flame()
        self.controls()
        self.linked()
        if self.enabled("diff", "base"):
            self.diff()
        if self.enabled("timeline", "trace"):
            self.timeline()
        errors = [e for e in p.errors() if not self.allowed(e)]
        assert not errors, "%s: the page reported errors:\n  %s" % (self.tag, "\n  ".join(errors))

    def allowed(self, error):
        """The browser's log of the 404 for a function without source lines."""
        m = re.match(r"log: Failed to load resource: the server responded with a status of 404 .*? (http://\S+)$", error)
        u = urllib.parse.urlsplit(m.group(1)) if m else None
        return bool(u) and u.path == "/api/source" and \
            dict(urllib.parse.parse_qsl(u.query)).get("function") in self.allowed_404

    def hottest(self):
        m = self.profile["default_metric"]
        flat = cli_json("flat", "--json", "-m", m, self.path)
        top = flat["rows"][0]
        row = self.p.js("""(function(name){var rows=[].slice.call(document.querySelectorAll('#flat-table tbody tr'));
            var h=[].slice.call(document.querySelectorAll('#flat-table thead th')).map(function(t){return t.textContent});
            for (var i=0;i<rows.length;i++){var c=rows[i].cells; if (c[0].textContent===name)
              return {index:i, self:c[1].textContent, head:h[1]};}
            return null;})(%s)""" % json.dumps(top["name"]))
        assert row, "%s: the hottest function %r is not in the flat table" % (self.tag, top["name"])
        assert row["index"] < 5, "%s: %r is row %d of the flat table" % (self.tag, top["name"], row["index"])
        metric = next(x for x in self.profile["metrics"] if x["name"] == m)
        unit = re.search(r"\(([^()]*)\)(?: \u25bc| \u25b2)?$", row["head"])
        shown = shown_number(row["self"]) * unit_value(unit.group(1) if unit else "") / unit_value(metric_unit(metric))
        want = top["self"]
        assert abs(shown - want) <= 5e-4 * abs(want) + 1e-12, \
            "%s: %s shows %r (%r in %r), flat --json says %r" % (self.tag, top["name"], shown, row["self"], row["head"], want)
        self.top = [r["name"] for r in flat["rows"][:2]]
        self.top_self = want

    def tree(self):
        p = self.p
        self.tab("tree")
        self.shot("tree")
        p.click("#tree-collapse")
        before = p.js("document.querySelectorAll('#tree-body .tnode[data-id]').length")
        target = p.js("(function(){var e=document.querySelector('#tree-body .tnode[aria-expanded=\"false\"]');"
                      "return e?e.getAttribute('data-id'):null})()")
        assert target is not None, "%s: no tree node to expand" % self.tag
        p.click('#tree-body .tnode[data-id="%s"] .tw' % target)
        p.wait_for("document.querySelectorAll('#tree-body .tnode[data-id]').length > %d" % before, 10,
                   "node %s's children" % target)
        assert p.js("document.querySelector('#tree-body .tnode[data-id=\"%s\"]').getAttribute('aria-expanded')" % target) == "true"

    def frame_rect(self, pick):
        return self.p.js("""(function(){var c=document.getElementById('flame-canvas').getBoundingClientRect();
            var rs=PK.flame.rects.filter(function(r){return %s});
            rs.sort(function(a,b){return b.w-a.w}); var r=rs[0]; if(!r) return null;
            return {name:r.name, x:c.left+r.x, y:c.top+r.y, w:r.w, h:r.h, full:c.width};})()""" % pick)

    def flame(self):
        p = self.p
        self.tab("flame")
        legend = p.js("getComputedStyle(document.getElementById('flame-legend')).display !== 'none'")
        assert legend == bool(self.profile.get("base")), "%s: the diff legend is %s" % (self.tag, "shown" if legend else "hidden")
        frames = int(p.js("document.getElementById('flame-canvas').dataset.frames"))
        assert frames > 1, "%s: the flame graph draws %d frames" % (self.tag, frames)
        r = self.frame_rect("!r.anc && r.f.parent && r.w < c.width - 2")
        assert r, "%s: no frame narrower than the graph to click" % self.tag
        p.click_at(r["x"] + min(r["w"], 40) / 2, r["y"] + r["h"] / 2)
        p.wait_for("document.getElementById('flame-canvas').dataset.zoomed === %s" % json.dumps(r["name"]), 10,
                   "the flame graph to zoom to %r" % r["name"])
        z = self.frame_rect("r.name === %s && !r.anc" % json.dumps(r["name"]))
        assert z and abs(z["w"] - z["full"]) < 2, "%s: zoomed frame %r is %r wide of %r" % (self.tag, r["name"], z and z["w"], r["full"])
        self.shot("flame-zoomed")
        p.click("#flame-reset")
        assert p.js("document.getElementById('flame-canvas').dataset.zoomed") == ""
        word = max(re.findall(r"[A-Za-z0-9_]+", self.top[0]) or [""], key=len)
        if word:
            p.js("document.getElementById('flame-search').focus()")
            p.type_text(word)
            p.wait_for("document.getElementById('flame-matched').textContent.indexOf('Matched: ') === 0", 5, "a match share")
            hits = p.js("PK.flame.rects.filter(function(r){return r.hit}).length")
            assert hits > 0, "%s: searching %r highlights nothing" % (self.tag, word)
            self.shot("flame-search")
            p.js("var s=document.getElementById('flame-search'); s.value=''; s.dispatchEvent(new Event('input'))")

    def select_row(self, name):
        p = self.p
        i = p.js("""(function(n){var rows=[].slice.call(document.querySelectorAll('#flat-table tbody tr'));
            for (var i=0;i<rows.length;i++) if (rows[i].cells[0].textContent===n) return i+1; return 0;})(%s)""" % json.dumps(name))
        assert i, "%s: %r not in the flat table" % (self.tag, name)
        p.click("#flat-table tbody tr:nth-child(%d) td:nth-child(2)" % i)
        assert p.js("document.getElementById('selection').textContent") == name

    def linked(self):
        p = self.p
        for k, name in enumerate(self.top):
            self.select_row(name)
            self.tab("calls")
            for view in ("callers", "callees"):
                names = p.js("[].slice.call(document.querySelectorAll('#%s-body td.name')).map(function(t){return t.textContent})" % view)
                assert names and names[0] == name, "%s: %s shows %r for %r" % (self.tag, view, names[:3], name)
            if k == 0:
                self.shot("calls")
            if self.enabled("source", "source"):
                self.source(name, k)
            self.tab("locations")
            of = p.js("document.getElementById('locations-stats').textContent")
            assert name in of, "%s: locations show %r for %r" % (self.tag, of, name)
            assert p.js("document.querySelectorAll('#locations-body tbody tr').length") > 0
            if k == 0:
                self.shot("locations")

    def dark(self):
        """The dark colour scheme: the page follows the system's."""
        p = self.p
        p.call("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": "dark"}])
        bg = p.js("getComputedStyle(document.body).backgroundColor")
        assert bg != "rgb(255, 255, 255)", "%s: dark scheme has a white background" % self.tag
        self.tab("tree")
        self.shot("tree-dark")
        self.tab("flame")
        p.js("PK.flame.draw()")
        self.shot("flame-dark")

    def set_select(self, sel, value):
        self.p.js("var s=document.getElementById(%s); s.value=%s; s.dispatchEvent(new Event('change'))"
                  % (json.dumps(sel), json.dumps(value)))

    def source(self, name, k):
        """Source lines, or the server's word that the function has none
        (a 404 the report builder leaves out: then "not in this report")."""
        p = self.p
        none = NO_SOURCE.get((self.name, name))
        s = self.tab("source", ("ready", "missing") if none and self.mode == "report" else ("ready",))
        rows = p.js("document.querySelectorAll('#source-body tr[data-line]').length")
        note = p.js("document.getElementById('source-note').textContent")
        assert rows or note, "%s: source of %r shows nothing" % (self.tag, name)
        if self.mode == "served" and not rows and note.startswith("no source lines"):
            NO_SOURCE[(self.name, name)] = note
            self.allowed_404.append(name)
        if k == 0:
            self.shot("source")

    def controls(self):
        """Another metric: the flat table sorts by it and the tree follows;
        another location (served: answered, report: said to be missing)."""
        p, metrics = self.p, [m["name"] for m in self.profile["metrics"]]
        self.tab("tree")
        if len(metrics) > 1:
            other = metrics[1] if metrics[0] == self.profile["default_metric"] else metrics[0]
            self.set_select("metric", other)
            self.state("flat")
            self.state("pane-tree")
            sorted_by = p.js("document.querySelector('#flat-table th[aria-sort]').textContent")
            assert sorted_by.startswith(other + " self"), "%s: sorted by %r after choosing %r" % (self.tag, sorted_by, other)
            self.set_select("metric", self.profile["default_metric"])
            self.state("pane-tree")
        if self.mode == "served":  # a derived metric typed as -m takes it
            default = self.profile["default_metric"]
            p.js("var m=document.getElementById('flat-metrics'); m.value=%s; m.focus()"
                 % json.dumps('%s,twice=2*"%s"' % (default, default)))
            p.press("Enter", 13)
            p.wait_for("[].some.call(document.querySelectorAll('#flat-table th'), function(t){return t.textContent.indexOf('twice self')===0})",
                       10, "the derived column")
            self.state("flat")
            cells = p.js("""(function(n){var rows=document.querySelectorAll('#flat-table tbody tr');
                for (var i=0;i<rows.length;i++) if (rows[i].cells[0].textContent===n)
                  return [rows[i].cells[1].textContent, rows[i].cells[3].textContent]; return null})(%s)""" % json.dumps(self.top[0]))
            assert cells and abs(shown_number(cells[1]) - 2 * self.top_self) <= 1e-3 * abs(self.top_self) + 1e-12, \
                "%s: twice=2*%s shows %r for %s (self %r)" % (self.tag, default, cells, self.top[0], self.top_self)
            p.js("var m=document.getElementById('flat-metrics'); m.value=%s" % json.dumps(",".join(
                [default] + [x for x in metrics if x != default])))
            p.press("Enter", 13)
            self.state("flat")
        locs = self.profile.get("locations") or []
        if self.mode == "report":  # a report holds all locations summed: the choices are off
            off = p.js("['location','stat','side'].map(function(i){return document.getElementById(i).disabled})")
            assert off == [True, True, True], "%s: location, stat, side enabled in a report: %r" % (self.tag, off)
        elif len(locs) > 1:
            self.set_select("location", "#%d" % locs[0]["index"])
            self.state("flat")
            self.set_select("location", "")
            self.state("flat")

    def diff(self):
        p = self.p
        self.tab("diff")
        rows = p.js("document.querySelectorAll('#diff-body tbody tr').length")
        coloured = p.js("document.querySelectorAll('#diff-body td.worse, #diff-body td.better').length")
        assert rows > 0 and coloured > 0, "%s: diff shows %d rows, %d coloured" % (self.tag, rows, coloured)
        self.shot("diff")
        self.tab("flame")
        assert p.js("!document.getElementById('flame-legend').hidden"), "%s: no diff flame legend" % self.tag
        self.shot("flame-diff")

    def timeline(self):
        p = self.p
        self.tab("timeline")
        c = "document.getElementById('timeline-canvas')"
        assert int(p.js(c + ".dataset.spans")) > 0, "%s: the timeline draws no spans" % self.tag
        self.shot("timeline")
        view = p.js(c + ".dataset.view")
        r = p.js("(function(){var r=%s.getBoundingClientRect();return {x:r.left+r.width*0.6,y:r.top+8};})()" % c)
        p.wheel(r["x"], r["y"], -300)
        p.wait_for(c + ".dataset.view !== %s" % json.dumps(view), 5, "the timeline to zoom")
        time.sleep(0.4)  # the zoomed range is asked for after 200 ms
        self.state("pane-timeline", ("ready",))
        self.shot("timeline-zoomed")


def xss_checks(page, tag):
    text = page.js("document.getElementById('flat-table').textContent")
    assert "<script>alert(1)</script>" in text, "%s: the <script> name is not shown as text" % tag
    assert page.js("window.__pk_xss === undefined"), "%s: a name ran script" % tag
    assert page.js("document.querySelectorAll('img').length") == 0, "%s: a name made an element" % tag


def serve(case, base):
    args = [profkit, "view", case, "--port", "0"] + (["--base", base] if base else [])
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    url = proc.stdout.readline().strip() if ready else ""
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise AssertionError("profkit view %s printed %r first: %s" % (case, url, proc.stderr.read()))
    return proc, url


def main():
    browser = devtools.Chromium(1400, 900)
    failed = 0
    try:
        for name, path, base in cases:
            for mode in ("served", "report"):
                page = browser.new_page(1400, 900)
                proc = None
                t0 = time.time()
                try:
                    if mode == "served":
                        proc, url = serve(path, base)
                    else:
                        out = os.path.join(work, name + ".html")
                        if os.path.exists(out):
                            os.remove(out)
                        subprocess.run([profkit, "view", path, "-o", out] + (["--base", base] if base else []),
                                       check=True, capture_output=True)
                        url = "file://" + os.path.abspath(out)
                    page.navigate(url)
                    check = Check(page, name, mode, path)
                    check.run()
                    if name == "xss":
                        xss_checks(page, check.tag)
                    if (name, mode) == cases[0][0:1] + ("served",):
                        check.dark()
                    print("ok   %-14s %-6s %.1f s" % (name, mode, time.time() - t0))
                except Exception as e:  # noqa: BLE001 — report every case, then fail
                    failed += 1
                    print("FAIL %-14s %-6s %s: %s" % (name, mode, type(e).__name__, e))
                    try:
                        page.screenshot(os.path.join(artifacts, "%s-%s-FAILED.png" % (name, mode)))
                    except Exception:
                        pass
                finally:
                    page.close()
                    if proc:
                        proc.send_signal(signal.SIGINT)
                        try:
                            rc = proc.wait(timeout=10)
                        except subprocess.TimeoutExpired:
                            proc.kill()
                            rc = "hung"
                        if rc != 0:
                            failed += 1
                            print("FAIL %-14s profkit view exited %r on SIGINT" % (name, rc))
    finally:
        browser.close()
    return 1 if failed else 0


sys.exit(main())
