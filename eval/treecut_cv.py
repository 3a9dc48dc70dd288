"""Cross-validation of the tree-cut combination segmenter (:mod:`webseg.treecut`) for
:mod:`eval.cv` (``--parts treecut``).

Per fold the q models (one per gold level) are fitted on the other three folds; the pair weight
``w`` of each level is chosen on the other folds (:func:`eval.cv.choose`), level 1 first, then
level 2 cut inside the chosen level-1 segments.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from webseg.treecut import base_labels, cut_labels, fit, prepare

WS = [0.5, 1.0, 2.0, 4.0, 8.0]
CS = [0.1, 1.0]


def run_treecut(items: Any, store: Any, res: Any, name: str = "treecut") -> None:
    from eval.cv import LEVELS, log

    ids = [it.id for it in items]
    preps = {it.id: prepare(it.page, base_labels(it.page)) for it in items}
    folds = sorted({it.fold for it in items})
    models: dict[tuple[int, float], Any] = {}
    t0 = time.perf_counter()
    for k in folds:
        tr = [it for it in items if it.fold != k and preps[it.id] is not None]
        for C in CS:
            models[(k, C)] = fit([preps[it.id] for it in tr],
                                 {lv: [it.gold[lv] for it in tr] for lv in LEVELS}, C=C)
    log(f"{name}: fitted {len(models)} models in {time.perf_counter() - t0:.0f} s")

    def labels_for(it: Any, C: float, lv: int, w: float, roots: np.ndarray | None = None
                   ) -> np.ndarray:
        from webseg.treecut import best_cut

        p = preps[it.id]
        if p is None:
            return np.zeros(len(it.gold[lv]), dtype=np.int64)
        m = models[(it.fold, C)]
        return best_cut(p.tree, m.gains(p.X, p.pairs, lv, w),
                        roots=None if roots is None else roots.tolist())

    # level 1: (C, w) on the other folds
    c1 = {(C, w): {i: np.asarray(labels_for(it, C, 1, w)) for i, it in zip(ids, items,
                                                                          strict=True)}
          for C in CS for w in WS}

    def lab(it: Any, cand: dict[str, np.ndarray]) -> np.ndarray:
        p = preps[it.id]
        if p is None:
            return np.zeros(len(it.gold[1]), dtype=np.int64)
        return cut_labels(p.tree, cand[it.id])

    l1 = res.add_chosen(name, 1, items, c1, lab)
    chosen1 = res.choices[f"{name} L1"]
    cut1 = {it.id: c1[tuple(chosen1[str(it.fold)])][it.id] for it in items}
    del l1
    c2 = {(C, w): {it.id: np.asarray(labels_for(it, C, 2, w, cut1[it.id])) for it in items}
          for C in CS for w in WS}
    res.add_chosen(name, 2, items, c2, lab)
    # level 2 cut on its own (not nested in level 1), for comparison
    c2f = {(C, w): {it.id: np.asarray(labels_for(it, C, 2, w)) for it in items}
           for C in CS for w in WS}
    res.add_chosen(f"{name}-flat2", 2, items, c2f, lab)
    log(f"{name}: done in {time.perf_counter() - t0:.0f} s")
