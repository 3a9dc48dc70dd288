"""``webseg clean`` speed and quality in one run: rendered blocks, --no-render blocks, trafilatura.

    python bench/clean.py --data ../shared/data/wcxb-dev \\
        --data ../shared/data/boilerplate/dragnet --limit 200 --out eval/results/clean

On the same pages of every ``--data`` set (the harness's selection: pages with gold, the
``--split`` where the set has one, gold found in the HTML; the first ``--limit`` in the
harness's hash order that are in the render cache), per page:

* **rendered**: ``extract(page, method).text`` on the cached rendered Page, loaded fresh so
  that the Page's lazily built columns are inside the timing: the analysis cost after
  rendering (features, model, decoding, text), then the page's source decoded, its metadata,
  language and XPaths; the target is a median <= 25 ms;
* **no-render**: ``decode_html`` + :func:`webseg.parse.parse` (lexbor) + the same extract from
  the page bytes + metadata, language and XPaths: what ``webseg clean --no-render`` spends per
  page for the JSON result, the block roles apart (target: median <= 35 ms CPU). The block
  roles (``roles`` in the JSON, a second model) are timed on their own after it (``roles``).

``--text-only`` leaves out the source decoding, metadata, language, XPaths and roles (the
text alone, as the bench measured before metadata and language were part of the result).
* **trafilatura**: ``decode_html`` + ``trafilatura.extract`` on the same bytes (the eval
  harness's peer call, default options), the target for no-render;
* the bag-of-words F1 of each against the gold (``eval.templates.textmetrics.bow_prf``),
  whether the parsed page's XPaths equal the rendered page's (all nodes), and whether the
  rendered and the parsed run kept the same XPaths.

Models load before the timings; one process, one page at a time, nothing in parallel. Both
wall-clock and CPU time (``time.process_time``) are recorded: on a shared machine the CPU
time is the comparable number.
Writes ``bench.json`` (summary), ``pages.csv`` (per page) and ``bench.md`` under ``--out``.
Asserts nothing: targets are read off the table.
"""

from __future__ import annotations

import argparse
import csv
import gc
import hashlib
import json
import math
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eval.templates.harness import select_records  # noqa: E402
from eval.templates.textmetrics import bow_prf, words  # noqa: E402
from webseg.clean import extract  # noqa: E402
from webseg.datasets import (  # noqa: E402
    DEFAULT_CACHE,
    KNOWN_ENCODINGS,
    PageRecord,
    cache_path,
    load_records,
)
from webseg.decode import decode_html  # noqa: E402
from webseg.page import Page  # noqa: E402
from webseg.parse import parse  # noqa: E402

MODES = ("rendered", "no_render", "trafilatura")


def pick(data: Path, split: str, limit: int, cache: Path) -> list[PageRecord]:
    recs, _ = select_records(load_records(data), split)
    recs = sorted(recs, key=lambda r: hashlib.sha1(r.id.encode()).hexdigest())
    out = [r for r in recs if cache_path(cache, r).is_file()]
    return out[:limit] if limit else out


class _Clock:
    """Wall and CPU (this process) time since construction, in ms. On a shared machine the
    CPU time is the robust number: wall time includes waiting for a core."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def stop(self, row: dict[str, Any], key: str) -> None:
        row[f"{key}_ms"] = 1000 * (time.perf_counter() - self.wall)
        row[f"{key}_cpu_ms"] = 1000 * (time.process_time() - self.cpu)


def _result(res: Any) -> None:
    """The fields of the JSON result beyond the text, block roles apart (their role model
    is timed on its own: ``roles``)."""
    res.metadata, res.language, res.xpaths, res.reason  # noqa: B018 - computed, cached


def run_page(rec: PageRecord, cache: Path, method: str, traf: Any,
             params: dict[str, Any] | None = None, full: bool = True) -> dict[str, Any]:
    raw = rec.read_html()
    gold = rec.read_gold() or ""
    enc = KNOWN_ENCODINGS.get(rec.dataset)
    row: dict[str, Any] = {"dataset": rec.dataset, "id": rec.id,
                           "page_type": rec.label or "", "bytes": len(raw)}
    page = Page.load(cache_path(cache, rec))
    if rec.url:
        page.url = rec.url
    row["nodes"] = page.n
    texts: dict[str, str] = {}
    gc.collect()
    # rendered: the analysis after rendering
    clock = _Clock()
    try:
        res_r = extract(page, method, **(params or {}))
        texts["rendered"] = res_r.text
        if full:  # what the JSON result adds, block roles apart: the source decoded for
            # the metadata, metadata, language, XPaths
            res_r.html = decode_html(raw, encoding=enc).text
            _result(res_r)
    except Exception as e:  # noqa: BLE001 - recorded, scored as empty
        res_r, texts["rendered"] = None, ""
        row["rendered_error"] = f"{type(e).__name__}: {e}"[:200]
    clock.stop(row, "rendered")
    # no-render: bytes -> decode -> parse -> the same model
    clock = _Clock()
    res_n = None
    try:
        part = _Clock()
        dec = decode_html(raw, encoding=enc)
        part.stop(row, "decode")
        part = _Clock()
        parsed = parse(dec.text, url=rec.url, encoding=dec.encoding)
        part.stop(row, "parse")
        part = _Clock()
        res_n = extract(parsed, method, html=dec.text if full else None, **(params or {}))
        texts["no_render"] = res_n.text
        part.stop(row, "no_render_model")
        if full:
            part = _Clock()
            _result(res_n)
            part.stop(row, "result")
        row["same_tree"] = parsed.xpaths == page.xpaths
    except Exception as e:  # noqa: BLE001
        texts["no_render"] = ""
        row["no_render_error"] = f"{type(e).__name__}: {e}"[:200]
    clock.stop(row, "no_render")
    if full and res_n is not None:
        part = _Clock()
        res_n.to_dict()  # what is left of the JSON: the block roles (their own model)
        part.stop(row, "roles")
    if res_r is not None and res_n is not None:
        row["same_kept_xpaths"] = res_r.xpaths == res_n.xpaths
    # trafilatura on the same bytes, decoded the same way
    clock = _Clock()
    try:
        html = decode_html(raw, encoding=enc).text
        texts["trafilatura"] = traf.extract(html) or ""
    except Exception as e:  # noqa: BLE001
        texts["trafilatura"] = ""
        row["trafilatura_error"] = f"{type(e).__name__}: {e}"[:200]
    clock.stop(row, "trafilatura")
    g = words(gold)
    for m in MODES:
        row[f"{m}_f1"] = bow_prf(words(texts[m]), g)[2]
    return row


def _trained_on(args: argparse.Namespace) -> Any:
    """What the block model was trained on (its ``trained_on`` field), to tell seen sets."""
    if args.method != "blocks":
        return None
    try:
        from webseg.blocks.model import load_model

        return load_model(args.model).meta.get("trained_on")
    except Exception as e:  # noqa: BLE001 - informational only
        return f"unknown ({type(e).__name__})"


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"pages": len(rows)}
    for m in MODES:
        t = np.array([r[f"{m}_ms"] for r in rows])
        c = np.array([r[f"{m}_cpu_ms"] for r in rows])
        f = np.array([r[f"{m}_f1"] for r in rows], dtype=float)
        out[m] = {"median_ms": float(np.median(t)), "p95_ms": float(np.percentile(t, 95)),
                  "mean_ms": float(t.mean()), "max_ms": float(t.max()),
                  "cpu_median_ms": float(np.median(c)), "cpu_p95_ms": float(np.percentile(c, 95)),
                  "cpu_mean_ms": float(c.mean()),
                  "f1": float(np.nanmean(f)),
                  "errors": sum(1 for r in rows if f"{m}_error" in r)}
    for k in ("decode", "parse", "no_render_model", "result", "roles"):
        v = [r[f"{k}_cpu_ms"] for r in rows if f"{k}_cpu_ms" in r]
        out[f"{k}_cpu_median_ms"] = float(np.median(v)) if v else math.nan
    trees = [r["same_tree"] for r in rows if "same_tree" in r]
    kept = [r["same_kept_xpaths"] for r in rows if "same_kept_xpaths" in r]
    out["same_tree_share"] = float(np.mean(trees)) if trees else math.nan
    out["same_kept_xpaths_share"] = float(np.mean(kept)) if kept else math.nan
    return out


def markdown(summary: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [f"`{' '.join(sys.argv)}` ({summary['when']}, {summary['machine']}, method "
             f"`{args.method}`, trafilatura {summary['trafilatura_version']}; block model "
             f"trained on {summary['model_trained_on']})", "",
             "CPU ms per page (median / p95; wall-clock medians in brackets, the machine was "
             "shared):", "",
             "| set | pages | rendered ms | no-render ms | trafilatura ms | F1 rendered | "
             "F1 no-render | F1 trafilatura | same tree | same kept XPaths |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, s in {**summary["sets"], "all": summary["all"]}.items():
        cells = [name, str(s["pages"])]
        cells += [f"{s[m]['cpu_median_ms']:.1f} / {s[m]['cpu_p95_ms']:.1f} "
                  f"({s[m]['median_ms']:.1f})" for m in MODES]
        cells += [f"{s[m]['f1']:.3f}" for m in MODES]
        cells += [f"{s['same_tree_share']:.1%}", f"{s['same_kept_xpaths_share']:.1%}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "no-render CPU medians: " + ", ".join(
        f"{name}: decode {s['decode_cpu_median_ms']:.1f} + parse {s['parse_cpu_median_ms']:.1f}"
        f" + model {s['no_render_model_cpu_median_ms']:.1f} + metadata, language, XPaths "
        f"{s['result_cpu_median_ms']:.1f} ms (block roles, not in the columns: "
        f"{s['roles_cpu_median_ms']:.1f} ms)"
        for name, s in summary["sets"].items())]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/clean.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, action="append", required=True)
    ap.add_argument("--limit", type=int, default=200, help="pages per set (0: all)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--method", default="blocks")
    ap.add_argument("--model", help="block model file (default: the shipped one)")
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--out", type=Path, help="write bench.json, pages.csv and bench.md here")
    ap.add_argument("--text-only", action="store_true",
                    help="time the text only, as before metadata and language were added "
                    "(default: the whole JSON result of `webseg clean -f json`)")
    args = ap.parse_args(argv)
    import trafilatura

    sets = {d.name: pick(d, args.split, args.limit, args.render_cache) for d in args.data}
    first = next((rs[0] for rs in sets.values() if rs), None)
    if first is None:
        ap.error("no rendered pages of the --data sets in the render cache")
    params = {"model": args.model} if args.model else {}
    full = not args.text_only
    run_page(first, args.render_cache, args.method, trafilatura, params, full)  # load models
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for name, recs in sets.items():
        for k, r in enumerate(recs, 1):
            rows.append(run_page(r, args.render_cache, args.method, trafilatura, params, full))
            if k % 50 == 0:
                print(f"  {name}: {k}/{len(recs)} pages, {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr, flush=True)
    from importlib import metadata

    summary: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "trafilatura_version": metadata.version("trafilatura"),
        "method": args.method,
        "model_trained_on": _trained_on(args),
        "sets": {name: summarise([r for r in rows if r["dataset"] == recs[0].dataset])
                 for name, recs in sets.items() if recs},
        "all": summarise(rows),
    }
    md = markdown(summary, args)
    print(md)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "bench.json").write_text(json.dumps(summary, indent=2))
        (args.out / "bench.md").write_text(md)
        keys = list(dict.fromkeys(k for r in rows for k in r))
        with (args.out / "pages.csv").open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in rows:
                w.writerow({k: (round(v, 4) if isinstance(v, float) else v)
                            for k, v in r.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
