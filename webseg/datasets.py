"""Reading the shared evaluation datasets and rendering them once, with a cache.

Every dataset under ``../shared/data`` (boilerplate sets, ``wcxb-dev``, ``webkb``) has the same
layout: ``manifest.jsonl`` plus gzipped original page bytes. :func:`load_records` reads a
manifest into :class:`PageRecord` objects (paths resolved against the manifest's folder);
:func:`render_cached` renders them offline with JavaScript off and keeps every rendered
:class:`~webseg.page.Page` as gzipped JSON under ``.cache/webseg/boilerplate/<dataset>/``, so
the template, dedup, IR and classification harnesses render each page once between them.

The page bytes are never decoded here: :class:`~webseg.render.Renderer` does the encoding
detection (BOM, HTTP header block, meta prescan, sniffing), which is part of what the harnesses
evaluate.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webseg.page import Page

__all__ = ["DEFAULT_CACHE", "PageRecord", "cache_path", "load_records", "render_cached"]

DEFAULT_CACHE = Path(".cache/webseg/boilerplate")

#: Sets whose stored bytes are known to be in another encoding than their markup declares.
#: ``shared/data/README.md``: "The L3S-GN1 pages are UTF-8 even where their meta tag says
#: iso-8859-1, so decode them as UTF-8" (they were transcoded upstream).
KNOWN_ENCODINGS = {"l3s-gn1": "utf-8"}


@dataclass(frozen=True)
class PageRecord:
    """One manifest entry of a shared dataset.

    ``extra`` holds the manifest fields not mapped to attributes (``page_type``, ``label``,
    ``university``, ``title``, ...); it is excluded from equality and hashing, so records can
    be dictionary keys.
    """

    dataset: str
    id: str
    html: Path
    site: str | None
    url: str | None
    gold: Path | None
    split: str | None
    exclude_text_metrics: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def read_html(self) -> bytes:
        """The page bytes (gunzipped; never decoded here)."""
        return gzip.open(self.html, "rb").read()

    def read_gold(self) -> str | None:
        return self.gold.read_text(encoding="utf-8") if self.gold is not None else None

    @property
    def label(self) -> str | None:
        """The page's class: ``page_type`` (WCXB) or ``label`` (WebKB), if the set has one."""
        v = self.extra.get("page_type") or self.extra.get("label")
        return None if v is None else str(v)


_MAPPED = {"id", "html", "site", "url", "url_declared", "gold", "gold_clean", "split",
           "gold_not_in_html", "source"}


def load_records(data: str | Path) -> list[PageRecord]:
    """All manifest entries of one dataset folder, paths resolved against the folder.

    ``gold`` is the set's ``gold_clean`` file where it has one (CleanEval-style sets: gold
    without markup), else ``gold``.
    """
    root = Path(data)
    manifest = root / "manifest.jsonl"
    if not manifest.is_file():
        raise FileNotFoundError(f"{manifest} not found: --data must be a dataset folder "
                                "with a manifest.jsonl")
    out = []
    with manifest.open(encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{manifest}:{ln}: not JSON: {e}") from e
            out.append(PageRecord(
                dataset=str(r.get("source") or root.name), id=str(r["id"]),
                html=root / r["html"], site=r.get("site"),
                url=r.get("url") or r.get("url_declared"),
                gold=root / gold if (gold := r.get("gold_clean") or r.get("gold")) else None,
                split=r.get("split"),
                exclude_text_metrics=bool(r.get("gold_not_in_html", False)),
                extra={k: v for k, v in r.items() if k not in _MAPPED}))
    return out


def cache_path(cache: Path, rec: PageRecord) -> Path:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in rec.id)
    return cache / rec.dataset / f"{safe}.json.gz"


def render_cached(records: Sequence[PageRecord], cache: str | Path = DEFAULT_CACHE,
                  concurrency: int = 3, log=print) -> dict[PageRecord, Page]:
    """Rendered pages of ``records`` (cached as gzipped Page JSON); failures are logged.

    A page that fails to render is missing from the result (the caller decides how to score
    it) and is tried again on the next call.
    """
    cache = Path(cache)
    pages: dict[PageRecord, Page] = {}
    todo = []
    for r in records:
        p = cache_path(cache, r)
        if p.is_file():
            try:
                pages[r] = Page.load(p)
                continue
            except (ValueError, OSError, EOFError) as e:
                log(f"cache {p} unreadable ({e}); rendering again")
        todo.append(r)
    if todo:
        from webseg.render import Renderer

        log(f"rendering {len(todo)} pages ({len(pages)} cached)")
        t0 = time.perf_counter()
        done = 0
        with Renderer() as renderer:
            for dataset in dict.fromkeys(r.dataset for r in todo):
                group = [r for r in todo if r.dataset == dataset]
                results = renderer.render_many((r.read_html() for r in group), concurrency,
                                               encoding=KNOWN_ENCODINGS.get(dataset))
                for r, res in zip(group, results, strict=True):
                    done += 1
                    if res.error is not None or res.page is None:
                        log(f"  {r.dataset}/{r.id}: render failed: {res.error}")
                        continue
                    p = cache_path(cache, r)
                    p.parent.mkdir(parents=True, exist_ok=True)
                    tmp = p.with_name(p.name + ".part.gz")
                    res.page.save(tmp)
                    tmp.replace(p)
                    pages[r] = res.page
                    if done % 100 == 0:
                        log(f"  {done}/{len(todo)} rendered, {time.perf_counter() - t0:.0f} s")
    for r, page in pages.items():
        if r.url:
            page.url = r.url
    return pages


def main(argv: list[str] | None = None) -> int:
    """``python -m webseg.datasets DIR...``: fill the render cache for whole datasets."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("data", nargs="+", type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--concurrency", type=int, default=3)
    a = ap.parse_args(argv)
    for d in a.data:
        recs = load_records(d)
        pages = render_cached(recs, a.cache, a.concurrency)
        print(f"{d}: {len(pages)}/{len(recs)} pages rendered or cached", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
