"""tests/support/devtools.py — headless Chromium driven over the DevTools
protocol (CDP) for the browser tests (tests/flame, tests/view): start one
browser, open pages, evaluate JavaScript, send real mouse and key events,
take screenshots, and collect what the page reports as errors (uncaught
exceptions, console errors, failed loads).

Needs Debian's `chromium` and `python3-websocket`; `missing()` says which
is absent so a test can skip (exit 77) with the reason.
"""
import base64, json, os, shutil, signal, subprocess, tempfile, time, urllib.request

try:
    import websocket  # python3-websocket
except ImportError:
    websocket = None


def browser_path():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing():
    """The reason a browser test cannot run here, or None."""
    if websocket is None:
        return "python3-websocket missing"
    if not browser_path():
        return "chromium missing"
    return None


class Page:
    """One tab: commands answered in order, events kept for later checks."""

    def __init__(self, ws_url, on_close=None):
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.on_close = on_close
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg["result"]
            if "method" in msg:
                self.events.append(msg)

    def js(self, expr, wait=False):
        """The value of EXPR (awaited if it is a promise and WAIT)."""
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=wait)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr[:80], r["exceptionDetails"].get("exception", {}).get("description")))
        return r["result"].get("value")

    def wait_for(self, expr, timeout=10, what=None):
        end = time.time() + timeout
        while time.time() < end:
            v = self.js(expr)
            if v:
                return v
            time.sleep(0.05)
        raise AssertionError("timed out waiting for %s" % (what or expr))

    def navigate(self, url):
        self.call("Page.navigate", url=url)

    def click_at(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def click(self, selector):
        """A real click in the middle of the first element SELECTOR finds."""
        r = self.js("(function(){var e=document.querySelector(%s);if(!e)return null;e.scrollIntoView({block:'nearest'});"
                    "var r=e.getBoundingClientRect();return {x:r.x+r.width/2,y:r.y+r.height/2};})()" % json.dumps(selector))
        if not r:
            raise AssertionError("nothing to click: %s" % selector)
        self.click_at(r["x"], r["y"])

    def wheel(self, x, y, delta):
        self.call("Input.dispatchMouseEvent", type="mouseWheel", x=x, y=y, deltaX=0, deltaY=delta)

    def type_text(self, text):
        for ch in text:
            self.call("Input.dispatchKeyEvent", type="keyDown", text=ch, key=ch)
            self.call("Input.dispatchKeyEvent", type="keyUp", key=ch)

    def press(self, key, code=0):
        """A key without text (Enter: 13, Escape: 27, arrows: 37-40)."""
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code)

    def screenshot(self, path):
        # optimizeForSpeed: a faster PNG encoder, a larger file (the view's
        # tests take ~150 screenshots: 2 s less CPU)
        data = self.call("Page.captureScreenshot", format="png", optimizeForSpeed=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def errors(self):
        """What went wrong in the page: exceptions, console errors, error logs."""
        self.js("0")  # drain events that arrived since the last command
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s" % (d.get("exception", {}).get("description") or d.get("text")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", []))))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: %s %s" % (p["entry"].get("text"), p["entry"].get("url", "")))
            elif m == "Page.javascriptDialogOpening":
                out.append("dialog opened: %s" % p.get("message"))
        return out

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass
        if self.on_close:
            self.on_close()


class Chromium:
    """One headless browser for a whole test file (starting one is slow)."""

    def __init__(self, width=1300, height=400):
        self.profile_dir = tempfile.mkdtemp(prefix="pk-chromium-")
        self.proc = subprocess.Popen([browser_path(), "--headless=new", "--no-sandbox", "--disable-gpu",
                                      "--no-first-run", "--remote-debugging-port=0",
                                      "--disable-extensions", "--disable-background-networking",
                                      "--disable-component-update", "--disable-sync", "--mute-audio",
                                      "--disable-default-apps", "--disable-breakpad", "--no-default-browser-check",
                                      "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
                                      "--window-size=%d,%d" % (width, height), "--user-data-dir=" + self.profile_dir,
                                      "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        port_file = os.path.join(self.profile_dir, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        else:
            self.close()
            raise RuntimeError("chromium did not open its DevTools port")
        self.port = open(port_file).read().split()[0]

    def _targets(self):
        return json.load(urllib.request.urlopen("http://127.0.0.1:%s/json/list" % self.port))

    def first_page(self):
        """The tab the browser started with."""
        return self._enable(Page(next(t for t in self._targets() if t["type"] == "page")["webSocketDebuggerUrl"]))

    def new_page(self, width=None, height=None):
        req = urllib.request.Request("http://127.0.0.1:%s/json/new?about:blank" % self.port, method="PUT")
        target = json.load(urllib.request.urlopen(req))
        url = "http://127.0.0.1:%s/json/close/%s" % (self.port, target["id"])
        page = self._enable(Page(target["webSocketDebuggerUrl"], lambda: urllib.request.urlopen(url).read()))
        if width and height:
            page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        return page

    @staticmethod
    def _enable(page):
        for domain in ("Page", "Runtime", "Log"):
            page.call(domain + ".enable")
        return page

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._end_helpers()
        shutil.rmtree(self.profile_dir, ignore_errors=True)

    def _end_helpers(self):
        """Chromium's helper processes (network service, zygote) outlive the
        browser briefly and still write into the profile directory, which
        then survives rmtree in /tmp. They share the browser's session, so
        end the whole group and wait until it is gone."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for _ in range(50):
                try:
                    os.killpg(self.proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    return
                time.sleep(0.02)
