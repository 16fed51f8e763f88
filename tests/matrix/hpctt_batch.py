#!/usr/bin/env python3
"""HPCToolkit's own v4 reader (ref-tools' hpctesttool-totals) on a batch of
databases in one Python process (ref_hpctoolkit.py runs two of these beside
hpcviewer's JVM). It calls the tool's own main() once per database, with
the arguments `bin/hpctesttool-totals DB SOURCE_INFO` would pass, so the
verdicts are the tool's; only the interpreter start and the reader's import
are shared.

  hpctt_batch.py REFTOOLS BATCH.tsv    (lines: SOURCE_INFO.json<TAB>DB)

Prints one JSON line per database: {"db": DB, "rc": N, "out": "<the tool's
stdout>"}, or "error" when the tool raised (what its process would have
died of).

The v4 reader gets each file's bytes from memory (io.BytesIO of the whole
file) instead of the file: it seeks and reads per field, 2 system calls
each (8 million lseeks for 8 databases, most of its system time). It
reads the same bytes; only where they come from changes.
"""
import builtins
import contextlib
import io
import json
import os
import sys
import traceback


def main():
    reftools, batch = sys.argv[1], sys.argv[2]
    # bin/hpctesttool-totals runs Debian's /usr/bin/python3 on this file
    sys.path.insert(0, os.path.join(reftools, "hpctesttool"))
    import hpctesttool_totals as tool  # noqa: E402
    import hpctesttool.formats.v4 as v4  # noqa: E402

    def in_memory(path, mode="r", *args, **kwargs):
        if mode == "rb":
            with builtins.open(path, "rb") as f:
                return io.BytesIO(f.read())
        return builtins.open(path, mode, *args, **kwargs)

    v4.open = in_memory  # the module's open(), ahead of the builtin

    with open(batch) as f:
        jobs = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    for src_info, db in jobs:
        sys.argv = [tool.__file__, db, src_info]
        out = io.StringIO()
        res = {"db": db}
        try:
            with contextlib.redirect_stdout(out):
                res["rc"] = tool.main()
        except Exception:  # noqa: BLE001 — the tool's process would have died here
            res["rc"] = 2
            res["error"] = traceback.format_exc()[-600:]
        res["out"] = out.getvalue()
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
