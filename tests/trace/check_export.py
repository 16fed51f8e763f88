#!/usr/bin/env python3
"""tests/trace/check_export.py — `profkit convert --to chrome` against
`profkit trace --json`, to the nanosecond.

For each database (and each selection given) the export is read back with
Python's own JSON parser (timestamps kept as text, so no float rounds
them) and checked as Perfetto and chrome://tracing need it:
- one JSON object with traceEvents, displayTimeUnit "ns" and otherData
  holding the absolute origin; a process_name per pid, a thread_name per
  thread; every event's pid/tid announced;
- per thread, timestamps never go backwards in file order, every E closes
  the innermost open B of the same name, nothing is left open, no frame
  has zero length;
and what the events say equals what `profkit trace --json` says for the
same selection:
- per thread, the time with a frame open is the location's running_ns;
- per function (name, module, file, line), the time it is innermost and
  the time it is open at all (once however often it is on the stack)
  summed over threads are its time_ns and inclusive_ns.
With --speedscope MODULES the same export is loaded by speedscope's own
importer (speedscope_import.mjs) and its per-thread totals and frames
compared the same way (exit 77 when node or the package is missing).

Usage: check_export.py PROFKIT WORK [--speedscope DIR] DB[@SEL] ...
  SEL: trace options separated by ';', e.g. "--location=rank=0;--from=1s"
"""
import collections, gzip, json, os, subprocess, sys

FRAME = collections.namedtuple("FRAME", "name module file line")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(*args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("%s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr))
    return r.stdout


def ns(text):
    """Microseconds with three decimals, as text, to integer nanoseconds."""
    whole, _, frac = text.partition(".")
    assert len(frac) <= 3, text
    return int(whole) * 1000 + int((frac + "000")[:3])


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=str, parse_int=str)


def walk(doc, label):
    """Per thread: running ns and per-frame self/inclusive ns."""
    ev = doc["traceEvents"]
    procs = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    state = {}
    for e in ev:
        if e["ph"] not in "BE":
            continue
        key = (e["pid"], e["tid"])
        if key not in threads or e["pid"] not in procs:
            return fail("%s: thread %s has events but no thread_name/process_name" % (label, key))
        st = state.setdefault(key, {"stack": [], "t": None, "run": 0, "self": collections.Counter(),
                                    "incl": collections.Counter(), "opened": []})
        t = ns(e["ts"])
        if st["t"] is not None:
            if t < st["t"]:
                return fail("%s: thread %s goes back in time at %s" % (label, key, e["ts"]))
            d = t - st["t"]
            if st["stack"]:
                st["run"] += d
                st["self"][st["stack"][-1]] += d
                for f in set(st["stack"]):
                    st["incl"][f] += d
        st["t"] = t
        if e["ph"] == "B":
            a = e["args"]
            st["stack"].append(FRAME(e["name"], a["module"], a["file"], int(a["line"])))
            st["opened"].append(t)
        else:
            if not st["stack"] or st["stack"][-1].name != e["name"]:
                return fail("%s: thread %s: E %r at %s does not close the innermost open frame"
                            % (label, key, e["name"], e["ts"]))
            st["stack"].pop()
            if st["opened"].pop() == t:
                return fail("%s: thread %s: a frame of no length at %s" % (label, key, e["ts"]))
    for key, st in state.items():
        if st["stack"]:
            fail("%s: thread %s ends with %d frames open" % (label, key, len(st["stack"])))
    return state


def compare(doc, answer, label):
    other = doc["otherData"]
    if doc.get("displayTimeUnit") != "ns" or int(other["origin_ns"]) != answer["begin_ns"]:
        fail("%s: displayTimeUnit or origin_ns wrong: %s" % (label, other))
    if int(other["from_ns"]) != answer["from_ns"] or int(other["to_ns"]) != answer["to_ns"]:
        fail("%s: the export's window is not the answer's" % label)
    state = walk(doc, label)
    if state is None:
        return None
    running = {l["index"]: l["running_ns"] for l in answer["locations"]}
    for (pid, tid), st in state.items():
        if st["run"] != running.get(int(tid)):
            fail("%s: thread %s runs %d ns in the export, %s in profkit trace"
                 % (label, tid, st["run"], running.get(int(tid))))
    busy = {int(tid) for (_, tid), st in state.items() if st["run"]}
    for i, r in running.items():
        if r and i not in busy:
            fail("%s: location %d runs %s ns but has no events" % (label, i, r))
    self_t, incl_t = collections.Counter(), collections.Counter()
    for st in state.values():
        self_t.update(st["self"])
        incl_t.update(st["incl"])
    want_self, want_incl = collections.Counter(), collections.Counter()
    for f in answer["functions"]:
        k = FRAME(f["name"], f["module"], f["file"], f["line"])
        want_self[k] += f["time_ns"]
        want_incl[k] += f["inclusive_ns"]
    for k in set(want_self) | set(self_t):
        if self_t[k] != want_self[k] or incl_t[k] != want_incl[k]:
            fail("%s: %s: self %d / inclusive %d ns in the export, %s / %s in profkit trace"
                 % (label, k.name, self_t[k], incl_t[k], want_self[k], want_incl[k]))
    return state


def merged(answer):
    """profkit trace's functions by speedscope's frame key (name and args),
    as (self ns, inclusive ns): two functions alike in all four are one frame."""
    out = {}
    for f in answer["functions"]:
        args = json.dumps({"module": f["module"], "file": f["file"], "line": f["line"]},
                          separators=(",", ":"), ensure_ascii=False)
        key = "%s %s" % (f["name"], args)
        s, i = out.get(key, (0, 0))
        out[key] = (s + f["time_ns"], i + f["inclusive_ns"])
    return out


def speedscope_check(modules, path, answer, label, profkit, db, sel):
    here = os.path.dirname(os.path.abspath(__file__))
    out = run("node", os.path.join(here, "speedscope_import.mjs"), modules, path)
    ss = json.loads(out)
    bad = [w for w in ss["warnings"] if not w.endswith(" instead.") or "Doing nothing" in w]
    if bad:
        fail("%s: speedscope warned: %s" % (label, bad[:3]))
    running = {l["index"]: l["running_ns"] for l in answer["locations"]}
    want = merged(answer)
    total_self = collections.Counter()
    threads = []
    for p in ss["profiles"]:
        tid = int(p["name"].rsplit("(tid ", 1)[1].rstrip(")"))
        got = round(p["non_idle"] * 1000)
        if p["unit"] != "microseconds" or got != running.get(tid):
            fail("%s: speedscope says thread %d ran %s ns, profkit trace %s"
                 % (label, tid, got, running.get(tid)))
        for fr in p["frames"]:
            if fr["key"] not in want:
                fail("%s: speedscope frame %r is no function of profkit trace" % (label, fr["key"]))
            total_self[fr["key"]] += fr["self"]
        threads.append((got, tid, p))
    for key, (self_ns, _) in want.items():
        if round(total_self[key] * 1000) != self_ns:
            fail("%s: %s: speedscope self %s ns, profkit trace %s" %
                 (label, key, round(total_self[key] * 1000), self_ns))
    # the hottest frames of the busiest threads, against trace --location '#N'
    for _, tid, p in sorted(threads, key=lambda x: (-x[0], x[1]))[:4]:
        mine = merged(json.loads(run(profkit, "trace", "--json", *sel, "--location=#%d" % tid, db)))
        top = sorted(((v[0], v[1]) for v in mine.values() if v[0]), reverse=True)[:5]
        hot = sorted(p["frames"], key=lambda fr: -fr["self"])[:len(top)]
        have = sorted(((round(fr["self"] * 1000), round(fr["total"] * 1000)) for fr in hot),
                      reverse=True)
        by_key = {fr["key"]: fr for fr in p["frames"]}
        same = all(k in by_key and round(by_key[k]["self"] * 1000) == v[0] and
                   round(by_key[k]["total"] * 1000) == v[1] for k, v in mine.items())
        if have != top or not same:
            fail("%s: thread %d's hottest frames: speedscope %s, profkit trace %s"
                 % (label, tid, have, top))
    return len(ss["profiles"])


def main():
    profkit, work = sys.argv[1:3]
    rest = sys.argv[3:]
    modules = None
    if rest and rest[0] == "--speedscope":
        modules, rest = rest[1], rest[2:]
    os.makedirs(work, exist_ok=True)
    for n, spec in enumerate(rest):
        db, _, sel = spec.partition("@")
        sel = [s for s in sel.split(";") if s]
        label = os.path.basename(db.rstrip("/")) + (" " + " ".join(sel) if sel else "")
        answer = json.loads(run(profkit, "trace", "--json", *sel, db))
        out = os.path.join(work, "export-%d.chrome.json.gz" % n)
        conv = [s.replace("--to=", "--until=") for s in sel]
        run(profkit, "convert", "-q", "-f", db, "--to", "chrome", "-o", out, *conv)
        doc = load(out)
        state = compare(doc, answer, label)
        msg = "%s: %d threads, %d functions" % (label, len(state or {}), len(answer["functions"]))
        if modules:
            msg += ", speedscope read %d profiles" % speedscope_check(modules, out, answer, label,
                                                                     profkit, db, sel)
        print(msg)
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)


main()
