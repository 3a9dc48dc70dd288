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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ir.analysis import Analyzer
from ir.blocks import page_blocks, page_text, window_blocks
from ir.store import StoredDoc

__all__ = ["IndexReport", "doc_from_page", "doc_from_text", "html_text", "index_paths"]


def doc_from_text(doc_id: str, text: str, an: Analyzer, title: str = "", url: str | None = None,
                  status: str = "ok", reason: str | None = None) -> StoredDoc:
    """A document from plain text; its blocks are 50-word windows."""
    full = f"{title} {text}".strip()
    terms = dict(Counter(an.tokens(full)))
    if not terms and status == "ok":
        status, reason = "empty", "no index terms in the text"
    return StoredDoc(id=doc_id, terms=terms, url=url, title=title, status=status, reason=reason,
                     blocks={"windows": window_blocks(full, an)})


def doc_from_page(doc_id: str, page: Any, an: Analyzer, sources: Sequence[str],
                  url: str | None = None) -> StoredDoc:
    """A document from a rendered page, with the blocks of every source in ``sources``.

    A segmenter that fails on the page is recorded in ``reason``; the page keeps its text and
    its windows, so it is still found and can still give feedback.
    """
    text = page_text(page)
    title = (page.title or "").strip()
    doc = doc_from_text(doc_id, text, an, title=title, url=url or page.url)
    errors = []
    for src in sources:
        if src == "windows":
            continue
        try:
            doc.blocks[src] = page_blocks(page, src, an)
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
        if page is not None:
            doc = doc_from_page(doc_id, page, an, sources, url=rec.url)
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
                                reason=reason)
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

