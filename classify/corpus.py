"""Views of a whole dataset, computed once per segmentation model and cached.

Loading a rendered page and segmenting it costs far more than training a linear classifier, and
the WPS model may be retrained while the classifier is evaluated. So every view
(:data:`VIEWS`) of every page of a dataset is computed once and kept as gzipped JSON under
``.cache/webseg/classify/<dataset>/<view>-<key>.json.gz``, where ``key`` hashes the view's
version, this package's view code and the files its output depends on (the segmenter's module
and shipped model; for ``positions`` the WPS model file only, so the WPS code may be edited
without invalidating it, but a retrained WPS model changes the key). Retraining WPS changes the
key of the ``positions`` view only, so a rerun recomputes just that view.

Pages are read from the shared render cache (:func:`webseg.datasets.cache_path`) one site at a
time (SiteLevel needs all pages of a site together), so memory stays bounded. Pages missing
from the render cache are rendered through :func:`webseg.datasets.render_cached` only when
``render=True``; otherwise they are reported as missing. Pages that failed to render or to load
are never dropped silently: :class:`ViewSet` lists them with the reason.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from webseg.datasets import DEFAULT_CACHE, PageRecord, cache_path
from webseg.page import Page

__all__ = ["VIEWS", "ViewSet", "compute_views", "view_key"]

ROOT = Path(__file__).resolve().parent.parent
VIEW_CACHE = Path(".cache/webseg/classify")

#: view name -> files (relative to the repository) its output depends on, besides this package.
VIEWS: dict[str, tuple[str, ...]] = {
    # keyed by the WPS model file (a retrained model means new positions); edits of the WPS
    # code that change its output without a new model are not detected: clear the cache then
    "positions": ("webseg/models/wps-margin.json",),
    "full": (),
    "bf-segment": ("webseg/segmenters/blockfusion.py",),
    "gcuts-segment": ("webseg/segmenters/gcuts.py", "webseg/graphseg",
                      "webseg/models/gcuts.json"),
    "sitelevel": ("webseg/templates/sitelevel.py",),
    "pagelevel-basic": ("webseg/segmenters/pagelevel.py", "webseg/templates",
                        "webseg/models/pagelevel.json"),
    "pagelevel": ("webseg/segmenters/pagelevel.py", "webseg/templates",
                  "webseg/models/pagelevel.json"),
}
VIEW_VERSION = 1


def view_key(view: str) -> str:
    """12 hex digits identifying the code and models a view's output depends on."""
    h = hashlib.sha256(f"{view}:{VIEW_VERSION}".encode())
    files: list[Path] = [ROOT / "classify" / "views.py", ROOT / "webseg" / "page.py"]
    for dep in VIEWS[view]:
        p = ROOT / dep
        files.extend(sorted(p.rglob("*.py")) + sorted(p.rglob("*.json")) if p.is_dir()
                     else [p])
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes() if f.is_file() else b"<missing>")
    return h.hexdigest()[:12]


@dataclass
class ViewSet:
    """Per-page outputs of the requested views, and the pages without them."""

    texts: dict[str, dict[str, Any]]  # view -> page id -> text (or list of 10 texts)
    missing: dict[str, str] = field(default_factory=dict)  # page id -> reason
    seconds: dict[str, float] = field(default_factory=dict)  # view -> compute time


def _view_file(cache: Path, dataset: str, view: str, key: str | None = None) -> Path:
    return cache / dataset / f"{view}-{key or view_key(view)}.json.gz"


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError, EOFError):
        return {}


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=1) as f:
        json.dump(data, f, ensure_ascii=False)
    tmp.replace(path)


class _Segmenters:
    """Segmenters built once, on first use."""

    def __init__(self) -> None:
        self._s: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._s:
            from webseg.segmenters import get_segmenter

            # the views read the finest segments only: no VIPS-grouped level 1 needed
            flat = {"level1": "none"} if name == "blockfusion" else {}
            self._s[name] = get_segmenter(name, **flat)
        return self._s[name]


def _page_view(view: str, page: Page, segs: _Segmenters) -> Any:
    from classify import views as v

    if view == "positions":
        return v.position_texts(page, segs["wps-margin"])
    if view == "full":
        return v.full_text(page)
    if view == "bf-segment":
        return v.informative_segment_text(segs["blockfusion"].segment(page))
    if view == "gcuts-segment":
        return v.informative_segment_text(segs["gcuts"].segment(page))
    if view in ("pagelevel", "pagelevel-basic"):
        from webseg.templates.clean import kept_segments

        _, keep = kept_segments(page, 0.5, view)
        return v.kept_text(page, keep)
    raise ValueError(f"unknown view {view!r}")


def _load_page(cache: Path, rec: PageRecord) -> tuple[Page | None, str | None]:
    p = cache_path(cache, rec)
    if not p.is_file():
        return None, "not rendered (absent from the render cache)"
    try:
        page = Page.load(p)
    except (OSError, ValueError, EOFError) as e:
        return None, f"render cache unreadable: {e}"
    if rec.url:
        page.url = rec.url
    return page, None


def compute_views(records: Sequence[PageRecord], views: Sequence[str], *,
                  render_cache: str | Path = DEFAULT_CACHE, cache: str | Path = VIEW_CACHE,
                  render: bool = False, log: Callable[[str], None] = print,
                  save_every: int = 300, cached_only: bool = False) -> ViewSet:
    """The requested views of every record (from the view cache where possible).

    ``render``: render pages missing from the render cache (through
    :func:`webseg.datasets.render_cached`); otherwise they are reported in ``missing``.
    ``cached_only``: compute nothing, return what the view cache holds (while another process
    fills it).
    """
    for v in views:
        if v not in VIEWS:
            raise ValueError(f"unknown view {v!r}; known: {', '.join(VIEWS)}")
    render_cache, cache = Path(render_cache), Path(cache)
    datasets = sorted({r.dataset for r in records})
    # keys are fixed for the whole run: files edited meanwhile must not mix two versions
    keys = {v: view_key(v) for v in views}
    files = {(d, v): _view_file(cache, d, v, keys[v]) for d in datasets for v in views}
    stored: dict[tuple[str, str], dict[str, Any]] = {k: _read(f) for k, f in files.items()}
    out = ViewSet({v: {} for v in views})
    todo = [r for r in records if any(r.id not in stored[(r.dataset, v)] for v in views)]
    for r in records:
        for v in views:
            if r.id in stored[(r.dataset, v)]:
                out.texts[v][r.id] = stored[(r.dataset, v)][r.id]
    if cached_only:
        for r in todo:
            out.missing[r.id] = "view not cached (cached_only)"
        return out
    if render and todo:
        from webseg.datasets import render_cached

        missing = [r for r in todo if not cache_path(render_cache, r).is_file()]
        for k in range(0, len(missing), 200):  # bounded memory, few browser starts
            render_cached(missing[k:k + 200], render_cache, log=log)
    if todo:
        log(f"computing views {','.join(views)} for {len(todo)} pages "
            f"({len(records) - len(todo)} cached)")
    todo_ids = {(r.dataset, r.id) for r in todo}
    groups: dict[str, list[PageRecord]] = {}
    for r in (records if "sitelevel" in views else todo):
        # SiteLevel needs every page of a site at once: group whole sites
        key = f"{r.dataset}\t{r.site}" if ("sitelevel" in views and r.site) else \
            f"{r.dataset}\t#{r.id}"
        groups.setdefault(key, []).append(r)
    groups = {k: g for k, g in groups.items() if any((r.dataset, r.id) in todo_ids for r in g)}
    segs = _Segmenters()
    t_start = time.perf_counter()
    done = dirty = 0
    changed: set[tuple[str, str]] = set()
    for group in groups.values():
        pages: list[tuple[PageRecord, Page]] = []
        for r in group:
            page, err = _load_page(render_cache, r)
            if page is None:
                out.missing[r.id] = err or "unknown"
                continue
            pages.append((r, page))
        for v in views:
            need = [(r, p) for r, p in pages if r.id not in out.texts[v] or
                    (v == "sitelevel" and (r.dataset, r.id) in todo_ids)]
            if v == "sitelevel" and need:
                need = pages  # recompute the whole site
            if not need:
                continue
            t0 = time.perf_counter()
            if v == "sitelevel":
                vals = _sitelevel([p for _, p in need])
            else:
                vals = []
                for r, p in need:
                    try:
                        vals.append(_page_view(v, p, segs))
                    except Exception as e:  # noqa: BLE001 - one bad page must not stop a run
                        vals.append(None)
                        out.missing[r.id] = f"{v}: {type(e).__name__}: {e}"
            out.seconds[v] = out.seconds.get(v, 0.0) + time.perf_counter() - t0
            for (r, _), val in zip(need, vals, strict=True):
                if val is not None:
                    out.texts[v][r.id] = val
                    stored[(r.dataset, v)][r.id] = val
                    changed.add((r.dataset, v))
        n_new = sum((r.dataset, r.id) in todo_ids for r in group)
        done += n_new
        dirty += n_new
        if dirty >= save_every:
            _save_all(files, stored, changed)
            dirty = 0
            changed = set()
            log(f"  {done}/{len(todo)} pages, {time.perf_counter() - t_start:.0f} s")
    if todo:
        _save_all(files, stored, changed)
        log(f"views done in {time.perf_counter() - t_start:.0f} s; "
            + ", ".join(f"{v} {s:.0f} s" for v, s in out.seconds.items()))
    return out


def _save_all(files: dict[tuple[str, str], Path], stored: dict[tuple[str, str], dict[str, Any]],
              changed: set[tuple[str, str]]) -> None:
    for key in changed:
        _write(files[key], stored[key])


def _sitelevel(pages: list[Page]) -> list[str]:
    """Non-template text of the pages of one site under SiteLevel (theta 0.1, paper 6.3).

    A site with one page has no site-level templates (the rule needs two pages), so its text is
    the full text.
    """
    from classify.views import template_node_text
    from webseg.templates.sitelevel import sitelevel_labels

    labels = sitelevel_labels(pages) if len(pages) >= 2 else [np.zeros(p.n, bool) for p in
                                                               pages]
    return [template_node_text(p, lab) for p, lab in zip(pages, labels, strict=True)]


#: the page views depend on this code only (Page edits are mostly speed-ups that leave the
#: columns unchanged; clear the cache by hand after one that does not)
PAGEVIEWS_DEPS = ("classify/pagefeatures.py",)


def pageviews_key() -> str:
    """12 hex digits identifying the code of :func:`classify.pagefeatures.page_views`."""
    h = hashlib.sha256(b"pageviews:1")
    for dep in PAGEVIEWS_DEPS:
        h.update(dep.encode())
        h.update((ROOT / dep).read_bytes())
    return h.hexdigest()[:12]


def record_views(rec: PageRecord, render_cache: str | Path | None = DEFAULT_CACHE,
                 parse_fallback: bool = True) -> tuple[dict[str, Any] | None, str | None]:
    """:func:`~classify.pagefeatures.page_views` of one dataset page, with its HTML source.

    The rendered page from the render cache when present; otherwise (``parse_fallback``) the
    page parsed without a browser (:func:`webseg.parse.parse`), recorded as ``"source":
    "parse"`` so an evaluation can say how many pages it concerns.
    ``render_cache=None``: always parse (the features ``classify predict --no-render`` sees).
    """
    from classify.pagefeatures import page_views
    from webseg.decode import decode_html

    try:
        raw = rec.read_html()
    except OSError as e:
        return None, f"read: {e}"
    try:
        html = decode_html(raw).text  # strips WebKB's HTTP header block itself
    except Exception as e:  # noqa: BLE001 - undecodable page: report it
        return None, f"decode: {type(e).__name__}: {e}"
    page, err = (_load_page(Path(render_cache), rec) if render_cache is not None
                 else (None, "parsed without a browser"))
    source = "render"
    if page is None:
        if not parse_fallback:
            return None, err
        from webseg.parse import parse

        try:
            page = parse(html, url=rec.url)
        except Exception as e:  # noqa: BLE001
            return None, f"parse: {type(e).__name__}: {e}"
        source = "parse"
    try:
        v = page_views(page, html, rec.url)
    except Exception as e:  # noqa: BLE001
        return None, f"features: {type(e).__name__}: {e}"
    v["source"] = source
    return v, None


def compute_page_views(records: Sequence[PageRecord], *,
                       render_cache: str | Path = DEFAULT_CACHE,
                       cache: str | Path = VIEW_CACHE, parse_fallback: bool = True,
                       log: Callable[[str], None] = print, save_every: int = 500,
                       refresh_parsed: bool = True, rendered: bool = True) -> ViewSet:
    """:func:`record_views` of every record, cached per dataset under
    ``<cache>/<dataset>/pageviews-<key>.json.gz`` (key: :func:`pageviews_key`).

    ``refresh_parsed``: recompute pages whose cached views came from the parse fallback once
    their rendering is in the render cache. ``rendered=False``: every page parsed without
    a browser, the render cache ignored (cached in ``pageviews-<key>-parsed.json.gz``, so a
    render cache filled later cannot change what a parsed-page experiment measures).
    """
    cache = Path(cache)
    key = pageviews_key()
    out = ViewSet({"pageviews": {}})
    by_ds: dict[str, list[PageRecord]] = {}
    for r in records:
        by_ds.setdefault(r.dataset, []).append(r)
    t0 = time.perf_counter()
    for ds, recs in by_ds.items():
        f = cache / ds / f"pageviews-{key}{'' if rendered else '-parsed'}.json.gz"
        stored = _read(f)
        dirty = 0
        for k, r in enumerate(recs):
            v = stored.get(r.id)
            if v is not None and rendered and refresh_parsed and v.get("source") == "parse" and \
                    cache_path(Path(render_cache), r).is_file():
                v = None
            if v is None:
                v, err = record_views(r, render_cache if rendered else None,
                                      parse_fallback or not rendered)
                if v is None:
                    out.missing[r.id] = err or "unknown"
                    continue
                stored[r.id] = v
                dirty += 1
                if dirty >= save_every:
                    _write(f, stored)
                    dirty = 0
                    log(f"  {ds}: {k + 1}/{len(recs)} pages, {time.perf_counter() - t0:.0f} s")
            out.texts["pageviews"][r.id] = v
        if dirty:
            _write(f, stored)
    out.seconds["pageviews"] = time.perf_counter() - t0
    return out
