"""The shipped block-function model: loading, prediction and decoding.

A model file (``webseg/models/blocks.json.gz``) is JSON::

    {"format": "webseg.blocks", "version": 1, "roles": ["main", "other"],
     "feature_names": [...], "context_names": [...], "threshold": 0.3, "fallback": true,
     "stage1": <ensemble>, "stage2": <ensemble>}

``stage1`` scores each text leaf from its features (:mod:`webseg.blocks.features`);
``stage2`` re-scores it from the same features plus its neighbours' stage-1 scores
(:mod:`webseg.blocks.context`). Ensembles are :func:`webseg.blocks.gbt.export_hgb` dicts.

Decoders (``decoder=``; the model's ``"decoder"`` is the default, ``"stack"`` when absent):
``"stack"`` thresholds the stage-2 score; ``"threshold"`` thresholds the stage-1 score (no
context; kept for comparison); ``"isotonic"`` (stage 2) and ``"isotonic-s1"`` (stage 1) smooth
the scores over the DOM tree with the PageLevel isotonic regression before thresholding, and
``"cut"`` decodes stage 2 with its two-level version (:mod:`webseg.blocks.isotree`); their
regulariser and decision (``"tree_decoders"``) are chosen at training time like the
threshold. The threshold and the optional ``"fallback"`` (when no leaf reaches the
threshold, keep the leaves scoring at least half the page's best, :func:`decide`) are chosen
at training time on out-of-fold stage-2 scores of the training pages
(:func:`webseg.blocks.train.fit_stages`). ``"stack-page"`` thresholds stage 2 at a threshold
chosen per page by a small learned model (``"page_decision"``,
:mod:`webseg.blocks.pagedecision`), with the same fallback; a model file without that part
(older files) uses its global threshold instead.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from webseg.blocks.context import CONTEXT_NAMES, context_features
from webseg.blocks.features import FEATURE_NAMES, LeafFeatures, leaf_features
from webseg.blocks.gbt import TreeEnsemble, read_model_json
from webseg.blocks.isotree import cut_decode, smooth_leaf_scores
from webseg.blocks.pagedecision import PageDecision

__all__ = ["DECODERS", "DEFAULT_MODEL", "BlockModel", "decide", "load_model", "tree_decision"]

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "blocks.json.gz"
DECODERS = ("stack", "threshold", "isotonic", "cut", "isotonic-s1", "stack-page",
            "stack-page-forced")
FORMAT = "webseg.blocks"
#: the fallback only fires when the page's best leaf scores at least this much
FALLBACK_MIN = 0.15


def tree_decision(kind: str, s: np.ndarray, chars: np.ndarray, ranges: np.ndarray,
                  c: float, penalty: str, threshold: float, fallback: bool,
                  tree: Any = None, smoothed: np.ndarray | None = None) -> np.ndarray:
    """Keep mask of one page under a tree decoder (:mod:`webseg.blocks.isotree`; ``kind``
    ``isotonic``: threshold the isotonic-smoothed scores ``smoothed``, computed when not given;
    ``cut``: :func:`webseg.blocks.isotree.cut_decode`); with ``fallback``, a page that keeps
    nothing falls back as :func:`decide` does on the unsmoothed scores ``s``."""
    if kind == "isotonic":
        if smoothed is None:
            smoothed = smooth_leaf_scores(s, chars, ranges, c, penalty, tree)
        keep = smoothed >= threshold
    elif kind == "cut":
        keep = cut_decode(s, chars, ranges, threshold, c, penalty, tree)
    else:
        raise ValueError(f"unknown tree decoder {kind!r}")
    if fallback and not keep.any():
        keep = decide(s, threshold, True)
    return keep


def decide(s: np.ndarray, threshold: float, fallback: bool = False) -> np.ndarray:
    """Keep mask of one page's leaves: ``s >= threshold``; with ``fallback``, a page where no
    leaf reaches it (but the best reaches :data:`FALLBACK_MIN`) keeps the leaves scoring at
    least half its best score instead of nothing."""
    keep = s >= threshold
    if fallback and len(s) and not keep.any() and s.max() >= FALLBACK_MIN:
        keep = s >= s.max() / 2
    return keep


class BlockModel:
    """A loaded model: two tree ensembles, the roles and the decision threshold."""

    def __init__(self, d: dict[str, Any]) -> None:
        if d.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} model (format={d.get('format')!r})")
        if list(d["feature_names"]) != list(FEATURE_NAMES):
            raise ValueError("model was trained on other features than webseg.blocks.features "
                             "computes; retrain it (python -m webseg.blocks.train)")
        if list(d["context_names"]) != list(CONTEXT_NAMES):
            raise ValueError("model was trained on other context features; retrain it")
        self.roles: tuple[str, ...] = tuple(d["roles"])
        self.threshold = float(d.get("threshold", 0.5))
        self.fallback = bool(d.get("fallback", False))
        #: tree decoders chosen at training time: name -> {c, penalty, threshold, fallback}
        self.tree: dict[str, dict[str, Any]] = dict(d.get("tree_decoders") or {})
        #: the decoder used when none is asked for
        self.decoder = str(d.get("decoder", "stack"))
        #: the learned per-page threshold (``stack-page``), absent in older model files
        self.page_decision: PageDecision | None = (
            PageDecision(d["page_decision"]) if d.get("page_decision") else None)
        self.page_decision_forced: PageDecision | None = (
            PageDecision(d["page_decision_forced"]) if d.get("page_decision_forced") else None)
        if self.decoder not in DECODERS:
            raise ValueError(f"model's default decoder {self.decoder!r} is unknown")
        #: (features, page model, scores, threshold) of the last page_threshold call
        self._last_page_threshold: tuple[Any, ...] | None = None
        self.stage1 = TreeEnsemble(d["stage1"])
        self.stage2 = TreeEnsemble(d["stage2"])
        self.meta = {k: v for k, v in d.items() if k not in ("stage1", "stage2")}

    @classmethod
    def from_file(cls, path: str | Path) -> BlockModel:
        return cls(read_model_json(path))

    def check_decoder(self, decoder: str | None) -> str:
        """The decoder to use (``decoder`` or the model's default); raises ``ValueError`` for
        an unknown one or a tree decoder the model was not trained with."""
        decoder = decoder or self.decoder
        if decoder not in DECODERS:
            raise ValueError(f"unknown decoder {decoder!r}; known: {', '.join(DECODERS)}")
        if decoder in ("isotonic", "cut", "isotonic-s1") and decoder not in self.tree:
            raise ValueError(f"this model has no {decoder!r} decoder (retrain it with "
                             "python -m webseg.blocks.train fit)")
        return decoder

    def raw_scores(self, lf: LeafFeatures, decoder: str | None = None) -> np.ndarray:
        """P(main) per leaf of ``lf`` from the stage ``decoder`` decodes (stage 1 for
        ``threshold``/``isotonic-s1``, else stage 2), before any smoothing."""
        decoder = self.check_decoder(decoder)
        s1 = self.stage1.predict_proba(lf.X)
        if decoder in ("threshold", "isotonic-s1"):
            return s1
        ctx = context_features(s1, lf.chars, lf.ranges)
        X2 = np.empty((len(s1), lf.X.shape[1] + ctx.shape[1]), order="F")  # = hstack,
        X2[:, :lf.X.shape[1]] = lf.X  # column-major as the tree walker reads it
        X2[:, lf.X.shape[1]:] = ctx
        return self.stage2.predict_proba(X2)

    def decode(self, lf: LeafFeatures, decoder: str | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, keep)`` of the leaves of ``lf``: their P(main) after ``decoder`` (the
        isotonic decoders return the smoothed scores) and the main-content mask."""
        decoder = self.check_decoder(decoder)
        s = self.raw_scores(lf, decoder)
        if decoder in ("stack", "threshold"):
            return s, decide(s, self.threshold, self.fallback and decoder == "stack")
        if decoder in ("stack-page", "stack-page-forced"):
            return s, decide(s, self.page_threshold(s, lf, decoder == "stack-page-forced"),
                             self.fallback)
        d = self.tree[decoder]
        kind = "cut" if decoder == "cut" else "isotonic"
        sm = (smooth_leaf_scores(s, lf.chars, lf.ranges, d["c"], d["penalty"])
              if kind == "isotonic" else None)
        keep = tree_decision(kind, s, lf.chars, lf.ranges, d["c"], d["penalty"],
                             d["threshold"], d["fallback"], smoothed=sm)
        return (sm if sm is not None else s), keep

    def decision_threshold(self, s: np.ndarray, lf: LeafFeatures, decoder: str | None = None
                           ) -> float:
        """The threshold ``decoder`` compares the page's scores ``s`` with (the per-page one
        for ``stack-page``, the fallback's half of the best score when nothing reaches it)."""
        decoder = self.check_decoder(decoder)
        if decoder in ("stack-page", "stack-page-forced"):
            t = self.page_threshold(s, lf, decoder == "stack-page-forced")
            fb = self.fallback
        elif decoder in ("stack", "threshold"):
            t, fb = self.threshold, self.fallback and decoder == "stack"
        else:
            t, fb = float(self.tree[decoder]["threshold"]), bool(self.tree[decoder]["fallback"])
        if fb and len(s) and not (s >= t).any() and s.max() >= FALLBACK_MIN:
            t = float(s.max()) / 2
        return float(t)

    def page_threshold(self, s: np.ndarray, lf: LeafFeatures, forced: bool = False) -> float:
        """The ``stack-page`` (``forced``: ``stack-page-forced``) threshold of the page of
        ``lf`` with stage-2 scores ``s``: the per-page model's choice, or the global threshold
        when the model file has none."""
        pd = self.page_decision_forced if forced else self.page_decision
        if pd is None:
            return self.threshold
        # decode() and then decision_threshold() ask for the same page's threshold: the
        # answer of the last call is kept (same features object and page model, equal scores)
        last = self._last_page_threshold
        if last is not None and last[0] is lf and last[1] is pd \
                and np.array_equal(last[2], s):
            return last[3]
        t = pd.threshold(s, lf.chars, lf.X, self.threshold)
        self._last_page_threshold = (lf, pd, np.array(s, copy=True), t)
        return t

    def scores(self, lf: LeafFeatures, decoder: str | None = None) -> np.ndarray:
        """P(main) per leaf of ``lf`` after ``decoder`` (default: the model's decoder)."""
        return self.decode(lf, decoder)[0]

    def predict_page(self, page: Any, decoder: str | None = None
                     ) -> tuple[LeafFeatures, np.ndarray]:
        lf = leaf_features(page)
        return lf, self.scores(lf, decoder)


@functools.lru_cache(maxsize=4)
def _load(path: str) -> BlockModel:
    return BlockModel.from_file(path)


def load_model(model: str | Path | BlockModel | None = None) -> BlockModel:
    """The model at ``model`` (a path), the shipped one for ``None``, or ``model`` itself."""
    if isinstance(model, BlockModel):
        return model
    p = Path(model) if model is not None else DEFAULT_MODEL
    if not p.is_file():
        raise FileNotFoundError(f"block model {p} not found (train one with "
                                "python -m webseg.blocks.train)")
    return _load(str(p.resolve()))
