"""``python -m eval.templates``: template detection and main-content extraction, ours vs peers.

    python -m eval.templates --data ../shared/data/boilerplate/dragnet \\
        --data ../shared/data/boilerplate/cleaneval ... --out eval/results/templates

For every dataset folder (shared boilerplate format): pages with gold (``gold: null`` skipped),
of the ``--split`` where the set has that split (Dragnet: ``test``; sets without it are used
whole), rendered through the shared cache (:func:`webseg.datasets.render_cached`; missing pages
are rendered once, failures counted). ``gold_not_in_html`` pages are counted and left out.
Every method runs on the same rendered pages; peers on the same decoded HTML. Results are
cached per page (:mod:`eval.templates.run`), so a rerun only computes what is new.

``--sweep N`` adds the penalty sweep (paper Figure 2): PageLevel Smooth at every ``c`` of
``--sweep-grid`` on the first N pages (by a fixed hash order) of each dataset.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eval.templates.peers import PEERS
from eval.templates.report import write_report
from eval.templates.run import (
    ALIGN,
    DEFAULT_OURS,
    Method,
    PageInput,
    ResultCache,
    default_ours,
    our_method,
    peer_method,
    run_methods,
)
from webseg.datasets import DEFAULT_CACHE, PageRecord, cache_path, load_records, render_cached
from webseg.page import Page

DEFAULT_GRID = "0,0.001,0.002,0.005,0.01,0.02,0.05,0.1,0.2,0.5,1"


def select_records(recs: list[PageRecord], split: str) -> tuple[list[PageRecord], dict[str, int]]:
    """Records to score, and the counts of the ones left out (with the reason)."""
    counts = {"manifest": len(recs), "no_gold": 0, "other_split": 0, "gold_not_in_html": 0}
    has_split = any(r.split == split for r in recs)
    out = []
    for r in recs:
        if r.gold is None:
            counts["no_gold"] += 1
        elif has_split and r.split != split:
            counts["other_split"] += 1
        elif r.exclude_text_metrics:
            counts["gold_not_in_html"] += 1
        else:
            out.append(r)
    return out, counts


def parse_limits(spec: str, ap: argparse.ArgumentParser) -> dict[str, int]:
    """``"400"`` -> every set 400; ``"wcxb-dev=400,cleaneval=250"`` -> per set (others: all)."""
    out: dict[str, int] = {}
    try:
        for part in filter(None, spec.split(",")):
            if "=" in part:
                k, v = part.split("=", 1)
                out[k] = int(v)
            else:
                out["*"] = int(part)
    except ValueError:
        ap.error(f"--limit: expected N or SET=N,..., got {spec!r}")
    return out


def _hash_order(r: PageRecord) -> str:
    return hashlib.sha1(r.id.encode()).hexdigest()


def iter_inputs(recs: list[PageRecord], render_cache: Path, need: set[str]
                ) -> Iterator[PageInput]:
    """Pages loaded one at a time from the render cache (only those some method still needs)."""
    for r in recs:
        if r.id not in need:
            continue
        p = cache_path(render_cache, r)
        try:
            page = Page.load(p)
        except (OSError, ValueError, EOFError):
            continue
        if r.url:
            page.url = r.url
        yield PageInput(r, page, r.read_gold() or "")


def run_dataset(data: Path, args: argparse.Namespace, methods: list[Method],
                sweep: list[Method], log) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    recs = load_records(data)
    name = data.name
    chosen, counts = select_records(recs, args.split)
    counts["over_limit"] = 0
    limit = args.limits.get(name, args.limits.get("*", 0))
    # pages in a fixed pseudo-random order (hash of the id): any prefix is a fair sample, so
    # --limit and interrupted runs both score an unbiased subset
    chosen = sorted(chosen, key=_hash_order)
    if limit:
        counts["over_limit"] = max(0, len(chosen) - limit)
        chosen = chosen[:limit]
    missing = [r for r in chosen if not cache_path(args.render_cache, r).is_file()]
    if missing and not args.no_render:
        log(f"  rendering {len(missing)} pages not in the cache")
        render_cached(missing, args.render_cache, log=log)
    rendered = [r for r in chosen if cache_path(args.render_cache, r).is_file()]
    counts["scored"] = len(rendered)
    counts["not_rendered"] = len(chosen) - len(rendered)
    # the sweep pages: the first N rendered pages in the fixed hash order
    on_disk = {r.id for r in rendered}
    sweep_ids = {i for i in [r.id for r in chosen if r.id in on_disk][: args.sweep]}
    caches = {m.name: ResultCache(args.cache_dir, name, m) for m in [ALIGN, *methods, *sweep]}
    t0 = time.perf_counter()
    # the gold alignment is needed by the tables; --ours none (peers only) leaves it out
    main_ms = [ALIGN, *methods] if args.ours != "none" else list(methods)
    need = {r.id for r in rendered if any(r.id not in caches[m.name].rows for m in main_ms)}
    log(f"{name}: {len(rendered)} pages to score, {len(need)} not cached; {counts}")
    if not args.report_only:
        run_methods(iter_inputs(rendered, args.render_cache, need), main_ms, caches,
                    _segmenter_factory(), log)
    need = {i for i in sweep_ids if any(i not in caches[m.name].rows for m in sweep)}
    if need and not args.report_only:
        log(f"  sweep: {len(need)} pages x {len(sweep)} values of c")
        run_methods(iter_inputs(rendered, args.render_cache, need), sweep, caches,
                    _segmenter_factory(), log, every=25)
    log(f"  {name} done in {time.perf_counter() - t0:.0f} s")
    # every method is scored on the same pages: those with a result from all of them
    # (with --report-only, pages some method has not reached yet are counted, not scored)
    complete = [r for r in rendered if all(r.id in caches[m.name].rows for m in main_ms)]
    counts["incomplete"] = len(rendered) - len(complete)
    counts["scored"] = len(complete)
    rendered = complete
    counts["empty_gold"] = sum(1 for r in rendered if not (r.read_gold() or "").strip())
    # the sweep: its N pages, each with a result at every c
    sweep_done = {i for i in sweep_ids if all(i in caches[m.name].rows for m in sweep)}
    rows = []
    for r in rendered:
        for m in [*methods, *sweep]:
            row = caches[m.name].rows.get(r.id)
            if row is None or (m in sweep and r.id not in sweep_done):
                continue
            al = caches[ALIGN.name].rows.get(r.id, {})
            rows.append({"dataset": name, "page_type": r.label or "", "method": m.name,
                         "sweep": m in sweep, **row,
                         "coverage": al.get("coverage"),
                         "template_share": al.get("template_share")})
    counts["alignment"] = [caches[ALIGN.name].rows[r.id] for r in rendered
                           if r.id in caches[ALIGN.name].rows]
    return name, counts, rows


def _segmenter_factory():
    from webseg.segmenters.base import get_segmenter

    made: dict[str, Any] = {}

    def get(m: Method) -> Any:
        if m.name not in made:
            # main text reads the segments only: no VIPS level 1 (timings as before it)
            made[m.name] = get_segmenter(m.segmenter, **{"level1": "none", **m.params})
        return made[m.name]

    return get


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.templates", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", action="append", required=True, type=Path,
                    help="dataset folder with manifest.jsonl (repeatable)")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--split", default="test",
                    help="split to score in sets that have it (default test; others: whole set)")
    ap.add_argument("--ours", default=",".join(DEFAULT_OURS), help="comma-separated, or 'none'")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated, or 'none'")
    ap.add_argument("--limit", default="0", metavar="N|SET=N,...",
                    help="first N pages per set in hash order (0: all); per set: wcxb-dev=400")
    ap.add_argument("--sweep", type=int, default=0, metavar="N",
                    help="penalty sweep on N pages per set (0: none)")
    ap.add_argument("--sweep-grid", default=DEFAULT_GRID)
    ap.add_argument("--cache-dir", type=Path, default=Path(".cache/webseg/eval-templates"))
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--no-plots", action="store_true", help="tables only")
    ap.add_argument("--report-only", action="store_true",
                    help="compute nothing: tables from the cached results (complete pages)")
    ap.add_argument("--no-render", action="store_true",
                    help="score only pages already in the render cache (others: not rendered)")
    args = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    args.limits = parse_limits(args.limit, ap)
    wanted = [] if args.ours == "none" else [x for x in args.ours.split(",") if x]
    known = {m.name: m for m in default_ours()}
    unknown = [x for x in wanted if x not in known]
    if unknown:
        ap.error(f"--ours: unknown {unknown}; known: {', '.join(known)}")
    peers = [] if args.peers == "none" else [x for x in args.peers.split(",") if x]
    bad = [p for p in peers if p not in PEERS]
    if bad:
        ap.error(f"--peers: unknown {bad}; known: {', '.join(PEERS)}")
    methods = [known[x] for x in wanted] + [peer_method(p) for p in peers]
    grid = [float(x) for x in args.sweep_grid.split(",")] if args.sweep else []
    sweep = [our_method(f"c={c:g}", "pagelevel", c=c) for c in grid]
    for d in args.data:
        if not (d / "manifest.jsonl").is_file():
            ap.error(f"--data {d}: no manifest.jsonl")
    results = [run_dataset(d, args, methods, sweep, log) for d in args.data]
    cmd = "python -m eval.templates " + " ".join(sys.argv[1:] if argv is None else argv)
    write_report(args.out, results, [m.name for m in methods], grid, cmd, not args.no_plots)
    print((args.out / "summary.md").read_text(encoding="utf-8"))
    return 0
