"""Content-aware search on the web versions (issue 16): indexes, parameter choice, tables.

``python -m eval.prf.content index --web .cache/webseg/prf/web/med-k3-s0`` builds, once, the
stored index of a web version from its cached rendered pages (:mod:`eval.prf.render_web`) with
:func:`ir.pipeline.doc_from_page` (content fields + weighted blocks of every source), and a
second index of trafilatura's main text of each page (the peer). Every system below is a view
of these two indexes (field weights and BM25 parameters are overridden at open time), so
nothing is rendered or segmented twice.

``python -m eval.prf.content tune --web <dev web versions>`` chooses the main-content model,
BM25 k1/b, field weights, passage evidence and feedback parameters on the dev collections
(grid search and coordinate ascent, mean MAP; resumable trace) and writes them to
``eval/results/prf/content/chosen.json``; ``repeats`` then chooses, on the same dev versions,
the repetition rule of :mod:`ir.repeats` with the rest-field weight and the passage evidence;
``repeated-blocks`` whether passages and block PRF leave out content blocks whose text
repeats across pages;
``python -m eval.prf.content report --web ...``
scores every system with those parameters on the given web versions and writes the tables;
``lucene`` adds the Lucene-backend rows of a web version; ``summarize`` the targets tables;
``clean --web cacm,cranfield,med`` (re)writes only the clean-collection tables.
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


def chosen_model() -> str:
    """The main-content model chosen on dev (``chosen.json``), else :data:`CONTENT_MODEL`."""
    f = RESULTS / "chosen.json"
    return json.loads(f.read_text()).get("model", CONTENT_MODEL) if f.exists() else CONTENT_MODEL


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


def _mean_map(ixs: list[Any], prf: str = "none", *, colls: list[Collection],
              **params: Any) -> float:
    """Mean MAP over the tuning collections (one index per collection)."""
    v = sum(_map(ix, c, prf, **params) for ix, c in zip(ixs, colls, strict=True))
    return v / len(colls)


#: The dev web versions of the second round (``tune``); other sets get their own trace files.
DEV = ("cranfield-k3-s0", "cranfield-k1-s0")


def _dev_file(stem: str, webs: list[Path], ext: str) -> str:
    names = tuple(w.name for w in webs)
    return f"{stem}.{ext}" if names == DEV else f"{stem}_{'+'.join(names)}.{ext}"


#: Grids of :func:`tune` (kept small: the dev collections are evaluated at every point).
BM25F_GRID = {"k1": (1.2, 1.5), "b": (0.4, 0.75), "rest": (0.1, 0.25, 0.5)}
PASSAGE_GRID = [{"source": "vips", "weight": w, "min_blocks": mb}
                for w in (1.0, 2.0, 3.0) for mb in (1, 2)] + [
                   {"source": "windows", "weight": 1.0, "min_blocks": 1}]
RM3_GRID = {"fb_docs": (5, 10), "fb_terms": (10, 20), "orig_weight": (0.5, 0.7)}
#: Block PRF: one pass of coordinate ascent from the previous choice, one parameter at a
#: time (a block-PRF run of the dev topics is the slowest step).
BLOCK_START: dict[str, Any] = {"source": "vips", "fb_pages": 80, "fb_blocks": 10,
                               "fb_terms": 20, "orig_weight": 0.7, "min_block_weight": 0.5,
                               "weight_power": 1.0, "idf_power": 0.0, "score_power": 1.0,
                               "page_weight": 0.0}
BLOCK_STEPS: list[tuple[str, tuple[Any, ...]]] = [
    ("idf_power", (0.5, 1.0)), ("fb_pages", (20,)), ("fb_blocks", (20,)),
    ("orig_weight", (0.6, 0.8)), ("score_power", (2.0,)), ("fb_terms", (30,))]


class _Tuner:
    """Evaluates parameter points on the dev collections, with a resumable trace.

    Every point is recorded in ``tuning_trace.json`` (stage, model, parameters, mean MAP;
    ``tuning_trace_<versions>.json`` for another set of dev versions than :data:`DEV`, since
    a point's mean depends on the set);
    a point already in the trace is not evaluated again, so an interrupted run resumes.
    Indexes of one store share their loaded block store (same rows), so that trying passage
    sources does not re-read it.
    """

    def __init__(self, webs: list[Path], log: Callable[[str], None]) -> None:
        self.webs, self.log = webs, log
        self.colls = [load_collection(w, docs_file="pages.jsonl") for w in webs]
        self.file = RESULTS / _dev_file("tuning_trace", webs, "json")
        old = json.loads(self.file.read_text()) if self.file.exists() else []
        self.trace: list[dict[str, Any]] = [t for t in old if "model" in t]
        self.done = {self._key(t["stage"], t["model"], t["params"]): t["map"]
                     for t in self.trace}
        self._blocks: dict[Path, Any] = {}

    @staticmethod
    def _key(stage: str, model: str, params: dict[str, Any]) -> str:
        return json.dumps([stage, model, params], sort_keys=True)

    def opened(self, model: str, **kw: Any) -> list[Any]:
        from ir import Index

        out = []
        for w in self.webs:
            path = content_index_path(w, model)
            ix = Index.open(path, **kw)
            if path in self._blocks:
                ix._blocks = self._blocks[path]
            elif kw.get("passages"):
                ix.blocks(0)
                self._blocks[path] = ix._blocks
            out.append(ix)
        return out

    def point(self, stage: str, model: str, params: dict[str, Any],
              ixs: Callable[[], list[Any]], prf: str = "none",
              prf_params: dict[str, Any] | None = None) -> float:
        key = self._key(stage, model, params)
        if key not in self.done:
            m = _mean_map(ixs(), prf, colls=self.colls, **(prf_params or {}))
            self.done[key] = round(m, 4)
            self.trace.append({"stage": stage, "model": model, "params": params,
                               "map": round(m, 4)})
            self.file.write_text(json.dumps(self.trace, indent=1))
            self.log(f"  {stage} {model} {params}: {m:.4f}")
        return self.done[key]


def tune(webs: list[Path], models: list[str] | None = None,
         log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Choose the main-content model, BM25 k1/b, field weights, passage evidence, RM3 and
    block PRF on the dev web versions (mean MAP over them), stage by stage.

    Per model (``models``, default every one with a content index on every dev version):
    k1 x b x rest-field weight (title 0: the templates keep their own ``<title>``), then
    passage source x weight x ``min_blocks``; the model of the best default index is chosen,
    then RM3 and block PRF (coordinate ascent, :data:`BLOCK_STEPS`) on it. ``chosen.json``
    is rewritten after every improvement, so an interrupted run leaves a valid choice.
    """
    from ir.content import MODELS

    RESULTS.mkdir(parents=True, exist_ok=True)
    tu = _Tuner(webs, log)
    models = models or [m for m in MODELS
                        if all(content_index_path(w, m).exists() for w in webs)]
    per_model: dict[str, dict[str, Any]] = {}
    kb = None
    for model in models:
        tu._blocks.clear()  # one model's block stores in memory at a time
        res = []
        # k1 and b are searched with the first model only (then kept): they are properties
        # of BM25 on these collections more than of the main-text mask
        grid = (product(*BM25F_GRID.values()) if kb is None
                else ((*kb, rest) for rest in BM25F_GRID["rest"]))
        for k1, b, rest in grid:
            f = {"title": 0.0, "main": 1.0, "rest": rest}
            prm = {"k1": k1, "b": b, "fields": f}
            m = tu.point("bm25f", model, prm,
                         partial(tu.opened, model, k1=k1, b=b, fields=f, passages={}))
            res.append((m, prm))
        m_f, base = max(res, key=lambda r: r[0])
        kb = kb or (base["k1"], base["b"])
        res = []
        for g in PASSAGE_GRID:
            pas = {"source": g["source"], "weight": g["weight"], "min_block_weight": 0.5,
                   "min_terms": 3, "min_blocks": g["min_blocks"]}
            m = tu.point("passages", model, {**base, "passages": pas},
                         partial(tu.opened, model, **base, passages=pas))
            res.append((m, pas))
        m_p, pas = max(res, key=lambda r: r[0])
        per_model[model] = {**base, "passages": pas, "fields_map": m_f, "default_map": m_p}
    model = max(per_model, key=lambda k: per_model[k]["default_map"])
    best: dict[str, Any] = {"model": model,
                            **{k: v for k, v in per_model[model].items()
                               if k in ("k1", "b", "fields", "passages")},
                            "dev": [w.name for w in webs], "per_model": per_model}
    settings = {k: best[k] for k in ("k1", "b", "fields", "passages")}
    return _tune_feedback(tu, model, settings, best)


def _tune_feedback(tu: _Tuner, model: str, settings: dict[str, Any], best: dict[str, Any],
                   extra: tuple[dict[str, Any], ...] = (),
                   start: dict[str, Any] | None = None) -> dict[str, Any]:
    """RM3 (:data:`RM3_GRID`) and block PRF (coordinate ascent from ``start``, by default
    :data:`BLOCK_START`, over :data:`BLOCK_STEPS`; the block settings in ``extra`` compete
    with its result) on the index of ``settings``, mean MAP over the tuner's dev versions;
    ``best`` gets ``rm3``, ``rm3_map``, ``blocks``, ``blocks_map`` and is written to
    ``chosen.json`` after every step (ties: the earlier point)."""
    ixs = tu.opened(model, **settings)
    res = []
    for fb_docs, fb_terms, ow in product(*RM3_GRID.values()):
        prm = {"fb_docs": fb_docs, "fb_terms": fb_terms, "orig_weight": ow}
        res.append((tu.point("rm3", model, {**settings, "rm3": prm}, lambda: ixs, "rm3", prm),
                    prm))
    best["rm3_map"], best["rm3"] = max(res, key=lambda r: r[0])
    cur = dict(start or BLOCK_START)
    cur_map = tu.point("blocks", model, {**settings, "blocks": cur}, lambda: ixs, "blocks",
                       cur)
    best["blocks"], best["blocks_map"] = dict(cur), cur_map
    _write_chosen(best)
    for name, values in BLOCK_STEPS:
        for v in values:
            prm = {**cur, name: v}
            m = tu.point("blocks", model, {**settings, "blocks": prm}, lambda: ixs,
                         "blocks", prm)
            if m > cur_map:
                cur, cur_map = prm, m
        best["blocks"], best["blocks_map"] = dict(cur), cur_map
        _write_chosen(best)
    for prm in extra:
        m = tu.point("blocks", model, {**settings, "blocks": dict(prm)}, lambda: ixs,
                     "blocks", dict(prm))
        if m > cur_map:
            cur, cur_map = dict(prm), m
    best["blocks"], best["blocks_map"] = dict(cur), cur_map
    _write_chosen(best)
    return best


def tune_feedback(webs: list[Path], log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Choose RM3 and block PRF again on the dev web versions ``webs``, on the current
    default index (``chosen.json``'s model, k1, b, fields, passages and repetition rule), by
    the procedure of :func:`tune`; the current block settings compete with the ascent's
    result. The ascent starts from :data:`BLOCK_START` with the current ``repeat_pages``
    (session 8: the blocks left out change every other parameter's optimum). Updates
    ``chosen.json`` (``rm3``, ``blocks`` and their dev MAP, ``feedback_dev``)."""
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    model = chosen["model"]
    tu = _Tuner(webs, log)
    settings = {k: chosen[k] for k in ("k1", "b", "fields", "passages")}
    settings["repeats"] = chosen.get("repeats") or {}
    chosen["feedback_dev"] = [w.name for w in webs]
    rp = chosen["blocks"].get("repeat_pages", 0)
    start = {**BLOCK_START, "repeat_pages": rp} if rp else BLOCK_START
    return _tune_feedback(tu, model, settings, chosen, (dict(chosen["blocks"]),), start)


#: Repetition grid of :func:`tune_repeats`: ``min_pages`` (None: off) x rest-field weight.
#: The rest weights extend :data:`BM25F_GRID`'s below 0.1 (session 7): with the rule, the
#: dev choice sat at that grid's lower edge, and a choice at the edge of a grid says the grid
#: should go on (0: the rest of the page is not indexed for scoring, only fed back).
REPEATS_GRID = {"min_pages": (None, 2, 3, 5), "rest": (0.0, 0.03, *BM25F_GRID["rest"])}


def tune_repeats(webs: list[Path], log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Choose the repetition rule (:mod:`ir.repeats`: main-text leaves on ``min_pages``
    pages count as ``rest``) and, with it, the rest-field weight, on the dev web versions:
    the default index (chosen k1, b, passages) at every point of :data:`REPEATS_GRID`, mean
    MAP; at the best point the passage evidence again (:data:`PASSAGE_GRID`); then block PRF
    with the chosen parameters there (reported, not a criterion). Updates ``chosen.json``
    (``repeats``, ``fields``, ``passages``) when the best point beats the current default,
    and writes ``repeats.md``."""
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    model = chosen["model"]
    tu = _Tuner(webs, log)
    base = {k: chosen[k] for k in ("k1", "b", "passages")}
    rows, res = [], []
    for mp, rest in product(*REPEATS_GRID.values()):
        f = {**chosen["fields"], "rest": rest}
        rep = {"min_pages": mp} if mp else {}
        prm = {**base, "fields": f, "repeats": rep}
        m = tu.point("repeats", model, prm, partial(tu.opened, model, **prm))
        res.append((m, mp is None, rest, prm))
        rows.append(f"| {mp or 'off'} | {rest} | {m:.4f} |")
    m_best, _, _, best = max(res, key=lambda r: r[:3])  # ties: off, then the larger rest
    # the passage evidence was chosen without the rule: choose it again with it (same grid)
    pres = []
    for g in PASSAGE_GRID:
        pas = {"source": g["source"], "weight": g["weight"], "min_block_weight": 0.5,
               "min_terms": 3, "min_blocks": g["min_blocks"]}
        prm = {**best, "passages": pas}
        m = tu.point("repeats-passages", model, prm, partial(tu.opened, model, **prm))
        pres.append((m, pas == best["passages"], prm))
        rows.append(f"| {best['repeats'] or 'off'} | {best['fields']['rest']} | {m:.4f} "
                    f"(passages {pas['source']} x {pas['weight']}, min_blocks "
                    f"{pas['min_blocks']}) |")
    m_p, _, best_p = max(pres, key=lambda r: r[:2])  # ties: the passages chosen before
    if m_p > m_best:
        m_best, best = m_p, best_p
    cur = {**base, "fields": chosen["fields"], "repeats": chosen.get("repeats") or {}}
    m_cur = tu.point("repeats", model, cur, partial(tu.opened, model, **cur))
    bp = chosen["blocks"]
    m_blocks = tu.point("repeats-blocks", model, {**best, "blocks": bp},
                        partial(tu.opened, model, **best), "blocks", bp)
    lines = [f"Repetition rule on the dev web versions ({', '.join(w.name for w in webs)}; "
             f"model `{model}`, k1 {base['k1']}, b {base['b']}, passages as chosen; "
             "`python -m eval.prf.content repeats --web <dev>`): mean MAP@1000 of the "
             "default index (field-weighted BM25 + passages).\n",
             "| min_pages | rest weight | default index |", "|---|---:|---:|", *rows,
             f"\nBest: {best['repeats'] or 'off'}, rest {best['fields']['rest']}, passages "
             f"{best['passages']}: "
             f"{m_best:.4f} (current default {m_cur:.4f}); block PRF (chosen parameters) "
             f"on it: {m_blocks:.4f} (was {chosen['blocks_map']:.4f}).\n"]
    (RESULTS / _dev_file("repeats", webs, "md")).write_text("\n".join(lines), encoding="utf-8")
    if m_best > m_cur:
        chosen["fields"], chosen["repeats"] = best["fields"], best["repeats"] or None
        chosen["passages"] = best["passages"]
        chosen["repeats_dev"] = [w.name for w in webs]
        chosen["repeats_map"], chosen["blocks_map_repeats"] = m_best, m_blocks
        _write_chosen(chosen)
    return chosen


#: Values of ``repeat_pages`` compared by :func:`tune_repeated_blocks` (0: off; 2: the
#: ``min_pages`` of the leaf-level rule, :data:`ir.repeats.DEFAULT_REPEATS`).
REPEATED_BLOCKS_GRID = (0, 2)
#: How the passage evidence treats repeated blocks (``repeated``): ``drop`` leaves them out of
#: the passage engine, ``mask`` keeps them in its statistics but takes no evidence from them
#: (session 8: added after the ``drop`` run, see the README).
PASSAGE_REPEATED = ("drop", "mask")


def tune_repeated_blocks(webs: list[Path], log: Callable[[str], None] = _log
                         ) -> dict[str, Any]:
    """Leave out the content blocks whose text is on ``repeat_pages`` pages
    (:meth:`ir.index.Index.content_blocks`) from the passage evidence (dropped from the
    passage engine, or masked: kept in its statistics, :data:`PASSAGE_REPEATED`), from block
    PRF, or both, on the dev web versions (:data:`REPEATED_BLOCKS_GRID`; everything else as
    in ``chosen.json``): mean MAP of the default index and of block PRF on it. The passage
    setting is chosen by the default index's MAP, then block PRF's by its MAP on the chosen
    index (ties: off). Updates ``chosen.json`` and writes ``repeated_blocks_<dev>.md``."""
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    model = chosen["model"]
    tu = _Tuner(webs, log)
    base = {k: chosen[k] for k in ("k1", "b", "fields")}
    base["repeats"] = chosen.get("repeats") or {}
    bp = {k: v for k, v in chosen["blocks"].items() if k != "repeat_pages"}
    pas0 = {k: v for k, v in chosen["passages"].items()
            if k not in ("repeat_pages", "repeated")}
    pas_grid: list[tuple[str, dict[str, Any]]] = [("off", pas0)]
    for rp in REPEATED_BLOCKS_GRID[1:]:
        for mode in PASSAGE_REPEATED:  # drop: the key as in the first run (same trace point)
            extra = {"repeat_pages": rp} | ({"repeated": mode} if mode != "drop" else {})
            pas_grid.append((f"{rp}, {mode}", {**pas0, **extra}))
    rows, res = [], {}
    for (name, pas), rp_fb in product(pas_grid, REPEATED_BLOCKS_GRID):
        prm = {**base, "passages": pas}
        ixs = partial(tu.opened, model, **prm)
        m_ix = tu.point("repeated-blocks", model, prm, ixs)
        b = {**bp, "repeat_pages": rp_fb} if rp_fb else bp
        m_fb = tu.point("repeated-blocks-prf", model, {**prm, "blocks": b}, ixs, "blocks", b)
        res[name, rp_fb] = (m_ix, m_fb, pas, b)
        rows.append(f"| {name} | {rp_fb or 'off'} | {m_ix:.4f} | {m_fb:.4f} |")
    order = {name: i for i, (name, _) in enumerate(pas_grid)}  # ties: the earlier (off)
    name = max(order, key=lambda n: (res[n, 0][0], -order[n]))
    rp_fb = max(REPEATED_BLOCKS_GRID, key=lambda v: (res[name, v][1], -v))
    m_ix, m_fb, pas, b = res[name, rp_fb]
    lines = [f"Content blocks whose text repeats across pages, on the dev web versions "
             f"({', '.join(w.name for w in webs)}; model `{model}`, everything else as in "
             "`chosen.json`; `python -m eval.prf.content repeated-blocks --web <dev>`): mean "
             "MAP@1000 of the default index and of block PRF on it, with repeated blocks "
             "left out (`repeat_pages`) of the passage evidence and of the feedback.\n",
             "| passages: repeat_pages, repeated | block PRF: repeat_pages | default index | "
             "block PRF |", "|---|---|---:|---:|", *rows,
             f"\nChosen: passages {name} ({m_ix:.4f}), block PRF {rp_fb or 'off'} "
             f"({m_fb:.4f}).\n"]
    (RESULTS / _dev_file("repeated_blocks", webs, "md")).write_text("\n".join(lines),
                                                                    encoding="utf-8")
    chosen["passages"], chosen["blocks"] = pas, b
    chosen["repeated_blocks_dev"] = [w.name for w in webs]
    chosen["repeated_blocks_map"] = {"default": m_ix, "blocks": m_fb}
    _write_chosen(chosen)
    return chosen


def _write_chosen(best: dict[str, Any]) -> None:
    (RESULTS / "chosen.json").write_text(json.dumps(best, indent=1), encoding="utf-8")


#: Block-PRF parameters of the first issue-16 tables (chosen on cranfield k=3 alone), kept
#: as a row to show what the re-tuning on both dev collections changed.
FIRST_BLOCKS: dict[str, Any] = {"source": "vips", "fb_pages": 80, "fb_blocks": 10,
                                "fb_terms": 20, "orig_weight": 0.7, "min_block_weight": 0.5,
                                "weight_power": 1.0}


def systems_for(web: Path, chosen: dict[str, Any], model: str = CONTENT_MODEL,
                rows_set: str = "all") -> list[System]:
    """Every row of a web version's table (see the module docstring); ``rows_set="core"``
    keeps the rows that depend on the main-content model (page BM25 as the baseline, main
    text, fields, the default, block PRF from VIPS content blocks)."""
    from ir import Index

    cpath = content_index_path(web, model)
    tpath = web.parent / f"{web.name}-trafilatura-index"
    k1, b, f, pas = chosen["k1"], chosen["b"], chosen["fields"], chosen["passages"]
    rep = chosen.get("repeats") or {}
    page = Index.open(cpath, k1=k1, b=b, fields={}, passages={})
    main = Index.open(cpath, k1=k1, b=b, fields={"main": 1.0}, passages={}, repeats=rep)
    bm25f = Index.open(cpath, k1=k1, b=b, fields=f, passages={}, repeats=rep)
    best = Index.open(cpath, k1=k1, b=b, fields=f, passages=pas, repeats=rep)
    tra = Index.open(tpath, k1=k1, b=b, fields={}, passages={})
    page_d = Index.open(cpath, fields={}, passages={})  # k1 1.5, b 0.75, whole pages
    bp = dict(chosen["blocks"])
    if rows_set == "core":
        return [System("bm25-page", page), System("bm25-main (webseg)", main),
                System("bm25f (fields)", bm25f),
                System(f"bm25f+passages({pas['source']}) = default", best),
                System(f"blocks({bp['source']}) content, default index", best, "blocks",
                       bp)]
    rows = [System("bm25-page", page), System("bm25-page (k1 1.5, b 0.75)", page_d),
            System("bm25-main (webseg)", main), System("bm25-trafilatura", tra),
            System("bm25f (fields)", bm25f),
            System(f"bm25f+passages({pas['source']}) = default", best),
            System("rm3-page", page, "rm3", chosen["rm3"]),
            System("rm3 (default index)", best, "rm3", chosen["rm3"])]
    for src in ("vips", "windows", "pagelevel"):
        rows.append(System(f"blocks({src}) content, default index", best, "blocks",
                           {**bp, "source": src}))
    rows.append(System("blocks(vips) content, default index, first parameters", best,
                       "blocks", FIRST_BLOCKS))
    rows.append(System(f"blocks({bp['source']}) all blocks, default index", best, "blocks",
                       {**bp, "min_block_weight": 0.0, "weight_power": 0.0,
                        "repeat_pages": 0}))
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


def _have_lucene() -> bool:
    try:
        from ir.lucene import require

        require()
    except ImportError:
        return False
    return True


def clean_table(name: str, data: Path, chosen: dict[str, Any], log: Callable[[str], None],
                anserini: bool | None = None) -> dict[str, Any]:
    """Clean-collection rows: BM25 with the chosen parameters (the ceiling of the web
    versions), rank-bm25's defaults, and Anserini's regression parameters (k1 0.9, b 0.4,
    RM3 10/10/0.5) on the embedded backend; with pyserini installed (``anserini`` None:
    when importable) also Anserini itself with those defaults and its own English analyzer
    (:mod:`eval.prf.anserini_ref`), the reference row the issue asks for."""
    import tempfile

    if anserini is None:
        anserini = _have_lucene()

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
        if anserini:
            from eval.prf.anserini_ref import AnseriniText, build_anserini_index

            ref = AnseriniText(build_anserini_index(coll.docs, Path(tmp) / "anserini"))
            systems += [System("Anserini bm25 (its analyzer, k1 0.9, b 0.4)", ref),
                        System("Anserini rm3 (its analyzer, 10/10/0.5)", ref, "anserini-rm3")]
        res = score_systems(systems, coll, baseline="bm25 (chosen k1, b)", log=log)
    write_tables(res, RESULTS / f"{name}-clean", f"{name}, clean text",
                 "Clean collection (plain-text documents); embedded backend, except the "
                 "`Anserini ...` rows: Anserini 1.7.1 itself (pyserini), its own index of "
                 "title + text with its DefaultEnglishAnalyzer (Porter, Lucene's English stop "
                 "words) and its regression defaults (`eval.prf.anserini_ref`).")
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
        res["chosen"] = chosen
        out = RESULTS / f"{web.name}{_suffix(model)}"
        md = write_tables(res, out, f"{web.name}{_suffix(model)}", note)
        log(md)
        mds.append(md)
    return "\n".join(mds)


def _lucene_copy(src: Path, dst: Path, k1: float, b: float,
                 fields: dict[str, float] | None, repeats: dict[str, Any] | None = None
                 ) -> Any:
    """A Lucene-backend index holding the stored documents (with blocks) of ``src``, added in
    one batch (so the repetition rule sees every page before Lucene indexes any); rebuilt
    when its size or its field / repetition settings differ (Lucene keeps the weighted
    counts it was given)."""
    from ir import Index

    repeats = (repeats or None) if fields else None
    try:
        ix = Index.open(dst)
        if (len(ix) == len(Index.open(src)) and ix.fields == (fields or None)
                and ix.repeats == repeats):
            return Index.open(dst, k1=k1, b=b)
    except Exception:  # noqa: BLE001 - missing or partial copy: rebuild it
        pass
    store = Index.open(src).store
    ix = Index.create(dst, backend="lucene", k1=k1, b=b, sources=store.settings["sources"],
                      fields=fields, repeats=repeats, overwrite=True)
    ix.add(list(store.iter_docs_with_blocks()))
    return Index.open(dst, k1=k1, b=b)


def lucene_report(web: Path, model: str, log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Lucene-backend rows of a web version (``<web>-lucene/``): BM25 on whole pages and on the
    chosen field weights (the weighted counts rounded to integer term frequencies), the
    default (fields + passage evidence, which on Lucene re-ranks its top 1,000 pages),
    Anserini's own RM3 and our RM3 / block PRF on top of Lucene's ranking, beside the
    embedded backend's rows with the same parameters."""
    from ir import Index

    chosen = json.loads((RESULTS / "chosen.json").read_text())
    cpath = content_index_path(web, model)
    k1, b, f = chosen["k1"], chosen["b"], chosen["fields"]
    rep = chosen.get("repeats") or {}
    lpage = _lucene_copy(cpath, web.parent / f"{web.name}-lucene-page{_suffix(model)}", k1, b,
                         None)
    fpath = web.parent / f"{web.name}-lucene-fields{_suffix(model)}"
    lfields = _lucene_copy(cpath, fpath, k1, b, f, rep)
    pas = chosen["passages"]
    ldefault = Index.open(fpath, k1=k1, b=b, passages=pas)
    default = Index.open(cpath, k1=k1, b=b, fields=f, passages=pas, repeats=rep)
    page = Index.open(cpath, k1=k1, b=b, fields={}, passages={})
    bm25f = Index.open(cpath, k1=k1, b=b, fields=f, passages={}, repeats=rep)
    bp = dict(chosen["blocks"])
    systems = [System("bm25-page (embedded)", page), System("bm25-page (lucene)", lpage),
               System("bm25f (fields, embedded)", bm25f),
               System("bm25f (fields, lucene)", lfields),
               System("default: bm25f+passages (embedded)", default),
               System("default: bm25f+passages (lucene)", ldefault),
               System("rm3-page (embedded)", page, "rm3", chosen["rm3"]),
               System("rm3-page (lucene, our RM3)", lpage, "rm3", chosen["rm3"]),
               System("anserini-rm3 page (lucene)", lpage, "anserini-rm3", chosen["rm3"]),
               System(f"blocks({bp['source']}) content, lucene fields index", lfields,
                      "blocks", bp),
               System(f"blocks({bp['source']}) content, lucene default index", ldefault,
                      "blocks", bp)]
    coll = load_collection(web, docs_file="pages.jsonl")
    res = score_systems(systems, coll, baseline="bm25-page (embedded)", log=log)
    res["chosen"] = chosen
    note = (f"**Semi-synthetic** web version `{web.name}`, main-content model `{model}`: the "
            "Lucene backend (pyserini, pre-tokenised analysed terms, k1 "
            f"{k1}, b {b}) beside the embedded one.")
    write_tables(res, RESULTS / f"{web.name}-lucene", f"{web.name}, Lucene backend", note)
    return res


def _target_row(name: str, chosen: dict[str, Any], suffix: str) -> str | None:
    f = RESULTS / f"{name}{suffix}" / "summary.json"
    if not f.exists():
        return None
    r = json.loads(f.read_text())
    m = {row["system"]: row["AP"] for row in r["rows"]}

    def v(key: str) -> str:
        return f"{m[key]:.4f}" if key in m else "-"

    dflt = next(v for k, v in m.items() if k.endswith("= default"))
    src = chosen["blocks"]["source"]
    blk = m.get(f"blocks({src}) content, default index",
                m.get("blocks(vips) content, default index", float("nan")))
    same = all(r.get("chosen", {}).get(k) == chosen.get(k)
               for k in ("k1", "b", "fields", "passages", "blocks"))
    role = "dev" if name in chosen["dev"] else "test"
    label = f"{name}{suffix}" + ("" if same else " (earlier parameters)")
    c = r["clean_bm25_map"]
    ratio = f"{blk / (1.15 * m['rm3-page']):.3f}" if "rm3-page" in m else "-"
    return (f"| {label} | {role} | {c:.4f} | {0.95 * c:.4f} | **{dflt:.4f}** | "
            f"{v('bm25f (fields)')} | {v('bm25-main (webseg)')} | {v('bm25-trafilatura')} | "
            f"{v('bm25-page')} | **{blk:.4f}** | {v('rm3 (default index)')} | "
            f"{v('rm3-page')} | {ratio} |")


def _targets_met(name: str, chosen: dict[str, Any], suffix: str) -> str | None:
    """One row of the per-target verdicts (yes/no with the margin) of a web version."""
    f = RESULTS / f"{name}{suffix}" / "summary.json"
    if not f.exists():
        return None
    r = json.loads(f.read_text())
    m = {row["system"]: row["AP"] for row in r["rows"]}
    need = ("bm25-trafilatura", "rm3-page")
    if any(k not in m for k in need):
        return None
    dflt = next(v for k, v in m.items() if k.endswith("= default"))
    blk = m[f"blocks({chosen['blocks']['source']}) content, default index"]
    c = r["clean_bm25_map"]

    def verdict(x: float, ref: float) -> str:
        return f"{'yes' if x >= ref else '**no**'} ({x / ref:.3f})"

    role = "dev" if name in chosen["dev"] else "test"
    return (f"| {name}{suffix} | {role} | {verdict(dflt, 0.95 * c)} | "
            f"{verdict(dflt, m['bm25-trafilatura'])} | {verdict(blk, dflt)} | "
            f"{verdict(blk, 1.15 * m['rm3-page'])} |")


def _per_topic_ap(folder: Path) -> dict[str, dict[str, float]]:
    import csv

    out: dict[str, dict[str, float]] = {}
    with (folder / "per_topic.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["system"], {})[row["qid"]] = float(row["AP"])
    return out


def _lucene_row(name: str, chosen: dict[str, Any], suffix: str) -> str | None:
    """Lucene vs embedded on one web version: MAP of each pair with the paired t-test p."""
    from eval.prf.measures import paired_tests

    folder = RESULTS / f"{name}-lucene"
    if not (folder / "summary.json").exists():
        return None
    per = _per_topic_ap(folder)

    def mean(k: str) -> float:
        return sum(per[k].values()) / len(per[k])

    def pair(lu: str, em: str) -> str:
        p = paired_tests(per[lu], per[em])[0]
        return f"{mean(lu):.4f} vs {mean(em):.4f} ({mean(lu) - mean(em):+.4f}, p {p:.3f})"

    rm3 = max(abs(per["rm3-page (lucene, our RM3)"][q] - per["anserini-rm3 page (lucene)"][q])
              for q in per["anserini-rm3 page (lucene)"])
    src = chosen["blocks"]["source"]
    blk_l = mean(f"blocks({src}) content, lucene fields index")
    emb = RESULTS / f"{name}{suffix}" / "summary.json"
    blk_e = "-"
    if emb.exists():
        rows = {r["system"]: r["AP"] for r in json.loads(emb.read_text())["rows"]}
        key = f"blocks({src}) content, default index"
        blk_e = f"{rows[key]:.4f}" if key in rows else "-"
    dflt = "-"
    if "default: bm25f+passages (lucene)" in per:
        dflt = pair("default: bm25f+passages (lucene)", "default: bm25f+passages (embedded)")
    blk_d = f"blocks({src}) content, lucene default index"
    blk_ld = f"{mean(blk_d):.4f}" if blk_d in per else "-"
    return (f"| {name} | {pair('bm25-page (lucene)', 'bm25-page (embedded)')} | "
            f"{pair('bm25f (fields, lucene)', 'bm25f (fields, embedded)')} | {dflt} | "
            f"{pair('rm3-page (lucene, our RM3)', 'rm3-page (embedded)')} | {rm3:.4f} | "
            f"{blk_l:.4f} | {blk_ld} | {blk_e} |")


def summarize(names: list[str]) -> str:
    """The targets tables over the reported web versions (``targets.md``): one per
    main-content model whose results exist (PageLevel ``<web>/``, blocks ``<web>-blocks/``)."""
    from ir.content import MODELS

    chosen = json.loads((RESULTS / "chosen.json").read_text())
    head = ["| web version | role | clean BM25 | 0.95 x clean | default | fields only | "
            "main only | trafilatura | page BM25 | block PRF (content) | "
            "rm3 default index | rm3 page | blocks / (rm3 page x 1.15) |",
            "|---|---|" + "---:|" * 11]
    parts = []
    for model in MODELS:
        rows = [r for n in names if (r := _target_row(n, chosen, _suffix(model)))]
        if rows:
            parts.append(f"Main-content model `{model}` (MAP@1000):\n\n"
                         + "\n".join(head + rows) + "\n")
    model = chosen_model()
    met = [r for n in names if (r := _targets_met(n, chosen, _suffix(model)))]
    if met:
        parts.append(
            f"Targets per web version (main-content model `{model}`; ratio to the target in "
            "brackets):\n\n| web version | role | default >= 0.95 x clean BM25 | "
            "default >= BM25 trafilatura | block PRF >= default (same index) | "
            "block PRF >= 1.15 x RM3 page |\n|---|---|---|---|---|---|\n"
            + "\n".join(met) + "\n")
    luc = [r for n in names if (r := _lucene_row(n, chosen, _suffix(model)))]
    if luc:
        parts.append(
            "Lucene backend vs embedded (MAP@1000, Lucene vs embedded, difference, paired "
            "t-test p; `python -m eval.prf.content lucene`):\n\n| web version | BM25 page | "
            "BM25F fields | default (fields + passages) | our RM3 page | max per-topic AP "
            "diff, our RM3 vs Anserini RM3 (Lucene) | block PRF, Lucene fields index | "
            "block PRF, Lucene default index | block PRF, default embedded index |\n"
            "|---|---|---|---|---|---:|---:|---:|---:|\n" + "\n".join(luc) + "\n")
    md = "\n".join(parts)
    (RESULTS / "targets.md").write_text(md, encoding="utf-8")
    return md


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.content", description=__doc__)
    ap.add_argument("command",
                    choices=["index", "tune", "repeats", "repeated-blocks", "feedback",
                             "report", "summarize", "lucene", "clean"])
    ap.add_argument("--web", required=True, help="web version folder(s), comma-separated")
    ap.add_argument("--data", default="../shared/data/ir")
    ap.add_argument("--parts", default="content,peer", help="index: content, peer or both")
    ap.add_argument("--content-model", default=None,
                    choices=["pagelevel", "blocks", "max", "mean"],
                    help="main-content model of the content index (separate index and "
                         "result folders per model; default: the one in chosen.json)")
    ap.add_argument("--models", default="",
                    help="tune: content models to compare (default: every one indexed)")
    ap.add_argument("--rows", default="all", choices=["all", "core"],
                    help="report: every row, or only those that depend on the content model")
    a = ap.parse_args(argv)
    webs = [Path(w) for w in a.web.split(",") if w]
    model = a.content_model or chosen_model()
    if a.command == "index":
        for w in webs:
            build_indexes(w, parts=tuple(a.parts.split(",")), model=model)
    elif a.command == "tune":
        print(json.dumps(tune(webs, [m for m in a.models.split(",") if m] or None),
                         indent=1))
    elif a.command == "repeats":
        print(json.dumps(tune_repeats(webs), indent=1))
    elif a.command == "repeated-blocks":
        print(json.dumps(tune_repeated_blocks(webs), indent=1))
    elif a.command == "feedback":
        print(json.dumps(tune_feedback(webs), indent=1))
    elif a.command == "summarize":
        print(summarize([w.name for w in webs]))  # every model's table
    elif a.command == "lucene":
        for w in webs:
            lucene_report(w, model)
    elif a.command == "clean":  # --web names the clean collections (cacm,cranfield,med)
        chosen = json.loads((RESULTS / "chosen.json").read_text())
        for w in webs:
            clean_table(w.name.split("-k")[0], Path(a.data), chosen, _log)
    else:
        report(webs, Path(a.data), model=model, rows_set=a.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
