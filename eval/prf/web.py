"""The web version of a collection: build, render + segment once, index, compare feedback.

Pages are rendered offline with JavaScript off (``Renderer.render_many``, concurrency 2 by
default) and saved as Page JSON under the work folder, so a block source can be added later
without rendering again. Indexing is resumable: documents already in the index are skipped,
and pages are added in shards of 100. A page that fails to render is indexed text-only (parsed
without a browser) with its reason, counted and listed in ``failures.json``.

Systems: ``bm25`` (baseline), ``rm3``, ``blocks(<source>)`` for every stored source. Sweeps
(sensitivity analysis, not tuning - every table row uses the paper's defaults): MAP of
``blocks(vips)`` and ``rm3`` vs the number of feedback blocks / documents and vs the number of
expansion terms, plotted to ``sweep_blocks.png`` and ``sweep_terms.png``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval.prf.collection import Collection, load_collection
from eval.prf.run import System, score_systems, write_tables

__all__ = ["index_web_collection", "web_experiment"]

SHARD = 100

#: Block sources of the main runs; another list gets its own index and results folder
#: (``<tag>-index-<a+b>``, ``web-k<k>-<a+b>``) and reuses the rendered pages.
DEFAULT_SOURCES = ["vips", "dom", "wps", "pagelevel", "windows"]


def index_web_collection(web: Path, index_path: Path, sources: list[str], concurrency: int = 2,
                         limit: int = 0, log: Callable[[str], None] = print) -> Any:
    """Render, segment and index every page of a built web collection (resumable)."""
    from ir import Index
    from ir.pipeline import doc_from_page, doc_from_text, html_text
    from ir.store import IndexNotFoundError
    from webseg.page import Page
    from webseg.render import Renderer

    pages = [json.loads(line) for line in (web / "pages.jsonl").open(encoding="utf-8")]
    if limit:
        pages = pages[:limit]
    try:
        ix = Index.open(index_path)
    except IndexNotFoundError:
        ix = Index.create(index_path, sources=sources)
    missing = [s for s in sources if s not in ix.sources]
    if missing:
        raise ValueError(f"{index_path} was built with sources {ix.sources}, not {missing}; "
                         "use another --work folder")
    todo = [p for p in pages if p["id"] not in ix.pos]
    rendered = web / "rendered"
    rendered.mkdir(exist_ok=True)
    failures_f = web / "failures.json"
    failures: dict[str, str] = (json.loads(failures_f.read_text()) if failures_f.exists()
                                else {})
    log(f"{web.name}: {len(pages) - len(todo)} pages indexed, {len(todo)} to go")
    t0, done, batch = time.time(), 0, []

    def cached(p: dict) -> Path:
        return rendered / f"{p['id']}.page.json.gz"

    need = [p for p in todo if not cached(p).exists()]
    with Renderer(timeout=30.0) as r:
        results = r.render_many((web / p["html"] for p in need), concurrency=concurrency)
        for p in todo:
            page, err = None, None
            if cached(p).exists():
                page = Page.load(cached(p))
            else:
                res = next(results)
                page, err = res.page, res.error
                if page is not None:
                    page.save(cached(p))
            if page is not None:
                doc = doc_from_page(p["id"], page, ix.analyzer, sources)
                if doc.reason:
                    failures[p["id"]] = doc.reason
            else:
                reason = f"render: {getattr(err, 'reason', None) or err}"
                failures[p["id"]] = reason
                text = html_text((web / p["html"]).read_bytes())
                doc = doc_from_text(p["id"], text, ix.analyzer, status="text-only",
                                    reason=reason)
            batch.append(doc)
            done += 1
            if len(batch) >= SHARD:
                ix.add(batch)
                batch = []
                failures_f.write_text(json.dumps(failures, indent=1))
                rate = done / (time.time() - t0)
                log(f"  {len(ix)}/{len(pages)} pages ({rate:.2f} pages/s)")
    if batch:
        ix.add(batch)
    failures_f.write_text(json.dumps(failures, indent=1))
    log(f"{web.name}: {len(ix)} pages indexed; {len(failures)} with a recorded failure")
    return ix


def _sweep(ix: Any, coll: Collection, out: Path, log: Callable[[str], None]) -> dict[str, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from eval.prf.measures import evaluate
    from eval.prf.run import run_system

    def map_of(prf: str, **params: Any) -> float:
        run, _ = run_system(System("s", ix, prf, params), coll, 1000, log)
        ap = evaluate(run, coll.qrels, coll.judged_topics)["AP"]
        return sum(ap.values()) / len(ap)

    res: dict[str, Any] = {"fb_blocks": {}, "fb_docs": {}, "fb_terms_blocks": {},
                           "fb_terms_rm3": {}}
    for n in (5, 10, 20, 40, 80):
        res["fb_blocks"][n] = map_of("blocks", source="vips", fb_blocks=n)
        res["fb_docs"][n] = map_of("rm3", fb_docs=n)
    for n in (5, 10, 20, 40):
        res["fb_terms_blocks"][n] = map_of("blocks", source="vips", fb_terms=n)
        res["fb_terms_rm3"][n] = map_of("rm3", fb_terms=n)
    base = map_of("none")
    for _key, fname, xlabel, pairs in (
            ("blocks", "sweep_blocks.png", "feedback blocks (blocks) / documents (rm3)",
             (("fb_blocks", "blocks(vips)"), ("fb_docs", "rm3"))),
            ("terms", "sweep_terms.png", "expansion terms",
             (("fb_terms_blocks", "blocks(vips)"), ("fb_terms_rm3", "rm3")))):
        fig, ax = plt.subplots(figsize=(5, 3.4))
        for k, label in pairs:
            xs = sorted(res[k])
            ax.plot(xs, [res[k][x] for x in xs], marker="o", label=label)
        ax.axhline(base, color="grey", ls="--", label="bm25 (no feedback)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("MAP")
        ax.set_title(f"{coll.name} web version (semi-synthetic)", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / fname, dpi=110)
        plt.close(fig)
    res["bm25"] = base
    (out / "sweep.json").write_text(json.dumps(res, indent=1), encoding="utf-8")
    return res


def web_experiment(coll: Collection, templates: list[str], out: Path, work: Path,
                   docs_per_page: int = 1, seed: int = 0, sources: list[str] | None = None,
                   concurrency: int = 2, sweep: bool = True, limit: int = 0,
                   log: Callable[[str], None] = print) -> dict[str, Any]:
    from eval.prf.build_web_collection import build

    sources = sources or list(DEFAULT_SOURCES)
    extra = "" if sources == DEFAULT_SOURCES else "-" + "+".join(sources)
    tag = f"{coll.name}-k{docs_per_page}-s{seed}"
    web = work / "web" / tag
    if not (web / "pages.jsonl").exists():
        build(str(coll.path), templates, str(web), docs_per_page, seed, log=log)
    wcoll = load_collection(web, docs_file="pages.jsonl")
    ix = index_web_collection(web, work / "web" / f"{tag}-index{extra}", sources, concurrency,
                              limit, log)
    systems = [System("bm25", ix), System("rm3", ix, "rm3")]
    systems += [System(f"blocks({s})", ix, "blocks", {"source": s}) for s in sources]
    res = score_systems(systems, wcoll, baseline="bm25", log=log)
    dest = out / coll.name / f"web-k{docs_per_page}{extra}"
    n_text_only = sum(d.status != "ok" for d in ix.docs)
    note = (f"**Semi-synthetic** web version: {len(ix)} pages, {docs_per_page} document(s) per "
            f"page in real Dragnet (test split) page templates, seed {seed}; "
            f"{n_text_only} page(s) indexed text-only after a render failure.")
    md = write_tables(res, dest, f"{coll.name} web version, k={docs_per_page}", note)
    log(md)
    if sweep:
        _sweep(ix, wcoll, dest, log)
    return res
