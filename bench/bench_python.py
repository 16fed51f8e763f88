"""bench/bench_python.py - one measurement of the Python package, in a fresh
process (so peak RSS is this job's): open a database, then either every
location's values of one metric into NumPy ("values") or every metric with
per-location inclusive values into a Hatchet-shaped DataFrame ("dataframe").
Prints one JSON line; bench/bench_python.sh runs it and makes the table.

    python3 bench/bench_python.py values|dataframe DATABASE
"""
import json
import resource
import sys
import time

import profkit


def rss_anon_mib():
    """Anonymous resident memory now (the mapped files aside), MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main():
    job, path = sys.argv[1], sys.argv[2]
    t0 = time.perf_counter()
    p = profkit.open(path, traces=False)
    t1 = time.perf_counter()
    anon_open, c1 = rss_anon_mib(), time.process_time()
    if job == "values":
        v = p.values(0, "inclusive", locations="all")
        n, nbytes = len(v.value), v.context.nbytes + v.location.nbytes + v.value.nbytes
    else:
        df = p.dataframe(scope="inclusive")
        n, nbytes = int(df.size), int(df.memory_usage(index=True, deep=False).sum())
    t2, c2 = time.perf_counter(), time.process_time()
    anon_after, counts = rss_anon_mib(), p._p.counts()
    print(json.dumps({
        "job": job, "open_s": t1 - t0, "work_s": t2 - t1, "total_s": t2 - t0, "n": n,
        "work_cpu_s": c2 - c1, "anon_after_open_mib": anon_open,
        "result_mib": nbytes / 2**20, "contexts": counts["contexts"],
        "locations": counts["locations"],
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_anon_mib": anon_after}))


if __name__ == "__main__":
    main()
