"""Oracle ceilings of the segmenters' candidate spaces on a gold set (issue 17, item 1).

    python -m eval.oracle --data ../shared/data/segmentation/kreuzer-random \\
        --out eval/results/oracle

For every page and gold level, the best ARI reachable inside each candidate space:

* ``dom-cut``: any cut of the content tree (DOM nodes holding text; every text leaf under exactly
  one chosen node) - the space of :mod:`webseg.treecut`;
* ``vips-cut``: any cut of the VIPS block tree (``max_depth`` 8, ``pdoc`` 1.0: the deepest tree
  VIPS builds; a block that is split keeps its leaves outside all children as one more block);
* ``wps-graph``: any feasible labelling of the WPS-graph (dependencies respected), read as the
  segmenter reads it (finest segments);
* ``wps-graph-top``: the same labellings read as the two-level output's level 1 (the first split
  of the page), which is what ``wps-*`` reports at level 1;
* ``gcuts-labels``: GCuts gives each leaf one of the content tree's internal nodes as label and a
  segment is all leaves of one label (not necessarily contiguous), so every partition with at most
  as many parts as labels (capped at 400) is reachable: the ceiling is 1 on pages with enough
  labels (we report the share of such pages; the energy, not the label space, limits GCuts).

**Exact vs approximate.** Maximising ARI over a space is not decomposable; the weighted pair
agreement ``same - w * different`` (leaf pairs inside segments) is, so for the two cut spaces the
best cut for that objective is found *exactly* by dynamic programming, for ``w`` in
:data:`WS`, and we report the best ARI among those cuts: a *lower bound* on the ARI ceiling
(tight in practice: ``w`` = 1 is the exact Rand-index optimum). For the WPS-graph the projection
:func:`webseg.wps.gold.gold_boundary_labels` (exact ILP: the feasible labelling closest to the
gold boundary labels, a cut inside a gold block weighted ``n_weight``) is run for each
``n_weight`` in :data:`NWS` - again a lower bound.

Outputs: ``per_page.csv`` and ``summary.md`` (mean ceiling per space and level).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from eval.segmentation import write_csv
from webseg.datasets import DEFAULT_PAGE_CACHE, gold_labels, read_gold_pages, render_gold_pages
from webseg.metrics import segmentation_scores
from webseg.page import Page
from webseg.segmentation import Segmentation

WS = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
NWS = [0.5, 1.0, 2.0, 4.0]


def ari(gold: np.ndarray, pred: np.ndarray) -> float:
    return float(segmentation_scores(gold, pred, unassigned="background")["ari"])


def _pairs_gain(gold: np.ndarray, mask: np.ndarray, w: float) -> float:
    g = gold[mask]
    n = len(g)
    if n < 2:
        return 0.0
    _, c = np.unique(g, return_counts=True)
    same = float((c * (c - 1) // 2).sum())
    return same - w * (n * (n - 1) / 2 - same)


def seg_tree_cut(seg: Segmentation, gold: np.ndarray, w: float) -> np.ndarray:
    """Leaf labels of the best cut (pair objective, exact DP) of a segmentation's tree.

    Nodes: a virtual root (the page) and every segment; a split node keeps its leaves outside
    all of its children as one more segment.
    """
    leaves = seg.page.text_leaves
    n = len(leaves)
    masks: list[np.ndarray] = []
    kids: dict[int, list[int]] = {-1: []}
    for s in seg.segments:
        m = np.zeros(n, dtype=bool)
        for node in s.nodes:
            lo, hi = np.searchsorted(leaves, [node, seg.page.subtree_end[node]])
            m[lo:hi] = True
        masks.append(m)
        kids.setdefault(-1 if s.parent is None else s.parent, []).append(s.id)
        kids.setdefault(s.id, [])
    root_mask = np.ones(n, dtype=bool)

    def solve(v: int) -> tuple[float, list[np.ndarray]]:
        m = root_mask if v < 0 else masks[v]
        whole = _pairs_gain(gold, m, w)
        if not kids.get(v):
            return whole, [m]
        parts: list[np.ndarray] = []
        total = 0.0
        covered = np.zeros(n, dtype=bool)
        for c in kids[v]:
            sc, ps = solve(c)
            total += sc
            parts.extend(ps)
            covered |= masks[c]
        rest = m & ~covered
        if rest.any():
            total += _pairs_gain(gold, rest, w)
            parts.append(rest)
        return (whole, [m]) if whole >= total else (total, parts)

    _, parts = solve(-1)
    lab = np.full(n, -1, dtype=np.int64)
    for k, p in enumerate(parts):
        lab[p & (lab < 0)] = k
    return lab


def dom_cut_ceiling(page: Page, gold: np.ndarray) -> float:
    from webseg.graphseg.features import content_tree
    from webseg.treecut import best_cut, cut_labels, oracle_gain

    tree = content_tree(page)
    if tree is None:
        return float("nan")
    return max(ari(gold, cut_labels(tree, best_cut(tree, oracle_gain(tree, gold, w))))
               for w in WS)


def wps_ceilings(page: Page, gold: np.ndarray) -> tuple[float, float]:
    """(finest segments, top-level split) of the best feasible WPS labellings."""
    from webseg.wps.gold import gold_boundary_labels
    from webseg.wps.graph import build_graph
    from webseg.wps.segment import two_level

    graph = build_graph(page)
    if graph.n == 0:
        one = np.zeros(len(gold), dtype=np.int64)
        return ari(gold, one), ari(gold, one)
    fin, top = -1.0, -1.0
    for nw in NWS:
        y = gold_boundary_labels(graph, gold, n_weight=nw)
        seg = two_level(graph.to_segmentation(y))
        fin = max(fin, ari(gold, seg.leaf_labels(2)))
        top = max(top, ari(gold, seg.leaf_labels(1)))
    return fin, top


def gcuts_labels_ok(page: Page, gold: np.ndarray, cap: int = 400) -> float:
    from webseg.graphseg.features import content_tree

    tree = content_tree(page)
    n_labels = 0 if tree is None else min(cap, len(tree.internal))
    return float(n_labels >= len(np.unique(gold)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.oracle", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_PAGE_CACHE)
    args = ap.parse_args(argv)
    from webseg.segmenters import get_segmenter

    recs = read_gold_pages(args.data)
    rendered = render_gold_pages(recs, args.cache, 2, 60.0, progress=False)
    vips = get_segmenter("vips", max_depth=8, pdoc=1.0)
    rows = []
    for r in recs:
        page = rendered.get(r.id)
        if not isinstance(page, Page):
            continue
        vseg = vips.segment(page)
        for lv in (1, 2):
            gold = gold_labels(page, r.blocks, lv)[0]
            fin, top = wps_ceilings(page, gold)
            rows.append({"page": r.id, "level": lv,
                         "dom-cut": dom_cut_ceiling(page, gold),
                         "vips-cut": max(ari(gold, seg_tree_cut(vseg, gold, w)) for w in WS),
                         "wps-graph": fin, "wps-graph-top": top,
                         "gcuts-labels": gcuts_labels_ok(page, gold)})
        print(f"oracle: {r.id}", file=sys.stderr, flush=True)
    spaces = ["dom-cut", "vips-cut", "wps-graph", "wps-graph-top", "gcuts-labels"]
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(args.out / "per_page.csv", rows, ["page", "level", *spaces])
    lines = [f"# Candidate-space ceilings on {args.data.name} ({len(rows) // 2} pages)", "",
             f"Command: `python -m eval.oracle {' '.join(sys.argv[1:] if argv is None else argv)}`",
             "", "Mean best ARI reachable (lower bounds, see `eval/oracle.py`); "
             "`gcuts-labels` = share of pages whose label set can express the gold partition.",
             "", "| level | " + " | ".join(spaces) + " |",
             "|---:|" + "---:|" * len(spaces)]
    for lv in (1, 2):
        sel = [x for x in rows if x["level"] == lv]
        lines.append(f"| {lv} | " + " | ".join(
            f"{np.nanmean([x[s] for x in sel]):.3f}" for s in spaces) + " |")
    (args.out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
