"""Turning inputs into stored documents: render and segment each page once, keep its blocks.

:func:`doc_from_page` analyses a rendered page: its text (title + visible text) becomes the
document, and each block source's blocks (:mod:`ir.blocks`) are stored beside it, plus
``windows`` always (the fallback for pages without segments). :func:`doc_from_text` makes a
text-only document (plain-text collections, or pages that failed to render: status
``text-only`` with the reason recorded). :func:`index_paths` runs the whole thing over files,
directories, WARC files and URLs; no input is ever dropped.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ir.analysis import Analyzer
from ir.blocks import page_blocks, page_text, page_words, window_blocks
from ir.content import DEFAULT_MODEL
from ir.store import StoredDoc

__all__ = ["IndexReport", "doc_from_page", "doc_from_text", "html_text", "index_paths"]


def _language(text: str, hints: Sequence[str] = ()) -> str | None:
    """The page's ISO 639-1 code (:func:`webseg.lang.identify`), stored with the document."""
    from webseg.lang import identify

    return identify(text, hints).code


def _main_text(text: str, word_weights: list[float] | None) -> str:
    """The words of ``text`` the content model calls main (P >= 0.5), all of them without a
    model: a page's language is its article's, not its menu's (often English on any site)."""
    if word_weights is None:
        return text
    main = [w for w, p in zip(text.split(), word_weights, strict=False) if p >= 0.5]
    return " ".join(main) if main else text


def _declared(rec: Any) -> list[str]:
    """The languages a local or WARC input declares in its head; none for URL input (the
    page is fetched by the browser) or unreadable input."""
    from webseg.lang import declared_languages

    if getattr(rec, "error", None) is not None or getattr(rec, "kind", None) == "url":
        return []
    try:
        return declared_languages(rec.read_bytes())
    except (OSError, ValueError):
        return []


def _page_hints(page: Any) -> list[str]:
    """Languages the page declares (``<html lang>``, Content-Language), when the page object
    carries them."""
    hints = getattr(page, "lang_hints", None) or ()
    return [h for h in hints if isinstance(h, str)]


def doc_from_text(doc_id: str, text: str, an: Analyzer, title: str = "", url: str | None = None,
                  status: str = "ok", reason: str | None = None,
                  lang_hints: Sequence[str] = ()) -> StoredDoc:
    """A document from plain text; its blocks are 50-word windows, its fields the title and
    the text as main content (no layout to tell content from boilerplate). ``lang_hints``:
    declared languages (a record's ``lang``), checked against the text."""
    full = f"{title} {text}".strip()
    terms = dict(Counter(an.tokens(full)))
    if not terms and status == "ok":
        status, reason = "empty", "no index terms in the text"
    fields = {"title": {t: float(c) for t, c in Counter(an.tokens(title)).items()},
              "main": {t: float(c) for t, c in Counter(an.tokens(text)).items()}}
    return StoredDoc(id=doc_id, terms=terms, url=url, title=title, status=status, reason=reason,
                     blocks={"windows": window_blocks(full, an)}, fields=fields,
                     lang=_language(text or title, lang_hints))


def doc_from_page(doc_id: str, page: Any, an: Analyzer, sources: Sequence[str],
                  url: str | None = None, content: bool = True,
                  segmentations: Mapping[str, Any] | None = None,
                  content_model: str = DEFAULT_MODEL,
                  lang_hints: Sequence[str] = ()) -> StoredDoc:
    """A document from a rendered page: whole-page terms, the blocks of every source in
    ``sources`` (plus ``windows``), and with ``content`` (default) the content-aware part:
    fields ``title``/``main``/``rest`` and a weight and role per block (:mod:`ir.content`).

    The one function that turns a Page into what the index stores (``webseg index``, the
    pipeline, the evaluation harness all call it). ``segmentations`` (source -> Segmentation
    already computed for this page with that source's segmenter) are reused, not recomputed.
    ``content_model``: one of ``ir.content.MODELS`` (:func:`ir.content.leaf_main_prob`); the
    default, ``ir.content.DEFAULT_MODEL``, is the best measured on the issue-16 dev
    collections.
    A segmenter or the content model failing on the page is recorded in ``reason``; the page
    keeps its text and its windows, so it is still found and can still give feedback.
    ``lang_hints``: the languages the page declares (:func:`webseg.lang.declared_languages`),
    checked against its main text for the stored ``lang``.
    """
    title = (page.title or "").strip()
    segs = dict(segmentations or {})
    errors = []
    p_main = None
    if content:
        try:
            from ir.content import leaf_main_prob, main_leaves, page_fields

            p_main, pl_seg = leaf_main_prob(page, content_model)
            if pl_seg is not None:
                segs.setdefault("pagelevel", pl_seg)
        except Exception as e:  # noqa: BLE001 - the model failing must not drop the page
            errors.append(f"content: {type(e).__name__}: {e}")
    text, word_w = page_words(page, p_main)
    full = f"{title} {text}".strip()
    windows = window_blocks(full if p_main is None else text, an, word_weights=word_w)
    doc = StoredDoc(id=doc_id, terms=dict(Counter(an.tokens(full))), url=url or page.url,
                    title=title, lang=_language(_main_text(text, word_w) or title,
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


def _records(paths: Sequence[str]) -> Iterator[Any]:
    from webseg.inputs import iter_inputs

    yield from iter_inputs(paths)


def index_paths(index: Any, paths: Sequence[str], sources: Sequence[str], concurrency: int = 2,
                batch: int = 200, log: Callable[[str], None] | None = None,
                renderer: Any = None, **render_options: Any) -> IndexReport:
    """Render, segment and add every input of ``paths`` to ``index`` (in shards of ``batch``).

    Inputs that fail to render are indexed text-only (parsed without a browser) with the
    reason recorded, and reported through ``log``; unreadable inputs become ``empty`` records.
    ``renderer`` reuses an open :class:`~webseg.render.Renderer`.
    """
    from webseg.inputs import render_inputs

    log = log or (lambda m: print(m, file=sys.stderr))
    rep = IndexReport(failures=[])
    pending: list[StoredDoc] = []
    an = index.analyzer
    for rec, page, err in render_inputs(_records(paths), concurrency=concurrency,
                                        renderer=renderer, **render_options):
        doc_id = rec.id
        hints = _declared(rec)
        if page is not None:
            doc = doc_from_page(doc_id, page, an, sources, url=rec.url, lang_hints=hints)
            if doc.reason:
                rep.failures.append((doc_id, f"segment: {doc.reason}"))
                log(f"{doc_id}: segment: {doc.reason}")
        else:
            reason = rec.error or err or "render: unknown error"
            text = ""
            if rec.error is None and rec.kind != "url":
                try:
                    text = html_text(rec.read_bytes())
                except Exception as e:  # noqa: BLE001 - binary or broken input: record it
                    reason += f"; parse: {type(e).__name__}: {e}"
            doc = doc_from_text(doc_id, text, an, url=rec.url, status="text-only",
                                reason=reason, lang_hints=hints)
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

