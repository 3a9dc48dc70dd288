"""Batch cleaning of input records (files, directories, WARC records, URL lists).

:func:`clean_records` is what ``webseg clean`` runs: one ``(record, result, error)`` per input
record, in order, never raising for a bad page. With ``render=False`` (``--no-render``) pages
are decoded with :mod:`webseg.decode` and parsed with :mod:`webseg.parse` - no browser, no
geometry, the same block model - which is how crawls too large to render are cleaned.

With ``site_repeats`` (``webseg clean --site-repeats``, blocks method) the results of a batch
are held back per window of :data:`SITE_WINDOW` records, grouped by site
(:func:`webseg.blocks.siterepeat.site_group`: the host of the page's URL; local files of the
call form one group when ``local_group``), and a kept leaf whose text is a visible leaf of two
other pages of its group is dropped (:mod:`webseg.blocks.siterepeat`). The window bounds the
memory (every page of a window is held) at the price of not seeing a site's pages that are
further apart. ``webseg clean`` applies the rule by default only to pages with a host
(:func:`hosts_repeat`): the measurement grouped pages by their site, and a folder of saved
pages may hold many sites, whose shared words ("Home", "Reviews") are no template of any.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from webseg.clean import CleanResult, extract, with_site_repeated
from webseg.clean.json_out import file_uri, page_type_object, source_of, warc_fields
from webseg.clean.metadata import canonical_url
from webseg.inputs import MAX_PARSE_BYTES, InputRecord, parse_record, parse_record_html
from webseg.page import Page

__all__ = ["MAX_BYTES", "SITE_WINDOW", "apply_site_repeats", "clean_records", "hosts_repeat",
           "is_page_json", "page_url", "parse_record", "parse_record_html"]

#: Largest page read with --no-render (the renderer's own limit; :mod:`webseg.inputs`).
MAX_BYTES = MAX_PARSE_BYTES
#: Records whose results are held back together for the site-repetition rule (a held result
#: keeps its page: about 1.5 MB each, measured on 30 Dragnet pages, so ~0.8 GB per window).
SITE_WINDOW = 500


def is_page_json(rec: InputRecord) -> bool:
    """A rendered page saved by ``webseg render`` (loaded, not rendered again)."""
    return isinstance(rec.source, Path) and rec.source.name.endswith((".page.json",
                                                                     ".page.json.gz"))


def _pages(records: list[InputRecord], render: bool, render_options: dict[str, Any],
           concurrency: int, renderer: Any = None
           ) -> Iterator[tuple[InputRecord, Page | None, str | None, str | None]]:
    """(record, page, decoded HTML or None, error) per record, in order: loaded, parsed or
    rendered in one batch."""
    from webseg.inputs import render_inputs

    to_render = [r for r in records if render and r.error is None and not is_page_json(r)]
    rendered: Iterator[tuple[InputRecord, Page | None, str | None]] = iter(())
    if to_render:
        rendered = (render_inputs(to_render, concurrency, renderer=renderer) if renderer
                    else render_inputs(to_render, concurrency, **render_options))
    max_nodes = int(render_options.get("max_nodes", 200_000))
    for rec in records:
        if rec.error is not None:
            yield rec, None, None, rec.error
        elif is_page_json(rec):
            try:
                yield rec, Page.load(rec.source), None, None  # type: ignore[arg-type]
            except (OSError, ValueError, EOFError) as e:
                yield rec, None, None, f"read: not a readable page JSON: {e}"
        elif not render:
            try:
                page, html = parse_record_html(rec, max_nodes)
                yield rec, page, html, None
            except ValueError as e:
                yield rec, None, None, str(e)
        else:
            got, page, err = next(rendered)
            assert got is rec, "render_inputs yields one result per record, in order"
            yield rec, page, (_html(rec) if page is not None else None), err


Result = tuple[InputRecord, "CleanResult | None", "str | None"]


def hosts_repeat(records: Iterable[InputRecord]) -> bool:
    """Whether at least :data:`webseg.blocks.siterepeat.MIN_PAGES` of ``records`` have the
    same http(s) host (the rule can only fire then, without grouping local files)."""
    from webseg.blocks.siterepeat import MIN_PAGES, site_group

    n = Counter(g for r in records if (g := site_group(r.url)))
    return bool(n) and max(n.values()) >= MIN_PAGES


def apply_site_repeats(batch: list[Result], local_group: bool = True) -> list[Result]:
    """The batch's block results with the site-repetition rule applied within each site group
    (:func:`webseg.blocks.siterepeat.site_group`); other results unchanged. Every grouped
    result of the blocks method gets ``site_repeated`` (all False when nothing was dropped);
    without ``local_group``, pages without an http(s) host are not grouped (unchanged)."""
    from webseg.blocks.siterepeat import SiteRepeats, leaf_keys, repeated_drop, site_group

    groups: dict[str, list[int]] = {}
    keys: dict[int, list[str]] = {}
    for i, (rec, res, _) in enumerate(batch):
        if res is None or res.method != "blocks":
            continue
        keys[i] = leaf_keys(res.page)  # the block model's (revealed) page: its leaves
        g = site_group(res.page.url or rec.url)
        if g or local_group:
            groups.setdefault(g, []).append(i)
    out = list(batch)
    for members in groups.values():
        site = SiteRepeats(keys[i] for i in members)
        for i in members:
            rec, res, err = batch[i]
            drop = repeated_drop(res.leaf_keep, keys[i], site, member=True)  # type: ignore[union-attr]
            out[i] = (rec, with_site_repeated(res, drop), err)  # type: ignore[arg-type]
    return out


def clean_records(records: Iterable[InputRecord], method: str, *, render: bool = True,
                  render_options: dict[str, Any] | None = None, concurrency: int = 3,
                  page_types: bool = False, type_model: Any = None, renderer: Any = None,
                  site_repeats: bool = False, local_group: bool = True,
                  url: str | None = None, **extract_params: Any
                  ) -> Iterator[tuple[InputRecord, CleanResult | None, str | None]]:
    """Clean every record; yields ``(record, result, error)`` with exactly one of the two.

    Every result carries its record's id, source and WARC fields, its page URL
    (:func:`page_url`; ``url`` overrides it, for one input) and the decoded HTML its metadata
    is read from (not for URLs rendered from the network).

    ``error`` reads ``"<stage>: <reason>"`` (read, decode, parse, render..., clean,
    classify). ``page_types`` adds the type from the shipped page-type model (loaded first:
    a missing model raises before any page is read), or from ``type_model`` when given.
    ``site_repeats`` (blocks method): drop text repeated across the batch's pages of a site
    (module docstring); results then come per window of :data:`SITE_WINDOW` records;
    ``local_group``: the pages without an http(s) host form one group too.
    """
    it = _clean_records(records, method, render=render, render_options=render_options,
                        concurrency=concurrency, page_types=page_types, type_model=type_model,
                        renderer=renderer, url_override=url, **extract_params)
    if not site_repeats or method != "blocks":
        yield from it
        return
    batch: list[Result] = []
    for r in it:
        batch.append(r)
        if len(batch) >= SITE_WINDOW:
            yield from apply_site_repeats(batch, local_group)
            batch = []
    if batch:
        yield from apply_site_repeats(batch, local_group)


def _clean_records(records: Iterable[InputRecord], method: str, *, render: bool,
                   render_options: dict[str, Any] | None, concurrency: int,
                   page_types: bool, type_model: Any, renderer: Any,
                   url_override: str | None = None, **extract_params: Any
                   ) -> Iterator[tuple[InputRecord, CleanResult | None, str | None]]:
    """:func:`clean_records` without the site-repetition rule."""
    if page_types and type_model is None:
        from classify.model import load_model

        type_model = load_model()  # the shipped page-type model; raises when it is missing
    for rec, page, html, err in _pages(list(records), render, render_options or {},
                                       concurrency, renderer):
        if page is None:
            yield rec, None, err or "read: no page"
            continue
        url = page_url(rec, page, html, url_override)
        page.url = url  # the page's address: site features, and what links resolve against
        page_type = None
        if type_model is not None:
            try:
                (probs,) = type_model.predict_proba_pages([page], [html], urls=[url])
                page_type = page_type_object(probs)
            except Exception as e:  # noqa: BLE001 - one page's failure, reported
                yield rec, None, f"classify: {type(e).__name__}: {e}"
                continue
        try:
            res = extract(page, method, page_type=page_type, html=html, url=url,
                          **extract_params)
        except Exception as e:  # noqa: BLE001 - report and go on with the batch
            yield rec, None, f"clean: {type(e).__name__}: {e}"
            continue
        res.record_id, res.source, res.warc = rec.id, source_of(rec), warc_fields(rec)
        yield rec, res, None


def page_url(rec: InputRecord, page: Page, html: str | None, override: str | None = None
             ) -> str | None:
    """The page's address (:mod:`webseg.clean.json_out`): ``override`` (``--url``), the
    record's URL (WARC target URI, URL input), for a local file its absolute canonical URL
    (``<link rel=canonical>``, ``og:url``) or else its own ``file://`` URI (``x.html.gz``
    named as itself), and for a saved page JSON the URL it was rendered from."""
    if override:
        return override
    if rec.url:
        return rec.url
    if not is_page_json(rec):
        canon = canonical_url(html, page)
        if canon:
            return canon
        if isinstance(rec.source, Path):
            return file_uri(rec.source)
    return page.url


def _html(rec: InputRecord) -> str | None:
    """The record's decoded HTML for the page-type model (None for URLs or unreadable input)."""
    from webseg.decode import decode_html

    try:
        data = rec.source.read_bytes() if isinstance(rec.source, Path) else rec.source
        if not isinstance(data, bytes) or is_page_json(rec):
            return None
        return decode_html(data, max_bytes=MAX_BYTES).text
    except (OSError, ValueError):
        return None
