"""Does ``webseg.parse`` build the tree Chromium builds? XPath equality on the cached pages.

    python bench/parse_trees.py --data ../shared/data/wcxb-dev \\
        --data ../shared/data/boilerplate/dragnet ... --html5lib-limit 150 \\
        --out eval/results/clean/parse_trees.json

For every page of each set that is in the render cache: decode the bytes as the renderer does
(:func:`webseg.decode.decode_html`, with the set's known encoding), parse them with the
``lexbor`` builder (and, on the first ``--html5lib-limit`` pages in hash order, with
``html5lib``), and compare the list of node XPaths (elements and non-blank text nodes, in
document order) with the rendered page's. Equal lists mean node ids, XPaths and therefore the
block model's inputs line up between ``webseg clean`` and ``webseg clean --no-render``.
Prints the share of identical pages and the parse time per page; lists the first differing
XPath of a few pages that differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from webseg.datasets import DEFAULT_CACHE, KNOWN_ENCODINGS, cache_path, load_records  # noqa: E402
from webseg.decode import decode_html  # noqa: E402
from webseg.page import Page  # noqa: E402
from webseg.parse import parse  # noqa: E402


def first_diff(a: list[str], b: list[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"node {i}: parsed {x} vs rendered {y}"
    return f"lengths {len(a)} vs {len(b)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/parse_trees.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, action="append", required=True)
    ap.add_argument("--limit", type=int, default=0, help="pages per set (0: all cached)")
    ap.add_argument("--html5lib-limit", type=int, default=100)
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--out", type=Path, help="write the summary as JSON")
    args = ap.parse_args(argv)
    summary: dict[str, Any] = {}
    for data in args.data:
        recs = sorted(load_records(data), key=lambda r: hashlib.sha1(r.id.encode()).hexdigest())
        recs = [r for r in recs if cache_path(args.render_cache, r).is_file()]
        if args.limit:
            recs = recs[: args.limit]
        stats: dict[str, dict[str, Any]] = {p: {"pages": 0, "same": 0, "ms": [], "diffs": []}
                                            for p in ("lexbor", "html5lib")}
        for k, r in enumerate(recs):
            try:
                rendered = Page.load(cache_path(args.render_cache, r))
            except (OSError, ValueError, EOFError):
                continue
            text = decode_html(r.read_html(), encoding=KNOWN_ENCODINGS.get(r.dataset)).text
            for p in ("lexbor", "html5lib"):
                if p == "html5lib" and k >= args.html5lib_limit:
                    continue
                t0 = time.perf_counter()
                try:
                    parsed = parse(text, parser=p)
                except ValueError:
                    continue
                s = stats[p]
                s["ms"].append(1000 * (time.perf_counter() - t0))
                s["pages"] += 1
                if parsed.xpaths == rendered.xpaths:
                    s["same"] += 1
                elif len(s["diffs"]) < 5:
                    s["diffs"].append(f"{r.id}: {first_diff(parsed.xpaths, rendered.xpaths)}")
        name = data.name
        summary[name] = {}
        for p, s in stats.items():
            if not s["pages"]:
                continue
            summary[name][p] = {"pages": s["pages"], "same": s["same"],
                                "same_share": s["same"] / s["pages"],
                                "parse_median_ms": float(np.median(s["ms"])),
                                "parse_p95_ms": float(np.percentile(s["ms"], 95)),
                                "differing_examples": s["diffs"]}
            print(f"{name:16s} {p:9s} {s['same']:5d}/{s['pages']:<5d} identical "
                  f"({s['same'] / s['pages']:.1%}), parse median "
                  f"{np.median(s['ms']):.1f} ms, p95 {np.percentile(s['ms'], 95):.1f} ms",
                  flush=True)
            for d in s["diffs"]:
                print(f"    {d[:300]}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
