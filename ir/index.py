"""The index API: create or open an index directory, add documents, search with feedback.

>>> from ir import Index, doc_from_text                               # doctest: +SKIP
>>> ix = Index.create("idx", backend="bm25")                          # doctest: +SKIP
>>> ix.add([doc_from_text("d1", "Block-based feedback for web search", ix.analyzer)])
>>> ix.search("web feedback", k=5, prf="blocks", source="windows")    # doctest: +SKIP

One API, two backends: ``bm25`` (embedded, Okapi BM25 with Lucene's IDF, the default) and
``lucene`` (pyserini, optional extra). Both index the same analysed terms (:mod:`ir.analysis`)
and read feedback blocks from the same store (:mod:`ir.store`), so feedback never renders.

Content-aware indexing: an index created with ``fields`` (e.g. :data:`DEFAULT_FIELDS`) scores a
page by the field-weighted sum of its ``title``, ``main`` and ``rest`` term counts (BM25F's
"weighted term frequency" form, Robertson et al. 2004: one saturation and one length
normalisation over the weighted counts) instead of its whole text; ``fields=None`` indexes whole
pages. Fields come from :mod:`ir.content` (main-content probabilities per text leaf).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ir import feedback as fb
from ir.analysis import Analyzer
from ir.bm25 import EmbeddedBM25, bm25_term_scores, top_candidates
from ir.repeats import DEFAULT_REPEATS, RepeatTracker, demote, demoted_keys, leaf_key
from ir.snippets import snippet as make_snippet
from ir.store import Block, IndexStore, StoredDoc, main_text_hash, passage_record, source_blocks

__all__ = ["BACKENDS", "DEFAULT_B", "DEFAULT_FIELDS", "DEFAULT_K1", "DEFAULT_PASSAGES",
           "DEFAULT_REPEATS", "TEXT_B", "TEXT_K1", "TEXT_SURFACE", "EmptyQueryError", "Hit",
           "Index", "SearchResult"]

BACKENDS = ("bm25", "lucene")
_T = TypeVar("_T")

#: Field weights of the content-aware default (``webseg index``). ``main`` and ``rest`` were
#: chosen on the dev collections (cranfield k=1 and k=3 web versions, and cranfield titles at
#: k=1 for the rest weight; eval/results/prf/content/README.md, ``chosen.json``; the rest weight
#: together with :data:`ir.repeats.DEFAULT_REPEATS`: with template text out of ``main``, the
#: rest of the page is worth little more than a tie-breaker). ``title`` was chosen on real
#: pages, because the web versions keep their template's ``<title>`` (there a title can only
#: mislead, and 0 was best, so a word found only in a real page's title found nothing): each
#: page's own title as a known-item query finds it in the top 10 for 99.5% of WCXB dev and
#: 96.4% of DAnIEL dev pages (95.8% / 90.4% at 0), and MAP on every dev web version falls by at
#: most 0.0023 (the largest weight of the grid within half the 0.005 allowed;
#: ``python -m eval.prf.title_weight``, eval/results/prf/title/README.md).
DEFAULT_FIELDS: dict[str, float] = {"title": 1.0, "main": 1.0, "rest": 0.03}
#: BM25 parameters of ``webseg index`` (chosen on the same dev collections).
DEFAULT_K1, DEFAULT_B = 1.5, 0.4
#: Passage evidence of ``webseg index``: a page's score is its field-weighted BM25 plus
#: ``weight`` x the best BM25 score of its content blocks of ``source`` (blocks with P(main) >=
#: ``min_block_weight`` and >= ``min_terms`` terms, scored as documents of their own); with
#: ``min_blocks`` > 1 only pages with at least that many content blocks get passage evidence
#: (a page with a single content region is already scored by it). ``idf``: ``blocks`` (the
#: passage engine's own block-level IDF, the default) or ``pages`` (the page index's).
#: ``repeat_pages`` >= 2: blocks whose text is on that many pages (:meth:`Index.content_blocks`;
#: a template's own post, comments or widgets the per-page model took for content) give no
#: evidence; ``repeated``: ``drop`` leaves them out of the passage engine, ``mask`` (the
#: default, chosen on dev) keeps them in its statistics (eval/results/prf/content/README.md).
#: ``k1``, ``b``: the passage engine's own BM25 parameters (default: the page
#: index's); blocks want stronger length normalisation than pages (b 0.75 vs 0.4: chosen on
#: four dev versions, pre-registered in eval/results/prf/content/). ``norm: max`` divides
#: both evidences by their best candidate's first (not better on dev; off by default).
#: ``title``: the page's ``<title>`` is one more passage beside its content blocks, as the
#: passages of passage-level rankers carry their document's title (MaxP, Anserini's
#: segmented document indexes): a page's title is its densest statement of what it is about,
#: and without it the passage evidence favours a long article on the same story over the
#: page whose title is the query. Unlike a block, a title on several pages is not masked: it is
#: not template text the content model mistook for content but each page's own name, so the
#: pages sharing it (copies of one page, a site that names every page alike) are equally
#: right for it and tie among themselves (on DAnIEL dev every shared title is one of those;
#: masking them put other pages first). Nor does ``min_terms`` apply (it keeps out tiny
#: blocks, a date or a button, the content model took for main text): "Action" or "Backup
#: Strategy" names its page as well as a long title does. Indexes stored before this setting
#: have no ``title`` key and rank as before.
DEFAULT_PASSAGES: dict[str, Any] = {"source": "vips", "weight": 2.0, "min_block_weight": 0.5,
                                    "min_terms": 3, "min_blocks": 1, "repeat_pages": 2,
                                    "repeated": "mask", "k1": 1.2, "b": 0.75, "title": True}


#: Lucene backend with passages: how many of Lucene's field-weighted top pages the passage
#: evidence re-ranks (at least k). Lucene cannot take a maximum over a page's blocks inside
#: one query, so the passages re-rank its page ranking instead of scoring every page.
LUCENE_PASSAGE_DEPTH = 1000

#: BM25 parameters and surface weight of ``webseg index --input-format jsonl`` (text
#: collections, whole documents). ``b`` 0.75 (Lucene's and bm25s's default) beat the pages'
#: 0.4 on cacm, cranfield and med alike; the surface field (unstemmed terms; an exact word
#: form scores beside its stem) at weight 0.5: b by the smallest MAP gain over those three
#: collections; the weight by the worst case over ad-hoc MAP (all three stay above the earlier
#: defaults) and known-item MRR on English sets the tuning never saw (WCXB dev, where 0.1
#: left most of the gap to an unstemmed engine) (docs/search.md, "Whole-document scoring").
TEXT_K1, TEXT_B, TEXT_SURFACE = 1.5, 0.75, 0.5


def _check_lucene_passages(p: Mapping[str, Any]) -> None:
    """Refuse passage settings the Lucene backend cannot follow: its passage index keeps
    every block (repeated ones are masked at query time) and scores with its own IDF."""
    if p.get("repeated", "drop") != "mask" and int(p.get("repeat_pages", 0)) >= 2:
        raise ValueError("the lucene backend's passages keep repeated blocks in their "
                         "statistics: use repeated: mask (or repeat_pages 0)")
    if p.get("idf", "blocks") != "blocks":
        raise ValueError("the lucene backend's passages use their own IDF (idf: blocks)")


class EmptyQueryError(ValueError):
    """The query has no index terms after analysis (empty, or only stop words)."""


@dataclass
class Hit:
    """One ranked page; ``snippet`` is the passage of its best-matching stored block that
    shows most of the query (a main-content block first; a block whose text is on other pages
    of the index, a template's, only when no other block matches), ``highlights`` the
    (start, end) offsets of the query-term words in it. ``duplicates``: with collapsing, the
    lower-ranked pages folded into this one (same main text, or the same duplicate cluster of
    the indexing pipeline), each as id, url, title, score."""

    rank: int
    id: str
    score: float
    title: str = ""
    url: str | None = None
    status: str = "ok"
    snippet: str = ""
    snippet_source: str = ""
    snippet_seg: int | None = None
    highlights: list[tuple[int, int]] = field(default_factory=list)
    duplicates: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = {"rank": self.rank, "id": self.id, "score": round(self.score, 6),
             "title": self.title, "url": self.url, "status": self.status,
             "snippet": self.snippet, "snippet_source": self.snippet_source,
             "snippet_seg": self.snippet_seg,
             "highlights": [list(h) for h in self.highlights]}
        if self.duplicates:
            d["duplicates"] = self.duplicates
        return d


class SearchResult:
    """Ranked pages as arrays (``rows``, ``scores``); :attr:`hits` builds :class:`Hit` objects
    (with snippets) only when read, so deep runs (k=1000) pay for no per-hit objects."""

    def __init__(self, query: str, prf: str, index: Index, rows: np.ndarray,
                 scores: np.ndarray, terms: Sequence[str] = (), snippets: bool = True,
                 snippet_source: str | None = None, expanded: dict[str, float] | None = None,
                 feedback_units: list[dict[str, Any]] | None = None,
                 folded: dict[int, list[tuple[int, float]]] | None = None) -> None:
        self.query, self.prf = query, prf
        #: row -> the (row, score) pairs collapsed under it (``collapse=True``)
        self.folded = folded or {}
        self.rows, self.scores = rows, scores
        self.expanded = expanded or {}
        self.feedback_units = feedback_units or []
        self._index, self._terms = index, list(terms)
        self._snippets, self._snippet_source = snippets, snippet_source
        self._hits: list[Hit] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def ids(self) -> list[str]:
        """Page ids in rank order (no Hit objects)."""
        ids = self._index._ids
        return [ids[r] for r in self.rows.tolist()]

    @property
    def hits(self) -> list[Hit]:
        """The ranked pages as :class:`Hit` objects (built on first access)."""
        if self._hits is None:
            ix = self._index
            out = []
            if self._snippets:
                ix._prefetch_blocks(self.rows.tolist())
            for rank, (i, sc) in enumerate(zip(self.rows.tolist(), self.scores.tolist(),
                                               strict=True), 1):
                url, title, status, _ = ix._meta[i]
                h = Hit(rank=rank, id=ix._ids[i], score=sc, title=title, url=url,
                        status=status,
                        duplicates=[{"id": ix._ids[r], "url": ix._meta[r][0],
                                     "title": ix._meta[r][1], "score": round(float(x), 6)}
                                    for r, x in self.folded.get(i, [])])
                if self._snippets:
                    ix._snippet(h, i, self._terms, self._snippet_source)
                out.append(h)
            self._hits = out
        return self._hits

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "prf": self.prf, "terms": list(dict.fromkeys(self._terms)),
                "expanded_query": {t: round(w, 6) for t, w in self.expanded.items()},
                "feedback_units": self.feedback_units,
                "hits": [h.to_dict() for h in self.hits]}


def _batched(it: Iterable[_T], n: int) -> Iterator[list[_T]]:
    it = iter(it)
    while batch := list(islice(it, n)):
        yield batch


class Index:
    """An index directory opened for search and incremental adds.

    Rows of the embedded engine are stable: a document id added again retires its old row and
    gets a new one at the end (ties in score are broken by row order, i.e. addition order).
    Only compact per-row metadata (id, url, title, status, reason) is kept beside the engine's
    arrays: full :class:`StoredDoc` objects are not held in memory.

    With fields and ``repeats`` (:mod:`ir.repeats`), main-text leaves repeated on
    ``min_pages`` pages of the index count as ``rest``: an add that makes a leaf repeated
    (or, superseding a page, no longer repeated) re-scores the earlier pages that have it, so
    the index always equals one built from its documents in any order. Re-scoring reads no
    stored document: a page's engine row changes by the terms of the leaves that changed side,
    and a repeated leaf's terms are known from any page holding it (equal keys are equal texts
    up to case and spacing, so equal analysed terms). The Lucene backend gets the same
    re-scored pages with each add: they are deleted there and added again with their fields
    as now weighted, as is a re-added id. Feedback blocks and passages keep the weights the
    page was stored with; which of them repeat across pages (:meth:`content_blocks`) is
    counted when first asked and kept current by adds in the same way.
    """

    def __init__(self, store: IndexStore, **overrides: Any) -> None:
        bad = set(overrides) - {"k1", "b", "fields", "passages", "repeats", "surface"}
        if bad:
            raise ValueError(f"unknown index setting(s) {sorted(bad)}: use k1, b, fields, "
                             "passages, repeats, surface")
        self.store = store
        s = {**store.settings, **{k: v for k, v in overrides.items() if v is not None}}
        self.backend_name: str = s["backend"]
        self.analyzer = Analyzer.from_dict(s["analyzer"])
        self.k1, self.b = float(s["k1"]), float(s["b"])
        self.sources: list[str] = list(s.get("sources", []))
        self.fields: dict[str, float] | None = dict(s["fields"]) if s.get("fields") else None
        self.passages: dict[str, Any] | None = (dict(s["passages"]) if s.get("passages")
                                                else None)
        if self.passages and self.passages.get("idf", "blocks") not in ("blocks", "pages"):
            raise ValueError(f"passages idf must be blocks or pages, got "
                             f"{self.passages['idf']!r}")
        if self.passages and self.passages.get("norm", "none") not in ("none", "max"):
            raise ValueError(f"passages norm must be none or max, got "
                             f"{self.passages['norm']!r}")
        if self.passages and self.passages.get("repeated", "drop") not in ("drop", "mask"):
            raise ValueError(f"passages repeated must be drop or mask, got "
                             f"{self.passages['repeated']!r}")
        self.repeats: dict[str, Any] | None = (dict(s["repeats"]) if s.get("repeats")
                                               else None)
        #: weight of the surface field (unstemmed terms of text documents; 0: none)
        self.surface = float(s.get("surface") or 0.0)
        if self.surface and (self.fields or self.passages):
            raise ValueError("a surface field is for whole-document indexes (text "
                             "collections): not with fields or passages")
        self._surf = EmbeddedBM25(k1=self.k1, b=self.b) if self.surface else None
        self._lucene_surf: Any = None
        self._tracker = (RepeatTracker(int(self.repeats["min_pages"]))
                         if self.repeats and self.fields else None)
        #: per row, the main-leaf keys its engine row counts as rest (rows with any)
        self._applied: dict[int, frozenset[str]] = {}
        #: the terms of one leaf of every key found repeated so far (for re-scoring rows)
        self._rep_terms: dict[str, Mapping[str, float]] = {}
        #: per row, how many main leaves share a key, where more than one
        self._row_n: dict[int, dict[str, int]] = {}
        self._pas: EmbeddedBM25 | None = None
        self._pas_owner: list[int] = []
        #: per passage row: a repeated block kept for the statistics only (``repeated: mask``)
        self._pas_masked: list[bool] = []
        self._pas_dirty = True
        self._pas_rows: dict[int, range] = {}
        self.engine = EmbeddedBM25(k1=self.k1, b=self.b)
        self._ids: list[str] = []
        self._meta: list[tuple[str | None, str, str, str | None]] = []
        #: per row: (main-text hash, duplicate cluster), what collapsing folds by
        self._dup: list[tuple[str | None, str | None]] = []
        self.pos: dict[str, int] = {}
        self._blocks: list[dict[str, list[Block]]] | None = None
        #: blocks of a few rows read without loading the store (:meth:`_prefetch_blocks`)
        self._few_blocks: dict[int, dict[str, list[Block]]] = {}
        #: per row, its passage source's block keys and content blocks as (position, weight,
        #: terms), read from the shards' passages files instead of the block store
        #: (:meth:`_passage_data`; None until then, or when a shard has none)
        self._pas_data: dict[int, tuple[tuple[str, ...],
                                        list[tuple[int, float, dict[str, int]]]]] | None = None
        #: (block source, min_pages) -> live pages per block text (:meth:`block_repeats`)
        self._blk_rep: dict[tuple[str, int], RepeatTracker] = {}
        #: block source -> row -> :meth:`_block_keys` (rows asked for so far)
        self._blk_keys: dict[str, dict[int, tuple[str, ...]]] = {}
        #: row -> the terms of its title as a passage (:meth:`_title_passage`)
        self._title_terms: dict[int, dict[str, int]] = {}
        self._lucene: Any = None
        self._lucene_pas: Any = None
        if self._tracker is not None:  # repetition counts first, so no row is re-scored
            live: dict[str, int] = {}
            for row, (did, keys) in enumerate(store.iter_leaf_keys()):
                if did in live:
                    self._tracker.remove(live[did])
                live[did] = row
                self._tracker.add(row, keys)
        for batch in _batched(store.iter_docs(), 2000):
            self._add_rows(batch, track=False)

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def create(cls, path: str | Path, backend: str = "bm25", analyzer: Analyzer | None = None,
               k1: float = 1.5, b: float = 0.75, sources: Sequence[str] = ("vips",),
               overwrite: bool = False, fields: Mapping[str, float] | None = None,
               passages: Mapping[str, Any] | None = None,
               repeats: Mapping[str, Any] | None = None, surface: float = 0.0) -> Index:
        """A new, empty index at ``path``.

        ``sources``: block sources stored per page. ``fields``: per-field weights (e.g.
        :data:`DEFAULT_FIELDS`) to score pages by their ``title``/``main``/``rest`` fields;
        ``None`` scores whole pages (full-page indexing). ``passages`` (e.g.
        :data:`DEFAULT_PASSAGES`) adds the best content block's score (the Lucene backend
        re-ranks its top pages with it, :data:`LUCENE_PASSAGE_DEPTH`).
        ``repeats`` (e.g. :data:`DEFAULT_REPEATS`; with fields): main-text leaves repeated
        across pages count as ``rest`` (:mod:`ir.repeats`). ``surface`` > 0 (whole-document
        indexes; e.g. :data:`TEXT_SURFACE`): a surface field of the documents' unstemmed
        terms (:attr:`ir.store.StoredDoc.surface`, :func:`ir.pipeline.doc_from_text` with
        ``surface=True``) adds ``surface`` x its BM25 score, so the exact word forms of a
        query count beside their stems (the stemmed terms are scored as without it).
        """
        if surface and (fields or passages):
            raise ValueError("a surface field is for whole-document indexes (text "
                             "collections): not with fields or passages")
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}: use one of {BACKENDS}")
        if backend == "lucene":
            from ir import lucene

            lucene.require()
            if passages:
                _check_lucene_passages(passages)
        an = analyzer or Analyzer()
        store = IndexStore.create(path, {"backend": backend, "analyzer": an.to_dict(),
                                         "k1": k1, "b": b, "sources": list(sources),
                                         "fields": dict(fields) if fields else None,
                                         "passages": dict(passages) if passages else None,
                                         "repeats": dict(repeats) if repeats else None,
                                         "surface": float(surface)},
                                  overwrite=overwrite)
        return cls(store)

    @classmethod
    def open(cls, path: str | Path, k1: float | None = None, b: float | None = None,
             fields: Mapping[str, float] | None = None,
             passages: Mapping[str, Any] | None = None,
             repeats: Mapping[str, Any] | None = None,
             surface: float | None = None) -> Index:
        """Open an existing index (raises IndexNotFoundError / IndexCorruptError).

        ``k1``, ``b``, ``fields``, ``passages``, ``repeats`` and ``surface`` override the
        stored settings for this session only (nothing is written; the embedded backend
        recomputes its weights), e.g. to tune them; ``{}`` switches fields, passages or
        repeats off, ``surface=0`` the surface field.
        """
        return cls(IndexStore.open(path), k1=k1, b=b, fields=fields, passages=passages,
                   repeats=repeats, surface=surface)

    def index_terms(self, d: StoredDoc, rep: frozenset[str] | None = None
                    ) -> Mapping[str, float]:
        """What the engine scores for ``d``: its terms, or its field-weighted fields (``rep``:
        its demoted main-leaf keys, when already known)."""
        if not self.fields:
            return d.terms
        if not d.fields:  # a document stored without fields: all of it counts as main
            w = self.fields.get("main", 1.0)
            return {t: w * c for t, c in d.terms.items()} if w != 1.0 else d.terms
        fields = self.doc_fields(d, rep)
        out: dict[str, float] = {}
        for f, w in self.fields.items():
            if not w:
                continue
            for t, c in fields.get(f, {}).items():
                out[t] = out.get(t, 0.0) + w * c
        return out

    def repeat_stats(self) -> tuple[int, int] | None:
        """(main-text leaf texts found on ``min_pages`` pages or more, pages holding one),
        or None without the repetition rule."""
        return None if self._tracker is None else self._tracker.stats()

    def doc_fields(self, d: StoredDoc, rep: frozenset[str] | None = None
                   ) -> Mapping[str, Mapping[str, float]]:
        """``d``'s fields as this index scores them: with ``repeats``, its main-text leaves
        repeated across the index's pages moved to ``rest`` (:func:`ir.repeats.demote`)."""
        if self._tracker is None or not d.main_leaves:
            return d.fields
        return demote(d.fields, d.main_leaves, self._tracker, rep, d.main_leaf_n)

    def _add_rows(self, docs: Sequence[StoredDoc], track: bool = True) -> set[int]:
        """Append ``docs`` as engine rows; with ``track``, count their main-text leaves first
        and re-score the earlier rows that changes (returned)."""
        stale: set[int] = set()
        if track and self._tracker is not None:
            here: dict[str, int] = {}  # rows of this batch's ids so far
            for row, d in enumerate(docs, start=self.engine.rows):
                old = here.get(d.id, self.pos.get(d.id))
                if old is not None:
                    stale |= self._tracker.remove(old)
                here[d.id] = row
                stale |= self._tracker.add(row, d.main_leaves)
        reps = [self._demoted(d, r) for r, d in enumerate(docs, start=self.engine.rows)]
        rows = self.engine.add(self.index_terms(d, rep) for d, rep in zip(docs, reps,
                                                                          strict=True))
        if self._surf is not None:  # one surface row per engine row
            self._surf.add(d.surface for d in docs)
        superseded: set[int] = set()
        for d, r in zip(docs, rows, strict=True):
            old = self.pos.get(d.id)
            if old is not None:  # a re-added id supersedes (and moves to the end)
                self.engine.remove(old)
                if self._surf is not None:
                    self._surf.remove(old)
                self._retire_passages(old)
                if self._pas_data is not None:
                    self._pas_data.pop(old, None)
                superseded.add(old)
            self.pos[d.id] = r
            self._ids.append(d.id)
            self._meta.append((d.url, d.title, d.status, d.reason))
            self._dup.append((d.main_hash or main_text_hash(d), d.cluster))
        if self._blocks is not None:
            self._blocks.extend(d.blocks for d in docs)
        if self._pas_data is not None and self.passages:
            src, mw = str(self.passages["source"]), self._passage_min_weight()
            for d, r in zip(docs, rows, strict=True):
                rec = passage_record(d.blocks, src, mw)
                self._pas_data[r] = (tuple(rec["keys"]),
                                     [(i, w, t) for i, w, t in rec["content"]])
        live = [r for r in rows if r not in superseded]  # an id twice in this batch: its last
        redo: set[int] = set()  # earlier rows whose passages change with the block counts
        for key, tr in self._blk_rep.items():  # only once blocks are loaded
            changed: set[int] = set()
            for old in superseded:
                changed |= tr.remove(old)
                self._blk_keys.get(key[0], {}).pop(old, None)
            for r in live:
                changed |= tr.add(r, self._block_keys(r, key[0]))
            if key == self._passage_repeats():
                redo |= {r for r in changed if r < rows.start and self.pos[self._ids[r]] == r}
        if self._pas is not None:
            if self.passages and self.passages.get("repeated", "drop") == "mask":
                for r in redo:  # same blocks, other evidence
                    flags = self._passage_blocks(r)[1]
                    for pr, f in zip(self._pas_rows.get(r, range(0)), flags, strict=False):
                        self._pas_masked[pr] = f
                self._pas_dirty = True
                redo = set()
            for r in redo:
                self._retire_passages(r)
            self._add_passages([*sorted(redo), *live])
        old_rows = {r for r in stale if r < rows.start}
        return self._rescore(old_rows)

    def _demoted(self, d: StoredDoc, row: int) -> frozenset[str] | None:
        """The demoted keys of ``d`` (to be row ``row``), recorded with the terms of its
        repeated leaves; None without the rule or main leaves.

        Every key the tracker counts comes from a page's main leaves that pass through here
        once it is repeated (this batch's pages, or every page when opening), so the terms of
        every repeated key are known to :meth:`_rescore`."""
        if self._tracker is None or not d.main_leaves:
            return None
        for k, terms in d.main_leaves.items():
            if k not in self._rep_terms and self._tracker.repeated(k):
                self._rep_terms[k] = terms
        if not d.fields:
            return None
        if d.main_leaf_n:
            self._row_n[row] = d.main_leaf_n
        rep = demoted_keys(d.main_leaves, self._tracker)
        if rep:
            self._applied[row] = rep
        else:
            self._applied.pop(row, None)
        return rep

    def _rescore(self, rows: set[int]) -> set[int]:
        """Update the engine rows ``rows`` whose demoted leaves changed: each by the terms of
        the leaves that changed side, (rest - main) weight times their counts, without
        reading any document (the terms of a repeated leaf text: :meth:`_demoted`). Returns
        the rows that changed."""
        if not rows:
            return set()
        assert self._tracker is not None and self.fields is not None
        moved = float(self.fields.get("rest", 0.0)) - float(self.fields.get("main", 0.0))
        new_rows: dict[int, dict[str, float]] = {}
        for r in rows:
            if self.pos.get(self._ids[r]) != r:
                continue  # superseded: counts for nothing already
            old = self._applied.get(r, frozenset())
            new = demoted_keys(self._tracker.keys_of(r), self._tracker)
            if new == old:
                continue
            changed = [(k, 1.0) for k in new - old] + [(k, -1.0) for k in old - new]
            terms = self.engine.doc_terms(r)
            mult = self._row_n.get(r, {})
            for k, sign in changed:
                w = sign * moved * mult.get(k, 1)
                for t, c in self._rep_terms[k].items():
                    terms[t] = terms.get(t, 0.0) + w * c
            new_rows[r] = {t: c for t, c in terms.items() if c > 1e-6}
            if new:
                self._applied[r] = new
            else:
                self._applied.pop(r, None)
        self.engine.replace(new_rows)
        return set(new_rows)

    def _passage_repeats(self) -> tuple[str, int] | None:
        """The :meth:`block_repeats` key the passages use (None: they keep repeated blocks)."""
        p = self.passages
        rp = int(p.get("repeat_pages", 0)) if p else 0
        return (str(p["source"]), rp) if p and rp >= 2 else None

    def _title_passage(self, row: int) -> dict[str, int]:
        """The terms of ``row``'s title as a passage (analysed once per row)."""
        terms = self._title_terms.get(row)
        if terms is None:
            terms = {}
            for t in self.analyzer.tokens(self._meta[row][1] or ""):
                terms[t] = terms.get(t, 0) + 1
            self._title_terms[row] = terms
        return terms

    def _passage_min_weight(self) -> float:
        assert self.passages is not None
        return float(self.passages.get("min_block_weight", 0.5))

    def _passage_data(self) -> bool:
        """Read the shards' passages files (:func:`ir.store.passage_record`) unless the block
        store is loaded already; False when a shard has none for these passage settings
        (an index written before them, or opened with other settings): the passages then
        come from the block store."""
        if self._pas_data is not None:
            return True
        if self._blocks is not None or not self.passages:
            return False
        src, mw = str(self.passages["source"]), self._passage_min_weight()
        if not self.store.has_passages(src, mw):
            return False
        data: dict[int, tuple[tuple[str, ...], list[tuple[int, float, dict[str, int]]]]] = {}
        for did, keys, content in self.store.iter_passages():
            r = self.pos.get(did)
            if r is not None:  # later copies of an id come later: the live row's is last
                data[r] = (tuple(keys), content)
        self._pas_data = data
        return True

    def _passage_blocks(self, row: int) -> tuple[list[dict[str, int]], list[bool]]:
        """The terms of the blocks of ``row`` the passage engine holds and, for each, whether
        it gives no evidence: a repeated block under ``repeated: mask``, which stays in the
        engine's statistics (``drop`` leaves repeated blocks out of the engine altogether);
        with ``title``, the page's title last (:data:`DEFAULT_PASSAGES`)."""
        assert self.passages is not None
        p = self.passages
        src, mw, mt = str(p["source"]), self._passage_min_weight(), int(p.get("min_terms", 3))
        rp = int(p.get("repeat_pages", 0))
        if self._passage_data():
            keys, content = (self._pas_data or {}).get(row, ((), []))
            cand = [(t, keys[i]) for i, w, t in content if w >= mw]
            flags = self._repeat_flags([k for _, k in cand], src, rp)
            flagged = [(t, rep) for (t, _), rep in zip(cand, flags, strict=True)]
        else:
            flagged = [(b.terms, rep) for b, rep in self._flagged_blocks(row, src, mw, rp)]
        flagged = [(t, rep) for t, rep in flagged if sum(t.values()) >= mt]
        if p.get("title") and (tt := self._title_passage(row)):
            # the page's own name: never a template's, and as much its name when short
            flagged.append((tt, False))
        if p.get("repeated", "drop") == "drop":
            flagged = [(t, False) for t, rep in flagged if not rep]
        return [t for t, _ in flagged], [rep for _, rep in flagged]

    def _add_passages(self, rows: Sequence[int]) -> None:
        """The content blocks of ``rows`` as rows of the passage engine."""
        assert self.passages is not None and self._pas is not None
        mb = int(self.passages.get("min_blocks", 1))
        terms: list[dict[str, int]] = []
        for row in rows:
            sel, masked = self._passage_blocks(row)
            if len(sel) < mb:  # one content region: the page score already is its score
                sel, masked = [], []
            start = self._pas.rows + len(terms)
            terms.extend(sel)
            self._pas_owner.extend([row] * len(sel))
            self._pas_masked.extend(masked)
            self._pas_rows[row] = range(start, start + len(sel))
        self._pas.add(terms)
        self._pas_dirty = True

    def _retire_passages(self, row: int) -> None:
        if self._pas is not None:
            for pr in self._pas_rows.pop(row, range(0)):
                self._pas.remove(pr)

    def _passage_engine(self) -> tuple[EmbeddedBM25, np.ndarray, np.ndarray | None]:
        """The passage engine, the page row of each passage row, and which passage rows give
        no evidence (None when none)."""
        if self._pas is None:
            p = self.passages or {}
            self._pas = EmbeddedBM25(k1=float(p.get("k1", self.k1)), b=float(p.get("b", self.b)))
            if self._ids and not self._passage_data():
                self.blocks(0)  # loads the block store once
            self._add_passages(sorted(self.pos.values()))
        if self._pas_dirty:
            self._pas_owner_arr = np.asarray(self._pas_owner, dtype=np.int64)
            masked = np.asarray(self._pas_masked, dtype=bool)
            self._pas_masked_arr = masked if masked.any() else None
            self._pas_dirty = False
        return self._pas, self._pas_owner_arr, self._pas_masked_arr

    def __len__(self) -> int:
        return len(self.pos)

    @property
    def docs(self) -> list[StoredDoc]:
        """Live documents in row order, rebuilt from the engine (terms as the engine scores
        them, blocks not included): for inspection and tests, not for hot paths."""
        out = []
        for did, r in sorted(self.pos.items(), key=lambda kv: kv[1]):
            url, title, status, reason = self._meta[r]
            out.append(StoredDoc(id=did, terms=self.engine.doc_terms(r), url=url, title=title,
                                 status=status, reason=reason))
        return out

    def add(self, docs: Iterable[StoredDoc]) -> int:
        """Append documents as one new shard (and to the Lucene index); returns the count.

        The cost is proportional to the batch, not to the index: the store writes one shard
        and the engine appends compact rows (its BM25 weights are refreshed, vectorised, at
        the next query).
        """
        batch = list(docs)
        if not batch:
            return 0
        for d in batch:  # set when stored, computed once (the store and the rows read it)
            if d.main_hash is None:
                d.main_hash = main_text_hash(d)
        self.store.append(batch)
        known = {d.id for d in batch if d.id in self.pos}
        rescored = self._add_rows(batch)
        if self.backend_name == "lucene":
            # pages whose main leaves changed side: their engine rows are the fields as
            # now weighted (the same counts the Lucene backend derives from fields)
            fresh = {d.id for d in batch}
            weighted = {self._ids[r]: self.engine.doc_terms(r) for r in sorted(rescored)
                        if self._ids[r] not in fresh}
            self._lucene_backend().add([d if not d.main_leaves else
                                        StoredDoc(id=d.id, terms=d.terms,
                                                  fields=dict(self.doc_fields(d)))
                                        for d in batch], weighted, known)
            if self.passages:
                self._sync_lucene_passages()
        return len(batch)

    # ------------------------------------------------------------------ access
    def blocks(self, idx: int) -> dict[str, list[Block]]:
        """Stored blocks of row ``idx`` per source (loaded once, on first use)."""
        if self._blocks is None and idx in self._few_blocks:
            return self._few_blocks[idx]
        if self._blocks is None:
            found: dict[str, dict[str, list[Block]]] = {}
            for did, bl in self.store.iter_blocks():
                found[did] = bl
            rows: list[dict[str, list[Block]]] = [{} for _ in self._ids]
            for did, r in self.pos.items():
                rows[r] = found.get(did, {})
            self._blocks = rows
            self._few_blocks = {}
        return self._blocks[idx]

    def _prefetch_blocks(self, rows: Sequence[int]) -> None:
        """Read the blocks of ``rows`` alone (for their snippets) unless the store is loaded."""
        if self._blocks is not None:
            return
        want = {self._ids[r]: r for r in rows if r not in self._few_blocks}
        if not want:
            return
        if len(self._few_blocks) > 10_000:
            self._few_blocks = {}
        # rows are numbered in shard order (superseded copies included), so a row's shard
        # follows from the shards' document counts
        ends = np.cumsum([sh["docs"] for sh in self.store.manifest["shards"]])
        shards = set(np.searchsorted(ends, list(want.values()), side="right").tolist())
        found = self.store.blocks_of(want, shards)
        for did, r in want.items():
            self._few_blocks[r] = found.get(did, {})

    def _source_blocks(self, idx: int, source: str) -> list[Block]:
        """Blocks of ``source``; pages without them (text-only pages) fall back to windows."""
        return source_blocks(self.blocks(idx), source)

    def _block_keys(self, idx: int, source: str) -> tuple[str, ...]:
        """:func:`ir.repeats.leaf_key` of the text of each block of ``source`` on row ``idx``
        (hashed once per row: feedback asks again for every query)."""
        memo = self._blk_keys.setdefault(source, {})
        got = memo.get(idx)
        if got is None:
            if (self._pas_data is not None and self.passages
                    and source == self.passages["source"] and idx in self._pas_data):
                got = memo[idx] = self._pas_data[idx][0]  # the same keys, read compactly
            else:
                got = memo[idx] = tuple(leaf_key(b.text)
                                        for b in self._source_blocks(idx, source))
        return got

    def block_repeats(self, source: str, min_pages: int) -> RepeatTracker:
        """Live pages per block text of ``source``, as a :class:`ir.repeats.RepeatTracker`
        with ``min_pages`` (counted over every live row on first use, then kept up to date
        by :meth:`add`)."""
        key = (source, int(min_pages))
        tr = self._blk_rep.get(key)
        if tr is None:
            tr = RepeatTracker(int(min_pages))
            for r in sorted(self.pos.values()):
                tr.add(r, self._block_keys(r, source))
            self._blk_rep[key] = tr
        return tr

    def content_blocks(self, idx: int, source: str, min_weight: float = 0.0,
                       repeat_pages: int = 0) -> list[Block]:
        """Blocks of ``source`` on row ``idx`` with ``weight`` >= ``min_weight``; with
        ``repeat_pages`` >= 2, without those whose text is on at least that many pages of the
        index - unless all of them are (a duplicate page, not a template).

        Why: the content model judges one page at a time and takes a template's own article,
        comments or sidebar posts for content on many pages (on the cranfield web version with
        one abstract per page, about 80% of the terms of the VIPS content blocks are in blocks
        whose text recurs on other pages); the block-level twin of the repetition rule of
        :mod:`ir.repeats`.
        """
        return [b for b, rep in self._flagged_blocks(idx, source, min_weight, repeat_pages)
                if not rep]

    def _flagged_blocks(self, idx: int, source: str, min_weight: float, repeat_pages: int
                        ) -> list[tuple[Block, bool]]:
        """The blocks of :meth:`content_blocks` before the repeated ones are left out, each
        with whether it is one (never with ``repeat_pages`` < 2)."""
        bl = self._source_blocks(idx, source)
        if repeat_pages < 2:
            return [(b, False) for b in bl if b.weight >= min_weight]
        cand = [(b, k) for b, k in zip(bl, self._block_keys(idx, source), strict=True)
                if b.weight >= min_weight]
        flags = self._repeat_flags([k for _, k in cand], source, repeat_pages)
        return [(b, f) for (b, _), f in zip(cand, flags, strict=True)]

    def _repeat_flags(self, keys: Sequence[str], source: str, repeat_pages: int
                      ) -> list[bool]:
        """For one page's content-block keys, whether each is repeated on ``repeat_pages``
        pages (none are when all of them are: a duplicate page; :func:`ir.repeats.demoted_keys`)."""
        if repeat_pages < 2:
            return [False] * len(keys)
        rep = demoted_keys(keys, self.block_repeats(source, repeat_pages))
        return [k in rep for k in keys]

    def _lucene_backend(self) -> Any:
        if self._lucene is None:
            from ir.lucene import LuceneBackend

            self._lucene = LuceneBackend(self.store.path / "lucene", self.k1, self.b,
                                         self.fields)
        return self._lucene

    # ------------------------------------------------------------------ search
    def query_terms(self, query: str) -> list[str]:
        if not isinstance(query, str):
            raise TypeError("query must be a string")
        terms = self.analyzer.tokens(query)
        if not terms:
            raise EmptyQueryError(f"query {query[:60]!r} has no index terms after analysis "
                                  "(empty, or only stop words)")
        return terms

    def surface_weights(self, query: str) -> dict[str, float] | None:
        """The query's unstemmed terms for the surface field (None without one)."""
        if not self.surface:
            return None
        from ir.pipeline import surface_analyzer

        t = surface_analyzer(self.analyzer).tokens(query)
        return {x: float(t.count(x)) for x in dict.fromkeys(t)}

    def retrieve(self, weights: Mapping[str, float], k: int,
                 surface: Mapping[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top ``k`` rows and scores for a weighted query on this index's backend;
        ``surface``: the query's unstemmed terms (:meth:`surface_weights`), scored on the
        surface field of an index that has one."""
        if surface and self._surf is not None:
            return self._retrieve_surface(weights, surface, k)
        if self.backend_name == "lucene":
            depth = max(k, LUCENE_PASSAGE_DEPTH) if self.passages else k
            pairs = [(self.pos[d], s) for d, s in self._lucene_backend().top(weights, depth)
                     if d in self.pos]
            rows = np.asarray([r for r, _ in pairs], dtype=np.int64)
            scores = np.asarray([s for _, s in pairs], dtype=np.float64)
            if self.passages and len(rows):
                return self._lucene_passage_rerank(weights, rows, scores, k)
            return rows, scores
        if not self.passages:
            return self.engine.top(weights, k)
        s, cand = self.engine.match(weights)
        pas, owner, masked = self._passage_engine()
        if self.passages.get("idf", "blocks") == "pages":
            # the page engine's IDF: BM25 is linear in idf(t), so scale each term's weight
            weights = {t: w * self.engine.idf(t) / pi for t, w in weights.items()
                       if (pi := pas.idf(t)) > 0}
        ps, pcand = pas.match(weights)
        if masked is not None:
            pcand = pcand[~masked[pcand]]
        if len(pcand):
            best = np.zeros(len(s))
            np.maximum.at(best, owner[pcand], ps[pcand])
            s = self._combine(s, best, cand)
        return top_candidates(s, cand, k)

    def _retrieve_surface(self, weights: Mapping[str, float], surface: Mapping[str, float],
                          k: int) -> tuple[np.ndarray, np.ndarray]:
        """Stemmed score + :attr:`surface` x the surface field's score. The candidates are the
        stemmed query's matches (an exact form matches its stem too). Lucene: its top pages
        (:data:`LUCENE_PASSAGE_DEPTH` deep) re-ranked with the surface index's scores
        (``lucene-surface/``; a page beyond its top that many counts 0 there)."""
        assert self._surf is not None
        if self.backend_name == "lucene":
            depth = max(k, LUCENE_PASSAGE_DEPTH)
            lu = self._lucene_backend()
            pairs = [(self.pos[d], s) for d, s in lu.top(weights, depth) if d in self.pos]
            rows = np.asarray([r for r, _ in pairs], dtype=np.int64)
            s = np.asarray([x for _, x in pairs], dtype=np.float64)
            if not len(rows):
                return rows, s
            self._sync_lucene_surface()
            at = {r: i for i, r in enumerate(rows.tolist())}
            extra = np.zeros(len(rows))
            for d, x in self._lucene_surface().top(surface, depth):
                i = at.get(self.pos.get(d, -1))
                if i is not None:
                    extra[i] = x
            s = s + self.surface * extra
            order = np.lexsort((rows, -s))[:k]
            return rows[order], s[order]
        s, cand = self.engine.match(weights)
        s = s + self.surface * self._surf.scores(surface)
        return top_candidates(s, cand, k)

    def _lucene_surface(self) -> Any:
        if self._lucene_surf is None:
            from ir.lucene import LuceneBackend

            self._lucene_surf = LuceneBackend(self.store.path / "lucene-surface", self.k1,
                                              self.b)
        return self._lucene_surf

    def _sync_lucene_surface(self) -> None:
        """Write the surface rows the Lucene surface index lacks (``lucene-surface.json``:
        how many store rows are in; a re-added id's earlier document is replaced)."""
        assert self._surf is not None
        mark = self.store.path / "lucene-surface.json"
        try:
            covered = int(json.loads(mark.read_text(encoding="utf-8"))["rows"])
        except (OSError, ValueError, KeyError, TypeError):
            covered = 0
        n = self.engine.rows
        if covered >= n:
            return
        lu = self._lucene_surface()
        if covered == 0 and lu.path.exists():
            shutil.rmtree(lu.path)
        items = [(self._ids[r], self._surf.doc_terms(r)) for r in range(covered, n)
                 if self.pos.get(self._ids[r]) == r]
        again = {i for i, _ in items} & set(self._ids[:covered])  # re-added: replace theirs
        lu.write([(i, {t: int(c) for t, c in d.items()}) for i, d in items], delete=again)
        mark.write_text(json.dumps({"rows": n}), encoding="utf-8")

    def _combine(self, s: np.ndarray, best: np.ndarray, cand: np.ndarray) -> np.ndarray:
        """Page scores ``s`` plus ``weight`` x best passage scores ``best`` (both over every
        row, or both over the candidates; ``cand`` indexes ``s``'s candidates)."""
        assert self.passages is not None
        if self.passages.get("norm", "none") == "max" and len(cand):
            # each evidence over its best candidate: the weight then means the same on
            # every collection and query, whatever the two engines' IDF scales
            s = s / max(float(s[cand].max()), 1e-12)
            best = best / max(float(best.max()), 1e-12)
        return s + float(self.passages.get("weight", 1.0)) * best

    def _lucene_passages(self) -> Any:
        """The passage engine of a Lucene index: its content blocks as Lucene documents
        ``<row>#<n>`` in ``lucene-passages/`` (the passage engine's own k1 and b)."""
        if self._lucene_pas is None:
            from ir.lucene import LuceneBackend

            p = self.passages or {}
            self._lucene_pas = LuceneBackend(self.store.path / "lucene-passages",
                                             float(p.get("k1", self.k1)),
                                             float(p.get("b", self.b)))
        return self._lucene_pas

    def _sync_lucene_passages(self) -> None:
        """Write the passage rows the Lucene passage index lacks (rows are numbered in store
        order, so ``lucene-passages.json`` records how many are in; a page added again has
        its earlier row's passages deleted). Other block settings than those it was written
        with rebuild it. Repeated blocks are masked at query time, so they stay in."""
        assert self.passages is not None
        p = self.passages
        _check_lucene_passages(p)
        layout = {"source": p["source"], "min_block_weight": self._passage_min_weight(),
                  "min_terms": int(p.get("min_terms", 3)),
                  "min_blocks": int(p.get("min_blocks", 1))}
        if p.get("title"):  # an index written without title passages is rebuilt
            layout["title"] = True
        mark = self.store.path / "lucene-passages.json"
        try:
            m = json.loads(mark.read_text(encoding="utf-8"))
            covered = int(m["rows"]) if m.get("layout") == layout else 0
        except (OSError, ValueError, KeyError, TypeError):
            covered = 0
        n = self.engine.rows
        if covered >= n:
            return
        lp = self._lucene_passages()
        if covered == 0 and lp.path.exists():
            shutil.rmtree(lp.path)
        again = set(self._ids[covered:n])
        stale = [f"{r}#" for r in range(covered) if self._ids[r] in again]
        items: list[tuple[str, Mapping[str, int]]] = []
        for r in range(covered, n):
            if self.pos.get(self._ids[r]) != r:
                continue
            terms = self._passage_blocks(r)[0]
            if len(terms) >= layout["min_blocks"]:
                items.extend((f"{r}#{i}", t) for i, t in enumerate(terms))
        if items or stale or not lp.path.exists():
            lp.write(items, delete_prefixes=stale)
        mark.write_text(json.dumps({"rows": n, "layout": layout}), encoding="utf-8")

    def _lucene_passage_rerank(self, weights: Mapping[str, float], rows: np.ndarray,
                               scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Lucene's field-weighted top pages (:data:`LUCENE_PASSAGE_DEPTH` deep) re-ranked
        with the best unmasked passage among Lucene's top passages (10 per page)."""
        self._sync_lucene_passages()
        at = {r: i for i, r in enumerate(rows.tolist())}
        best = np.zeros(len(rows))
        flags: dict[int, list[bool]] = {}
        for pid, sc in self._lucene_passages().top(weights, 10 * len(rows)):
            r_s, _, n_s = pid.rpartition("#")
            i = at.get(int(r_s))
            if i is None or sc <= best[i]:
                continue
            r = int(r_s)
            if r not in flags:
                flags[r] = self._passage_blocks(r)[1]
            n = int(n_s)
            if n < len(flags[r]) and not flags[r][n]:
                best[i] = sc
        s = self._combine(scores, best, np.arange(len(rows)))
        order = np.lexsort((rows, -s))[:k]
        return rows[order], s[order]

    def search(self, query: str, k: int = 10, prf: str = "none", snippets: bool = True,
               snippet_source: str | None = None, collapse: bool = False,
               **params: Any) -> SearchResult:
        """Rank pages for ``query`` with feedback ``prf`` (none, rm3, blocks, anserini-rm3).

        ``params`` are the feedback parameters (:class:`ir.feedback.Rm3Params`,
        :class:`ir.feedback.BlockParams`). ``anserini-rm3`` (lucene backend only) runs
        Anserini's own RM3 for comparison. ``collapse`` (for display; never for evaluation
        runs): pages with the same main text, or in one duplicate cluster of the indexing
        pipeline, fold into the best-scoring of them (:meth:`collapse`); ``k`` pages remain
        where the index has that many distinct ones.
        """
        if k < 1:
            raise ValueError("k must be >= 1")
        want = k
        if collapse:  # deeper, so that k distinct pages remain after folding
            k = min(max(5 * k, k + 100), max(len(self), 1))
        terms = self.query_terms(query)
        units: list[dict[str, Any]] = []
        if prf == "anserini-rm3":
            if self.backend_name != "lucene":
                raise ValueError("anserini-rm3 needs the lucene backend")
            p = fb.params_for("rm3", **params)
            pairs = [(self.pos[d], s) for d, s in self._lucene_backend().top_rm3(
                terms, k, p.fb_docs, p.fb_terms, p.orig_weight) if d in self.pos]
            rows = np.asarray([r for r, _ in pairs], dtype=np.int64)
            scores = np.asarray([s for _, s in pairs], dtype=np.float64)
            weights: dict[str, float] = {}
        else:
            p = fb.params_for(prf, **params)
            q_weights = {t: float(terms.count(t)) for t in dict.fromkeys(terms)}
            sw = self.surface_weights(query)
            if p is None:
                rows, scores = self.retrieve(q_weights, k, sw)
                weights = q_weights
            else:
                depth = max(k, getattr(p, "fb_docs", 0), getattr(p, "fb_pages", 0))
                r0, s0 = self.retrieve(q_weights, depth, sw)
                first = list(zip(r0.tolist(), s0.tolist(), strict=True))
                weights, units = self._feedback(terms, first, p)
                rows, scores = self.retrieve(weights, k, sw)
        folded: dict[int, list[tuple[int, float]]] = {}
        if collapse:
            rows, scores, folded = self.collapse(rows, scores, want)
        return SearchResult(query, prf, self, rows, scores, terms, snippets, snippet_source,
                            weights, units, folded)

    def collapse(self, rows: np.ndarray, scores: np.ndarray, k: int
                 ) -> tuple[np.ndarray, np.ndarray, dict[int, list[tuple[int, float]]]]:
        """The first ``k`` ranked rows that are not a lower-ranked copy of an earlier one, and
        for each the (row, score) of its copies: pages with the same main-text hash (stored
        at index time, :func:`ir.store.main_text_hash`) or the same duplicate cluster."""
        leader: dict[tuple[str, str], int] = {}
        keep: list[int] = []
        folded: dict[int, list[tuple[int, float]]] = {}
        for i, (r, sc) in enumerate(zip(rows.tolist(), scores.tolist(), strict=True)):
            h, c = self._dup[r]
            keys = [key for key in (("main", h), ("cluster", c)) if key[1] is not None]
            lead = next((leader[key] for key in keys if key in leader), None)
            if lead is None:
                if len(keep) >= k:
                    continue  # no room for another page; copies of kept ones still fold
                lead = r
                keep.append(i)
            else:
                folded.setdefault(lead, []).append((r, sc))
            for key in keys:
                leader.setdefault(key, lead)
        idx = np.asarray(keep, dtype=np.int64)
        return rows[idx], scores[idx], folded

    def _feedback(self, terms: list[str], first: list[tuple[int, float]],
                  p: fb.Rm3Params | fb.BlockParams
                  ) -> tuple[dict[str, float], list[dict[str, Any]]]:
        n, df = len(self), self.engine.df
        if isinstance(p, fb.Rm3Params):
            top = first[: p.fb_docs]
            units = [(self.engine.doc_terms(i), s) for i, s in top]
            info = [{"doc": self._ids[i], "score": round(s, 4)} for i, s in top]
            return fb.expand(terms, units, p.fb_terms, p.orig_weight, df, n,
                             p.max_df_ratio), info
        blocks = fb.block_units(terms, first,
                                lambda i: self.content_blocks(i, p.source, p.min_block_weight,
                                                              p.repeat_pages),
                                self.engine.idf, self.k1, self.b, p)
        info = [{"doc": self._ids[i], "seg": blk.seg, "score": round(s, 4),
                 "role": blk.role, "weight": blk.weight, "text": blk.text[:120]}
                for blk, s, i in blocks]
        return fb.expand(terms, [(blk.terms, s) for blk, s, _ in blocks], p.fb_terms,
                         p.orig_weight, df, n, p.max_df_ratio, self.engine.idf,
                         p.idf_power), info

    def _snippet(self, h: Hit, idx: int, terms: list[str], source: str | None) -> None:
        """The snippet of ``h``: the best block for the query by BM25 among, in this order of
        preference, the page's main-content blocks that match and are its own (not repeated on
        other pages), main-content blocks that match, any block that matches, and when none
        does (a title-only match) the page's first main-content block; then the passage of it
        that shows most of the query, with the query-term words marked. At each of these
        steps a block that only repeats the page's title (its headline) gives way to one
        that does not."""
        src = source or (self.sources[0] if self.sources else "windows")
        bl = self._source_blocks(idx, src)
        if not bl:
            return
        dl = np.asarray([b.length for b in bl], dtype=np.float64)
        avgdl = float(dl.mean()) if len(dl) else 0.0
        sc = np.zeros(len(bl))
        matched = np.zeros(len(bl), dtype=bool)
        for t in set(terms):
            tf = np.asarray([b.terms.get(t, 0) for b in bl], dtype=np.float64)
            if tf.any():
                sc += bm25_term_scores(tf, dl, avgdl, self.engine.idf(t), self.k1, self.b)
                matched |= tf > 0
        main = np.asarray([b.weight >= 0.5 for b in bl], dtype=bool)
        own = np.ones(len(bl), dtype=bool)
        if matched.sum() > 1:  # the page's own text beats a template's repeated block
            flags = self._flagged_blocks(idx, src, 0.0, int(DEFAULT_REPEATS["min_pages"]))
            own = ~np.asarray([rep for _, rep in flags], dtype=bool)
        # a heading that repeats the title shows nothing the title line does not: text first
        fresh = ~np.asarray([_repeats_title(b.text, h.title) for b in bl], dtype=bool)
        for base in (matched & main & own, matched & main, matched & own, matched):
            mask = base & fresh if (base & fresh).any() else base
            if mask.any():
                j = int(np.flatnonzero(mask)[np.argmax(sc[mask])])
                break
        else:
            j = int(np.flatnonzero(main)[0]) if main.any() else 0
        h.snippet, h.highlights = make_snippet(bl[j].text, terms, self.analyzer)
        h.snippet_source = src if src in self.blocks(idx) else "windows"
        h.snippet_seg = bl[j].seg


def _repeats_title(text: str, title: str | None) -> bool:
    """Whether a block's text is part of the page title ("Keeping a sourdough starter alive"
    in "Keeping a sourdough starter alive | Weekend Workshop"), case and spaces folded."""
    if not title or not text:
        return False
    t = " ".join(text.casefold().split())
    return bool(t) and t in " ".join(title.casefold().split())
