#!/usr/bin/env python3
"""tests/trace/timeline_ui.py — the view's timeline in headless Chromium.

`profkit view` serves a database with traces; the page is opened with a
selection in its URL (#pane=timeline&location=…&from=…&to=…) and checked:
- the timeline pane opens with the URL's selection in its fields;
- what the page drew from is exactly `profkit trace --json --timeline W`
  with the same options (one library answer, one writer);
- a label per row, naming the row's location (the shared prefix said once,
  the whole name in the tooltip);
- a legend of the colours in view: each item a function of the answer, and
  the widest one's swatch the colour the canvas has under its span;
- the axis says where 0 is: the start of the traces, in UTC;
- zooming with the wheel writes the new window into the URL as times the
  CLI reads, and what comes back is the CLI's answer for them;
- the bar's Location (what --location takes) changes the rows and the
  URL, and opening that URL again restores the same view;
- no exception, console error or failed load. Screenshots go to ARTIFACTS.

Usage: timeline_ui.py PROFKIT PK_MKDB WORK ARTIFACTS [CORPUS]
Exit 77 (skipped) when chromium or python3-websocket is missing.
"""
import datetime, json, os, subprocess, sys, time, urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import devtools  # noqa: E402

profkit, mkdb, work, artifacts = sys.argv[1:5]
corpus = sys.argv[5] if len(sys.argv) > 5 else ""
why = devtools.missing()
if why:
    print("%s: timeline UI test skipped" % why)
    sys.exit(77)
os.makedirs(work, exist_ok=True)
os.makedirs(artifacts, exist_ok=True)

lulesh = os.path.join(corpus, "hpctoolkit", "hpcviewer-main-issue-233")
if os.path.isdir(lulesh):
    db, first, second = lulesh, {"location": "rank=3", "from": "1s", "to": "2.5s"}, "rank=5"
else:
    db = os.path.join(work, "sample")
    subprocess.run([mkdb, db], check=True, capture_output=True)
    first, second = {"location": "thread=3", "from": "5ms", "to": "65ms"}, "thread=0"


def cli(sel, width):
    args = [profkit, "trace", "--json", "--timeline", str(width)]
    for k in ("location", "from", "to", "focus", "hide"):
        if sel.get(k):
            args.append("--%s=%s" % (k, sel[k]))
    return json.loads(subprocess.run(args + [db], check=True, capture_output=True).stdout)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


class Timeline:
    def __init__(self, page):
        self.p = page

    def ready(self):
        self.p.wait_for("document.body && document.body.dataset.ready === '1'", 30, "the page")
        self.p.wait_for("document.getElementById('pane-timeline').dataset.state === 'ready'", 30,
                        "the timeline")

    def data(self):
        """The answer the page drew from, as the server sent it (JavaScript's
        numbers would round absolute nanoseconds)."""
        return json.loads(self.p.js("fetch(PK.timeline.key).then(r => r.text())", wait=True))

    def hash(self):
        h = urllib.parse.parse_qs(self.p.js("location.hash").lstrip("#"))
        return {k: v[0] for k, v in h.items()}

    def same_as_cli(self, sel, what):
        d = self.data()
        want = cli(sel, d["timeline"]["width"])
        check(d == want, "%s: the page's answer is not `profkit trace --json` for %s" % (what, sel))
        return d

    def labels(self, d):
        got = self.p.js("[...document.querySelectorAll('#timeline-labels div:not(.tl-axis)')]"
                        ".map(e => [e.textContent, e.title])")
        rows = d["timeline"]["rows"]
        check(len(got) == len(rows) > 0, "a label per row: %d labels, %d rows" % (len(got), len(rows)))
        for (text, title), row in zip(got, rows):
            check(title == row["location"] and row["location"].endswith(text) and text,
                  "label %r for %r" % (text, row["location"]))

    def legend(self, d):
        names = {f["name"] for f in d["functions"]}
        items = self.p.js("[...document.querySelectorAll('#timeline-legend .tl-item')].map(e => e.textContent)")
        check(items and all(i in names or i.startswith(("idle", "gap", "left out")) for i in items),
              "legend items are functions of the answer: %s" % items[:5])
        # the first item is the widest in view: its swatch is what the canvas shows under it
        px = self.p.js("""(function(){
          const c = document.getElementById('timeline-canvas'), name = document.querySelector(
            '#timeline-legend .tl-item span:last-child').textContent;
          const s = PK.timeline.spans.filter(s => s.name === name).sort((a, b) => (b.x1 - b.x0) - (a.x1 - a.x0))[0];
          const r = window.devicePixelRatio || 1, g = c.getContext('2d');
          const p = g.getImageData(Math.floor((s.x0 + s.x1) / 2 * r), Math.floor((s.y + s.h / 2) * r), 1, 1).data;
          const sw = getComputedStyle(document.querySelector('#timeline-legend .tl-item .sw')).backgroundColor;
          return {canvas: [p[0], p[1], p[2]], swatch: sw.match(/\\d+/g).slice(0, 3).map(Number)};
        })()""")
        check(all(abs(a - b) <= 2 for a, b in zip(px["canvas"], px["swatch"])),
              "the legend's colour %s is not the canvas' %s" % (px["swatch"], px["canvas"]))

    def origin(self, d):
        text = self.p.js("document.getElementById('timeline-origin').textContent")
        day = datetime.datetime.fromtimestamp(d["begin_ns"] // 10**9, datetime.timezone.utc)
        check(text.startswith("0 = start of the traces, ") and day.strftime("%Y-%m-%d %H:%M:%S") in text,
              "the axis' origin: %r" % text)


def main():
    srv = subprocess.Popen([profkit, "view", "--port", "0", db], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    browser = None
    try:
        url = srv.stdout.readline().strip()
        check(url.startswith("http://127.0.0.1:"), "view printed %r" % url)
        browser = devtools.Chromium(1400, 900)
        page = browser.new_page(1400, 900)
        t = Timeline(page)
        page.navigate(url + "#pane=timeline&" + urllib.parse.urlencode(first))
        t.ready()
        check(page.js("document.getElementById('tab-timeline').getAttribute('aria-selected')") == "true",
              "the URL's pane is shown")
        fields = page.js("['location','tl-from','tl-to'].map(k => document.getElementById(k).value)")
        check(fields == [first["location"], first["from"], first["to"]], "fields %s" % fields)
        d = t.same_as_cli(first, "opened")
        t.labels(d)
        t.legend(d)
        t.origin(d)
        page.screenshot(os.path.join(artifacts, "timeline-selection.png"))
        # zoom in: the URL says the new window, the page shows the CLI's answer for it
        c = "document.getElementById('timeline-canvas')"
        view = page.js(c + ".dataset.view")
        r = page.js("(function(){var r=%s.getBoundingClientRect();return {x:r.left+r.width*0.4,y:r.top+8};})()" % c)
        page.wheel(r["x"], r["y"], -300)
        page.wait_for(c + ".dataset.view !== %s" % json.dumps(view), 5, "the zoom")
        page.wait_for("PK.timeline.data.from_offset_ns !== %d" % d["from_offset_ns"], 10, "the zoomed answer")
        t.ready()
        h = t.hash()
        check(h.get("from") and h.get("to") and h["from"] != first["from"], "zoom not in the URL: %s" % h)
        zoomed = t.same_as_cli(h, "zoomed")
        check(zoomed["from_offset_ns"] > d["from_offset_ns"] and zoomed["to_offset_ns"] < d["to_offset_ns"],
              "the zoom narrowed nothing")
        page.screenshot(os.path.join(artifacts, "timeline-zoomed.png"))
        # another location in the bar: rows and URL follow
        page.js("var l = document.getElementById('location'); l.value = %s; l.dispatchEvent(new Event('change'))"
                % json.dumps(second))
        page.wait_for("PK.timeline.data.selection.location === %s" % json.dumps(second), 10, "the new rows")
        t.ready()
        h = t.hash()
        check(h.get("location") == second, "the URL's location: %s" % h)
        d2 = t.same_as_cli(h, "applied")
        t.labels(d2)
        # the URL alone gives the same view back
        page.navigate("about:blank")
        page.navigate(url + "#" + urllib.parse.urlencode(dict(h)))
        t.ready()
        check(t.data() == d2, "opening the URL again gives another view")
        page.screenshot(os.path.join(artifacts, "timeline-restored.png"))
        errors = page.errors()
        check(not errors, "page errors: %s" % errors[:3])
        print("timeline UI: %s: %d rows, zoomed to %s-%s, %d rows for %s" %
              (os.path.basename(db), len(d["timeline"]["rows"]), h.get("from"), h.get("to"),
               len(d2["timeline"]["rows"]), second))
    finally:
        if browser:
            browser.close()
        srv.terminate()
        srv.wait()


main()
