#!/usr/bin/env python3
"""bench/bench_view_page.py — how fast the `profkit view` page answers in a
real browser (headless Chromium over tests/support/devtools.py): the time
from opening the URL to the first screen (flat table and the tree with its
hot path expanded), from a click on a collapsed tree node to its children
on screen, and from a click on a flame frame to the zoomed graph. The
server is started on PATH (not counted: it opens the profile first).
Issue 24's targets for a 10^6-context profile: first screen <= 1 s,
expanding a node <= 100 ms.

Usage: bench_view_page.py PROFKIT PATH [RUNS]
(make a large profile with: build/pk-gen /tmp/big.d --profiles 8 --contexts 1000000)
"""
import os, select, signal, statistics, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
import devtools  # noqa: E402

profkit, path = sys.argv[1:3]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
why = devtools.missing()
if why:
    sys.exit("bench_view_page: " + why)

t0 = time.time()
server = subprocess.Popen([profkit, "view", path, "--port", "0"], stdout=subprocess.PIPE, text=True)
select.select([server.stdout], [], [], 600)
url = server.stdout.readline().strip()
opened = time.time() - t0
browser = devtools.Chromium(1400, 900)
first, expand, zoom = [], [], []
try:
    for _ in range(runs):
        page = browser.new_page(1400, 900)
        t = time.time()
        page.navigate(url)
        page.wait_for("document.body && document.body.dataset.ready", 60)
        first.append(time.time() - t)
        page.click("#tree-collapse")
        n = page.js("document.querySelectorAll('#tree-body .tnode[data-id]').length")
        target = page.js("(function(){var e=document.querySelector('#tree-body .tnode[aria-expanded=\"false\"]');"
                         "return e?e.getAttribute('data-id'):null})()")
        if target is not None:
            t = time.time()
            page.click('#tree-body .tnode[data-id="%s"] .tw' % target)
            page.wait_for("document.querySelectorAll('#tree-body .tnode[data-id]').length > %d" % n, 10)
            expand.append(time.time() - t)
        page.click("#tab-flame")
        page.wait_for("document.getElementById('pane-flame').dataset.state === 'ready'", 30)
        r = page.js("""(function(){var c=document.getElementById('flame-canvas').getBoundingClientRect();
            var rs=PK.flame.rects.filter(function(r){return !r.anc && r.f.parent && r.w < c.width-2 && r.w > 4});
            rs.sort(function(a,b){return b.w-a.w}); var r=rs[0];
            return r ? {name:r.name, x:c.left+r.x+2, y:c.top+r.y+r.h/2} : null})()""")
        if r:
            t = time.time()
            page.click_at(r["x"], r["y"])
            page.wait_for("document.getElementById('flame-canvas').dataset.zoomed !== ''", 30)
            zoom.append(time.time() - t)
        errors = page.errors()
        page.close()
        if errors:
            sys.exit("bench_view_page: the page reported errors: %s" % errors)
finally:
    browser.close()
    server.send_signal(signal.SIGINT)
    server.wait(timeout=30)


def ms(xs):
    return "median %6.1f ms  (min %.1f, max %.1f, %d runs)" % (
        1e3 * statistics.median(xs), 1e3 * min(xs), 1e3 * max(xs), len(xs)) if xs else "n/a"


print("profkit view %s" % path)
print("  server ready (opens the profile)  %.2f s" % opened)
print("  first screen (flat + hot tree)    %s" % ms(first))
print("  expand a tree node                %s" % ms(expand))
print("  zoom a flame frame (refetch)      %s" % ms(zoom))
