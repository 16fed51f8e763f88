#!/usr/bin/env python3
"""bench/ab.py — the same job by several builds, runs interleaved.

    bench/ab.py [--idle SECONDS] RUNS "CMD1" "CMD2" ...

Runs each command RUNS times (plus one warm-up each, not counted), in
turn: CMD1, CMD2, ..., CMD1, CMD2, ... so that a machine whose speed
drifts (a shared or virtual one) slows every command alike. Prints, per
command, the median and minimum wall time and the median CPU time
(user + system of the child) in ms. Output of the commands is discarded.
Wrap a command in `chrt -f 50` to keep other jobs off its cores.

--idle SECONDS waits that long before every run, so that each starts on
memory the host has taken back (a VM with free page reporting: see
bench/README.md, "ab.py"), as a first run after another program does;
without it each run reuses what the run before freed.
"""
import resource
import shlex
import statistics
import subprocess
import sys
import time


def one(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(shlex.split(cmd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    return wall * 1e3, cpu * 1e3


def main():
    args, idle = sys.argv[1:], 0.0
    if len(args) >= 2 and args[0] == "--idle":
        idle, args = float(args[1]), args[2:]
    if len(args) < 2 or not args[0].isdigit():
        sys.exit(__doc__)
    runs, cmds = int(args[0]), args[1:]
    wall = [[] for _ in cmds]
    cpu = [[] for _ in cmds]
    for i in range(runs + 1):
        for k, c in enumerate(cmds):
            time.sleep(idle)
            w, u = one(c)
            if i:  # the first round warms the caches
                wall[k].append(w)
                cpu[k].append(u)
    for k, c in enumerate(cmds):
        print("wall med %8.1f min %8.1f  cpu med %8.1f ms | %s" %
              (statistics.median(wall[k]), min(wall[k]), statistics.median(cpu[k]), c))


if __name__ == "__main__":
    main()
