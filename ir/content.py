"""What a page is about: per-text-leaf main-content probabilities, index fields, block weights.

Content-aware indexing needs, for every visible text leaf of a page, the probability
that it is main content. :func:`leaf_main_prob` gets it from PageLevel templateness
(``1 - templateness`` of the leaf's ``pagelevel`` segment, the model behind
``webseg.templates.clean.kept_segments``), from the block-function model
(``webseg.blocks.block_functions(page).main``), or from both: ``max`` (the default) takes
per leaf the larger of the two, so a leaf is main content when either model says so. The
default is the best of the four measured on the dev collections (cranfield k=1 and
k=3, each model with its own tuned field and passage weights: default index mean MAP 0.3232
with ``max``, 0.3158 ``mean``, 0.3138 PageLevel, 0.3024 block model;
``eval/results/prf/content/README.md``): the two models miss different parts of the main
text, and the union keeps more of it in the main field.
Everything else here only consumes those probabilities:

* :func:`page_fields` splits the page's terms into the fields ``title`` (the page title),
  ``main`` (the leaves with probability >= 0.5) and ``rest`` (the others). The index
  combines them BM25F-style with per-field weights (:mod:`ir.index`).
* :func:`weigh_blocks` gives every stored feedback block the text-length-weighted mean
  probability of its leaves (``Block.weight``) and its role (``main`` when >= 0.5, else
  ``template``), so block feedback can use content blocks only, weighted by their role.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import chain, compress
from typing import Any

import numpy as np

from ir.analysis import Analyzer, float_counts
from ir.store import Block

__all__ = ["DEFAULT_MODEL", "FIELDS", "MODELS", "leaf_main_prob", "main_leaves", "page_fields",
           "weigh_blocks"]

#: Index fields of a page, in storage order.
FIELDS = ("title", "main", "rest")


#: Main-content models: ``pagelevel`` (PageLevel templateness), ``blocks`` (the
#: block-function model), or both combined per leaf: ``max`` (main when either model says so:
#: the union, for recall of the main text) or ``mean`` (their average).
MODELS = ("blocks", "pagelevel", "max", "mean")

#: The default main-content model: the best measured on the dev collections.
DEFAULT_MODEL = "max"


def leaf_main_prob(page: Any, model: str = DEFAULT_MODEL, block_fn: Any = None
                   ) -> tuple[np.ndarray, Any]:
    """P(main content) per text leaf (``page.text_leaves`` order; 0 for invisible leaves), and
    the PageLevel segmentation when that was the model (reusable as the ``pagelevel`` source).

    ``model``: ``pagelevel`` (1 - templateness of the leaf's PageLevel segment),
    ``blocks`` (``webseg.blocks.block_functions(page).main``), or ``max`` / ``mean`` of the
    two per leaf (:data:`MODELS`; :data:`DEFAULT_MODEL` is the best on the dev collections).
    ``block_fn``: the page's :func:`webseg.blocks.block_functions` result when already at
    hand (the pipeline's clean stage computed it): reused, as the block model is the larger
    part of the cost.
    """
    leaves = page.text_leaves
    vis = np.asarray(page.visible, dtype=bool)[leaves]
    if model == "pagelevel":
        from webseg.segmenters import get_segmenter

        seg = get_segmenter("pagelevel", level1="none").segment(page)  # the segments only
        templ = {s.id: float(s.attrs.get("templateness", 1.0)) for s in seg.at_level(None)}
        labels = seg.leaf_labels()
        p = np.asarray([1.0 - templ.get(int(lab), 1.0) for lab in labels.tolist()])
        return np.where(vis, np.clip(p, 0.0, 1.0), 0.0), seg
    if model in ("max", "mean"):
        p_pl, seg = leaf_main_prob(page, "pagelevel")
        p_bl, _ = leaf_main_prob(page, "blocks", block_fn)
        comb = np.maximum(p_pl, p_bl) if model == "max" else (p_pl + p_bl) / 2.0
        return comb, seg
    if model != "blocks":
        raise ValueError(f"unknown main-content model {model!r}: use one of {MODELS}")
    from webseg.blocks import block_functions

    bf = block_fn if block_fn is not None else block_functions(page)
    p = np.asarray(bf.main, dtype=np.float64)[leaves]
    return np.where(vis, np.clip(p, 0.0, 1.0), 0.0), None


def page_fields(page: Any, p_main: np.ndarray, an: Analyzer, threshold: float | None = 0.5,
                digits: int = 3) -> dict[str, dict[str, float]]:
    """The ``title``, ``main`` and ``rest`` term counts of a page.

    With ``threshold`` (default 0.5, as ``kept_segments``) a leaf is main content when its
    probability reaches it (hard split: calibrated probabilities of 0.75-0.9 on content and
    0.1-0.25 on boilerplate would otherwise leave a fifth of each in the other field);
    ``None`` splits each leaf's counts softly by its probability.
    """

    main: Counter[str] = Counter()
    rest: Counter[str] = Counter()
    vis = np.asarray(page.visible, dtype=bool)
    if threshold is not None:
        # a hard split: each leaf's tokens go to one field, counted once per field over the
        # leaves' tokens in order: the same counts, in the same first-occurrence order, as
        # adding up each leaf's counts; integers made floats at the end
        lt = _leaf_tokens(an, page)
        shown = vis[page.text_leaves]
        is_main = np.asarray(p_main >= threshold)
        main_toks = chain.from_iterable(compress(lt, (shown & is_main).tolist()))
        rest_toks = chain.from_iterable(compress(lt, (shown & ~is_main).tolist()))
        return {"title": float_counts(an.tokens((page.title or "").strip())),
                "main": float_counts(main_toks), "rest": float_counts(rest_toks)}
    for leaf, p, text in zip(page.text_leaves.tolist(), p_main.tolist(), page.leaf_texts,
                             strict=True):
        if not vis[leaf]:
            continue
        counts = _counts(an, text)
        if not counts:
            continue
        for t, c in counts.items():
            if p > 0:
                main[t] += c * p
            if p < 1:
                rest[t] += c * (1.0 - p)
    title = Counter(an.tokens((page.title or "").strip()))
    return {"title": {t: float(c) for t, c in title.items()},
            "main": {t: round(c, digits) for t, c in main.items() if round(c, digits) > 0},
            "rest": {t: round(c, digits) for t, c in rest.items() if round(c, digits) > 0}}


def _leaf_tokens(an: Any, page: Any) -> list[list[str]]:
    """The tokens of every text leaf of ``page`` (none for a hidden one), for reading only:
    a page's :class:`ir.pipeline.PageTokens` has them already."""
    got = getattr(an, "leaf_tokens", None)
    if got is not None:
        return got(page)
    vis = np.asarray(page.visible, dtype=bool)[page.text_leaves].tolist()
    return [an.tokens(t) if v else [] for v, t in zip(vis, page.leaf_texts, strict=True)]


def _counts(an: Any, text: str) -> Mapping[str, int]:
    """Term counts of ``text``: the analyzer's own memo when it keeps one (a page's
    :class:`ir.pipeline.PageTokens`: the fields and the main leaves count the same leaves),
    else counted here. The result is read, never changed."""
    counts = getattr(an, "counts", None)
    return counts(text) if counts is not None else Counter(an.tokens(text))


def main_leaves(page: Any, p_main: np.ndarray, an: Analyzer, threshold: float = 0.5
                ) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """The ``main`` field of :func:`page_fields` (hard split at ``threshold``) by leaf text:
    (:func:`ir.repeats.leaf_key` of each main leaf text -> the term counts of one such leaf,
    key -> how many main leaves have that text when more than one). The same key means the
    same analysed terms on every page, so the index can move main-text leaves that repeat
    across pages (a template's text the models took for content) to ``rest``
    (:mod:`ir.repeats`) without the pages."""
    from ir.repeats import leaf_key

    out: dict[str, dict[str, float]] = {}
    n: dict[str, int] = {}
    keys: dict[str, str] = {}  # leaf text -> its key (a page repeats leaf texts)
    shown = (np.asarray(page.visible, dtype=bool)[page.text_leaves]
             & ~(np.asarray(p_main) < threshold)).tolist()
    for text, toks in compress(zip(page.leaf_texts, _leaf_tokens(an, page), strict=True),
                               shown):
        if not toks:
            continue
        k = keys.get(text)
        if k is None:
            k = keys[text] = leaf_key(text)
        if k in out:
            n[k] += 1
        else:
            n[k] = 1
            out[k] = float_counts(toks)
    return out, {k: c for k, c in n.items() if c > 1}


def weigh_blocks(blocks: list[Block], seg: Any, p_main: np.ndarray) -> list[Block]:
    """Set ``weight`` (mean P(main) of the block's leaves, by text length) and ``role``."""
    labels = seg.leaf_labels()
    page = seg.page
    text = page.text
    n = np.fromiter(map(len, map(str.strip, map(text.__getitem__, page.text_leaves.tolist()))),
                    dtype=np.float64, count=len(labels))
    has = n > 0
    labels, n = labels[has], n[has]
    # per segment, the sums over its leaves in page order (bincount adds its weights in
    # order, as a running sum of Python floats would)
    lo = int(labels.min()) if len(labels) else 0
    at = labels - lo
    num = np.bincount(at, weights=n * np.asarray(p_main, dtype=np.float64)[has]).tolist()
    den = np.bincount(at, weights=n).tolist()
    for b in blocks:
        k = b.seg - lo
        w = num[k] / den[k] if 0 <= k < len(den) and den[k] else 0.0
        b.weight = round(w, 4)
        b.role = "main" if w >= 0.5 else "template"
    return blocks
