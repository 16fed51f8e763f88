"""tests/matrix/known.py — deviations the matrix expects, each with why.

Two kinds:

- A class rule: a calling-context tree written as Callgrind whose functions
  call each other in a cycle (the Callgrind output's flat profile has a
  "<cycle N>" row): inclusive values of its cycle's members are the call
  graph's, not the tree's, and are noted, not failed (exclusive values and
  totals are still compared).

- A class rule: a Callgrind source whose own `profkit check` reports
  `calls-exceed-costs` says that its calls carry more cost than their
  callees spend. No calling-context tree can hold such costs (a context's
  inclusive value is the sum below it), so the reconstructed tree that a
  CCT format stores has smaller inclusive values than the call graph's;
  `profkit check` says by how much. Inclusive values of those sources that
  differ are noted, not failed, for the CCT writers (exclusive values and
  totals are still compared).

- Listed inputs whose values contradict themselves, so that no writer of
  the target format can reproduce what profkit shows for the source. An
  entry is strict: when its problems no longer appear the matrix fails
  with "known deviation not seen", so a fix removes the entry.
"""
import re

CCT_WRITERS = ("hpctoolkit", "cube", "pprof")

# (writer, input regex, problem regex, reason)
KNOWN = [
    ("callgrind", r"hpcviewer-2023\.01-xml_(inline\.xml\.db|bug-no-gpu-trace)$",
     r"^(function .* (exclusive|inclusive):|diff: function )",
     "legacy XML (experiment.xml) exclusive values are not additive: a procedure's "
     "exclusive value also counts its loops and inlined (alien) scopes, which carry "
     "the same cost again (inline.xml.db: f._omp_fn.0 and its <inline> scope both "
     "99.9%); a call graph needs self costs that add up, so per-function values "
     "differ while program totals agree"),
    ("callgrind", r"hpcviewer-2023\.01-xml_acc_f3$",
     r"^(function .* (exclusive|inclusive):|diff: function )",
     "legacy XML stores each value rounded to 6 significant digits, inclusive and "
     "exclusive separately, so they disagree by up to 1e-5 of a value (and a GPU "
     "metric's exclusive 0 is inclusive minus children = 10..20 ns); the call "
     "graph's self and call costs cannot match both"),
    ("callgrind", r"pycubexr-cube-values-alltypes_cube-values_example\.cubex$",
     r"^function 'main' metric 'UINT\d+' exclusive:",
     "the example's unsigned inclusive metrics give 'main' less inclusive value than "
     "its callees (exclusive -58); profkit shows the unsigned metric's exclusive "
     "clamped at 0, a call graph stores the signed self cost"),
    ("pprof", r"hpcviewer-2023\.01-xml_(inline\.xml\.db|bug-no-gpu-trace)$",
     r"^(reference: )?(function .*(exclusive|inclusive|: source)|diff: function )",
     "legacy XML (experiment.xml) exclusive values are not additive: a procedure's "
     "exclusive value also counts its loops and inlined (alien) scopes, which carry "
     "the same cost again; pprof samples hold values that add up (taken from the "
     "inclusive ones), so per-function values differ while program totals agree"),
    ("pprof", r"hpcviewer-2023\.01-xml_acc_f3$",
     r"^(reference: )?(function .*(exclusive|inclusive|: source)|diff: function )",
     "legacy XML stores each value rounded to 6 significant digits, inclusive and "
     "exclusive separately, so they disagree by up to 1e-5 of a value; samples taken "
     "from the inclusive values cannot match the exclusive ones too"),
    ("pprof", r"pycubexr-cube-values-alltypes_cube-values_example\.cubex$",
     r"^(reference: )?function 'main' metric 'UINT\d+'( exclusive)?:",
     "the example's unsigned inclusive metrics give 'main' less inclusive value than "
     "its callees (exclusive -58); profkit shows the unsigned metric's exclusive "
     "clamped at 0, a pprof sample holds the signed value (so totals stay exact)"),
]


def source_codes(run, pk, src):
    """Diagnostic codes of `profkit check --json SRC` (one JSON per line)."""
    import json
    r = run([pk, "check", "--json", src])
    codes = set()
    for line in r.stdout.splitlines():
        try:
            codes.add(json.loads(line).get("code"))
        except ValueError:
            pass
    return codes


def inclusive_comparable(writer, src_info, codes, out_cycles=False):
    """False (with why) when the source's inclusive values cannot survive."""
    if writer in CCT_WRITERS and src_info.get("reconstructed") and "calls-exceed-costs" in codes:
        return False, ("differ as the source warns: its calls carry more than their "
                       "callees spend (profkit check: calls-exceed-costs), which no "
                       "calling-context tree holds")
    if writer == "callgrind" and out_cycles and not src_info.get("reconstructed"):
        return False, ("differ where the source's functions call each other in a cycle "
                       "(mutual recursion; pprof's frames known only by their mapping, "
                       "[libc.so.6], are one function): a call graph gives a cycle "
                       "member's inclusive value as its self cost plus the calls leaving "
                       "the cycle (KCachegrind's rule) and a tree read back from it can "
                       "only apportion costs, where the source's tree counts each path")
    return True, None


def apply(writer, cell):
    """Moves the problems a KNOWN entry explains into cell['known']."""
    for w, inp, prob, why in KNOWN:
        if w != writer or not re.search(inp, cell["input"]):
            continue
        hit = [p for p in cell["problems"] if re.search(prob, p)]
        if not hit:
            cell["problems"].append("known deviation not seen (remove it from known.py): "
                                    + why[:80])
            continue
        cell["problems"] = [p for p in cell["problems"] if p not in hit]
        cell.setdefault("known", []).append("%d values: %s" % (len(hit), why))


def apply_reference(writer, cell, problems):
    """The reference readers' problems a KNOWN entry explains (its problem
    regex matching "reference: ..."), moved into cell['known']; returns
    the others."""
    left = list(problems)
    for w, inp, prob, why in KNOWN:
        if w != writer or not re.search(inp, cell["input"]):
            continue
        hit = [p for p in left if re.search(prob, p)]
        if hit:
            left = [p for p in left if p not in hit]
            cell.setdefault("known", []).append("%d reference values: %s" % (len(hit), why))
    return left
