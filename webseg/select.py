"""Per-page level-1 selector: run several segmenters, predict which one the page's gold prefers.

Why: at Kreuzer gold level 1 every page is all or nothing (a page the gold keeps whole scores 0
for any split; splitting a two-block page one level too deep drops it to ~0.1), and VIPS and the
tree cut fail on *different* pages (Kreuzer's pages: per-page best of the two is 0.776 against 0.698
for VIPS alone). The decision that loses is page-level - how many top-level blocks - so it is
made here at page level, from features that need no gold:

* per candidate: its number of segments, the leaf share of its largest segment, the entropy of
  its segment sizes, its unassigned share;
* agreement: the ARI of the candidate with every other candidate (mean, and with ``vips`` /
  ``dom`` level 1 and 2 and ``blockfusion``), since a segmentation that several independent
  algorithms roughly agree on is more often the gold's;
* page: number of text leaves, content-tree size and depth, the tree-cut model's predicted
  same-block fraction at the root (how "whole" the page looks to it);
* which candidate it is (one-hot).

Candidates are ``vips`` and ``dom`` level 1 and the tree cut read at its *first split* (the
coarsest cut with >= 2 segments over a grid of pair weights ``w``) and a few grid steps finer,
so the tree cut's granularity is chosen per page. A :class:`SelectModel` picks one: ``fixed``
(one candidate for every page, chosen on the training pages) or ``ridge`` (the candidate with the
highest predicted level-1 ARI from the features above). In 4-fold CV no learned per-page
choice beat ``fixed`` / ``split+0`` (``eval/results/cv`` section 5), so the shipped model is
that, with the two refinements below (section 6).

Two refinements of that reading (``eval/select_whole.py``, ``eval/results/cv`` section 6):

* **keep the page whole** (:data:`WHOLE_RULES`, :func:`keep_whole`): the first split always
  cuts, while the gold keeps some pages as one level-1 block (any split scores ~0 there); the
  shipped rule is ``vips``: level 1 is the whole page when VIPS returns one level-1 segment
  (level 2 stays the tree cut's, inside the first split);
* **a level-1 q trained for the first split** (``SelectModel.q1``): a logistic model of "all of
  the node's leaves are in one gold level-1 block" (the node's children are not separated at
  level 1) instead of the same-block pair fraction - at small pair weights the cut then keeps
  exactly the maximal one-block nodes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from webseg.page import Page

__all__ = ["SPLIT_STEPS", "SPLIT_WS", "WHOLE_RULES", "SelectModel", "ari", "candidate_labels",
           "candidate_names", "keep_whole", "page_features", "segment", "split_cuts",
           "split_margin", "whole_features"]

MODELS_DIR = Path(__file__).resolve().parent / "models"

#: Pair weights scanned for the tree cut's first split (geometric, coarse to fine).
SPLIT_WS = tuple(float(x) for x in np.exp(np.linspace(np.log(0.05), np.log(32.0), 29)))
#: Tree-cut candidates: the first cut with >= 2 segments, and ``d`` grid steps finer.
SPLIT_STEPS = (0, 2, 4)
#: Agreement references (keys of :func:`webseg.treecut.base_labels`).
REFS = ("vips1", "vips2", "dom1", "dom2", "blockfusion1")


def candidate_names(steps: Sequence[int] = SPLIT_STEPS) -> list[str]:
    return ["vips1", "dom1", *(f"split+{d}" for d in steps)]


def _codes(labels: np.ndarray) -> np.ndarray:
    return np.unique(np.asarray(labels, dtype=np.int64), return_inverse=True)[1].reshape(-1)


def ari(a: np.ndarray, b: np.ndarray) -> float:
    """Adjusted Rand index of two leaf labellings (-1 is one more cluster, as the scores do)."""
    a, b = _codes(a), _codes(b)
    n = a.size
    if n < 2:
        return 1.0
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    cont = np.zeros((ka, kb), dtype=np.float64)
    np.add.at(cont, (a, b), 1.0)

    def c2(x: np.ndarray) -> float:
        return float((x * (x - 1) / 2).sum())

    s_ab, s_a, s_b = c2(cont), c2(cont.sum(1)), c2(cont.sum(0))
    tot = n * (n - 1) / 2
    exp = s_a * s_b / tot
    mx = (s_a + s_b) / 2
    if mx == exp:
        return 1.0
    return (s_ab - exp) / (mx - exp)


def split_cuts(tree: Any, pairs: np.ndarray, q1: np.ndarray, steps: Sequence[int] = SPLIT_STEPS
               ) -> tuple[dict[int, np.ndarray], float]:
    """Level-1 tree cuts ``d`` grid steps after the first ``w`` of :data:`SPLIT_WS` whose cut
    has >= 2 segments (the coarsest non-trivial cut), and that ``w`` (inf: never splits).

    Why: a fixed ``w`` leaves a third of the Kreuzer pages whole or over-split; the page's
    own first split is the granularity the level-1 gold most often has.
    """
    from webseg.treecut import best_cut

    out: dict[int, np.ndarray] = {}
    first = None
    for i, w in enumerate(SPLIT_WS):
        if first is not None and i - first not in steps:
            if i - first > max(steps):
                break
            continue
        cut = best_cut(tree, pairs * (q1 * (1 + w) - w))
        if first is None and len(cut) >= 2:
            first = i
        if first is not None and i - first in steps:
            out[i - first] = cut
    for d in steps:  # past the end of the grid: the finest cut reached
        if first is not None and d not in out:
            out[d] = out[max(k for k in out if k < d)]
    return out, (SPLIT_WS[first] if first is not None else float("inf"))


def candidate_labels(tree: Any, pairs: np.ndarray, q1: np.ndarray,
                     bases: dict[str, np.ndarray], steps: Sequence[int] = SPLIT_STEPS
                     ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], float]:
    """Level-1 leaf labels of every candidate (``q1``: the level-1 tree-cut model's q), the
    content-tree cut of each tree-cut candidate, and the first-split ``w``. A page the tree
    cut never splits gets VIPS for its split candidates (and no cut)."""
    from webseg.treecut import cut_labels

    cuts, w_split = split_cuts(tree, pairs, q1, steps)
    out = {"vips1": np.asarray(bases["vips1"]), "dom1": np.asarray(bases["dom1"])}
    tcuts: dict[str, np.ndarray] = {}
    for d in steps:
        if d in cuts:
            tcuts[f"split+{d}"] = cuts[d]
            out[f"split+{d}"] = cut_labels(tree, cuts[d])
        else:
            out[f"split+{d}"] = np.asarray(bases["vips1"])
    return out, tcuts, w_split


# ---------------------------------------------------------------------- keep the page whole
#: Rules for keeping a page whole instead of taking its first split (``eval/select_whole.py``):
#: ``none``; ``vips`` (VIPS returns one level-1 segment); ``wsplit`` (the first-split weight,
#: log w, >= t; a page never split counts as log w = 99); ``margin`` (the root's split advantage
#: at w = 1 per root pair, :func:`split_margin`, <= -t); ``vips|wsplit``.
WHOLE_RULES = ("none", "vips", "wsplit", "margin", "vips|wsplit")
NEVER_SPLIT = 99.0


def split_margin(tree: Any, gain: np.ndarray) -> float:
    """(sum of the root's children's best sub-cut gains) - (root gain): > 0 iff the best cut
    under ``gain`` splits the root."""
    g = np.where(tree.is_leaf, 0.0, np.asarray(gain, dtype=np.float64))
    split = np.zeros(tree.n)
    for v in range(tree.n - 1, 0, -1):
        split[tree.parent[v]] += g[v] if tree.is_leaf[v] else max(g[v], split[v])
    return float(split[0] - g[0])


def whole_features(tree: Any, pairs: np.ndarray, q1: np.ndarray, w_split: float,
                   vips1: np.ndarray, margin: bool = True) -> dict[str, float]:
    """What the keep-whole rules read: ``log_w`` (first-split weight), ``margin`` (root split
    advantage at w = 1 per root pair; NaN unless ``margin``: one more pass over the tree),
    ``vips_whole`` (1.0 iff VIPS gives one segment)."""
    nv = len(set(np.asarray(vips1).tolist()) - {-1})
    m = (split_margin(tree, pairs * (2 * q1 - 1)) / max(float(pairs[0]), 1.0) if margin
         else float("nan"))
    return {"log_w": float(np.log(w_split)) if np.isfinite(w_split) else NEVER_SPLIT,
            "margin": m, "vips_whole": float(nv <= 1)}


def keep_whole(rule: str, t: float | None, f: dict[str, float]) -> bool:
    """Whether ``rule`` with threshold ``t`` (None: no threshold) keeps the page whole."""
    if rule not in WHOLE_RULES:
        raise ValueError(f"unknown keep-whole rule {rule!r} ({', '.join(WHOLE_RULES)})")
    tt = np.inf if t is None else t
    if rule in ("vips", "vips|wsplit") and f["vips_whole"]:
        return True
    if rule in ("wsplit", "vips|wsplit"):
        return f["log_w"] >= tt
    if rule == "margin":
        return -f["margin"] >= tt
    return False


def _own(lab: np.ndarray) -> list[float]:
    lab = np.asarray(lab)
    n = max(lab.size, 1)
    un = float((lab < 0).mean()) if lab.size else 0.0
    assigned = lab[lab >= 0]
    if assigned.size:
        _, cnt = np.unique(assigned, return_counts=True)
        sh = cnt / n
        k = len(cnt)
        ent = float(-(sh / sh.sum() * np.log(sh / sh.sum())).sum())
        big = float(sh.max())
    else:
        k, ent, big = 0, 0.0, 0.0
    return [np.log1p(k), float(k <= 1), float(k == 2), big, ent, un]


OWN_FEATURES = ["log_segments", "one_segment", "two_segments", "largest_share", "entropy",
                "unassigned"]
PAGE_FEATURES = ["log_leaves", "log_nodes", "max_depth", "q_root", "vips1_segments",
                 "dom1_segments", "log_w_split"]


def feature_names(names: Sequence[str]) -> list[str]:
    return [*OWN_FEATURES, "agree_mean", "agree_max", *(f"agree_{r}" for r in REFS),
            *PAGE_FEATURES, *(f"is_{c}" for c in names)]


def page_features(cands: dict[str, np.ndarray], bases: dict[str, np.ndarray], tree: Any,
                  q1: np.ndarray, w_split: float) -> np.ndarray:
    """One row per candidate (in ``cands`` order): see :func:`feature_names`."""
    names = list(cands)
    n_leaves = len(tree.leaves)
    nseg = {r: len(set(np.asarray(bases[r]).tolist()) - {-1}) for r in ("vips1", "dom1")}
    page = [np.log1p(n_leaves) / 5, np.log1p(tree.n) / 5, float(tree.depth.max(initial=0)) / 10,
            float(q1[0]), np.log1p(nseg["vips1"]), np.log1p(nseg["dom1"]),
            float(np.log(min(w_split, 64.0)))]
    M = np.eye(len(names))
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            M[i, j] = M[j, i] = ari(cands[names[i]], cands[names[j]])
    rows = []
    for i, c in enumerate(names):
        others = [M[i, j] for j in range(len(names)) if j != i]
        agree = [ari(cands[c], bases[r]) for r in REFS]
        onehot = [float(c == d) for d in names]
        rows.append([*_own(cands[c]), float(np.mean(others)), float(np.max(others)), *agree,
                     *page, *onehot])
    return np.asarray(rows, dtype=np.float64)


# ---------------------------------------------------------------------- shipped model
MODEL_SCHEMA = "webseg.select.model"
MODEL_VERSION = 1


@dataclass
class SelectModel:
    """Which candidate a page gets: ``fixed`` (always ``choice``) or ``ridge`` (the candidate
    with the highest predicted level-1 ARI, a ridge model over :func:`page_features`).

    ``whole`` / ``whole_t``: keep-whole rule (:data:`WHOLE_RULES`) and its threshold, applied
    when a tree-cut candidate is chosen (level 1 = the whole page, level 2 unchanged);
    ``q1``: the level-1 tree-cut ``q`` used for the split scan (a
    :class:`webseg.graphseg.learn.Logistic` dict; None = the tree-cut model's own level-1 q).
    """

    kind: str
    candidates: list[str]
    choice: str | None = None
    ridge: dict[str, Any] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    whole: str = "none"
    whole_t: float | None = None
    q1: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("fixed", "ridge"):
            raise ValueError(f"unknown selector kind {self.kind!r} (fixed or ridge)")
        if self.kind == "fixed" and self.choice not in self.candidates:
            raise ValueError(f"fixed choice {self.choice!r} is not a candidate")
        if self.kind == "ridge" and self.ridge is None:
            raise ValueError("a ridge selector needs its coefficients")
        if self.whole not in WHOLE_RULES:
            raise ValueError(f"unknown keep-whole rule {self.whole!r}")

    def q_model(self, treecut: Any) -> Any:
        """The level-1 q of the split scan: this model's own, or the tree-cut model's."""
        from webseg.graphseg.learn import Logistic

        return Logistic.from_dict(self.q1) if self.q1 is not None else treecut.q[1]

    def pick(self, cands: dict[str, np.ndarray], bases: dict[str, np.ndarray], tree: Any,
             q1: np.ndarray, w_split: float) -> str:
        if self.kind == "fixed":
            assert self.choice is not None
            return self.choice
        X = page_features(cands, bases, tree, q1, w_split)
        return list(cands)[int(np.argmax(self.scores(X)))]

    def scores(self, X: np.ndarray) -> np.ndarray:
        """Predicted level-1 ARI of every candidate row of :func:`page_features` (ridge)."""
        if self.ridge is None:
            raise ValueError("only a ridge selector scores candidates")
        r = self.ridge
        if r.get("interact"):
            lo = feature_names(self.candidates).index(PAGE_FEATURES[0])
            X = interact(X, len(self.candidates), len(PAGE_FEATURES), lo)
        z = ((X - np.asarray(r["mean"])) / np.asarray(r["scale"])) @ np.asarray(r["coef"])
        return z + float(r["intercept"])

    def to_dict(self) -> dict[str, Any]:
        return {"schema": MODEL_SCHEMA, "version": MODEL_VERSION, "kind": self.kind,
                "candidates": self.candidates, "features": feature_names(self.candidates),
                "split_ws": list(SPLIT_WS), "split_steps": list(SPLIT_STEPS),
                "choice": self.choice, "ridge": self.ridge, "whole": self.whole,
                "whole_t": self.whole_t, "q1": self.q1, "info": self.info}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path | None = None) -> SelectModel:
        path = Path(path) if path else MODELS_DIR / "select.json"
        if not path.is_file():
            raise FileNotFoundError(f"selector model {path} not found; train it with python -m "
                                    "eval.select_whole --data DIR --rows oof --ship FILE")
        d = json.loads(path.read_text(encoding="utf-8"))
        if d.get("schema") != MODEL_SCHEMA or d.get("version") != MODEL_VERSION:
            raise ValueError(f"{path} is not a selector model of version {MODEL_VERSION}")
        if (d.get("candidates") != candidate_names() or d.get("split_ws") != list(SPLIT_WS)
                or d.get("features") != feature_names(d["candidates"])):
            raise ValueError(f"{path}: its candidates or features differ from this webseg's; "
                             "retrain it")
        return cls(d["kind"], d["candidates"], d.get("choice"), d.get("ridge"),
                   d.get("info", {}), d.get("whole", "none"), d.get("whole_t"), d.get("q1"))


def interact(X: np.ndarray, n_cands: int, n_page: int, page_lo: int) -> np.ndarray:
    """X plus every page feature times every candidate one-hot (per-candidate page effects)."""
    P = X[:, page_lo:page_lo + n_page]
    H = X[:, -n_cands:]
    return np.concatenate([X, (P[:, :, None] * H[:, None, :]).reshape(len(X), -1)], 1)


def segment(page: Page, model: SelectModel, treecut: Any, name: str = "select") -> Any:
    """Two-level segmentation of ``page`` by the selected candidate.

    A tree-cut candidate gets the tree cut's level-2 cut inside its level-1 segments (as
    ``treecut`` does); ``vips`` / ``dom`` keep their own two levels.
    """
    from webseg.segmentation import Segmentation
    from webseg.segmenters import get_segmenter
    from webseg.treecut import BASE_PARAMS, BASES, best_cut, cut_segmentation, prepare

    segs: dict[str, Any] = {}
    bases: dict[str, np.ndarray] = {}
    for b in dict.fromkeys(b for b, _ in BASES):
        segs[b] = get_segmenter(b, **BASE_PARAMS.get(b, {})).segment(page)
        for bb, lv in BASES:
            if bb == b:
                bases[f"{b}{lv}"] = segs[b].leaf_labels(lv)
    prep = prepare(page, bases)
    if prep is None:
        return Segmentation(page, [], name, {})
    q1 = model.q_model(treecut).predict(prep.X)
    cands, cuts, w_split = candidate_labels(prep.tree, prep.pairs, q1, bases)
    choice = model.pick(cands, bases, prep.tree, q1, w_split)
    params: dict[str, Any] = {"choice": choice,
                              "w_split": w_split if np.isfinite(w_split) else None}
    whole = choice.startswith("split") and model.whole != "none" and keep_whole(
        model.whole, model.whole_t,
        whole_features(prep.tree, prep.pairs, q1, w_split, bases["vips1"],
                       margin=model.whole == "margin"))
    if whole or choice in cuts:
        # level 2 inside the first-split cut whether or not level 1 keeps the page whole
        root = np.array([0], dtype=np.int64)
        c1 = cuts.get(choice, root)
        c2 = best_cut(prep.tree, treecut.gains(prep.X, prep.pairs, 2), roots=c1.tolist())
        params["whole"] = whole
        return cut_segmentation(page, prep.tree, root if whole else c1, c2, name, params)
    src = segs["dom" if choice == "dom1" else "vips"]
    if choice.startswith("split"):
        params["choice"] = "vips1"  # the tree cut never splits this page
    return Segmentation(page, list(src.segments), name, params)
