#!/usr/bin/env python3
"""tests/view/layout_ui.py — the `profkit view` page's layout and its state
in the URL, in headless Chromium (issue 34), one browser for everything.

Profiles: the pk-mkdb sample database, a corpus HPCToolkit database (LULESH,
135 locations, traces), a Cube summary with 80 metrics, and a Callgrind
file of long C++ names with a --base (its copy with some functions'
costs doubled, made here) for the diff pane, a Go heap profile in pprof's
format (4 sample types, long package paths); the sample also as a report.
Each is opened at 900 px wide, every pane is shown in turn and must show
data at once (nothing selected yet), then the same at 1440 and 1920 px.
At every width and pane:
- the page does not overflow (nothing past the window's right or bottom
  edge; the flat table and the panes each keep a usable height);
- no text lies over a toolbar (the bar, the tabs, the pane's and the flat
  table's tools), clipped as the browser clips it;
- long names fit: a tree row's name is cut only when its module path has
  no room left; a flat table name is cut only past 360 px; the diff's,
  callers' and locations' tables fit their pane, the change-% column too;
- a report's location, stat and profile choices are off.
Then the state in the URL: choices made on the page (metric, a selection,
pane, flat sort and search, flame zoom and icicle, a tree node) survive a
reload of the URL, and back/forward move between them (served and as a
report from file://).
The library's folding, as the CLI prints it: on the Callgrind file the
tree's first rows are `profkit tree`'s ("Py_Main (via 4 frames: ... >
main)"), with its note; "Show chains" gives `tree --show-chains`'s rows
and survives a reload; an hpcrun measurement (no row can hold its cost)
shows flat's one line why instead of an empty table.
Screenshots of each case, width and pane go to ARTIFACTS.

  layout_ui.py PROFKIT PK_MKDB WORK ARTIFACTS CORPUS
Exit 77 (skipped) when chromium, python3-websocket or the corpus is missing.
"""
import json, os, re, select, signal, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import devtools  # noqa: E402

profkit, mkdb, work, artifacts, corpus = sys.argv[1:6]
why = devtools.missing()
C = lambda p: os.path.join(corpus, p)  # noqa: E731
need = [C("hpctoolkit/hpcviewer-main-issue-233"), C("cube/cubelib-example-summary-nested-metrics/summary.cubex"),
        C("callgrind/gprof2dot/xapian.callgrind"), C("pprof/parca/alloc_objects.pb.gz"),
        C("hpctoolkit/hpctoolkit-tests-meas/small.m")]
if why or not all(os.path.exists(p) for p in need):
    print("%s: view layout test skipped" % (why or "the corpus is missing"))
    sys.exit(77)
os.makedirs(work, exist_ok=True)
os.makedirs(artifacts, exist_ok=True)
WIDTHS = (900, 1440, 1920)
HEIGHT = 900
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return cond


def doubled(src, dst):
    """A copy of a Callgrind file with every third function's own costs
    doubled (call costs and stated totals left out of it): a --base whose
    diff has changes in every column."""
    out, block, after_call = [], 0, False
    for line in open(src, encoding="utf-8", errors="surrogateescape"):
        if line.startswith(("summary:", "totals:")):
            continue
        if line.startswith("fn="):
            block += 1
        if line[:1].isdigit() or line[:1] in "+-*":
            if not after_call and block % 3 == 0:
                f = line.split()
                f[-1] = str(int(f[-1]) * 2) if f[-1].isdigit() else f[-1]
                line = " ".join(f) + "\n"
            after_call = False
        elif line.startswith("calls="):
            after_call = True
        out.append(line)
    with open(dst, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(out)


# ---- what the page must look like, measured in the page -----------------
LAYOUT_JS = r"""(function(){
  var W = innerWidth, H = innerHeight, bad = [];
  function box(e){ return e.getBoundingClientRect(); }
  function shown(e){ var r = box(e); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; }
  /* what of e the browser shows: its box clipped by every scrolling ancestor */
  function visible(e){
    var r = box(e), v = {l: r.left, t: r.top, r: r.right, b: r.bottom};
    for (var a = e.parentElement; a; a = a.parentElement) {
      var s = getComputedStyle(a);
      if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
        var c = box(a);
        v = {l: Math.max(v.l, c.left), t: Math.max(v.t, c.top), r: Math.min(v.r, c.right), b: Math.min(v.b, c.bottom)};
      }
    }
    return v;
  }
  var doc = document.documentElement;
  if (doc.scrollWidth > W + 1 || document.body.scrollWidth > W + 1 || scrollX || scrollY || doc.scrollTop)
    bad.push('the page scrolls: ' + doc.scrollWidth + ' wide, scrolled ' + scrollX + ',' + scrollY);
  var regions = ['#bar', 'main', '#flat', '#panes', '#tabs', '.pane:not([hidden]) > .tools', '#flat > .tools'];
  regions.forEach(function(sel){
    document.querySelectorAll(sel).forEach(function(e){
      var r = box(e);
      if (shown(e) && (r.right > W + 1 || r.bottom > H + 1)) bad.push(sel + ' ends at ' + Math.round(r.right) + ',' + Math.round(r.bottom));
    });
  });
  ['#flat .scroll', '#panes > .pane:not([hidden])'].forEach(function(sel){
    var e = document.querySelector(sel);
    if (e && box(e).height < 120) bad.push(sel + ' is ' + Math.round(box(e).height) + ' px high');
  });
  /* text over a toolbar */
  var bars = [].slice.call(document.querySelectorAll('#bar, #tabs, #flat > .tools, .pane:not([hidden]) > .tools, .pane:not([hidden]) .split h2'))
    .filter(shown);
  var texts = [].slice.call(document.querySelectorAll('body *')).filter(function(e){
    if (e.tagName === 'CANVAS') return shown(e);
    for (var n = e.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && n.data.trim()) return shown(e);
    return false;
  });
  texts.forEach(function(e){
    var v = visible(e);
    if (v.r - v.l < 1 || v.b - v.t < 1) return;
    bars.forEach(function(b){
      if (b.contains(e) || e.contains(b)) return;
      var r = box(b), w = Math.min(v.r, r.right) - Math.max(v.l, r.left), h = Math.min(v.b, r.bottom) - Math.max(v.t, r.top);
      if (w > 1 && h > 1) bad.push('"' + (e.textContent || e.tagName).trim().slice(0, 40) + '" (' + e.tagName + (e.id ? '#' + e.id : '') +
        ') lies over ' + (b.id || b.className || b.tagName));
    });
  });
  /* long names: a tree row's name is cut only when its module has no room */
  document.querySelectorAll('#pane-tree:not([hidden]) .tnode[data-id]').forEach(function(row){
    var nm = row.querySelector('.nm'), mod = row.querySelector('.mod');
    if (nm && mod && nm.scrollWidth > nm.clientWidth + 1 && mod.clientWidth > 2 && visible(row).b > visible(row).t)
      bad.push('tree: "' + nm.textContent.slice(0, 40) + '" cut at ' + nm.clientWidth + ' px while its module has ' + mod.clientWidth);
  });
  var cut = 0, first = '';
  document.querySelectorAll('#flat-table tbody td.name').forEach(function(td){
    if (td.clientWidth < Math.min(td.scrollWidth, 360) - 1) { if (!cut++) first = td.textContent.slice(0, 50) + ' at ' + td.clientWidth + ' px'; }
  });
  if (cut) bad.push('flat: ' + cut + ' names cut short, e.g. ' + first);
  /* tables of the pane fit it, their last column too */
  document.querySelectorAll('.pane:not([hidden]) table.data').forEach(function(t){
    if (t.closest('#source-body') || t.closest('#flat')) return;
    var c = t.parentElement, cr = box(c), tr = box(t);
    if (tr.right > cr.left + c.clientWidth + 1) bad.push('a table of ' + t.closest('.pane').id + ' is ' + Math.round(tr.width) + ' px wide in ' + c.clientWidth);
    t.querySelectorAll('th').forEach(function(th){
      if (/change %/.test(th.textContent) && box(th).right > cr.left + c.clientWidth + 1) bad.push('the change % column is cut');
    });
  });
  return bad;
})()"""

DATA_JS = {  # what "shows data" means, per pane
    "tree": "document.querySelectorAll('#tree-body .tnode[data-id]').length > 1",
    "flame": "+document.getElementById('flame-canvas').dataset.frames > 1",
    "calls": "document.querySelectorAll('#callers-body td.name').length > 0 && document.querySelectorAll('#callees-body td.name').length > 0",
    # source lines, or the library's word that the profile has none
    "source": "document.querySelectorAll('#source-body tr[data-line]').length > 0 || /known source line|no source line known/.test(document.getElementById('source-note').textContent)",
    "locations": "document.querySelectorAll('#locations-body tbody tr').length > 0",
    "diff": "document.querySelectorAll('#diff-body tbody tr').length > 0",
    "timeline": "+document.getElementById('timeline-canvas').dataset.spans > 0",
}


def state(page, pane, timeout=30):
    """The pane's state once it has settled; a pane that never starts
    loading (no state after 5 s) is a failure found quickly."""
    js = "document.getElementById(%s).dataset.state" % json.dumps(pane)
    start, s = time.time(), None
    while time.time() < start + (timeout if s else min(timeout, 5)):
        s = page.js(js)
        if s and s != "loading":
            return s
        time.sleep(0.03)
    return s


class Case:
    def __init__(self, browser, name, path, base=None, report=False):
        self.b, self.name, self.path, self.base, self.report = browser, name, path, base, report
        self.tag = name + ("-report" if report else "")
        self.proc = None

    def open(self):
        args = [self.path] + (["--base", self.base] if self.base else [])
        if self.report:
            out = os.path.join(work, self.name + ".html")
            subprocess.run([profkit, "view", *args, "-o", out, "-f"], check=True, capture_output=True)
            self.url = "file://" + out
        else:
            self.proc = subprocess.Popen([profkit, "view", *args, "--port", "0"], stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True)
            ready, _, _ = select.select([self.proc.stdout], [], [], 120)
            self.url = self.proc.stdout.readline().strip() if ready else ""
        self.page = self.b.new_page(WIDTHS[0], HEIGHT)
        self.load(self.url)

    def load(self, url):
        self.page.navigate(url)
        self.page.wait_for("document.body && document.body.dataset.ready === '1'", 60, self.tag + " to load")
        check(state(self.page, "flat") == "ready", self.tag + ": the flat table loads")

    def close(self):
        # the browser logs the 404 of a profile without source lines (an answer: docs/view.md)
        errors = [e for e in self.page.errors() if not re.match(r"log: Failed to load resource: .* 404 .*/api/source\?", e)]
        check(not errors, "%s: the page reported errors: %s" % (self.tag, errors[:3]))
        self.page.close()
        if self.proc:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(30)

    def panes(self):
        return [p for p in DATA_JS if not self.page.js("document.getElementById('tab-%s').disabled" % p)]

    def resize(self, width):
        self.page.call("Emulation.setDeviceMetricsOverride", width=width, height=HEIGHT, deviceScaleFactor=1, mobile=False)
        self.page.js("window.dispatchEvent(new Event('resize'))")
        time.sleep(0.15)  # the page redraws its canvases 100 ms after a resize

    def layout(self):
        for w in WIDTHS:
            if w != WIDTHS[0]:
                self.resize(w)
            for pane in self.panes():
                self.page.click("#tab-" + pane)
                s = state(self.page, "pane-" + pane)
                has = self.page.js(DATA_JS[pane])
                check(s == "ready" and has, "%s at %d px: the %s pane is %r and %s" %
                      (self.tag, w, pane, s, "shows data" if has else "shows nothing"))
                if pane in ("flame", "timeline"):
                    self.page.js("PK.%s.draw()" % pane)
                for bad in self.page.js(LAYOUT_JS):
                    check(False, "%s at %d px, %s pane: %s" % (self.tag, w, pane, bad))
                self.page.screenshot(os.path.join(artifacts, "%s-%d-%s.png" % (self.tag, w, pane)))
        if self.report:
            off = self.page.js("['location','stat','side'].map(function(i){return document.getElementById(i).disabled})")
            check(off == [True, True, True], "%s: location, stat, profile choices on in a report: %s" % (self.tag, off))


# ---- the state in the URL ------------------------------------------------
SNAP_JS = r"""(function(){
  var th = document.querySelector('#flat-table th[aria-sort]');
  return {pane: PK.state.pane, metric: PK.state.metric, sel: PK.state.sel ? PK.state.sel.name : null,
    search: document.getElementById('flat-search').value, sorted: th ? th.textContent : null,
    zoom: document.getElementById('flame-canvas').dataset.zoomed || '', icicle: document.getElementById('flame-icicle').checked,
    node: PK.tree.cursor, hash: location.hash};
})()"""


def url_state(case):
    """Choices survive a reload of the URL; back and forward move between them."""
    p, tag = case.page, case.tag + " url"
    p.js("history.replaceState(null, '', '#')")
    case.load(case.url)  # a fresh page: nothing chosen
    p.click("#tab-flame")
    state(p, "pane-flame")
    metrics = p.js("PK.state.profile.metrics.map(function(m){return m.name})")
    if len(metrics) > 1 and not case.report:
        other = metrics[1] if metrics[0] == p.js("PK.state.metric") else metrics[0]
        p.js("var m=document.getElementById('metric'); m.value=%s; m.dispatchEvent(new Event('change'))" % json.dumps(other))
        state(p, "pane-flame")
        state(p, "flat")
    p.click("#flat-table tbody tr:nth-child(2) td:nth-child(2)")  # a selection
    state(p, "pane-flame")
    p.click("#flat-table thead th:nth-child(3)")  # sort by inclusive
    r = p.js("""(function(){var c=document.getElementById('flame-canvas').getBoundingClientRect();
        var rs=PK.flame.rects.filter(function(r){return !r.anc && r.f.parent && r.f.id && r.w < c.width - 2});
        rs.sort(function(a,b){return b.w-a.w}); var r=rs[0];
        return r ? {x:c.left+r.x+Math.min(r.w,40)/2, y:c.top+r.y+r.h/2, name:r.name} : null})()""")
    if check(r, tag + ": no flame frame to zoom to"):
        p.click_at(r["x"], r["y"])  # selects and zooms
        p.wait_for("document.getElementById('flame-canvas').dataset.zoomed === %s" % json.dumps(r["name"]), 10, "the zoom")
    p.click("#flame-icicle")
    p.js("var s=document.getElementById('flat-search'); s.value='a'; s.dispatchEvent(new Event('input'))")
    p.click("#tab-tree")
    state(p, "pane-tree")
    p.click("#tree-body .tnode[data-id]:nth-child(3) .val")  # a tree node
    state(p, "pane-tree")
    want = p.js(SNAP_JS)
    check(re.search(r"(^#|&)node=\d+", want["hash"]) and "zoom=" in want["hash"] and "icicle=1" in want["hash"],
          "%s: the URL lacks the choices: %s" % (tag, want["hash"]))
    # back: before the tree node; back again: the flame graph; forward twice: the node
    p.js("history.back()")
    p.wait_for("PK.tree.cursor === null && PK.state.pane === 'tree'", 10, "back to before the tree node")
    p.js("history.back()")
    p.wait_for("PK.state.pane === 'flame'", 10, "back to the flame graph")
    p.js("history.forward()")
    p.js("history.forward()")
    p.wait_for("PK.tree.cursor === %d" % want["node"], 10, "forward to the tree node")
    state(p, "pane-tree")
    fwd = p.js(SNAP_JS)
    check(fwd == want, "%s: forward gives %s, want %s" % (tag, fwd, want))
    # a reload of the URL gives the same view
    p.navigate("about:blank")
    case.load(case.url.split("#")[0] + want["hash"])
    state(p, "pane-tree")
    p.wait_for("PK.tree.cursor === %d && !!document.querySelector('#tree-body .tnode.selected[data-id=\"%d\"]')"
               % (want["node"], want["node"]), 10, "the tree node shown again")
    p.click("#tab-flame")
    state(p, "pane-flame")
    p.wait_for("document.getElementById('flame-canvas').dataset.zoomed !== ''", 10, "the zoom again")
    got = p.js(SNAP_JS)
    for k in ("metric", "sel", "search", "sorted", "zoom", "icicle", "node"):
        check(got[k] == want[k], "%s: after a reload %s is %r, was %r" % (tag, k, got[k], want[k]))


# ---- the library's folded chains and notes, as the CLI prints them ------
ROWS_JS = """Array.from(document.querySelectorAll('#tree-body .tnode[data-id] .nm')).slice(0, %d)
  .map(function(e){return e.textContent})"""


def cli_rows(path, n, *extra):
    """The first N names of `profkit tree` text at the page's threshold."""
    out = subprocess.run([profkit, "tree", "-t", "0.1", "--width", "0", *extra, path], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    at = next(i for i, l in enumerate(out) if l.rstrip().endswith("function"))
    return [re.sub(r"^.*?%.*?%\s[ *]\s*", "", l) for l in out[at + 1:at + 1 + n]]


def chains(case):
    """Callgrind loader frames: the tree's first rows are the CLI's, one row
    "NAME (via N frames: A > B > C)" for a folded run, the answer's note
    above; "Show chains" draws every frame (tree --show-chains) and stays
    after a reload of the URL."""
    p, tag = case.page, case.tag + " chains"
    p.click("#tab-tree")
    state(p, "pane-tree")
    want, got = cli_rows(case.path, 3), p.js(ROWS_JS % 3)
    check(any(" (via " in w for w in want), "%s: the CLI folds nothing in %s" % (tag, want))
    check(got == want, "%s: the first rows are %s, the CLI's %s" % (tag, got, want))
    note = p.js("document.getElementById('tree-note').textContent")
    check("only pass calls on" in note, "%s: the tree's note lacks the folded chains: %r" % (tag, note))
    p.click("#tab-flame")  # the flame graph of a rebuilt tree says so, as the tree does
    state(p, "pane-flame")
    note = p.js("document.getElementById('flame-note').textContent")
    check("RECONSTRUCTED" in note, "%s: the flame graph's note lacks the answer's notes: %r" % (tag, note))
    p.click("#tab-tree")
    state(p, "pane-tree")
    p.click("#tree-chains")
    p.wait_for("location.hash.indexOf('chains=show') >= 0", 10, "chains in the URL")
    state(p, "pane-tree")
    shown = cli_rows(case.path, 3, "--show-chains")
    got = p.js(ROWS_JS % 3)
    check(got == shown, "%s: with chains shown the rows are %s, the CLI's %s" % (tag, got, shown))
    url = case.url.split("#")[0] + p.js("location.hash")
    p.navigate("about:blank")
    case.load(url)
    p.click("#tab-tree")
    state(p, "pane-tree")
    check(p.js("document.getElementById('tree-chains').checked") and p.js(ROWS_JS % 3) == shown,
          "%s: after a reload the chains are %r" % (tag, p.js(ROWS_JS % 3)))
    p.click("#tree-chains")
    state(p, "pane-tree")


def no_rows(browser):
    """An hpcrun measurement names no function: the flat pane shows the
    CLI's one line why instead of an empty table."""
    path = C("hpctoolkit/hpctoolkit-tests-meas/small.m")
    r = subprocess.run([profkit, "flat", path], capture_output=True, text=True)
    why = r.stderr.strip().split(": ", 2)[-1]
    check(r.returncode == 1 and "has no row" in why, "hpcrun: profkit flat says %r" % r.stderr)
    case = Case(browser, "hpcrun", path)
    try:
        case.open()
        p = case.page
        got = p.js("document.getElementById('flat-note').textContent")
        rows = p.js("document.querySelectorAll('#flat-table tbody tr').length")
        check(got == why and rows == 0, "hpcrun: the flat pane shows %r and %d rows, want %r" % (got, rows, why))
    finally:
        case.close()


def main():
    sample = os.path.join(work, "sample.d")
    subprocess.run([mkdb, sample], check=True, capture_output=True)
    xapian = C("callgrind/gprof2dot/xapian.callgrind")
    base = os.path.join(work, "xapian-base.callgrind")
    doubled(xapian, base)
    browser = devtools.Chromium(WIDTHS[0], HEIGHT)
    cases = [("sample", sample, None, False), ("lulesh", C("hpctoolkit/hpcviewer-main-issue-233"), None, False),
             ("cube80", need[1], None, False), ("xapian", xapian, base, False), ("pprof", need[3], None, False),
             ("sample", sample, None, True)]
    try:
        for name, path, b, report in cases:
            t0 = time.time()
            case = Case(browser, name, path, b, report)
            try:
                case.open()
                case.layout()
                if name == "sample":
                    url_state(case)
                if name == "xapian":
                    chains(case)
            except Exception as e:  # noqa: BLE001 — every case is tried
                check(False, "%s: %s: %s" % (case.tag, type(e).__name__, e))
            finally:
                case.close()
            print("%-14s %.1f s" % (case.tag, time.time() - t0), flush=True)
        no_rows(browser)
    finally:
        browser.close()
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


sys.exit(main())
