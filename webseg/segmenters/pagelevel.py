"""PageLevel template detection as segmentation (Chakrabarti, Kumar & Punera, WWW 2007).

Every node of a rendered page gets a templateness probability from the area-bucketed logistic
regressions of :class:`webseg.templates.classifier.TemplateClassifier` (model shipped in
``webseg/models/pagelevel.json``). Three segmenters differ in what they do with the scores:

``pagelevel`` (PageLevel Smooth)
    Regularised tree isotonic smoothing (:func:`webseg.templates.isotonic.smooth_page`, penalty
    ``gamma_i = c * A / A_i`` with ``c = 0.01``, nodes below 2,000 px^2 hidden). Each *section*
    of the smoothed scores is one segment with ``attrs["templateness"]`` = its smoothed score.
    A section is the subtree of its head minus the subtrees of the heads below it, so it is not
    one DOM subtree: the segment's ``nodes`` are the maximal subtrees lying wholly inside it.
    The segmentation is kept **flat** (every visible text leaf belongs to exactly one segment,
    ``attrs["head"]`` is the section head's node id and ``attrs["parent_head"]`` the enclosing
    section's head, or ``None``): with nested segments, :meth:`Segmentation.non_template_text`
    (which reads the finest level only) would drop the text a section holds outside its child
    sections - typically the article text around nested navigation boxes.
    (Flat as far as the sections go: by default a level 1 is added above them, see below.)
``pagelevel-basic`` (PageLevel Basic, no smoothing)
    A hidden node (area < 2,000 px^2) takes the score of its nearest non-hidden ancestor (as in
    the smoother); segments are the maximal DOM subtrees whose nodes are all on the same side of
    0.5, with ``templateness`` the mean score of the subtree's non-hidden nodes. This is the
    paper's "no smoothing" baseline; as there, it yields many small segments.
``pagelevel-merge`` (PageLevel Basic + Merge)
    The paper's §5 heuristic: "grouping adjacent leaves together when their templateness scores
    differ by less than delta". Our reading: the visible text leaves in document order, each
    scored as in ``pagelevel-basic``, are chained into one group while each leaf's score differs
    from the previous leaf's by less than ``delta`` (single linkage along the reading order).
    A group's ``templateness`` is the character-weighted mean of its leaves' scores; its
    ``nodes`` are the maximal subtrees whose text leaves all lie in the group. The paper picks
    delta by exhaustive search against gold segmentations; so did we, on the kreuzer-random
    *dev* pages only (``eval.splits`` train + val; the test pages were not looked at): delta in
    {0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5}, best mean ARI over gold levels
    1 and 2 at ``delta = 0.2`` (the default), see ``eval/results/templates/README.md``::

        python -m eval.sweep --data ../shared/data/segmentation/kreuzer-random \\
            --algo pagelevel-merge --param delta --split dev \\
            --grid 0.01,0.02,0.03,0.05,0.075,0.1,0.15,0.2,0.3,0.5 \\
            --out eval/results/templates/merge_delta_dev

Models. ``webseg/models/pagelevel.json`` (default) is trained on SiteLevel(0.1) labels as in
the paper; ``webseg/models/pagelevel-gold.json`` is the supervised variant (labels from the
gold main text), chosen with ``model=<path>``. Both come from::

    python -m webseg.templates.train --data ../shared/data/boilerplate/dragnet \\
        --data ../shared/data/boilerplate/cleanportaleval --out webseg/models [--labels gold]

(Dragnet train split only; see :mod:`webseg.templates.train`; counts are in each model's
``meta``.)

Levels. The segments above are level 2; ``level1="vips"`` (default) puts them under VIPS's
level-1 visual blocks (each segment joins the block holding most of its text, a group of two
or more segments being a new level-1 segment; :mod:`webseg.segmenters.levels`), so that a
level-1 score means something; ``level1="none"`` returns the segments alone (flat). The
segments with their ``templateness`` are ``seg.at_level(None)`` either way.

All three need layout (areas, positions). ``Segmentation.non_template_text()`` then gives the
text of the segments with templateness below 0.5, i.e. the page's main content (see also
:func:`webseg.templates.clean.clean`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from webseg.page import Page
from webseg.segmentation import Segment, Segmentation, node_union_box, nodes_text
from webseg.segmenters.base import ModelBacked, register
from webseg.segmenters.levels import check_level1, with_level1
from webseg.templates.classifier import TemplateClassifier
from webseg.templates.isotonic import smooth_page

__all__ = ["PageLevelSegmenter", "sections_to_roots"]

_MODELS: dict[str, TemplateClassifier] = {}


def _load_model(path: str | None) -> TemplateClassifier:
    key = str(path)
    if key not in _MODELS:
        _MODELS[key] = TemplateClassifier.load(path)
    return _MODELS[key]


def sections_to_roots(page: Page, owner: np.ndarray) -> dict[int, list[int]]:
    """Maximal DOM subtrees whose nodes all have the same ``owner`` value, grouped by owner.

    ``owner`` is one integer per node (e.g. the section head of every node). Returns
    ``{owner: [root node ids in document order]}``.
    """
    n = page.n
    par = page.parent.tolist()
    own = owner.tolist()
    pure = [True] * n
    for i in range(n - 1, 0, -1):
        p = par[i]
        if not pure[i] or own[i] != own[p]:
            pure[p] = False
    out: dict[int, list[int]] = {}
    for i in range(n):
        if pure[i] and (i == 0 or not pure[par[i]]):
            out.setdefault(own[i], []).append(i)
    return out


def _folded_scores(page: Page, scores: np.ndarray, hidden_area: float) -> tuple[np.ndarray,
                                                                                np.ndarray]:
    """Scores where hidden nodes take their nearest kept ancestor's score; and the kept mask."""
    kept = page.area >= hidden_area
    if page.n:
        kept[0] = True
    out = scores.copy()
    par = page.parent.tolist()
    kl = kept.tolist()
    o = out.tolist()
    for i in range(1, page.n):
        if not kl[i]:
            o[i] = o[par[i]]
    return np.asarray(o, dtype=np.float64), kept


@dataclass
class PageLevelSegmenter(ModelBacked):
    """PageLevel segmenters; ``mode`` is ``"smooth"``, ``"basic"`` or ``"merge"``.

    ``c``: smoothing penalty constant (paper 0.01); ``hidden_area``: px^2 below which nodes are
    hidden; ``decimals``: scores are rounded to this many decimals before smoothing (None: not
    rounded), which bounds the smoother's distinct values (101 for 2 decimals) and so its time
    and memory to linear in the page size; ``delta``: merge threshold of ``"merge"``;
    ``threshold``: the template side of ``"basic"``; ``model``: path of a model file (default:
    the shipped one); ``level1``: ``"vips"`` (default, segments grouped under VIPS's level-1
    blocks) or ``"none"`` (flat).

    >>> seg = PageLevelSegmenter(mode="merge", delta=0.05)
    >>> seg.needs_layout, seg.name
    (True, 'pagelevel')
    """

    mode: str = "smooth"
    c: float = 0.01
    decimals: int | None = 2
    hidden_area: float = 2000.0
    delta: float = 0.2  # chosen on kreuzer-random dev pages (see module docstring)
    threshold: float = 0.5
    model: str | None = None
    level1: str = "vips"
    name: str = "pagelevel"
    needs_layout: bool = True
    _model: TemplateClassifier | None = field(default=None, init=False, repr=False)

    def _read_model(self) -> TemplateClassifier:
        return _load_model(self.model)  # cached: every PageLevel variant shares one classifier

    def __post_init__(self) -> None:
        if self.mode not in ("smooth", "basic", "merge"):
            raise ValueError(f"mode must be 'smooth', 'basic' or 'merge', got {self.mode!r}")
        check_level1(self.name, self.level1)

    def scores(self, page: Page) -> np.ndarray:
        """Classifier templateness of every node (before smoothing)."""
        return self.get_model().predict_page(page)

    # ------------------------------------------------------------------ segment
    def segment(self, page: Page) -> Segmentation:
        """The flat segments (level 2) under a level 1 chosen by ``level1``
        (:mod:`webseg.segmenters.levels`; ``"none"``: the flat segments alone)."""
        return with_level1(self.segment_flat(page), self.level1)

    def segment_flat(self, page: Page) -> Segmentation:
        """The PageLevel segments of ``mode``, flat (what ``level1="none"`` returns)."""
        page.require_layout()
        params: dict[str, Any] = {"mode": self.mode, "hidden_area": self.hidden_area}
        if page.n == 0:
            return Segmentation(page, [], self.name, params)
        raw = self.scores(page)
        if self.mode == "smooth":
            params["c"] = self.c
            return self._smooth(page, raw, params)
        if self.mode == "basic":
            params["threshold"] = self.threshold
            return self._basic(page, raw, params)
        params["delta"] = self.delta
        return self._merge(page, raw, params)

    def _segments(self, page: Page, groups: dict[int, list[int]],
                  attrs: dict[int, dict[str, Any]]) -> list[Segment]:
        has_leaf = np.zeros(page.n + 1, dtype=np.int64)
        np.cumsum(page.text_leaf_mask, out=has_leaf[1:])
        end = page.subtree_end
        segs = []
        for key in sorted(groups, key=lambda k: groups[k][0]):
            roots = groups[key]
            if not any(has_leaf[end[r]] > has_leaf[r] for r in roots):
                continue  # no visible text: nothing to read or to score
            segs.append(Segment(id=len(segs), nodes=tuple(roots),
                                box=node_union_box(page, roots), text=nodes_text(page, roots),
                                attrs=attrs[key]))
        return segs

    def _smooth(self, page: Page, raw: np.ndarray, params: dict[str, Any]) -> Segmentation:
        if self.decimals is not None:
            raw = np.round(raw, self.decimals)
            params["decimals"] = self.decimals
        sm = smooth_page(page, raw, c=self.c, hidden_area=self.hidden_area)
        is_head = np.zeros(page.n, dtype=bool)
        is_head[sm.heads] = True
        owner = np.zeros(page.n, dtype=np.int64)
        par = page.parent.tolist()
        ol = owner.tolist()
        hl = is_head.tolist()
        for i in range(1, page.n):
            ol[i] = i if hl[i] else ol[par[i]]
        owner = np.asarray(ol, dtype=np.int64)
        groups = sections_to_roots(page, owner)
        attrs = {}
        for h in groups:
            parent_head = int(owner[page.parent[h]]) if h else None
            attrs[h] = {"templateness": float(sm.scores[h]), "head": int(h),
                        "parent_head": parent_head}
        params["cost"] = sm.cost
        return Segmentation(page, self._segments(page, groups, attrs), self.name, params)

    def _basic(self, page: Page, raw: np.ndarray, params: dict[str, Any]) -> Segmentation:
        folded, kept = _folded_scores(page, raw, self.hidden_area)
        side = (folded >= self.threshold).astype(np.int64)
        # owner: a node id per maximal same-side subtree (found bottom-up: pure subtrees)
        groups = sections_to_roots(page, side)
        # split each side's roots into one group per root (maximal subtrees are the segments)
        per_root = {r: [r] for rs in groups.values() for r in rs}
        end = page.subtree_end
        ck = np.concatenate([[0.0], np.cumsum(np.where(kept, folded, 0.0))])
        cn = np.concatenate([[0], np.cumsum(kept)])
        attrs = {}
        for r in per_root:
            cnt = cn[end[r]] - cn[r]
            t = (ck[end[r]] - ck[r]) / cnt if cnt else folded[r]
            attrs[r] = {"templateness": float(t)}
        return Segmentation(page, self._segments(page, per_root, attrs), self.name, params)

    def _merge(self, page: Page, raw: np.ndarray, params: dict[str, Any]) -> Segmentation:
        folded, _ = _folded_scores(page, raw, self.hidden_area)
        leaves = page.text_leaves
        if not len(leaves):
            return Segmentation(page, [], self.name, params)
        s = folded[leaves]
        brk = np.r_[False, np.abs(np.diff(s)) >= self.delta]
        group = np.cumsum(brk)  # non-decreasing along document order
        # node owner: the group of its text leaves when they all share one, else -1 - node id
        lo = np.searchsorted(leaves, np.arange(page.n))
        hi = np.searchsorted(leaves, page.subtree_end)
        owner = np.full(page.n, -1, dtype=np.int64)
        has = hi > lo
        g_lo = group[np.minimum(lo, len(leaves) - 1)]
        g_hi = group[np.maximum(hi - 1, 0)]
        same = has & (g_lo == g_hi)
        owner[same] = g_lo[same]
        # nodes without text leaves join their parent's group when it has one (else stay apart)
        ol = owner.tolist()
        par = page.parent.tolist()
        for i in range(page.n):
            if not has[i]:
                ol[i] = ol[par[i]] if i else -1
        owner = np.asarray(ol, dtype=np.int64)
        mixed = owner < 0
        owner[mixed] = -1 - np.flatnonzero(mixed)  # every mixed node is its own non-group
        groups = {k: v for k, v in sections_to_roots(page, owner).items() if k >= 0}
        chars = page.text_length[leaves].astype(np.float64)
        attrs = {}
        for g in groups:
            sel = group == g
            w = np.maximum(chars[sel], 1.0)
            attrs[g] = {"templateness": float(np.average(s[sel], weights=w))}
        return Segmentation(page, self._segments(page, groups, attrs), self.name, params)


register("pagelevel", "PageLevel Smooth: templateness classifier + isotonic smoothing "
         "(Chakrabarti+ 2007)")(PageLevelSegmenter)


@register("pagelevel-basic", "PageLevel Basic: templateness classifier, no smoothing")
def pagelevel_basic(**params: Any) -> PageLevelSegmenter:
    """Maximal subtrees on one side of 0.5 of the raw classifier scores."""
    return PageLevelSegmenter(**{"mode": "basic", "name": "pagelevel-basic", **params})


@register("pagelevel-merge", "PageLevel Basic + Merge: adjacent text leaves with close scores")
def pagelevel_merge(**params: Any) -> PageLevelSegmenter:
    """Consecutive text leaves whose scores differ by less than ``delta`` form a segment."""
    return PageLevelSegmenter(**{"mode": "merge", "name": "pagelevel-merge", **params})
