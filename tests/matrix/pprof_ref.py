"""Go's own pprof (`go tool pprof`) as the reference reader of pprof files.

What a profile.proto holds, as Go's profile package decodes it: `pprof
-raw` gives the sample types with their units and every sample's values
(the totals); `pprof -traces` every sample's stack, each frame named as
pprof names it (its function, else "[mapping file]" or "<unknown>").
From those this computes what a reader must show: per function the flat
and cumulative values (pprof's own rules: flat at the innermost frame of
the leaf, cum once per sample however often a function recurs), and per
calling path of function names the inclusive and self values. `-top` is
pprof's own aggregation, parsed for a cross-check of the top rows.

pprof's binary is called directly (`go tool -n pprof` names it: the go
command's start-up is most of a call) and several calls run at once.
Used by tests/pprof/check_pprof.py and the matrix's ref_pprof.py.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess

_TOOL = None


def tool():
    """pprof's binary, or None when Go is not installed."""
    global _TOOL
    if _TOOL is None:
        go = shutil.which("go")
        _TOOL = ""
        if go:
            r = subprocess.run([go, "tool", "-n", "pprof"], capture_output=True, text=True)
            if r.returncode == 0 and os.path.exists(r.stdout.strip()):
                _TOOL = r.stdout.strip()
    return _TOOL or None


def run(args):
    """pprof ARGS, never symbolizing from this machine's binaries. Go's
    collector runs at a quarter of its default pace (GOGC=400): a short
    run's memory is the profile's, and -raw of the biggest outputs spent
    a fifth of its CPU collecting."""
    env = dict(os.environ, PPROF_BINARY_PATH="/nonexistent", PPROF_TMPDIR="/tmp")
    env.setdefault("GOGC", "400")
    return subprocess.run([tool(), "-symbolize=none"] + args, capture_output=True, text=True,
                          errors="replace", env=env)


def run_many(jobs, workers=None):
    """Run several pprof calls at once: {key: CompletedProcess}."""
    workers = workers or max(2, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        futs = {k: ex.submit(run, args) for k, args in jobs.items()}
        return {k: f.result() for k, f in futs.items()}


# ---- -raw ----

LINE_RE = re.compile(r"^(.*) (\S*):(-?\d+)(?::\d+)? s=(-?\d+)(?:\((.*)\))?$")


class Raw:
    """A profile as `pprof -raw` prints it."""

    def __init__(self, text):
        self.types, self.units, self.samples, self.locations, self.mappings = [], [], [], {}, {}
        self.default = None
        section = None
        for ln in text.splitlines():
            if ln in ("Samples:", "Locations", "Mappings"):
                section = ln
                continue
            if section == "Samples:":
                self._sample_line(ln)
            elif section == "Locations":
                self._location_line(ln)
            elif section == "Mappings":
                self._mapping_line(ln)

    def _sample_line(self, ln):
        if not self.types:  # "type/unit[dflt] type/unit": a type may hold blanks
            for name, unit, dflt in re.findall(r" ?(.*?)/(\S*?)(\[dflt\])?(?= |$)", ln):
                if dflt:
                    self.default = name
                self.types.append(name)
                self.units.append(unit)
            return
        m = re.match(r"^\s*((?:-?\d+\s+)*-?\d+):\s*([\d ]*)$", ln)
        if m:
            vals = [int(x) for x in m.group(1).split()]
            self.samples.append({"values": vals, "locs": [int(x) for x in m.group(2).split()],
                                 "labels": ""})
        elif self.samples and ln.strip():
            self.samples[-1]["labels"] += ln.strip()

    def _location_line(self, ln):
        m = re.match(r"^\s*(\d+): (0x[0-9a-f]+)(?: M=(\d+))?\s?(.*)$", ln)
        if m:
            self._last = int(m.group(1))
            self.locations[self._last] = {"addr": int(m.group(2), 16),
                                          "mapping": int(m.group(3) or 0), "lines": []}
            rest = m.group(4)
        else:
            rest = ln.strip()
        if rest:
            lm = LINE_RE.match(rest)
            name = lm.group(1) if lm else rest
            self.locations[self._last]["lines"].append(name)

    def _mapping_line(self, ln):
        m = re.match(r"^(\d+): 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S*)", ln)
        if m:
            self.mappings[int(m.group(1))] = m.group(2)


def raw(path):
    r = run(["-raw", path])
    if r.returncode != 0:
        raise RuntimeError("pprof -raw %s: %s" % (path, r.stderr.strip()[-300:]))
    return Raw(r.stdout)


def totals(rw):
    return {t: sum(s["values"][i] for s in rw.samples) for i, t in enumerate(rw.types)}


# ---- -traces: every sample's stack, each frame named on a line of its own ----

# Units pprof scales for show (internal/measurement: bytes and time).
SCALED_UNITS = {"b", "byte", "kb", "mb", "gb", "tb", "pb", "ns", "nanosecond", "us", "\u03bcs",
                "microsecond", "ms", "millisecond", "s", "sec", "second", "hour", "hr"}


def unit_arg(unit):
    """Values in the unit written, not scaled to another for show (pprof
    would print 512.02kB, 1.10s); other units pprof prints as they are."""
    u = (unit or "").lower()
    known = u in SCALED_UNITS or (u.endswith("s") and u[:-1] in SCALED_UNITS)
    return ["-unit=%s" % unit] if known else []


def traces_args(path, index, unit):
    return ["-traces", "-sample_index=%d" % index] + unit_arg(unit) + [path]


def parse_traces(text):
    """[(value, [names root to leaf])] from pprof -traces: a sample's value
    on its leaf's line, one frame a line ("%10s   name"), " (inline)"
    taken off. -raw cannot say where a function's name ends and its file
    begins when both hold blanks; -traces names frames alone."""
    out, cur = [], None
    for ln in text.splitlines():
        if ln.startswith("-----------+"):
            cur = None
            continue
        if ln.startswith(" " * 13):  # a frame below the leaf
            m, name = None, ln[13:]
        else:  # the leaf, after its value (which may be wider than 10)
            m = re.match(r"^\s*(-?[\d.]+(?:e[-+]?\d+)?)[a-zA-Z\u00b5]*   (.*)$", ln)
            if not m:
                continue  # a label line ("    thread:  main") or the header
            name = m.group(2)
        if name.endswith(" (inline)"):
            name = name[:-9]
        if m:
            cur = (float(m.group(1)), [])
            out.append(cur)
        if cur is not None:
            cur[1].insert(0, name)
    return out


def traces(path, index, unit):
    r = run(traces_args(path, index, unit))
    if r.returncode != 0:
        raise RuntimeError("pprof -traces %s: %s" % (path, r.stderr.strip()[-300:]))
    return parse_traces(r.stdout)


def flat(tr):
    """{function: [flat, cum]} by pprof's rules, from parse_traces()."""
    out = {}
    for v, names in tr:
        if not names or not v:
            continue
        out.setdefault(names[-1], [0, 0])[0] += v
        for n in set(names):
            out.setdefault(n, [0, 0])[1] += v
    return out


def paths(tr):
    """{(names root to node): [inclusive, self]} from parse_traces()."""
    out = {}
    for v, names in tr:
        names = tuple(names)
        if not v:
            continue
        for k in range(1, len(names) + 1):
            out.setdefault(names[:k], [0, 0])[0] += v
        if names:
            out[names][1] += v
    return out


# ---- -top ----

NUM = r"(-?[\d.]+(?:e[-+]?\d+)?)([a-zA-Zµ]*)"
TOP_RE = re.compile(r"^\s*%s\s+[\d.]+%%\s+[\d.]+%%\s+%s\s+[\d.]+%%\s+(.*)$" % (NUM, NUM))


def top_args(path, index, unit):
    return ["-top", "-nodecount=0", "-nodefraction=0", "-edgefraction=0",
            "-sample_index=%d" % index] + unit_arg(unit) + [path]


def parse_top(text):
    """[(name, flat, cum)] in pprof's order; " (inline)" and
    " (partial-inline)" taken off the names."""
    rows = []
    for ln in text.splitlines():
        m = TOP_RE.match(ln)
        if m:
            name = re.sub(r" \((partial-)?inline\)$", "", m.group(5))
            rows.append((name, float(m.group(1)), float(m.group(3))))
    return rows


def top_flat(path, index, unit):
    """{function: [flat, cum]} as pprof's own -top aggregates them, or
    None when -top lists a name twice (one name in two files, or inlined
    and not): then only flat(traces()) tells them apart as profkit's rows
    by name do. -top prints a line per function, -traces a line per frame
    of every sample (1.9 million for a 100 000-context profile)."""
    r = run(top_args(path, index, unit))
    if r.returncode != 0:
        raise RuntimeError("pprof -top %s: %s" % (path, r.stderr.strip()[-300:]))
    out = {}
    for ln in r.stdout.splitlines():
        col = ln.split(None, 5)  # flat flat% sum% cum cum% name
        if len(col) < 6 or not all(c.endswith("%") for c in (col[1], col[2], col[4])):
            continue
        try:
            fl, cum = _top_value(col[0], unit), _top_value(col[3], unit)
        except ValueError:
            continue  # the header
        name = re.sub(r" \((partial-)?inline\)$", "", col[5])
        if name in out:
            return None
        out[name] = [fl, cum]
    return out


def _top_value(text, unit):
    """A -top value: the number with the unit written after it, which is
    the sample type's own unit when pprof does not scale it ("1e-3" as
    profkit writes a fraction: 1234 -> "12341e-3"), else a scaled unit's
    letters (unit_arg)."""
    if unit and not unit_arg(unit) and text.endswith(unit):
        return float(text[:-len(unit)])
    return float(re.sub(r"[a-zA-Z\u00b5]+$", "", text))


def by_name(rows):
    """profkit flat --json rows summed per function name: [exclusive,
    inclusive, contexts] (go tool pprof lists a function once)."""
    out = {}
    for r in rows:
        o = out.setdefault(r["name"], [0.0, 0.0, 0])
        o[0] += r["exclusive"]
        o[1] += r["inclusive"]
        o[2] += r.get("contexts", 1)
    return out
