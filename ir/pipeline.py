"""Turning inputs into stored documents: render and segment each page once, keep its blocks.

:func:`doc_from_page` analyses a rendered page: its text (title + visible text) becomes the
document, and each block source's blocks (:mod:`ir.blocks`) are stored beside it, plus
``windows`` always (the fallback for pages without segments). :func:`doc_from_text` makes a
text-only document (plain-text collections, or pages that failed to render: status
``text-only`` with the reason recorded). :func:`index_paths` runs the whole thing over files,
directories, WARC files and URLs; no input is dropped silently: a record with no
text is reported and counted as failed, never indexed as an empty document.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any

import numpy as np

from ir.analysis import Analyzer, term_counts
from ir.blocks import (
    page_blocks,
    page_text,
    part_sizes,
    shown_leaves,
    spaced,
    window_blocks,
    word_weights,
)
from ir.content import DEFAULT_MODEL
from ir.store import StoredDoc

__all__ = ["IndexReport", "declared_hints", "doc_from_page", "doc_from_text", "fallback_text",
           "html_text", "index_paths", "index_result", "page_result", "result_block_fn",
           "result_language", "surface_analyzer"]


def _language(text: str, hints: Sequence[str] = ()) -> str | None:
    """The page's ISO 639-1 code (:func:`webseg.lang.identify`), stored with the document."""
    from webseg.lang import identify

    return identify(text, hints).code


def _main_text(text: str, parts: list[str], probs: list[float] | None) -> str:
    """The words of ``text`` (``" ".join(parts)``, the page's leaf texts) the content model
    calls main (P >= 0.5), all of them without a model (``probs`` None): a page's language
    is its article's, not its menu's (often English on any site). A leaf's words share its
    P(main), so they are its main leaves joined."""
    if probs is None:
        return text
    main = [t for t, p in zip(parts, probs, strict=True) if p >= 0.5]
    return " ".join(main) if main else text


def declared_hints(rec: Any) -> list[str]:
    """The languages a local or WARC input declares in its head (the ``lang_hints`` of
    :func:`doc_from_page`); none for URL input (the page is fetched by the browser) or
    unreadable input."""
    from webseg.lang import declared_languages

    if getattr(rec, "error", None) is not None or getattr(rec, "kind", None) == "url":
        return []
    try:
        return declared_languages(rec.read_bytes())
    except (OSError, ValueError):
        return []


def page_result(page: Any, html: str | None, url: str | None) -> Any:
    """The page's clean result (:func:`webseg.clean.extract`, the default method) as ``webseg
    clean`` and the pipeline's clean stage make it: ``webseg index`` stores its language (and
    reuses its block-model result), so its documents are the pipeline's."""
    from webseg.clean import extract

    return extract(page, html=html, url=url)


def index_result(page: Any, html: str | None, url: str | None) -> tuple[Any, Any]:
    """``(clean result, its language)`` for the page's index entry (:func:`page_result`,
    :func:`result_language`), or ``(None, None)`` when making them fails: the page is still
    indexed, its document identifying its own text (and recording the model's error)."""
    try:
        res = page_result(page, html, url)
        return res, result_language(res)
    except Exception:  # noqa: BLE001 - the result failing must not drop the page
        return None, None


def result_language(res: Any) -> Any:
    """The :class:`webseg.lang.Language` a clean result states (its ``language``: the main
    text's, checked against the languages the page declares), for :func:`doc_from_page`;
    None when no language detector is installed."""
    from webseg.lang import Language

    d = res.language
    return None if d is None else Language(d["code"], d["confidence"], d["source"])


def result_block_fn(res: Any) -> Any:
    """A clean result's block-model result when it is exactly what the index's content model
    computes: the blocks method on this page alone (no site pages, no decoder or model of its
    own), else None."""
    if res is None or res.method != "blocks" or res.blocks is None:
        return None
    if getattr(res, "site_repeated", None) is not None:
        return None
    return res.blocks


def _page_hints(page: Any) -> list[str]:
    """Languages the page declares (``<html lang>``, Content-Language), when the page object
    carries them."""
    hints = getattr(page, "lang_hints", None) or ()
    return [h for h in hints if isinstance(h, str)]


def surface_analyzer(an: Any) -> Analyzer:
    """``an`` without stemming (same tokens, case folding and stop words): the word forms of
    an index's surface field, where an exact form scores beside its stem, as an engine's
    unstemmed sub-field does."""
    base = an.analyzer if isinstance(an, PageTokens) else an
    return base.unstemmed()


def doc_from_text(doc_id: str, text: str, an: Analyzer, title: str = "", url: str | None = None,
                  status: str = "ok", reason: str | None = None,
                  lang_hints: Sequence[str] = (), surface: bool = False,
                  language: Any = None) -> StoredDoc:
    """A document from plain text; its blocks are 50-word windows, its fields the title and
    the text as main content (no layout to tell content from boilerplate). ``lang_hints``:
    declared languages (a record's ``lang``), checked against the text. ``surface``: also
    store the unstemmed terms (for an index with a surface field, :class:`ir.Index`).
    ``language``: the :class:`webseg.lang.Language` of ``text or title`` with those hints when
    the caller identified many texts at once (:func:`webseg.lang.identify_many`)."""
    full = f"{title} {text}".strip()
    toks: list[str] = []  # the windows' tokens are the whole text's (spaced text)
    windows = window_blocks(full, an, text_tokens=toks)
    if not spaced(full):
        toks = an.tokens(full)
    title_toks = an.tokens(title)
    # ASCII text: no token crosses the space after the title, so the text's tokens follow it
    main_toks = toks[len(title_toks):] if full.isascii() else an.tokens(text)
    terms = dict(Counter(toks))
    surf = dict(Counter(surface_analyzer(an).tokens(full))) if surface else {}
    if not terms and status == "ok":
        status, reason = "empty", "no index terms in the text"
    fields = {"title": _float_counts(title_toks), "main": _float_counts(main_toks)}
    return StoredDoc(id=doc_id, terms=terms, url=url, title=title, status=status, reason=reason,
                     blocks={"windows": windows}, fields=fields,
                     lang=language.code if language is not None
                     else _language(text or title, lang_hints), surface=surf)


def _float_counts(tokens: list[str]) -> dict[str, float]:
    """Term counts as floats (a field's soft counts), in first-occurrence order."""
    c = Counter(tokens)
    return dict(zip(c, map(float, c.values()), strict=True))


def doc_from_page(doc_id: str, page: Any, an: Analyzer, sources: Sequence[str],
                  url: str | None = None, content: bool = True,
                  segmentations: Mapping[str, Any] | None = None,
                  content_model: str = DEFAULT_MODEL, block_fn: Any = None,
                  lang_hints: Sequence[str] = (), language: Any = None) -> StoredDoc:
    """A document from a rendered page: whole-page terms, the blocks of every source in
    ``sources`` (plus ``windows``), and with ``content`` (default) the content-aware part:
    fields ``title``/``main``/``rest`` and a weight and role per block (:mod:`ir.content`).

    The one function that turns a Page into what the index stores (``webseg index``, the
    pipeline, the evaluation harness all call it). ``segmentations`` (source -> Segmentation
    already computed for this page with that source's segmenter) are reused, not recomputed.
    ``content_model``: one of ``ir.content.MODELS`` (:func:`ir.content.leaf_main_prob`); the
    default, ``ir.content.DEFAULT_MODEL``, is the best measured on the dev
    collections. ``block_fn``: the page's block-model result when already computed (reused).
    A segmenter or the content model failing on the page is recorded in ``reason``; the page
    keeps its text and its windows, so it is still found and can still give feedback.
    ``lang_hints``: the languages the page declares (:func:`webseg.lang.declared_languages`),
    checked against its main text for the stored ``lang``. ``language``: the page's
    :class:`webseg.lang.Language` when the caller has it (its clean result's,
    :func:`result_language`: ``webseg index`` and the pipeline store that one, so a page's
    language is identified once and the result and its index entry agree); then
    ``lang_hints`` are not used.
    """
    an = PageTokens(an)  # one page's leaves are tokenised by the fields, the main leaves and
    # the blocks alike: each distinct text once
    title = (page.title or "").strip()
    if not getattr(page, "has_layout", True) and content_model != "blocks":
        content_model = "blocks"  # a parsed page: PageLevel needs layout, the block model not
    segs = dict(segmentations or {})
    errors = []
    p_main = None
    if content:
        try:
            from ir.content import leaf_main_prob, main_leaves, page_fields

            p_main, pl_seg = (leaf_main_prob(page, content_model) if block_fn is None
                              else leaf_main_prob(page, content_model, block_fn))
            if pl_seg is not None:
                segs.setdefault("pagelevel", pl_seg)
        except Exception as e:  # noqa: BLE001 - the model failing must not drop the page
            errors.append(f"content: {type(e).__name__}: {e}")
    keep = shown_leaves(page)
    parts = list(map(page.leaf_texts.__getitem__, keep))
    probs = (None if p_main is None
             else np.asarray(p_main, dtype=np.float64)[keep].tolist())
    sizes = None if probs is None else part_sizes(parts)  # each leaf's words
    word_w = None if probs is None else word_weights(parts, probs, sizes)
    text = " ".join(parts)
    full = f"{title} {text}".strip()
    windowed = full if p_main is None else text
    whole = spaced(windowed)
    piece_toks = None
    if p_main is not None and whole:  # every leaf's tokens at once (the windows are words)
        leaf_toks = an.leaf_tokens(page)
        piece_toks = list(map(leaf_toks.__getitem__, keep))
    text_tokens: list[str] = []  # the windows' tokens: the text's, when the windows are words
    windows = window_blocks(windowed, an, word_weights=word_w, text_tokens=text_tokens,
                            pieces=None if p_main is None else parts, whole_words=whole,
                            piece_tokens=piece_toks, piece_sizes=sizes)
    if not whole:
        full_tokens = an.tokens(full)
    elif p_main is None:
        full_tokens = text_tokens
    else:  # no token crosses a space: tokens(title + " " + text) = title's + text's
        full_tokens = an.tokens(title) + text_tokens
    doc = StoredDoc(id=doc_id, terms=term_counts(full_tokens), url=url or page.url,
                    title=title,
                    lang=language.code if language is not None
                    else _language(_main_text(text, parts, probs) or title,
                                   [*lang_hints, *_page_hints(page)]),
                    blocks={"windows": windows})
    if not doc.terms:
        doc.status, doc.reason = "empty", "no index terms in the text"
    if p_main is not None:
        doc.fields = page_fields(page, p_main, an)
        doc.main_leaves, doc.main_leaf_n = main_leaves(page, p_main, an)
    for src in sources:
        if src == "windows":
            continue
        try:
            doc.blocks[src] = page_blocks(page, src, an, p_main=p_main, seg=segs.get(src))
        except Exception as e:  # noqa: BLE001 - one segmenter failing must not drop the page
            errors.append(f"{src}: {type(e).__name__}: {e}")
    if errors:
        doc.reason = "; ".join(errors)
    return doc


class PageTokens:
    """An :class:`~ir.analysis.Analyzer` that remembers the tokens of every text it saw, for
    the duration of one page (the same leaf texts are analysed for the fields, the main-text
    leaves and the block sources: a third of the index stage's time went to repeats)."""

    #: Texts longer than this are not remembered (the whole page's text: seen once).
    MAX_KEY = 2000

    def __init__(self, an: Analyzer) -> None:
        self._an = an.analyzer if isinstance(an, PageTokens) else an
        self._memo: dict[str, list[str]] = {}
        self._counts: dict[str, Counter[str]] = {}
        self._page: Any = None
        self._leaf_toks: list[list[str]] = []

    def tokens(self, text: str) -> list[str]:
        return list(self.seen(text))

    def seen(self, text: str) -> list[str]:
        """The tokens of ``text``: the remembered list itself, for callers that only read it
        (no copy per use)."""
        got = self._memo.get(text)
        if got is None:
            got = self._an.tokens(text)
            if len(text) <= self.MAX_KEY:
                self._memo[text] = got
        return got

    def leaf_tokens(self, page: Any) -> list[list[str]]:
        """The tokens of every text leaf of ``page`` (``page.text_leaves`` order; none for a
        hidden one), made once for the page: the windows, the fields, the main leaves and
        the blocks all read them (never change them)."""
        if self._page is not page:
            vis = np.asarray(page.visible, dtype=bool)[page.text_leaves].tolist()
            texts = page.leaf_texts
            memo = self._memo
            shown = list(dict.fromkeys(compress(texts, vis)))
            # the distinct texts not seen yet (nearly always all: the leaves come first),
            # analysed in one call
            new = [t for t in shown if t not in memo] if memo else shown
            toks_of = dict(zip(new, self._an.tokens_many(new), strict=True))
            if len(new) < len(shown):
                toks_of.update((t, memo[t]) for t in shown if t in memo)
            memo.update(toks_of)
            if max(map(len, new), default=0) > self.MAX_KEY:  # not remembered
                for t in new:
                    if len(t) > self.MAX_KEY:
                        del memo[t]
            self._leaf_toks = [toks_of[t] if v else [] for v, t in zip(vis, texts,
                                                                         strict=True)]
            self._page = page
        return self._leaf_toks

    def counts(self, text: str) -> Counter[str]:
        """Term counts of ``text``, remembered like its tokens (callers only read them)."""
        got = self._counts.get(text)
        if got is None:
            got = Counter(self.seen(text))
            if len(text) <= self.MAX_KEY:
                self._counts[text] = got
        return got

    @property
    def analyzer(self) -> Analyzer:
        return self._an

    def __getattr__(self, name: str) -> Any:
        return getattr(self._an, name)


def html_text(source: bytes | str) -> str:
    """Visible-ish text of HTML without a browser (for pages that failed to render)."""
    from webseg.parse import parse

    page = parse(source)
    return page_text(page)


@dataclass
class IndexReport:
    added: int = 0
    text_only: int = 0
    empty: int = 0
    failures: list[tuple[str, str]] | None = None
    skipped: int = 0
    #: records with no page and no text (unreadable, binary, an unparsable file, a URL that
    #: did not render): reported, counted here, never indexed
    failed: int = 0


def _records(paths: Sequence[str]) -> Iterator[Any]:
    from webseg.inputs import iter_inputs

    yield from iter_inputs(paths)


def _pages(records: Iterator[Any], concurrency: int, render: bool, renderer: Any,
           render_options: dict[str, Any]) -> Iterator[tuple[Any, Any, str | None, str | None]]:
    """``(record, page, error, decoded HTML or None)`` of every record, in order: rendered
    pages, or parsed ones with the HTML their parse decoded."""
    from webseg.inputs import parse_inputs_html, record_inputs

    if render:
        for rec, page, err in record_inputs(records, concurrency, render=True,
                                            renderer=renderer, **render_options):
            yield rec, page, err, None
    else:
        yield from parse_inputs_html(records, int(render_options.get("max_nodes", 200_000)))


def _record_url(rec: Any, page: Any) -> str | None:
    """The address a hit shows, the one ``webseg clean`` and the pipeline report for the same
    input: the record's URL, else a local file's canonical URL or its own ``file://`` URI
    (``x.html.gz`` as itself, not the ``x.html`` the browser was served)."""
    from pathlib import Path

    from webseg.clean.json_out import file_uri
    from webseg.clean.run import page_url

    if page is not None:
        return page_url(rec, page, None)
    if rec.url:
        return rec.url
    return file_uri(rec.source) if isinstance(rec.source, Path) else None


def fallback_text(rec: Any, reason: str) -> tuple[str | None, str]:
    """The text of a record that did not render, parsed without a browser, and the reason to
    record: ``(text, reason)``, or ``(None, error line)`` (``"<stage>: <reason>"``) when there
    is no text to be had: the record is unreadable, a URL, or its bytes do not parse. The
    parse's reason is added only when it says something the render's did not (a binary file
    fails both for the same reason)."""
    from webseg.inputs import parse_record

    if rec.error is not None or rec.kind == "url":
        return None, reason
    try:
        page = parse_record(rec)
    except ValueError as e:
        why = str(e)
        return None, (reason if why == reason or why in reason else f"{reason}; {why}")
    return page_text(page), reason


def index_paths(index: Any, paths: Sequence[str], sources: Sequence[str], concurrency: int = 2,
                batch: int = 200, log: Callable[[str], None] | None = None,
                renderer: Any = None, render: bool = True, progress: Any = None,
                **render_options: Any
                ) -> IndexReport:
    """Render, segment and add every input of ``paths`` to ``index`` (in shards of ``batch``).
    ``progress`` (a :func:`webseg.progress.progress_bar`) counts the pages done.

    Inputs that fail to render are indexed text-only (parsed without a browser) with the
    reason recorded, and reported through ``log``. Inputs with no text to be had (unreadable,
    binary, unparsable, a URL that did not render) are failed records: reported once through
    ``log`` (``"<id>: <stage>: <reason>"``), counted in ``failed``, never indexed (an empty
    document would be a search result that is no page).
    Skipped records (a WARC's redirects, 4xx/5xx responses, revisits, non-HTML records) are
    not pages: they are counted in ``skipped`` and not indexed. ``renderer`` reuses an open
    :class:`~webseg.render.Renderer`; ``render=False`` parses pages without a browser.
    """
    log = log or (lambda m: print(m, file=sys.stderr))
    rep = IndexReport(failures=[])
    pending: list[StoredDoc] = []
    an = index.analyzer
    for rec, page, err, decoded in _pages(_records(paths), concurrency, render, renderer,
                                          render_options):
        doc_id = rec.id
        if progress is not None:
            progress.update(1)
        if rec.skipped:
            rep.skipped += 1
            continue
        if page is not None:
            # the page's clean result, as the pipeline's clean stage makes it (the HTML its
            # metadata reads: a WARC record's parse's, a file decoded again): its language
            # is stored, its block-model result reused by the content model
            url = _record_url(rec, page)
            html = (decoded if decoded is not None and isinstance(rec.source, bytes)
                    else rec.source_html())
            res, language = index_result(page, html, url)
            doc = doc_from_page(doc_id, page, an, sources, url=url,
                                block_fn=result_block_fn(res), language=language,
                                lang_hints=declared_hints(rec) if res is None else ())
            if doc.reason:
                rep.failures.append((doc_id, f"segment: {doc.reason}"))
                log(f"{doc_id}: segment: {doc.reason}")
        else:
            reason = rec.error or err or "render: unknown error"
            text, line = fallback_text(rec, reason)
            if text is None:  # no text at all: a failed record, not a document
                rep.failed += 1
                rep.failures.append((doc_id, line))
                log(f"{doc_id}: {line}")
                continue
            doc = doc_from_text(doc_id, text, an, url=_record_url(rec, None),
                                status="text-only", reason=reason,
                                lang_hints=declared_hints(rec))
            if not doc.terms:
                doc.status = "empty"
            rep.failures.append((doc_id, reason))
            log(f"{doc_id}: {reason}")
        rep.text_only += doc.status == "text-only"
        rep.empty += doc.status == "empty"
        pending.append(doc)
        if len(pending) >= batch:
            rep.added += index.add(pending)
            pending = []
    if pending:
        rep.added += index.add(pending)
    return rep

