"""A learned per-page threshold for the stage-2 scores (decoder ``stack-page``).

One global threshold is a compromise: articles want a strict one, collection / listing /
product / service pages a lower one (per-type thresholds in eval/results/blocks/README.md).
The page type is not known at inference, but the page's own stage-2 score distribution and a
few markup shares say much of it. So a small regression model predicts, for every threshold
of a fixed grid, how much better or worse than its average over the grid the page's word F1
would be at that threshold (the *gain*), from page aggregates that cost nothing extra at
inference (the stage-2 scores, the leaf characters and the leaf feature matrix are already
computed); the page takes the grid threshold with the highest predicted gain (ties: the
global threshold). The fallback rule of :func:`webseg.blocks.model.decide` is kept.

Training (:func:`fit_page_decision`) uses the same out-of-fold stage-2 scores of the training
pages as the global decision (:func:`webseg.blocks.train.fit_stages`): one row per (page,
threshold), target the page's F1 at that threshold minus its mean F1 over the grid, every
page weighing the same. The model is a small ``HistGradientBoostingRegressor`` shipped as
JSON (:func:`webseg.blocks.gbt.export_hgb`, kind ``regression``) inside the block model file
(``"page_decision"``), never pickle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from webseg.blocks.context import sorted_quantile
from webseg.blocks.features import FEATURE_NAMES
from webseg.blocks.gbt import TreeEnsemble, export_hgb

__all__ = ["PAGE_CANDIDATES", "PAGE_FEATURE_NAMES", "PAGE_GATE_PARTS", "PAGE_GATE_SALT",
           "PAGE_HGB_PARAMS", "PageDecision", "fit_page_decision", "page_features", "pick"]

#: leaf feature columns whose character-weighted page means are page aggregates
_MEAN_COLS = {"link_share": "leaf_in_link", "li_share": "t_li_any", "td_share": "t_td_any",
              "pre_share": "t_pre_any", "article_share": "t_article_any",
              "main_share": "t_main_any", "heading_share": "leaf_is_heading",
              "punct_mean": "leaf_punct_ratio", "product_share": "cat_any_product",
              "has_layout": "has_layout"}
_MEAN_IDX = np.array([FEATURE_NAMES.index(c) for c in _MEAN_COLS.values()])
#: page aggregates (the same for every threshold), then the threshold's own columns
PAGE_FEATURE_NAMES: tuple[str, ...] = (
    ("log_leaves", "log_chars", "s_max", "s_mean", "s_q50", "s_q90",
     "kept_0.3", "kept_0.5", "kept_0.7") + tuple(_MEAN_COLS)
    + ("thr", "kept_thr", "kept_leaves_thr", "step_thr", "none_kept_thr"))
#: the regressor's base configuration (fixed before it was evaluated, eval/results/blocks)
PAGE_HGB_PARAMS: dict[str, Any] = {"max_iter": 60, "learning_rate": 0.1, "max_leaf_nodes": 8,
                                   "min_samples_leaf": 100, "l2_regularization": 1.0,
                                   "early_stopping": False, "random_state": 0}
#: the candidates training chooses among (cross-fitted on :data:`PAGE_GATE_PARTS`
#: site-grouped parts, see :func:`webseg.blocks.train.choose_page_decision`): regressor
#: overrides and the margin by which a threshold's predicted gain must beat the global
#: threshold's; ``None`` = no page model (the global threshold). Fixed before evaluation.
PAGE_CANDIDATES: tuple[tuple[str, dict[str, Any] | None, float], ...] = (
    ("global", None, 0.0),
    ("hgb8", {}, 0.0),
    ("hgb8-m0.01", {}, 0.01),
    ("hgb4", {"max_leaf_nodes": 4, "min_samples_leaf": 400, "max_iter": 40}, 0.0),
    ("hgb4-m0.01", {"max_leaf_nodes": 4, "min_samples_leaf": 400, "max_iter": 40}, 0.01),
)
#: how many site-grouped parts of the stage-2 training pages the gate cross-fits the candidates
#: over: each part is decided by page models fitted on the other parts, i.e. on (K-1)/K = 80 %
#: of the pages, close to the final page model (fitted on all of them). A gate over the two
#: stage-2 halves (page models on ~50 %) judged weaker models than the one it ships and leaned
#: to ``global`` (eval/results/blocks/README.md).
#: The parts are independent of the stage-2 halves (their own salt, :data:`PAGE_GATE_SALT`);
#: the stage-2 scores the pages are judged on stay those of the two-halves refit.
PAGE_GATE_PARTS = 5
#: salt of the parts' site hash (:func:`webseg.blocks.train.fold_of`)
PAGE_GATE_SALT = "page-decision"
_STEP = 0.05


def page_features(s: np.ndarray, chars: np.ndarray, X: np.ndarray,
                  thresholds: np.ndarray) -> np.ndarray:
    """``(len(thresholds), len(PAGE_FEATURE_NAMES))``: one row per candidate threshold of a
    page with stage-2 scores ``s``, leaf characters ``chars`` and leaf features ``X``."""
    thresholds = np.asarray(thresholds, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    out = np.zeros((len(thresholds), len(PAGE_FEATURE_NAMES)))
    out[:, -5] = thresholds
    m = len(s)
    if m == 0:
        out[:, -1] = 1.0
        return out
    w = np.asarray(chars, dtype=np.float64) + 1.0
    total = w.sum()
    ordered = np.sort(s)
    q50, q90 = sorted_quantile(ordered, 0.5), sorted_quantile(ordered, 0.9)
    means = np.nan_to_num(w @ np.asarray(X, dtype=np.float64)[:, _MEAN_IDX] / total)

    def kept(t: np.ndarray) -> np.ndarray:
        return (w[None, :] * (s[None, :] >= t[:, None])).sum(axis=1) / total

    page = np.concatenate([[np.log1p(m), np.log1p(total - m), s.max(), w @ s / total, q50, q90],
                           kept(np.array([0.3, 0.5, 0.7])), means])
    out[:, :len(page)] = page
    k = kept(thresholds)
    out[:, -4] = k
    out[:, -3] = (s[None, :] >= thresholds[:, None]).mean(axis=1)
    out[:, -2] = k - kept(thresholds + _STEP)
    out[:, -1] = s.max() < thresholds
    return out


class PageDecision:
    """A loaded per-page threshold model: the grid and the gain regressor."""

    def __init__(self, d: dict[str, Any]) -> None:
        if list(d.get("feature_names", [])) != list(PAGE_FEATURE_NAMES):
            raise ValueError("per-page decision was trained on other page features; retrain "
                             "the model (python -m webseg.blocks.train fit)")
        self.thresholds = np.asarray(d["thresholds"], dtype=np.float64)
        if not len(self.thresholds):
            raise ValueError("per-page decision without thresholds")
        self.ensemble = TreeEnsemble(d["ensemble"])
        self.margin = float(d.get("margin", 0.0))
        if self.ensemble.n_features != len(PAGE_FEATURE_NAMES):
            raise ValueError("per-page decision: ensemble does not match the page features")

    def threshold(self, s: np.ndarray, chars: np.ndarray, X: np.ndarray,
                  default: float) -> float:
        """The page's threshold: the grid value with the highest predicted gain; ties (a
        constant model) and gains within the margin of the grid value nearest ``default``
        (the global threshold) go to that value."""
        gain = self.ensemble.raw(page_features(s, chars, X, self.thresholds))
        return pick(self.thresholds, gain, default, self.margin)


def pick(thresholds: np.ndarray, gain: np.ndarray, default: float,
         margin: float = 0.0) -> float:
    """The threshold with the highest ``gain`` (rounded to 1e-9); ties: nearest ``default``;
    the grid value nearest ``default`` unless the best beats its gain by more than
    ``margin``."""
    thresholds = np.asarray(thresholds, dtype=np.float64)
    g = np.round(np.asarray(gain, dtype=np.float64), 9)
    d = int(np.argmin(np.abs(thresholds - default)))
    if g.max() - g[d] <= margin:
        return float(thresholds[d])
    best = np.flatnonzero(g == g.max())
    return float(thresholds[best[np.argmin(np.abs(thresholds[best] - default))]])


def fit_page_decision(feats: list[np.ndarray], f1: np.ndarray, thresholds: np.ndarray,
                      params: dict[str, Any] | None = None, margin: float = 0.0
                      ) -> dict[str, Any]:
    """The JSON per-page decision fitted on training pages: ``feats[j]`` is page ``j``'s
    :func:`page_features` matrix over ``thresholds``, ``f1[j, i]`` its F1 at threshold ``i``.
    Target: F1 minus the page's mean over the grid (what a threshold adds on that page).
    ``params`` override :data:`PAGE_HGB_PARAMS`; ``margin`` is stored for :func:`pick`."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    f1 = np.asarray(f1, dtype=np.float64)
    target = (f1 - f1.mean(axis=1, keepdims=True)).ravel()
    prm = {**PAGE_HGB_PARAMS, **(params or {})}
    reg = HistGradientBoostingRegressor(**prm).fit(np.vstack(feats), target)
    ens = export_hgb(reg)
    ens["kind"] = "regression"
    return {"feature_names": list(PAGE_FEATURE_NAMES),
            "thresholds": [float(x) for x in thresholds], "ensemble": ens,
            "params": prm, "margin": float(margin)}
