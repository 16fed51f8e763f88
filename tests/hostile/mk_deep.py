#!/usr/bin/env python3
"""tests/hostile/mk_deep.py — a profkit.model/1 JSON profile whose calling
context tree is one chain N deep (issue 19, class 4: every pass over a
tree must be linear, with no depth bound). Each context calls the next; a
function of the chain appears every F frames (so flat, callers and the
recursion handling see the same function many times on one path); every
context has an exclusive value of 1 on one thread.

Usage: mk_deep.py OUT.json N [F]
Standard library only; writes as it goes (N = 1,000,000 is ~250 MB).
"""
import sys

out, n = sys.argv[1], int(sys.argv[2])
nf = int(sys.argv[3]) if len(sys.argv) > 3 else 100

with open(out, 'w') as f:
    w = f.write
    w('{"schema": "profkit.model/1", "generator": "mk_deep.py",\n')
    w(' "profile": {"title": "deep chain", "description": null, "format": "json",'
      ' "format_version": [1, 0], "path": "deep", "reconstructed": false,'
      ' "trace_range": null, "sources": []},\n')
    w(' "identifier_kinds": ["THREAD"],\n "modules": [{"path": "/bin/deep"}],\n')
    w(' "files": [{"path": "deep.c", "flags": 0}],\n "functions": [')
    w(', '.join('{"name": "f%d", "module": 0, "offset": %d, "file": 0, "line": %d}'
                % (i, 16 * i, i + 1) for i in range(nf)))
    w('],\n "metrics": [{"name": "time", "description": null, "unit": "sec", "parent": null,'
      ' "combine": "sum", "flags": 0}],\n')
    w(' "scopes": [{"name": "exclusive", "kind": "exclusive", "raw_type": 3,'
      ' "propagation_index": 0}],\n')
    w(' "columns": [{"metric": 0, "scope": 0, "summary": false, "stat": "none",'
      ' "formula": null, "combine": "sum", "raw_id": 0}],\n')
    w(' "contexts": [{"id": 0, "parent": null, "kind": "root", "relation": "none",'
      ' "entry": "none", "entry_name": null, "flags": 0, "function": null, "file": null,'
      ' "line": 0, "module": null, "offset": 0, "propagation": 0, "raw": [0, 0, 0]}')
    for i in range(1, n + 1):
        w(',\n  {"id": %d, "parent": %d, "kind": "function", "relation": "call", "entry": "none",'
          ' "entry_name": null, "flags": 7, "function": %d, "file": 0, "line": %d, "module": 0,'
          ' "offset": %d, "propagation": 0, "raw": [0, 0, 0]}'
          % (i, i - 1, i % nf, i % nf + 1, 16 * (i % nf)))
    w('],\n "locations": [{"raw_index": 0, "summary": false, "trace": null, "ids": [{"kind": 0,'
      ' "name": "THREAD", "flags": 0, "logical": 0, "physical": 0}], "values": [')
    w(', '.join('[%d, 0, 1]' % i for i in range(1, n + 1)))
    w(']}],\n "traces": [], "attributes": [], "diagnostics": []\n}\n')
