"""Go's own pprof (`go tool pprof`) as the reference reader of pprof files.

What a profile.proto holds, as Go's profile package decodes it, comes from
`pprof -raw` (every sample with its location ids and labels, every
location with its lines, every mapping); from that this computes what a
reader must show: per sample type the total, per function the flat and
cumulative values (pprof's own rules: flat at the innermost line of the
leaf location, cum once per sample however often a function recurs), and
per calling path of function names the inclusive and self values. `-top`
is pprof's own aggregation, parsed for a cross-check of the top rows.

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
    """pprof ARGS, never symbolizing from this machine's binaries."""
    env = dict(os.environ, PPROF_BINARY_PATH="/nonexistent", PPROF_TMPDIR="/tmp")
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

    def frame_names(self, loc_id):
        """The functions of a location, outermost first, as pprof names
        them: its lines' functions; without a line or a function name,
        "[mapping file]" or "<unknown>"."""
        loc = self.locations[loc_id]
        f = self.mappings.get(loc["mapping"])
        nameless = "[%s]" % os.path.basename(f) if f else "<unknown>"  # NodeInfo.NameComponents
        return [n or nameless for n in reversed(loc["lines"])] or [nameless]

    def stack(self, sample):
        """A sample's names from the root to the leaf."""
        out = []
        for lid in reversed(sample["locs"]):
            out.extend(self.frame_names(lid))
        return out


def raw(path):
    r = run(["-raw", path])
    if r.returncode != 0:
        raise RuntimeError("pprof -raw %s: %s" % (path, r.stderr.strip()[-300:]))
    return Raw(r.stdout)


def totals(rw):
    return {t: sum(s["values"][i] for s in rw.samples) for i, t in enumerate(rw.types)}


def flat(rw, index):
    """{function: [flat, cum]} of sample type `index`, by pprof's rules."""
    out = {}
    for s in rw.samples:
        v = s["values"][index]
        names = rw.stack(s)
        if not names or not v:
            continue
        out.setdefault(names[-1], [0, 0])[0] += v
        for n in set(names):
            out.setdefault(n, [0, 0])[1] += v
    return out


def paths(rw, index):
    """{(names root to node): [inclusive, self]} of sample type `index`."""
    out = {}
    for s in rw.samples:
        v = s["values"][index]
        names = tuple(rw.stack(s))
        if not v:
            continue
        for k in range(1, len(names) + 1):
            out.setdefault(names[:k], [0, 0])[0] += v
        if names:
            out[names][1] += v
    return out


# ---- -top ----

UNIT_WORDS = {"nanoseconds": "ns", "microseconds": "us", "milliseconds": "ms", "seconds": "s",
              "bytes": "B"}
NUM = r"(-?[\d.]+(?:e[-+]?\d+)?)([a-zA-Zµ]*)"
TOP_RE = re.compile(r"^\s*%s\s+[\d.]+%%\s+[\d.]+%%\s+%s\s+[\d.]+%%\s+(.*)$" % (NUM, NUM))


def top_args(path, sample_type, unit):
    args = ["-top", "-nodecount=0", "-nodefraction=0", "-edgefraction=0",
            "-sample_index=%s" % sample_type]
    if unit in UNIT_WORDS:
        args.append("-unit=%s" % UNIT_WORDS[unit])
    return args + [path]


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
