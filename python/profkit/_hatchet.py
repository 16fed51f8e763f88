"""profkit._hatchet - a profile's calling-context tree as a Hatchet GraphFrame
(profkit.to_hatchet). Imported only when asked for, so profkit needs no
Hatchet; uses Hatchet's public classes (Graph, Node, Frame, GraphFrame) the
way its own readers build them: one Node per context, the dataframe indexed
by node with a 'name' column and one inclusive and one exclusive column per
metric, summed over threads."""
import numpy as np
import pandas as pd


def graphframe(p, metrics=None):
    import hatchet as ht
    from hatchet.frame import Frame
    from hatchet.graph import Graph
    from hatchet.node import Node

    ctx = p.contexts
    if metrics is None:
        metrics = list(p.metrics["name"])
    nodes = [None] * len(ctx)
    roots = []
    # contexts are stored parents first (breadth-first): one linear pass
    parents = ctx["parent"].to_numpy()
    for i, (name, kind) in enumerate(zip(ctx["name"], ctx["kind"].astype(str))):
        par = nodes[parents[i]] if parents[i] >= 0 else None
        node = Node(Frame({"name": name, "type": kind}), parent=par, hnid=i,
                    depth=int(ctx["depth"].iat[i]))
        if par is None:
            roots.append(node)
        else:
            par.add_child(node)
        nodes[i] = node
    columns = {"node": nodes, "name": list(ctx["name"])}
    exc, inc = [], []
    for m in metrics:
        columns[f"{m} (inc)"] = p.values(m, "inclusive")
        columns[m] = p.values(m, "exclusive")
        inc.append(f"{m} (inc)")
        exc.append(m)
    df = pd.DataFrame(columns).set_index("node")
    gf = ht.GraphFrame(Graph(roots), df, exc, inc)
    if exc:
        gf.default_metric = exc[0]
    return gf
