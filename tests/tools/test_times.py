#!/usr/bin/env python3
"""Per-test CPU and wall time of the ctest suite, and `make check`'s wall on
two idle cores estimated from them (issue 34; the long tests' COST in
tests/CMakeLists.txt come from it).

    tests/tools/test_times.py [--build build] [-R REGEX] [-j 2] [--tsv out.tsv]
    tests/tools/test_times.py --from out.tsv            # summary of a saved run

The machine this project is built on is shared and loaded, so a test's wall
time says little about the 4-minute budget (issue 34). Each test runs alone
through `ctest -R '^NAME$'` in a cgroup v2 of its own when one can be made
(root, a writable cgroup2 mount): cpu.stat gives the CPU time of every
process the test started, daemons and servers included, and cpu.pressure
the time its tasks waited for a CPU. A test's wall on idle cores then lies
between wall - some-stall (every waiting task would have run) and
wall - full-stall (only the time no task of the test could run vanishes);
sleeps and waits stay in both. Without a cgroup, GNU time's user+sys of
waited-for children is used and the idle wall is taken as the CPU time.

The summary replays ctest -j2 on those idle walls: tests are started in
order of their COST property (what ctest does on a fresh clone, before
CTestCostData.txt exists), each on the first free slot, RESOURCE_LOCKs
honoured; the total CPU over two cores is the floor under any schedule.
"""
import argparse
import json
import os
import subprocess
import sys
import time

CG_ROOTS = ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")


def cgroup2_root():
    """A writable cgroup v2 mount, or None."""
    for root in CG_ROOTS:
        if os.path.exists(os.path.join(root, "cgroup.procs")) and \
           os.path.exists(os.path.join(root, "cpu.pressure")) and os.access(root, os.W_OK):
            return root
    return None


def list_tests(build, regex):
    """Names and properties of the tests, in ctest's declaration order."""
    cmd = ["ctest", "--show-only=json-v1"] + (["-R", regex] if regex else [])
    doc = json.loads(subprocess.run(cmd, cwd=build, check=True, capture_output=True,
                                    text=True).stdout)
    tests = []
    for t in doc["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append({"name": t["name"], "cost": float(props.get("COST", 0)),
                      "locks": props.get("RESOURCE_LOCK", []),
                      "procs": int(props.get("PROCESSORS", 1))})
    return tests


def read_kv(path):
    with open(path) as f:
        return {k: v for k, v in (line.split(None, 1) for line in f if line.strip())}


def pressure(path):
    """Total stall microseconds, some and full."""
    out = {}
    with open(path) as f:
        for line in f:
            kind, *fields = line.split()
            out[kind] = int(dict(x.split("=") for x in fields)["total"])
    return out.get("some", 0), out.get("full", 0)


def run_one(build, name, cgroot, logdir):
    """Run one test alone; its row."""
    log = open(os.path.join(logdir, name + ".log"), "w")
    cmd = ["ctest", "-R", "^%s$" % name, "--output-on-failure"]
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    if cgroot:
        cg = os.path.join(cgroot, "pk-times-%d-%s" % (os.getpid(), name))
        os.mkdir(cg)
        # The child enters the cgroup before it execs ctest.
        def enter():
            with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        rc = subprocess.run(cmd, cwd=build, stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=enter).returncode
        wall = time.monotonic() - t0
        stray = open(os.path.join(cg, "cgroup.procs")).read().split()
        st = read_kv(os.path.join(cg, "cpu.stat"))
        some, full = pressure(os.path.join(cg, "cpu.pressure"))
        if not stray:
            os.rmdir(cg)
        user, sys_ = int(st["user_usec"]) / 1e6, int(st["system_usec"]) / 1e6
        some, full = some / 1e6, full / 1e6
    else:
        tcmd = ["/usr/bin/time", "-f", "TIMES %U %S %e", "-o", log.name + ".time"] + cmd
        rc = subprocess.run(tcmd, cwd=build, stdout=log, stderr=subprocess.STDOUT).returncode
        wall = time.monotonic() - t0
        user, sys_ = map(float, open(log.name + ".time").read().split()[1:3])
        stray, some, full = [], wall - (user + sys_), wall - (user + sys_)
    text = open(log.name).read()
    status = "pass" if rc == 0 and "tests passed" in text else "FAIL"
    if "***Skipped" in text or "Not Run" in text:
        status = "skip"
    if stray:
        status += "+stray"
    cpu = user + sys_
    idle_hi = max(wall - full, cpu / 2)
    idle_lo = max(wall - some, cpu / 2)
    return {"name": name, "cpu": cpu, "user": user, "sys": sys_, "wall": wall,
            "some": some, "full": full, "idle_lo": idle_lo, "idle_hi": idle_hi,
            "status": status, "load": load}


def simulate(tests, rows, key, slots=2):
    """ctest -j SLOTS on the idle walls: start order by COST, then declaration."""
    dur = {r["name"]: r[key] for r in rows}
    order = sorted((t for t in tests if t["name"] in dur), key=lambda t: -t["cost"])
    free = [0.0] * slots
    lock_free = {}
    end = 0.0
    for t in order:
        s = min(range(slots), key=lambda i: free[i])
        start = max([free[s]] + [lock_free.get(lk, 0.0) for lk in t["locks"]])
        finish = start + dur[t["name"]]
        free[s] = finish
        for lk in t["locks"]:
            lock_free[lk] = finish
        end = max(end, finish)
    return end


def summary(tests, rows, out):
    rows = sorted(rows, key=lambda r: -r["cpu"])
    out.write("%-28s %8s %8s %8s %8s %6s  %s\n" %
              ("test", "cpu_s", "wall_s", "idle_lo", "idle_hi", "load", "status"))
    for r in rows:
        out.write("%-28s %8.1f %8.1f %8.1f %8.1f %6.1f  %s\n" %
                  (r["name"], r["cpu"], r["wall"], r["idle_lo"], r["idle_hi"],
                   r["load"], r["status"]))
    cpu = sum(r["cpu"] for r in rows)
    out.write("\n%d tests; CPU %.0f s (user %.0f, sys %.0f): %.0f s over 2 cores\n" %
              (len(rows), cpu, sum(r["user"] for r in rows), sum(r["sys"] for r in rows),
               cpu / 2))
    longest = max(rows, key=lambda r: r["idle_hi"])
    out.write("longest alone: %s %.0f-%.0f s idle\n" %
              (longest["name"], longest["idle_lo"], longest["idle_hi"]))
    lo, hi = simulate(tests, rows, "idle_lo"), simulate(tests, rows, "idle_hi")
    out.write("ctest -j2 on 2 idle cores, replayed in COST order: %.0f-%.0f s"
              " (floor: CPU/2 = %.0f s)\n" % (lo, hi, cpu / 2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("-R", dest="regex")
    ap.add_argument("-j", type=int, default=1, help="tests measured at a time")
    ap.add_argument("--tsv", help="also write the rows here")
    ap.add_argument("--from", dest="from_tsv", help="summarise a saved --tsv")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    tests = list_tests(build, a.regex)
    if a.from_tsv:
        with open(a.from_tsv) as f:
            head = f.readline().rstrip("\n").split("\t")
            rows = [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f]
        for r in rows:
            for k in head:
                if k not in ("name", "status"):
                    r[k] = float(r[k])
        summary(tests, rows, sys.stdout)
        return 0
    cgroot = cgroup2_root()
    logdir = os.path.join(build, "Testing", "times")
    os.makedirs(logdir, exist_ok=True)
    sys.stderr.write("measuring %d tests, %d at a time, %s\n" %
                     (len(tests), a.j, "in cgroups under " + cgroot if cgroot
                      else "with GNU time (no cgroup v2: idle wall = CPU)"))
    # Longest first when a cost is known, so -j keeps both slots busy.
    todo = sorted(tests, key=lambda t: -t["cost"])
    rows = []
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(a.j) as pool:
        for r in pool.map(lambda t: run_one(build, t["name"], cgroot, logdir), todo):
            sys.stderr.write("%-28s cpu %7.1f wall %7.1f idle %6.1f-%6.1f %s\n" %
                             (r["name"], r["cpu"], r["wall"], r["idle_lo"], r["idle_hi"],
                              r["status"]))
            rows.append(r)
    if a.tsv:
        keys = list(rows[0].keys())
        with open(a.tsv, "w") as f:
            f.write("\t".join(keys) + "\n")
            for r in rows:
                f.write("\t".join(str(r[k]) for k in keys) + "\n")
    summary(tests, rows, sys.stdout)
    return 0 if all(r["status"].startswith(("pass", "skip")) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
