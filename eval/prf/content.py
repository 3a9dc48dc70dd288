"""Content-aware search on the web versions (issue 16): indexes, parameter choice, tables.

``python -m eval.prf.content index --web .cache/webseg/prf/web/med-k3-s0`` builds, once, the
stored index of a web version from its cached rendered pages (:mod:`eval.prf.render_web`) with
:func:`ir.pipeline.doc_from_page` (content fields + weighted blocks of every source), and a
second index of trafilatura's main text of each page (the peer). Every system below is a view
of these two indexes (field weights and BM25 parameters are overridden at open time), so
nothing is rendered or segmented twice.

``python -m eval.prf.content tune --web <dev web versions>`` chooses BM25 k1/b, field weights
and feedback parameters on the dev collections (grid search, MAP) and writes them to
``eval/results/prf/content/chosen.json``; ``python -m eval.prf.content report --web ...``
scores every system with those parameters on the given web versions and writes the tables.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from functools import partial
from itertools import product
from pathlib import Path
from typing import Any

from eval.prf.collection import Collection, load_collection
from eval.prf.run import System, score_systems, write_tables

__all__ = ["build_indexes", "main", "systems_for", "tune"]

SOURCES = ["vips", "dom", "pagelevel", "windows"]
RESULTS = Path("eval/results/prf/content")


def _log(m: str) -> None:
    print(m, flush=True)


#: Main-content model of the content index: ``pagelevel`` (the library default, better on
#: dev; index ``<web>-content-index``, results ``<web>/``) or ``blocks`` (the block-function
#: model; index ``<web>-content-index-blocks``, results ``<web>-blocks/``), so that both
#: stay reproducible side by side.
CONTENT_MODEL = "pagelevel"


def _suffix(model: str) -> str:
    return "" if model == "pagelevel" else f"-{model}"


def content_index_path(web: Path, model: str = CONTENT_MODEL) -> Path:
    return web.parent / f"{web.name}-content-index{_suffix(model)}"


def build_indexes(web: Path, sources: list[str] = SOURCES, log: Callable[[str], None] = _log,
                  parts: tuple[str, ...] = ("content", "peer"),
                  model: str = CONTENT_MODEL) -> tuple[Path, Path]:
    """The content index and the trafilatura index of a rendered web version (resumable;
    ``parts`` selects which, so the two can be built by two processes at once; ``model`` is
    the main-content model of the content index)."""
    from ir import Index
    from ir.pipeline import doc_from_text
    from ir.store import IndexNotFoundError

    pages = [json.loads(line) for line in (web / "pages.jsonl").open(encoding="utf-8")]
    out = content_index_path(web, model)
    tra = web.parent / f"{web.name}-trafilatura-index"
    if "content" in parts:
        _build_content(web, pages, out, sources, log, model)
    if "peer" not in parts:
        return out, tra
    try:
        tx = Index.open(tra)
    except IndexNotFoundError:
        tx = Index.create(tra, sources=["windows"])
    todo = [p for p in pages if p["id"] not in tx.pos]
    if todo:
        import trafilatura

        docs = []
        for p in todo:
            html = (web / p["html"]).read_text(encoding="utf-8", errors="replace")
            text = trafilatura.extract(html) or ""
            docs.append(doc_from_text(p["id"], text, tx.analyzer))
        tx.add(docs)
    return out, tra


def _build_content(web: Path, pages: list[dict], out: Path, sources: list[str],
                   log: Callable[[str], None], model: str = CONTENT_MODEL) -> None:
    from ir import Index
    from ir.pipeline import doc_from_page, doc_from_text, html_text
    from ir.store import IndexNotFoundError
    from webseg.page import Page

    try:
        ix = Index.open(out)
    except IndexNotFoundError:
        ix = Index.create(out, sources=sources)
    t0, batch = time.time(), []
    todo = [p for p in pages if p["id"] not in ix.pos]
    log(f"{web.name}: {len(todo)} pages to index")
    for n, p in enumerate(todo, 1):
        f = web / "rendered" / f"{p['id']}.page.json.gz"
        if f.exists():
            # the first tables were computed with PageLevel as the main-content model
            # (the block-function model was not on main yet): the default here keeps them
            # reproducible, ``model="blocks"`` builds a separate index
            doc = doc_from_page(p["id"], Page.load(f), ix.analyzer, sources,
                                content_model=model)
        else:
            text = html_text((web / p["html"]).read_bytes())
            doc = doc_from_text(p["id"], text, ix.analyzer, status="text-only",
                                reason="not rendered")
        batch.append(doc)
        if len(batch) >= 100 or n == len(todo):
            ix.add(batch)
            batch = []
            log(f"  {n}/{len(todo)} ({n / (time.time() - t0):.2f} pages/s)")


def _map(ix: Any, coll: Collection, prf: str = "none", **params: Any) -> float:
    from eval.prf.measures import evaluate
    from eval.prf.run import run_system

    run, _ = run_system(System("s", ix, prf, params), coll, 1000, lambda m: None)
    ap = evaluate(run, coll.qrels, coll.judged_topics)["AP"]
    return sum(ap.values()) / len(ap)


#: Parameters before tuning: rank-bm25/our defaults, fields as DEFAULT_FIELDS.
BASE: dict[str, Any] = {"k1": 1.5, "b": 0.75,
                        "fields": {"title": 1.0, "main": 1.0, "rest": 0.1},
                        "passages": {"source": "vips", "weight": 1.0, "min_block_weight": 0.5,
                                     "min_terms": 3},
                        "rm3": {"fb_docs": 10, "fb_terms": 10, "orig_weight": 0.5},
                        "blocks": {"source": "windows", "fb_pages": 80, "fb_blocks": 20,
                                   "fb_terms": 10, "orig_weight": 0.5,
                                   "min_block_weight": 0.5, "weight_power": 1.0}}


def _mean_map(ixs: list[Any], prf: str = "none", *, colls: list[Collection],
              **params: Any) -> float:
    """Mean MAP over the tuning collections (one index per collection)."""
    v = sum(_map(ix, c, prf, **params) for ix, c in zip(ixs, colls, strict=True))
    return v / len(colls)


def _record(stage: str, m: float, *, trace: list[dict[str, Any]], log: Callable[[str], None],
            **kw: Any) -> None:
    """Append one tuning step to the trace and rewrite ``tuning_trace.json`` (resumable)."""
    trace.append({"stage": stage, **kw, "map": round(m, 4)})
    log(f"  {stage} {kw}: {m:.4f}")
    (RESULTS / "tuning_trace.json").write_text(json.dumps(trace, indent=1))


def tune(webs: list[Path], log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Grid search on the dev web versions (mean MAP over them), stage by stage: BM25 k1/b
    with field weights, then passage evidence, then RM3, then block PRF."""
    from ir import Index

    colls = [load_collection(w, docs_file="pages.jsonl") for w in webs]
    paths = [w.parent / f"{w.name}-content-index" for w in webs]
    best = json.loads(json.dumps(BASE))
    trace: list[dict[str, Any]] = []

    def opened(**kw: Any) -> list[Any]:
        return [Index.open(p, **kw) for p in paths]

    mean_map = partial(_mean_map, colls=colls)
    record = partial(_record, trace=trace, log=log)

    RESULTS.mkdir(parents=True, exist_ok=True)
    res = []
    for k1, b, rest, title in product((0.9, 1.2, 1.5), (0.4, 0.75), (0.0, 0.1, 0.25),
                                      (0.0, 1.0)):
        f = {"title": title, "main": 1.0, "rest": rest}
        m = mean_map(opened(k1=k1, b=b, fields=f, passages={}))
        res.append((m, k1, b, f))
        record("bm25f", m, k1=k1, b=b, fields=f)
    _, best["k1"], best["b"], best["fields"] = max(res, key=lambda r: r[0])
    res = []
    for src, w in product(("vips", "windows", "pagelevel", "dom"), (0.5, 1.0, 2.0)):
        pas = {"source": src, "weight": w, "min_block_weight": 0.5, "min_terms": 3}
        m = mean_map(opened(k1=best["k1"], b=best["b"], fields=best["fields"], passages=pas))
        res.append((m, pas))
        record("passages", m, **pas)
    best["passages"] = max(res, key=lambda r: r[0])[1]
    ixs = opened(k1=best["k1"], b=best["b"], fields=best["fields"], passages=best["passages"])
    res = []
    for fb_docs, fb_terms, ow in product((5, 10, 20), (10, 20), (0.5, 0.7)):
        prm = {"fb_docs": fb_docs, "fb_terms": fb_terms, "orig_weight": ow}
        m = mean_map(ixs, "rm3", **prm)
        res.append((m, prm))
        record("rm3", m, **prm)
    best["rm3"] = max(res, key=lambda r: r[0])[1]
    best["blocks"] = _tune_blocks(ixs, mean_map, record)
    best["dev"] = [w.name for w in webs]
    (RESULTS / "chosen.json").write_text(json.dumps(best, indent=1), encoding="utf-8")
    return best


def _tune_blocks(ixs: list[Any], mean_map: Callable[..., float],
                 record: Callable[..., None]) -> dict[str, Any]:
    """Block PRF grid (kept small: a block-PRF run of the dev topics is the slowest step):
    source x original-query weight x expansion terms from content blocks, then whether
    dropping the content filter helps the best of them."""
    res = []
    for src, ow, fb_terms in product(("vips", "windows"), (0.5, 0.7), (10, 20)):
        prm = {"source": src, "fb_pages": 80, "fb_blocks": 10, "fb_terms": fb_terms,
               "orig_weight": ow, "min_block_weight": 0.5, "weight_power": 1.0}
        m = mean_map(ixs, "blocks", **prm)
        res.append((m, prm))
        record("blocks", m, **prm)
    top = dict(max(res, key=lambda r: r[0])[1])
    for variant in ({"min_block_weight": 0.0}, {"fb_blocks": 20}):
        prm = {**top, **variant}
        m = mean_map(ixs, "blocks", **prm)
        res.append((m, prm))
        record("blocks", m, **prm)
    return max(res, key=lambda r: r[0])[1]


def finish_tune(webs: list[Path], log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Resume :func:`tune` from its trace: the best of each finished stage, then blocks."""
    from ir import Index

    trace = json.loads((RESULTS / "tuning_trace.json").read_text())
    colls = [load_collection(w, docs_file="pages.jsonl") for w in webs]
    paths = [w.parent / f"{w.name}-content-index" for w in webs]
    best = json.loads(json.dumps(BASE))

    def top(stage: str) -> dict[str, Any]:
        rows = [t for t in trace if t["stage"] == stage]
        return {k: v for k, v in max(rows, key=lambda t: t["map"]).items()
                if k not in ("stage", "map")}

    f = top("bm25f")
    best["k1"], best["b"], best["fields"] = f["k1"], f["b"], f["fields"]
    best["passages"] = top("passages")
    best["rm3"] = top("rm3")
    ixs = [Index.open(p, k1=best["k1"], b=best["b"], fields=best["fields"],
                      passages=best["passages"]) for p in paths]

    mean_map = partial(_mean_map, colls=colls)
    record = partial(_record, trace=trace, log=log)

    best["blocks"] = _tune_blocks(ixs, mean_map, record)
    best["dev"] = [w.name for w in webs]
    (RESULTS / "chosen.json").write_text(json.dumps(best, indent=1), encoding="utf-8")
    return best


def systems_for(web: Path, chosen: dict[str, Any], model: str = CONTENT_MODEL,
                rows_set: str = "all") -> list[System]:
    """Every row of a web version's table (see the module docstring); ``rows_set="core"``
    keeps the rows that depend on the main-content model (page BM25 as the baseline, main
    text, fields, the default, block PRF from VIPS content blocks)."""
    from ir import Index

    cpath = content_index_path(web, model)
    tpath = web.parent / f"{web.name}-trafilatura-index"
    k1, b, f, pas = chosen["k1"], chosen["b"], chosen["fields"], chosen["passages"]
    page = Index.open(cpath, k1=k1, b=b, fields={}, passages={})
    main = Index.open(cpath, k1=k1, b=b, fields={"main": 1.0}, passages={})
    bm25f = Index.open(cpath, k1=k1, b=b, fields=f, passages={})
    best = Index.open(cpath, k1=k1, b=b, fields=f, passages=pas)
    tra = Index.open(tpath, k1=k1, b=b, fields={}, passages={})
    page_d = Index.open(cpath, fields={}, passages={})  # k1 1.5, b 0.75, whole pages
    bp = dict(chosen["blocks"])
    if rows_set == "core":
        return [System("bm25-page", page), System("bm25-main (webseg)", main),
                System("bm25f (fields)", bm25f),
                System(f"bm25f+passages({pas['source']}) = default", best),
                System("blocks(vips) content, default index", best, "blocks",
                       {**bp, "source": "vips"})]
    rows = [System("bm25-page", page), System("bm25-page (k1 1.5, b 0.75)", page_d),
            System("bm25-main (webseg)", main), System("bm25-trafilatura", tra),
            System("bm25f (fields)", bm25f),
            System(f"bm25f+passages({pas['source']}) = default", best),
            System("rm3-page", page, "rm3", chosen["rm3"]),
            System("rm3 (default index)", best, "rm3", chosen["rm3"])]
    for src in ("vips", "windows", "pagelevel"):
        rows.append(System(f"blocks({src}) content, default index", best, "blocks",
                           {**bp, "source": src}))
    rows.append(System(f"blocks({bp['source']}) all blocks, default index", best, "blocks",
                       {**bp, "min_block_weight": 0.0, "weight_power": 0.0}))
    rows.append(System("blocks(vips) page index, issue-7 defaults", page_d, "blocks",
                       {"source": "vips"}))
    return rows


def _clean_index(name: str, data: Path, tmp: Path) -> tuple[Any, Collection]:
    from ir import Index
    from ir.pipeline import doc_from_text

    coll = load_collection(data / name)
    ix = Index.create(tmp / name, sources=["windows"], overwrite=True)
    ix.add(doc_from_text(str(d["id"]), str(d.get("text", "")), ix.analyzer,
                         title=str(d.get("title") or "")) for d in coll.docs)
    return ix, coll


def clean_table(name: str, data: Path, chosen: dict[str, Any], log: Callable[[str], None]
                ) -> dict[str, Any]:
    """Clean-collection rows: BM25 with the chosen parameters (the ceiling of the web
    versions), rank-bm25's defaults, and Anserini's regression parameters (k1 0.9, b 0.4,
    RM3 10/10/0.5) on the embedded backend as the reference."""
    import tempfile

    from ir import Index

    with tempfile.TemporaryDirectory() as tmp:
        ix, coll = _clean_index(name, data, Path(tmp))
        path = ix.store.path
        best = Index.open(path, k1=chosen["k1"], b=chosen["b"], fields={}, passages={})
        ans = Index.open(path, k1=0.9, b=0.4, fields={}, passages={})
        systems = [System("bm25 (chosen k1, b)", best),
                   System("bm25 (k1 1.5, b 0.75)", ix),
                   System("bm25 (Anserini k1 0.9, b 0.4)", ans),
                   System("rm3 (chosen)", best, "rm3", chosen["rm3"]),
                   System("rm3 (Anserini parameters)", ans, "rm3",
                          {"fb_docs": 10, "fb_terms": 10, "orig_weight": 0.5})]
        res = score_systems(systems, coll, baseline="bm25 (chosen k1, b)", log=log)
    write_tables(res, RESULTS / f"{name}-clean", f"{name}, clean text",
                 "Clean collection (plain-text documents); embedded backend.")
    return res


def report(webs: list[Path], data: Path, log: Callable[[str], None] = _log,
           model: str = CONTENT_MODEL, rows_set: str = "all") -> str:
    """Score the systems on each web version and write ``<web><-model>/`` tables; the
    clean-collection table is computed once (``<name>-clean/``) and reused by later runs."""
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    mds = []
    ceilings: dict[str, float] = {}
    for web in webs:
        coll = load_collection(web, docs_file="pages.jsonl")
        name = web.name.split("-k")[0]
        done = RESULTS / f"{name}-clean" / "summary.json"
        if name not in ceilings and rows_set == "core" and done.exists():
            ceilings[name] = json.loads(done.read_text())["rows"][0]["AP"]
        if name not in ceilings:
            clean = clean_table(name, data, chosen, log)
            ceilings[name] = clean["rows"][0]["AP"]
        ceiling = ceilings[name]
        res = score_systems(systems_for(web, chosen, model, rows_set), coll,
                            baseline="bm25-page", log=log)
        role = "dev (parameters chosen here)" if web.name in chosen["dev"] else "test"
        note = (f"**Semi-synthetic** web version `{web.name}` ({role}), main-content model "
                f"`{model}`; clean-collection BM25 "
                f"(k1 {chosen['k1']}, b {chosen['b']}) MAP **{ceiling:.4f}** (the ceiling; "
                f"0.95 x = {0.95 * ceiling:.4f}).")
        res["clean_bm25_map"] = ceiling
        out = RESULTS / f"{web.name}{_suffix(model)}"
        md = write_tables(res, out, f"{web.name}{_suffix(model)}", note)
        log(md)
        mds.append(md)
    return "\n".join(mds)


def _target_row(name: str, chosen: dict[str, Any], suffix: str) -> str | None:
    f = RESULTS / f"{name}{suffix}" / "summary.json"
    if not f.exists():
        return None
    r = json.loads(f.read_text())
    m = {row["system"]: row["AP"] for row in r["rows"]}

    def v(key: str) -> str:
        return f"{m[key]:.4f}" if key in m else "-"

    dflt = next(v for k, v in m.items() if k.endswith("= default"))
    blk = m["blocks(vips) content, default index"]
    role = "dev" if name in chosen["dev"] else "test"
    c = r["clean_bm25_map"]
    ratio = f"{blk / (1.15 * m['rm3-page']):.3f}" if "rm3-page" in m else "-"
    return (f"| {name}{suffix} | {role} | {c:.4f} | {0.95 * c:.4f} | **{dflt:.4f}** | "
            f"{v('bm25f (fields)')} | {v('bm25-main (webseg)')} | {v('bm25-trafilatura')} | "
            f"{v('bm25-page')} | **{blk:.4f}** | {v('rm3 (default index)')} | "
            f"{v('rm3-page')} | {ratio} |")


def summarize(names: list[str]) -> str:
    """The targets tables over the reported web versions (``targets.md``): one per
    main-content model whose results exist (PageLevel ``<web>/``, blocks ``<web>-blocks/``)."""
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    head = ["| web version | role | clean BM25 | 0.95 x clean | default | fields only | "
            "main only | trafilatura | page BM25 | block PRF (vips, content) | "
            "rm3 default index | rm3 page | blocks / (rm3 page x 1.15) |",
            "|---|---|" + "---:|" * 11]
    parts = []
    for model in ("pagelevel", "blocks"):
        rows = [r for n in names if (r := _target_row(n, chosen, _suffix(model)))]
        if rows:
            parts.append(f"Main-content model `{model}` (MAP@1000):\n\n"
                         + "\n".join(head + rows) + "\n")
    md = "\n".join(parts)
    (RESULTS / "targets.md").write_text(md, encoding="utf-8")
    return md


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.content", description=__doc__)
    ap.add_argument("command", choices=["index", "tune", "finish-tune", "report", "summarize"])
    ap.add_argument("--web", required=True, help="web version folder(s), comma-separated")
    ap.add_argument("--data", default="../shared/data/ir")
    ap.add_argument("--parts", default="content,peer", help="index: content, peer or both")
    ap.add_argument("--content-model", default=CONTENT_MODEL, choices=["pagelevel", "blocks"],
                    help="main-content model of the content index (separate index and "
                         "result folders per model)")
    ap.add_argument("--rows", default="all", choices=["all", "core"],
                    help="report: every row, or only those that depend on the content model")
    a = ap.parse_args(argv)
    webs = [Path(w) for w in a.web.split(",") if w]
    if a.command == "index":
        for w in webs:
            build_indexes(w, parts=tuple(a.parts.split(",")), model=a.content_model)
    elif a.command == "tune":
        print(json.dumps(tune(webs), indent=1))
    elif a.command == "finish-tune":
        print(json.dumps(finish_tune(webs), indent=1))
    elif a.command == "summarize":
        print(summarize([w.name for w in webs]))  # both models' tables
    else:
        report(webs, Path(a.data), model=a.content_model, rows_set=a.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
