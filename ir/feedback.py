"""Pseudo-relevance feedback: ``none``, ``rm3`` (whole documents) and ``blocks``.

Both feedback methods estimate the same relevance model; they differ only in the *feedback
units* the model is estimated from.

Relevance model (RM3, as Anserini's ``Rm3Reranker``)
    For each feedback unit u (a document for ``rm3``, a block for ``blocks``) with retrieval
    score s(u): take its term counts, drop terms shorter than 2 or longer than 20 characters,
    terms that are not ``[a-z0-9]+`` and terms whose document frequency is above
    ``max_df_ratio`` (10%) of the collection; keep its ``fb_terms`` most frequent terms and
    divide by their sum (L1). The feedback weight of term t is ``sum_u s(u) * p(t|u)``. Keep the
    ``fb_terms`` best terms, L1-normalise, and interpolate with the L1-normalised original query:
    ``w(t) = orig_weight * q(t) + (1 - orig_weight) * rm(t)``. The expanded query is scored as
    ``sum_t w(t) * BM25(t, d)`` over the whole index (a new retrieval, not a re-ranking).

``rm3``: units are the top ``fb_docs`` (10) documents of the initial BM25 ranking, scored by
    their BM25 score.

``blocks`` (Yu, Cai, Wen, Ma, WWW 2003; VIPS paper section 5.2): the top ``fb_pages`` (80) pages
    of the initial ranking are taken; their blocks from the chosen source (stored at indexing,
    never recomputed) are pooled; blocks with fewer than ``min_block_terms`` terms are dropped;
    every block is scored against the *original* query with BM25 using the collection's IDF
    (page-level document frequencies; block-level ones are not collected) and the mean length
    of the pooled blocks as ``avgdl``, with the index's k1 and b. Ties go to the block of the
    higher-ranked page, then the higher block on the page. The ``fb_blocks`` (20) best blocks
    that contain a query term are the feedback units, weighted by that block score (optionally
    multiplied by ``page_weight``-th power of their page's normalised score; 0 = off, the
    default). Terms and weights then follow the relevance model above.

    Content blocks: every stored block carries ``weight`` = P(main content) from the
    content model (:mod:`ir.content`; 1.0 when unknown). ``min_block_weight`` keeps only blocks
    at or above it (0.5: content blocks only) and ``weight_power`` multiplies each block's score
    by ``weight ** weight_power`` (block relevance x role). ``score_power`` raises the block
    scores to a power before that (> 1 sharpens the weights towards the best blocks, as query
    likelihood does; 1 = the BM25 score as is), and ``idf_power`` multiplies each candidate
    term's feedback weight by ``idf ** idf_power`` before the ``fb_terms`` best are kept.
    ``repeat_pages`` >= 2 leaves out the blocks whose text is on at least that many pages of
    the index (a template's blocks the content model took for content; 0 = off, the paper's
    method; :meth:`ir.index.Index.content_blocks`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ir.bm25 import bm25_term_scores
from ir.store import Block

__all__ = ["BEST_BLOCKS", "BEST_RM3", "BlockParams", "Rm3Params", "block_units", "expand",
           "params_for", "query_vector", "relevance_model"]

_TERM_OK = re.compile(r"[a-z0-9]+")


def _term_ok(t: str) -> bool:
    """Whether a feedback term may expand the query: Anserini's RM3 rule for ASCII terms
    (2-20 characters of ``[a-z0-9]``), and for terms of other scripts the same length cap
    with letters, digits and combining marks only - so that feedback works for every language
    the analyzer indexes (a single CJK character is a word), while punctuation never does."""
    if t.isascii():
        return 2 <= len(t) <= 20 and _TERM_OK.fullmatch(t) is not None
    return len(t) <= 20 and all(c.isalnum() or unicodedata.category(c).startswith("M")
                                for c in t)


@dataclass(frozen=True)
class Rm3Params:
    """Anserini's RM3 defaults: 10 feedback documents, 10 terms, original weight 0.5."""

    fb_docs: int = 10
    fb_terms: int = 10
    orig_weight: float = 0.5
    max_df_ratio: float = 0.1

    def __post_init__(self) -> None:
        _check(self.fb_terms, self.orig_weight, self.max_df_ratio)
        if self.fb_docs < 1:
            raise ValueError("fb_docs must be >= 1")


@dataclass(frozen=True)
class BlockParams:
    """Block PRF (Yu et al. 2003): top 80 pages, top 20 blocks, 10 terms from them."""

    source: str = "vips"
    fb_pages: int = 80
    fb_blocks: int = 20
    fb_terms: int = 10
    orig_weight: float = 0.5
    max_df_ratio: float = 0.1
    min_block_terms: int = 3
    page_weight: float = 0.0
    min_block_weight: float = 0.0
    weight_power: float = 0.0
    idf_power: float = 0.0
    score_power: float = 1.0
    repeat_pages: int = 0

    def __post_init__(self) -> None:
        _check(self.fb_terms, self.orig_weight, self.max_df_ratio)
        if self.fb_pages < 1 or self.fb_blocks < 1:
            raise ValueError("fb_pages and fb_blocks must be >= 1")
        if self.repeat_pages < 0 or self.repeat_pages == 1:
            raise ValueError("repeat_pages must be 0 (off) or >= 2")
        if not 0.0 <= self.min_block_weight <= 1.0:
            raise ValueError("min_block_weight must be in [0, 1]")
        for name in ("weight_power", "idf_power", "score_power"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")


#: Block-PRF parameters of ``webseg search --prf blocks``: the best configuration measured on
#: the dev collections (cranfield k=3, k=1, titles-only k=1 and mixed-length k=1;
#: eval/results/prf/content/chosen.json and README.md; the dataclass defaults above stay the
#: paper's, which the paper-reproduction tables use): VIPS content blocks of the top 20 pages,
#: without the blocks whose text is on two pages or more (a template's), the 10 best with
#: their BM25 score squared x P(main), unit models weighted by idf, 20 terms, original query
#: weight 0.7.
BEST_BLOCKS: dict[str, Any] = {"source": "vips", "fb_pages": 20, "fb_blocks": 10,
                               "fb_terms": 20, "orig_weight": 0.7, "min_block_weight": 0.5,
                               "weight_power": 1.0, "idf_power": 1.0, "score_power": 2.0,
                               "page_weight": 0.0, "repeat_pages": 2}

#: RM3 parameters of ``webseg search --prf rm3`` (``chosen.json``'s ``rm3``): 5 feedback
#: pages, 20 terms, original query weight 0.7. Chosen by the worst case over the dev
#: collections (clean cranfield and its k=3, k=1 and titles-only k=1 web versions, default
#: index): never below no feedback there (worst 1.024 x, mean 1.047 x), where Anserini's
#: defaults (:class:`Rm3Params`: 10 / 10 / 0.5, kept for comparisons with Anserini) lose on
#: three of the four (0.928 x on cranfield k=3; ``python -m eval.prf.engine_check``,
#: docs/incoming/search.md).
BEST_RM3: dict[str, Any] = {"fb_docs": 5, "fb_terms": 20, "orig_weight": 0.7}


def _check(fb_terms: int, orig_weight: float, max_df_ratio: float) -> None:
    if fb_terms < 1:
        raise ValueError("fb_terms must be >= 1")
    if not 0.0 <= orig_weight <= 1.0:
        raise ValueError("orig_weight must be in [0, 1]")
    if not 0.0 < max_df_ratio <= 1.0:
        raise ValueError("max_df_ratio must be in (0, 1]")


def params_for(method: str, **kw: Any) -> Rm3Params | BlockParams | None:
    """Parameters object of feedback ``method`` from keyword options (unknown keys rejected)."""
    if method == "none":
        if kw:
            raise ValueError(f"feedback 'none' takes no parameters, got {sorted(kw)}")
        return None
    cls = {"rm3": Rm3Params, "blocks": BlockParams}.get(method)
    if cls is None:
        raise ValueError(f"unknown feedback {method!r}: use none, rm3 or blocks")
    known = {f.name for f in fields(cls)}
    bad = set(kw) - known
    if bad:
        raise ValueError(f"unknown {method} parameter(s) {sorted(bad)}; known: {sorted(known)}")
    return cls(**kw)


def query_vector(terms: Sequence[str]) -> dict[str, float]:
    """Query terms as an L1-normalised weight vector (repeated terms count more)."""
    out: dict[str, float] = {}
    for t in terms:
        out[t] = out.get(t, 0.0) + 1.0
    z = sum(out.values())
    return {t: v / z for t, v in out.items()} if z else {}


def _prune(vec: Mapping[str, float], k: int) -> dict[str, float]:
    """The ``k`` largest entries; ties broken by term so results are deterministic."""
    return dict(sorted(vec.items(), key=lambda kv: (-kv[1], kv[0]))[:k])


def relevance_model(units: Sequence[tuple[Mapping[str, int], float]], fb_terms: int,
                    df: Callable[[str], int], n_docs: int, max_df_ratio: float,
                    idf: Callable[[str], float] | None = None, idf_power: float = 0.0
                    ) -> dict[str, float]:
    """RM1 estimate over weighted feedback units (see module docstring), L1-normalised.

    With ``idf_power`` > 0 (and ``idf``) each unit's term counts are multiplied by
    ``idf(t) ** idf_power`` before its ``fb_terms`` best are kept and normalised (a tf-idf
    unit model: term selection that prefers discriminative terms over terms frequent
    everywhere; 0 = plain RM1).
    """
    if idf_power and idf is None:
        raise ValueError("idf_power needs idf")
    acc: dict[str, float] = {}
    for terms, score in units:
        vec: dict[str, float] = {}
        for t, c in terms.items():
            if not _term_ok(t):
                continue
            if n_docs and df(t) / n_docs > max_df_ratio:
                continue
            vec[t] = float(c) * (max(idf(t), 0.0) ** idf_power if idf_power else 1.0)
        vec = _prune(vec, fb_terms)
        z = sum(vec.values())
        if z <= 0.001:
            continue
        for t, c in vec.items():
            acc[t] = acc.get(t, 0.0) + c / z * score
    rm = _prune(acc, fb_terms)
    z = sum(rm.values())
    return {t: v / z for t, v in rm.items()} if z > 0 else {}


def interpolate(q: Mapping[str, float], rm: Mapping[str, float], orig_weight: float
                ) -> dict[str, float]:
    """``orig_weight * q + (1 - orig_weight) * rm`` (the original query alone if rm is empty)."""
    if not rm:
        return dict(q)
    out = {t: orig_weight * w for t, w in q.items()}
    for t, w in rm.items():
        out[t] = out.get(t, 0.0) + (1 - orig_weight) * w
    return {t: w for t, w in out.items() if w > 0}


def block_units(query_terms: Sequence[str], pages: Sequence[tuple[int, float]],
                blocks_of: Callable[[int], Sequence[Block]], idf: Callable[[str], float],
                k1: float, b: float, p: BlockParams) -> list[tuple[Block, float, int]]:
    """The ``fb_blocks`` best blocks of ``pages`` for the query: (block, score, page index)."""
    pool: list[tuple[Block, int, float]] = []
    lengths: list[int] = []
    for page_idx, page_score in pages[: p.fb_pages]:
        for blk in blocks_of(page_idx):
            # weight first: it is an attribute, length a sum over the block's terms
            if blk.weight >= p.min_block_weight and (n := blk.length) >= p.min_block_terms:
                pool.append((blk, page_idx, page_score))
                lengths.append(n)
    if not pool:
        return []
    dl = np.asarray(lengths, dtype=np.float64)
    avgdl = float(dl.mean())
    score = np.zeros(len(pool))
    matched = np.zeros(len(pool), dtype=bool)
    for t in set(query_terms):
        tf = np.asarray([blk.terms.get(t, 0) for blk, _, _ in pool], dtype=np.float64)
        if tf.any():
            score += query_terms.count(t) * bm25_term_scores(tf, dl, avgdl, idf(t), k1, b)
            matched |= tf > 0
    if p.score_power != 1.0:
        score = score ** p.score_power
    if p.weight_power:
        score *= np.asarray([blk.weight for blk, _, _ in pool]) ** p.weight_power
    if p.page_weight:
        top = max(s for _, _, s in pool) or 1.0
        score *= np.asarray([(s / top) ** p.page_weight for _, _, s in pool])
    # only blocks with a query term; stable sort: ties keep page rank, then block rank
    order = sorted(np.flatnonzero(matched).tolist(), key=lambda i: -score[i])
    return [(pool[i][0], float(score[i]), pool[i][1]) for i in order[: p.fb_blocks]]


def expand(query_terms: Sequence[str], units: Sequence[tuple[Mapping[str, int], float]],
           fb_terms: int, orig_weight: float, df: Callable[[str], int], n_docs: int,
           max_df_ratio: float, idf: Callable[[str], float] | None = None,
           idf_power: float = 0.0) -> dict[str, float]:
    """The expanded, weighted query from feedback units (RM3 interpolation)."""
    rm = relevance_model(units, fb_terms, df, n_docs, max_df_ratio, idf, idf_power)
    return interpolate(query_vector(query_terms), rm, orig_weight)
