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
import hashlib
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from webseg.page import SCHEMA_VERSION, Page

__all__ = ["DEFAULT_CACHE", "DEFAULT_PAGE_CACHE", "GoldPage", "PageRecord", "cache_path",
           "gold_labels", "load_records", "read_gold_pages", "render_cached",
           "render_gold_pages", "select_split", "split_of"]

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


# ---------------------------------------------------------------------- segmentation gold
# The segmentation sets (``shared/data/segmentation``) keep a page as a folder of files (HTML
# plus its CSS and images), so they are rendered from their file path, where relative
# resources resolve, not from bytes as above; their gold is a list of (XPath, level) blocks.
# Trainers (``webseg.wps.train``, ``webseg.graphseg.train``) and the evaluation harnesses share
# this one reader, gold labelling and render cache.

#: Render cache of the segmentation sets (one file per page and render settings).
DEFAULT_PAGE_CACHE = Path(".cache/webseg/pages")


@dataclass
class GoldPage:
    """One segmentation manifest record with its gold blocks."""

    id: str
    html: Path
    render: dict[str, Any]
    blocks: list[dict[str, Any]]
    notes: str = ""


def read_gold_pages(data: str | Path, only: set[str] | None = None, limit: int | None = None
                    ) -> list[GoldPage]:
    """Records of a segmentation set's ``manifest.jsonl`` that have gold, in manifest order."""
    data = Path(data)
    manifest = data / "manifest.jsonl"
    if not manifest.is_file():
        raise SystemExit(f"{manifest} not found (expected the shared/data/segmentation format)")
    out: list[GoldPage] = []
    # split at "\n" only: str.splitlines also splits at U+2028 and U+0085, which JSON
    # strings (a title in any language) may hold unescaped
    for line in manifest.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        rec = json.loads(line)
        if only and rec["id"] not in only:
            continue
        if not rec.get("gold"):
            continue
        gold = json.loads((data / rec["gold"]).read_text(encoding="utf-8"))
        out.append(GoldPage(rec["id"], data / rec["html"], rec.get("render") or {},
                            gold["blocks"], rec.get("notes", "")))
        if limit and len(out) >= limit:
            break
    return out


def gold_labels(page: Page, blocks: list[dict[str, Any]], level: int
                ) -> tuple[np.ndarray, int, list[str]]:
    """Gold label of every text leaf at ``level``.

    A leaf belongs to the innermost gold block among the blocks of level <= ``level`` whose
    element contains it (level-2 blocks refine level-1 blocks); leaves outside every block get
    :data:`webseg.segmentation.UNASSIGNED`. Returns (labels over ``page.text_leaves``, number
    of gold blocks used, XPaths that do not resolve in this rendering).
    """
    from webseg.segmentation import UNASSIGNED

    labels = np.full(page.n, UNASSIGNED, dtype=np.int64)
    depth = np.full(page.n, -1, dtype=np.int64)
    missing: list[str] = []
    used = 0
    pdepth = page.depth
    for k, b in enumerate(blocks):
        if int(b["level"]) > level:
            continue
        node = page.find_xpath(b["xpath"])
        if node is None:
            missing.append(b["xpath"])
            continue
        used += 1
        sl = slice(node, int(page.subtree_end[node]))
        deeper = depth[sl] < pdepth[node]  # innermost block wins
        labels[sl][deeper] = k
        depth[sl][deeper] = pdepth[node]
    return labels[page.text_leaves], used, missing


def gold_cache_key(gp: GoldPage, settings: dict[str, Any]) -> str:
    from webseg import __version__

    h = hashlib.sha256(gp.html.read_bytes())
    h.update(json.dumps(settings, sort_keys=True).encode())
    h.update(f"page-schema-{SCHEMA_VERSION}-webseg-{__version__}".encode())
    return h.hexdigest()[:16]


def render_gold_pages(pages: list[GoldPage], cache: str | Path = DEFAULT_PAGE_CACHE,
                      concurrency: int = 2, timeout: float = 60.0, progress: bool = True
                      ) -> dict[str, Page | Exception]:
    """Render every page from its file with its manifest settings, reusing ``cache`` when it
    is current; a page that fails maps to its exception."""
    from tqdm import tqdm

    from webseg.render import Renderer

    cache = Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, Page | Exception] = {}
    todo: dict[tuple[bool, int], list[tuple[GoldPage, Path]]] = {}
    for gp in pages:
        js = bool(gp.render.get("javascript", False))
        vw = int(gp.render.get("viewport_width", 1280))
        f = cache / f"{gp.id}.{gold_cache_key(gp, {'js': js, 'vw': vw})}.page.json.gz"
        if f.is_file():
            try:
                out[gp.id] = Page.load(f)
                continue
            except (OSError, ValueError, EOFError):
                f.unlink(missing_ok=True)
        todo.setdefault((js, vw), []).append((gp, f))
    bar = tqdm(total=sum(len(v) for v in todo.values()), desc="render", unit="page",
               disable=not progress, file=sys.stderr)
    for (js, vw), items in todo.items():
        with Renderer(javascript=js, viewport_width=vw, timeout=timeout) as r:
            for (gp, f), res in zip(items, r.render_many((gp.html for gp, _ in items),
                                                         concurrency=concurrency), strict=True):
                if res.page is not None:
                    res.page.save(f)
                    out[gp.id] = res.page
                else:
                    out[gp.id] = res.error or RuntimeError("render failed")
                bar.update(1)
    bar.close()
    return out


# Fixed page splits: a page's split depends only on its id (SHA-1 of the id, first 8 hex
# digits as a fraction), so it is stable when pages are added or removed: ``train`` < 0.25,
# ``val`` < 0.5, ``test`` otherwise (the 25:25:50 split of Chakrabarti et al., WWW 2008).
def split_of(page_id: str) -> str:
    """``train``, ``val`` or ``test`` for a page id (see the comment above)."""
    f = int(hashlib.sha1(page_id.encode("utf-8")).hexdigest()[:8], 16) / 16**8
    return "train" if f < 0.25 else ("val" if f < 0.5 else "test")


def select_split(page_ids: Iterable[str], *splits: str) -> list[str]:
    """The ids that fall in any of ``splits`` (``"dev"`` = train + val; ``"all"`` = every id),
    in input order."""
    want = set(splits)
    if "all" in want:
        return list(page_ids)
    if "dev" in want:
        want |= {"train", "val"}
    return [p for p in page_ids if split_of(p) in want]


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
