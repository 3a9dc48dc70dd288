"""Train WPS feature weights with a structural SVM (Bing et al., SIGIR 2014, Section 6).

    python -m webseg.wps.train margin --data ../shared/data/segmentation/kreuzer-random \\
        --out webseg/models
    python -m webseg.wps.train slack --data ../shared/data/segmentation/kreuzer-random \\
        --out webseg/models

Pages are split by :func:`webseg.datasets.select_split`: weights are learned on ``train``,
the trade-off ``C`` is chosen on ``val`` (best mean adjusted Rand index at gold level
``--level``, scored exactly as ``python -m eval.segmentation`` scores:
``webseg.metrics.segmentation_scores`` with unassigned leaves as one background cluster,
predicted labels at the same level), ``test`` is never read.
There is no randomness: the same data gives the same model file.

**Weights.** With ``Psi(b_i, c) = phi_i (x) Lambda(c)`` only ``v = w_Y - w_N`` enters the ILP
(:mod:`webseg.wps.features`), so we learn ``v`` (length d) directly, with the joint feature map
``psi(C) = sum_{i: C(b_i) = Y} phi_i``; since the norm-minimal ``(w_Y, w_N)`` for a given ``v``
is ``(v/2, -v/2)`` with ``||w||^2 = ||v||^2 / 2``, this is the paper's problem with ``C`` scaled
by 2. Features are standardised with the mean and standard deviation of the training
boundaries (the bias column is kept at 1); both are stored in the model.

**Training labels.** ``gold_boundary_labels(graph, gold_labels(page, blocks, level))``
(:mod:`webseg.wps.gold`, :mod:`webseg.datasets`) with the default ILP projection onto feasible
labellings; ``level`` defaults to 2 (the finer Kreuzer blocks, ~16 per page, closest to the
paper's annotation granularity; it is also the level the GCuts/CClus models are trained for).
Pages without candidate boundaries add no constraint.

**Algorithm 2 (n-slack cutting plane).** For every training page in turn: find the most
violated labelling ``C^`` (loss-augmented inference), compute the page's current slack
``xi_i = max(0, max_{C in S_i} H(C))``; when ``H(C^) > xi_i + eps`` add ``C^`` to ``S_i`` and
re-solve the QP over all working sets. Stop when a full pass adds nothing or after
``max_iter`` passes. ``eps`` = 0.1 as in the paper. The oracles solve their ILPs with
:func:`webseg.wps.inference.infer_dp` (the same optimum as the LP, orders of magnitude faster).

* Margin re-scaling (Eq. 20, Hamming loss Eq. 24): ``H(C) = Delta(C_i, C) - <dPsi_i(C), w>``,
  maximised exactly by :func:`webseg.wps.inference.infer_dp` on
  :func:`~webseg.wps.inference.loss_augmented_scores` (Eqs. 26-29).
* Slack re-scaling (Eq. 19, informative-boundary loss Eq. 22):
  ``H(C) = (1 - <dPsi_i(C), w>) Delta(C_i, C)``; see :func:`slack_most_violated` for the search
  (Proposition 1) and :func:`informative_boundaries` for the proper informative boundaries.

Both kinds of constraint have the form ``<a_k, w> >= b_k - xi_i`` (slack re-scaling: multiply
``<dPsi, w> >= 1 - xi/Delta`` by ``Delta``: ``a = Delta dPsi``, ``b = Delta``).

**The QP** over the working sets is solved in its dual,
``max_alpha sum_k alpha_k b_k - 1/2 ||sum_k alpha_k a_k||^2`` subject to ``alpha >= 0`` and
``sum_{k in S_i} alpha_k <= C/N`` per page, by SMO-style pairwise coordinate ascent
(:func:`solve_dual`): each page gets a dummy variable that absorbs the unused budget, so every
page's variables lie on a simplex, and the maximal-violating pair of a page is optimised in
closed form until the KKT gap is below a tolerance. Warm-started from the previous solution.
``w = sum_k alpha_k a_k``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from webseg.datasets import (
    DEFAULT_PAGE_CACHE,
    gold_labels,
    read_gold_pages,
    render_gold_pages,
    select_split,
)
from webseg.page import Page
from webseg.wps.features import BOUNDARY_FEATURES, LOCAL_FEATURES, boundary_features
from webseg.wps.gold import gold_boundary_labels
from webseg.wps.graph import WPSGraph, build_graph
from webseg.wps.inference import infer_dp, loss_augmented_scores
from webseg.wps.model import MODELS_DIR, WPSModel, feature_columns, fit_scaling
from webseg.wps.segment import segment_page

__all__ = ["CS", "DEFAULT_FEATURES", "FEATURE_SETS", "LOSSES", "MODELS_DIR", "Example",
           "PageRecord", "WPSModel", "cutting_plane", "fit", "load_records", "make_examples",
           "train", "validate"]

#: C grid of the validation sweep (the objective weighs the slacks by C / N, N = training pages;
#: the paper fixes C = 1). On kreuzer-random validation ARI peaks at C = 0.01 and falls beyond;
#: larger C was explored separately (C = 3, 10, 30, 100 with at most 15 passes: lower still,
#: ``eval/results/wps/c-sweep-large``) and makes Algorithm 2 much slower (more passes, larger
#: QPs), so the default grid stops at 1.
CS = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
LOSSES = ("margin", "slack")
#: Named feature sets (``--features``): all features, or the local ones only (no context).
FEATURE_SETS = {"all": BOUNDARY_FEATURES, "local": LOCAL_FEATURES}
#: Feature set of the shipped models and the default of training: the context features did not
#: raise validation ARI for either loss (ablation in ``eval/results/wps``), so they are opt-in
#: (``--features all``).
DEFAULT_FEATURES = LOCAL_FEATURES


# ---------------------------------------------------------------------- examples
@dataclass
class Example:
    """One training page: its WPS-graph, standardised features, gold labels (and B_info)."""

    id: str
    graph: WPSGraph
    X: np.ndarray
    y: np.ndarray
    info: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def edges(self) -> np.ndarray:
        return self.graph.edges


def psi(X: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Joint feature map in difference form: ``sum of phi_i over Y boundaries``."""
    return X[np.asarray(labels, dtype=bool)].sum(0)


def hamming(y: np.ndarray, c: np.ndarray) -> float:
    """Hamming loss (Eq. 24)."""
    return float(np.count_nonzero(np.asarray(y, bool) != np.asarray(c, bool)))


def info_loss(y: np.ndarray, c: np.ndarray, info: np.ndarray) -> float:
    """Informative-boundary loss (Eq. 22): ``exp(fraction of B_info mislabelled)``, 1 if empty."""
    if len(info) == 0:
        return 1.0
    wrong = np.count_nonzero(np.asarray(y, bool)[info] != np.asarray(c, bool)[info])
    return float(np.exp(wrong / len(info)))


def margin_most_violated(ex: Example, w: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``argmax_C Delta_H(C_i, C) + F(C)``: (labelling, loss, H)."""
    f = ex.X @ w
    c = infer_dp(ex.graph, loss_augmented_scores(f, ex.y)).labels
    loss = hamming(ex.y, c)
    return c, loss, loss - float(w @ (psi(ex.X, ex.y) - psi(ex.X, c)))


def _forced(f: np.ndarray, idx: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Scores that force ``x[idx] = want`` in the ILP (a big bonus / penalty on those vertices)."""
    g = f.copy()
    big = 1e3 * (1.0 + float(np.abs(f).sum()))
    g[idx] = np.where(want, big, -big)
    return g


def slack_most_violated(ex: Example, w: np.ndarray, n_levels: int = 12, exact_max: int = 6
                        ) -> tuple[np.ndarray | None, float, float]:
    """Approximate ``argmax_{C != C_i} (1 - <dPsi_i(C), w>) Delta(C_i, C)`` (Eq. 23).

    Proposition 1: the maximiser is ``C*`` (the unconstrained optimum of ``F``) or, for a set
    ``B'`` of proper informative boundaries larger than the set ``C*`` gets wrong, the best
    labelling with exactly ``B'`` wrong. With at most ``exact_max`` proper informative
    boundaries every ``B'`` is enumerated (one ILP each, the labels of ``B_info`` forced), which is
    exact. Beyond, enumerating is exponential, so (as the paper's "subset of possible loss value
    levels") we enumerate loss levels through a bonus
    ``lam`` per wrong informative boundary: ``argmax F(C) + lam * #wrong(C)`` is one ILP
    (:func:`~webseg.wps.inference.loss_augmented_scores` on ``B_info`` only) and, as ``lam``
    grows, its solutions are the points of the upper concave hull of (wrong count, best F).
    ``lam`` runs over ``n_levels`` values geometrically spaced between 1e-3 and 1e3 times the
    mean absolute score, plus 0 (``C*``) and "force all wrong". With ``B_info`` empty (or when
    every candidate equals ``C_i``) the loss is constant (1) for all ``C != C_i``, so the most
    violated labelling is the best ``C != C_i``: found by forcing each boundary in turn to its
    wrong label (one ILP per boundary, at most 50 boundaries with the smallest ``|f|``).

    Returns (labelling or None when none differs from the gold, loss, H).
    """
    y = ex.y
    f = ex.X @ w
    base = float(psi(ex.X, y) @ w)
    cands: list[np.ndarray] = [infer_dp(ex.graph, f).labels]
    info = ex.info
    if 0 < len(info) <= exact_max:
        for bits in itertools.product((False, True), repeat=len(info)):
            wrong = np.array(bits, dtype=bool)
            if wrong.any():
                cands.append(infer_dp(ex.graph, _forced(f, info, y[info] ^ wrong)).labels)
    elif len(info):
        mag = float(np.mean(np.abs(f))) if len(f) else 1.0
        mag = mag if mag > 0 else 1.0
        sign = np.where(y[info], -1.0, 1.0)
        for lam in mag * np.geomspace(1e-3, 1e3, n_levels):
            g = f.copy()
            g[info] += lam * sign
            cands.append(infer_dp(ex.graph, g).labels)
        cands.append(infer_dp(ex.graph, _forced(f, info, ~y[info])).labels)
    best: tuple[np.ndarray | None, float, float] = (None, 1.0, -np.inf)

    def consider(c: np.ndarray) -> None:
        nonlocal best
        if np.array_equal(c, y):
            return
        d = info_loss(y, c, info)
        h = (1.0 - (base - float(f[c].sum()))) * d
        if h > best[2]:
            best = (c, d, h)

    for c in cands:
        consider(c)
    if best[0] is None and ex.graph.n:
        order = np.argsort(np.abs(f), kind="stable")[:50]
        for v in order:
            consider(infer_dp(ex.graph, _forced(f, np.array([v]), np.array([not y[v]]))).labels)
    return best


# ---------------------------------------------------------------------- QP
def solve_dual(K: np.ndarray, b: np.ndarray, groups: np.ndarray, cap: float,
               alpha: np.ndarray | None = None, tol: float = 1e-6, max_steps: int = 200_000
               ) -> np.ndarray:
    """``max_a b.a - a.K.a / 2`` s.t. ``a >= 0``, ``sum_{k: groups[k] = g} a_k <= cap``.

    SMO-style: each group gets a dummy variable (zero row of ``K``, zero ``b``) so that the
    group's variables sum to ``cap``; repeatedly, in the group with the largest KKT violation,
    mass moves from the variable with the smallest gradient (among the positive ones) to the one
    with the largest, by the closed-form optimal step. Stops when every group's gap
    ``max grad - min_{a>0} grad`` is below ``tol * max(1, max |b|)``.
    """
    m = len(b)
    gid, g_real = np.unique(groups, return_inverse=True)
    G = len(gid)
    # extended problem: m real variables, then one dummy per group; sorted by group
    g_of = np.concatenate([g_real.ravel(), np.arange(G)])
    order = np.argsort(g_of, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(g_of[order]) != 0])
    a = np.zeros(m + G)
    if alpha is not None and len(alpha):
        a[:len(alpha)] = np.maximum(alpha, 0.0)
    used = np.bincount(g_of[:m], weights=a[:m], minlength=G)
    a[m:] = np.maximum(cap - used, 0.0)
    Kx = np.zeros((m + G, m + G))
    Kx[:m, :m] = K
    bx = np.concatenate([b, np.zeros(G)])
    grad = bx - Kx @ a
    thr = tol * max(1.0, float(np.abs(b).max(initial=0.0)))
    for _ in range(max_steps):
        gs = grad[order]
        up = np.maximum.reduceat(gs, starts)
        low = np.minimum.reduceat(np.where(a[order] > 1e-15, gs, np.inf), starts)
        gap = up - low
        k = int(np.argmax(gap))
        if not gap[k] > thr:
            break
        idx = order[starts[k]:(starts[k + 1] if k + 1 < G else len(order))]
        u = idx[int(np.argmax(grad[idx]))]
        pos = idx[a[idx] > 1e-15]
        lo = pos[int(np.argmin(grad[pos]))]
        q = Kx[u, u] + Kx[lo, lo] - 2 * Kx[u, lo]
        t = a[lo] if q <= 1e-12 else min(a[lo], (grad[u] - grad[lo]) / q)
        a[u] += t
        a[lo] -= t
        grad -= t * (Kx[:, u] - Kx[:, lo])
    return np.maximum(a[:m], 0.0)


def dual_objective(K: np.ndarray, b: np.ndarray, alpha: np.ndarray) -> float:
    return float(b @ alpha - 0.5 * alpha @ K @ alpha)


# ---------------------------------------------------------------------- Algorithm 2
@dataclass
class TrainReport:
    passes: int = 0
    constraints: int = 0
    converged: bool = False
    seconds: float = 0.0
    primal: float = float("nan")
    dual: float = float("nan")

    def as_dict(self) -> dict[str, Any]:
        return {"passes": self.passes, "constraints": self.constraints,
                "converged": self.converged, "seconds": round(self.seconds, 2),
                "primal": round(self.primal, 6), "dual": round(self.dual, 6)}


def cutting_plane(examples: Sequence[Example], C: float, loss: str = "margin",
                  eps: float = 0.1, max_iter: int = 100, verbose: bool = False
                  ) -> tuple[np.ndarray, TrainReport]:
    """Algorithm 2 (n-slack): learn ``v`` on ``examples``; returns (weights, report)."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    t0 = time.perf_counter()
    exs = [e for e in examples if e.graph.n]
    if not exs:
        raise ValueError("no training page has a candidate boundary")
    d = exs[0].X.shape[1]
    N = len(exs)
    cap = C / N
    w = np.zeros(d)
    A = np.zeros((0, d))
    b = np.zeros(0)
    grp = np.zeros(0, dtype=np.int64)
    K = np.zeros((0, 0))
    alpha = np.zeros(0)
    rep = TrainReport()
    for it in range(max_iter):
        added = 0
        for i, ex in enumerate(exs):
            if loss == "margin":
                c, lval, h = margin_most_violated(ex, w)
                if c is None:
                    continue
                a_new, b_new = psi(ex.X, ex.y) - psi(ex.X, c), lval
            else:
                c, lval, h = slack_most_violated(ex, w)
                if c is None:
                    continue
                a_new, b_new = lval * (psi(ex.X, ex.y) - psi(ex.X, c)), lval
            mine = grp == i
            xi = max(0.0, float(np.max(b[mine] - A[mine] @ w, initial=0.0)))
            if h > xi + eps:
                A = np.vstack([A, a_new])
                b = np.append(b, b_new)
                grp = np.append(grp, i)
                k_new = A @ a_new
                K = np.block([[K, k_new[:-1, None]], [k_new[None, :-1], k_new[-1:, None]]])
                alpha = solve_dual(K, b, grp, cap, np.append(alpha, 0.0))
                w = A.T @ alpha
                added += 1
        rep.passes = it + 1
        if verbose:
            print(f"  pass {it + 1}: +{added} constraints ({len(b)} in all)", file=sys.stderr)
        if not added:
            rep.converged = True
            break
    rep.constraints = len(b)
    rep.dual = dual_objective(K, b, alpha)
    slacks = [max(0.0, float(np.max(b[grp == i] - A[grp == i] @ w, initial=0.0)))
              for i in range(N)]
    rep.primal = 0.5 * float(w @ w) + cap * sum(slacks)
    rep.seconds = time.perf_counter() - t0
    return w, rep


# ---------------------------------------------------------------------- informative segment
#: Kreuzer block types that hold a page's main content, in order of preference.
INFORMATIVE_TYPES = ("Article", "Content")


def informative_block(page: Page, blocks: Sequence[dict[str, Any]]) -> int | None:
    """Node id of the page's informative segment from Kreuzer gold blocks, or None.

    The informative segment is the gold block of type ``Article`` or ``Content`` (any level)
    with the most visible text; ties go to the shallower level, then to document order. Pages
    without such a block (index-like pages) have none, and their loss is 1 (Eq. 22).
    """
    best: tuple[int, int, int] | None = None  # (chars, -level, -node)
    node_of = None
    for blk in blocks:
        if blk.get("type") not in INFORMATIVE_TYPES:
            continue
        node = page.find_xpath(blk["xpath"])
        if node is None:
            continue
        key = (int(page.text_length[node]), -int(blk.get("level", 1)), -node)
        if key[0] > 0 and (best is None or key > best):
            best, node_of = key, node
    return node_of


def informative_boundaries(graph: WPSGraph, y: np.ndarray, node: int | None) -> np.ndarray:
    """Proper informative boundaries (Definitions 2-3, Section 3.3) of a gold labelling ``y``.

    The informative segment is represented by the text leaves under DOM node ``node``. A
    boundary is *inside* it when both of its sides contain only informative leaves, *outside*
    otherwise. Informative boundaries: outside ones whose gold is Y and that touch the segment
    (one side has informative leaves) - they delimit it - and inside ones whose gold is N -
    splitting it would over-segment it. Proper ones (Definition 3): an outside informative
    boundary on which no other outside *informative* boundary directly depends, and an inside
    informative boundary that directly depends on a proper outside one. Returns sorted vertex
    ids (empty without an informative segment).
    """
    page = graph.page
    if node is None or graph.n == 0:
        return np.zeros(0, dtype=np.int64)
    leaves = page.text_leaves
    lo, hi = np.searchsorted(leaves, [node, page.subtree_end[node]])
    inf_leaf = np.zeros(len(leaves), dtype=bool)
    inf_leaf[lo:hi] = True
    if not inf_leaf.any():
        return np.zeros(0, dtype=np.int64)
    n_inf = np.zeros(len(graph.regions), dtype=np.int64)
    n_all = np.zeros(len(graph.regions), dtype=np.int64)
    cs = np.concatenate([[0], np.cumsum(inf_leaf)])
    for reg in graph.regions:
        for r in reg.items:
            a, z = np.searchsorted(leaves, [r, page.subtree_end[r]])
            n_inf[reg.id] += cs[z] - cs[a]
            n_all[reg.id] += z - a
    o, bf = graph.before, graph.after
    pure = (n_inf == n_all) & (n_all > 0)
    inside = pure[o] & pure[bf]
    touch = (n_inf[o] > 0) | (n_inf[bf] > 0)
    y = np.asarray(y, dtype=bool)
    out_info = ~inside & touch & y
    in_info = inside & ~y
    dependents: list[list[int]] = [[] for _ in range(graph.n)]
    for j, ds in enumerate(graph.deps):
        for i in ds:
            dependents[i].append(j)
    proper_out = np.array([bool(out_info[i]) and not any(out_info[j] for j in dependents[i])
                           for i in range(graph.n)], dtype=bool)
    proper_in = np.array([bool(in_info[j]) and any(proper_out[i] for i in graph.deps[j])
                          for j in range(graph.n)], dtype=bool)
    return np.flatnonzero(proper_out | proper_in).astype(np.int64)


# ---------------------------------------------------------------------- data, validation
@dataclass
class PageRecord:
    id: str
    page: Page
    blocks: list[dict[str, Any]]
    gold: np.ndarray


def load_records(data: Path, split: str, level: int, cache: Path) -> list[PageRecord]:
    """Rendered pages of one split with their gold blocks and leaf labels at ``level``."""
    recs = read_gold_pages(data)
    keep = set(select_split([r.id for r in recs], split))
    recs = [r for r in recs if r.id in keep]
    rendered = render_gold_pages(recs, cache, 2, 60.0, progress=False)
    out = []
    for r in recs:
        p = rendered.get(r.id)
        if not isinstance(p, Page):
            print(f"train: skipping {r.id}: {p}", file=sys.stderr)
            continue
        out.append(PageRecord(r.id, p, r.blocks, gold_labels(p, r.blocks, level)[0]))
    return out


def make_examples(records: Sequence[PageRecord], loss: str = "margin",
                  features: Sequence[str] = DEFAULT_FEATURES
                  ) -> tuple[list[Example], np.ndarray, np.ndarray]:
    """Graphs, raw features and gold labels -> standardised examples, (mean, scale).

    Only the columns of ``features`` (a subset of :data:`BOUNDARY_FEATURES`) are kept.
    """
    cols = feature_columns(features)
    graphs = [build_graph(r.page) for r in records]
    ctx = any(f not in LOCAL_FEATURES for f in features)
    raw = [boundary_features(g, context=ctx)[:, cols] for g in graphs]
    mean, scale = fit_scaling(raw, features)
    exs = []
    for r, g, X in zip(records, graphs, raw, strict=True):
        y = gold_boundary_labels(g, r.gold)
        info = (informative_boundaries(g, y, informative_block(r.page, r.blocks))
                if loss == "slack" else np.zeros(0, dtype=np.int64))
        exs.append(Example(r.id, g, (X - mean) / scale, y, info))
    return exs, mean, scale


def validate(model: WPSModel, records: Sequence[PageRecord], level: int) -> dict[str, float]:
    """Mean ARI (harness scoring) of the ``wps`` segmenter with ``model`` on ``records``."""
    from webseg.metrics import segmentation_scores

    ari, ari_fin, nseg, info_ok = [], [], [], []
    for r in records:
        s = segment_page(r.page, model, name=f"wps-{model.loss}")
        ari.append(segmentation_scores(r.gold, s.leaf_labels(level))["ari"])
        fin = s.leaf_labels(None)
        ari_fin.append(segmentation_scores(r.gold, fin)["ari"])
        nseg.append(len(s.at_level(level)))
        ok = informative_segmented(r.page, fin, informative_block(r.page, r.blocks))
        if ok is not None:
            info_ok.append(ok)
    return {"ari": float(np.nanmean(ari)), "ari_finest": float(np.nanmean(ari_fin)),
            "segments": float(np.mean(nseg)),
            "informative_success": float(np.mean(info_ok)) if info_ok else float("nan"),
            "informative_pages": float(len(info_ok))}


def informative_segmented(page: Page, leaf_labels: np.ndarray, node: int | None
                          ) -> bool | None:
    """Paper Section 7.4: is the informative segment exactly one predicted segment?

    True when the text leaves under ``node`` all carry one predicted label and no other leaf
    carries it (neither split nor merged with anything); None without an informative segment.
    """
    if node is None:
        return None
    leaves = page.text_leaves
    lo, hi = np.searchsorted(leaves, [node, page.subtree_end[node]])
    if hi <= lo:
        return None
    lab = np.asarray(leaf_labels)
    inside = np.unique(lab[lo:hi])
    if len(inside) != 1 or inside[0] < 0:
        return False
    return bool(np.count_nonzero(lab == inside[0]) == hi - lo)


def fit(loss: str, records: Sequence[PageRecord], C: float,
        features: Sequence[str] = DEFAULT_FEATURES, eps: float = 0.1, max_iter: int = 100
        ) -> WPSModel:
    """Train one model with a fixed ``C`` on ``records`` (no validation; used per CV fold).

    ``model.info`` records C, the feature set, the cutting-plane report and the training
    seconds (examples + Algorithm 2).
    """
    t0 = time.perf_counter()
    exs, mean, scale = make_examples(records, loss, features)
    w, rep = cutting_plane(exs, C, loss, eps=eps, max_iter=max_iter)
    secs = time.perf_counter() - t0
    return WPSModel(w, mean, scale, loss, {"C": C, "eps": eps, "report": rep.as_dict(),
                                           "train_seconds": round(secs, 2),
                                           "train_pages": [r.id for r in records]},
                    list(features))


def train(loss: str, train_recs: Sequence[PageRecord], val_recs: Sequence[PageRecord],
          level: int = 2, Cs: Sequence[float] = tuple(CS), eps: float = 0.1,
          max_iter: int = 100, verbose: bool = True,
          features: Sequence[str] = DEFAULT_FEATURES) -> WPSModel:
    """Fit on ``train_recs`` for every C, keep the C with the best validation mean ARI.

    ``info["validation"]`` has, per C, the validation scores, the cutting-plane report and its
    training seconds (Algorithm 2 only; building the examples is ``info["prepare_seconds"]``).
    """
    t0 = time.perf_counter()
    exs, mean, scale = make_examples(train_recs, loss, features)
    prep_secs = time.perf_counter() - t0
    best: tuple[float, WPSModel] | None = None
    table: dict[str, Any] = {}
    for C in Cs:
        w, rep = cutting_plane(exs, C, loss, eps=eps, max_iter=max_iter)
        model = WPSModel(w, mean, scale, loss, features=list(features))
        v = validate(model, val_recs, level)
        table[str(C)] = {**{k: round(x, 4) for k, x in v.items()}, **rep.as_dict()}
        if verbose:
            print(f"train: wps-{loss} C={C}: val ARI {v['ari']:.4f} (finest "
                  f"{v['ari_finest']:.4f}, {v['segments']:.1f} segments, informative segment "
                  f"exact on {v['informative_success']:.2f} of {v['informative_pages']:.0f} "
                  f"pages), {rep.passes} passes, "
                  f"{rep.constraints} constraints, converged={rep.converged}, "
                  f"{rep.seconds:.1f} s", file=sys.stderr)
        if best is None or v["ari"] > best[0] + 1e-12:
            best = (v["ari"], model)
    assert best is not None
    model = best[1]
    C_best = [c for c in Cs if table[str(c)]["ari"] == round(best[0], 4)][0]
    n_info = [int(len(e.info)) for e in exs]
    model.info.update(C=C_best, eps=eps, max_iter=max_iter, gold_level=level,
                      feature_set=("all" if list(features) == BOUNDARY_FEATURES else
                                   "local" if list(features) == LOCAL_FEATURES else "custom"),
                      prepare_seconds=round(prep_secs, 2),
                      train_seconds_best_C=table[str(C_best)]["seconds"],
                      train_pages=[r.id for r in train_recs],
                      val_pages=[r.id for r in val_recs], validation=table,
                      val_ari=round(best[0], 4),
                      train_boundaries=int(sum(e.graph.n for e in exs)),
                      train_boundaries_y=int(sum(int(e.y.sum()) for e in exs)))
    if loss == "slack":
        model.info.update(informative_types=list(INFORMATIVE_TYPES),
                          pages_with_informative_boundaries=int(sum(k > 0 for k in n_info)),
                          informative_boundaries=int(sum(n_info)))
    return model


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m webseg.wps.train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("loss", choices=list(LOSSES), help="margin (Hamming) or slack (informative)")
    ap.add_argument("--data", required=True, type=Path, help="dataset folder (manifest.jsonl)")
    ap.add_argument("--out", required=True, type=Path, help="folder for wps-<loss>.json")
    ap.add_argument("--level", type=int, default=2, help="gold level to learn (default 2)")
    ap.add_argument("--cache", type=Path, default=DEFAULT_PAGE_CACHE)
    ap.add_argument("--Cs", default=None, help="comma-separated C grid (default: CS)")
    ap.add_argument("--eps", type=float, default=0.1, help="precision of Algorithm 2")
    ap.add_argument("--max-iter", type=int, default=100, help="cutting-plane passes at most")
    ap.add_argument("--features", choices=sorted(FEATURE_SETS), default="local",
                    help="local features only (default, as the shipped models) or all "
                         "(with the context features)")
    args = ap.parse_args(argv)
    Cs = [float(x) for x in args.Cs.split(",")] if args.Cs else CS
    t0 = time.perf_counter()
    tr = load_records(args.data, "train", args.level, args.cache)
    va = load_records(args.data, "val", args.level, args.cache)
    print(f"train: {len(tr)} train pages, {len(va)} validation pages (gold level "
          f"{args.level})", file=sys.stderr)
    model = train(args.loss, tr, va, args.level, Cs, args.eps, args.max_iter,
                  features=FEATURE_SETS[args.features])
    secs = time.perf_counter() - t0
    model.info.update(dataset=args.data.name, Cs=Cs,
                      command="python -m webseg.wps.train " + " ".join(
                          sys.argv[1:] if argv is None else argv))
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"wps-{args.loss}.json"
    model.save(out)
    print(f"train: done in {secs:.0f} s", file=sys.stderr)
    print(json.dumps({"model": str(out), "C": model.info["C"],
                      "val_ari": model.info["val_ari"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
