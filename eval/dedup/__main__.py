"""``python -m eval.dedup``: build the benchmark and/or score strategies on a pairs file.

\b
Examples (the committed results, eval/results/dedup/README.md):
  python -m eval.dedup --build-from ../shared/data/boilerplate/cleaneval \
      ../shared/data/boilerplate/l3s-gn1 --bench .cache/webseg/dedup-bench --out eval/results/dedup
  python -m eval.dedup --pairs .cache/webseg/dedup-bench/pairs.jsonl --out eval/results/dedup
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from dedup.shingle import ShingleParams
from dedup.strip import STRATEGIES


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.dedup", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--pairs", type=Path, help="pairs file (JSONL) to score")
    src.add_argument("--build-from", type=Path, nargs="+", metavar="DIR",
                     help="boilerplate dataset folders to build the benchmark from")
    ap.add_argument("--bench", type=Path, default=Path(".cache/webseg/dedup-bench"),
                    help="where --build-from writes pairs.jsonl and the generated pages")
    ap.add_argument("--out", type=Path, required=True, help="results directory")
    ap.add_argument("--strategies", default=",".join(STRATEGIES),
                    help="comma-separated strip strategies (default: all)")
    ap.add_argument("--segmenter", default=None,
                    help="segmenter of the 'largest' strategy (default: gcuts; blockfusion "
                         "with --no-render, as webseg dedup)")
    ap.add_argument("--no-render", action="store_true",
                    help="parse the pages without a browser, as webseg dedup --no-render "
                         "(strategies that need layout, pagelevel and sitelevel, are left out)")
    ap.add_argument("--window", type=int, default=6)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--threshold", type=int, default=4)
    ap.add_argument("--n-dup", type=int, default=150, help="duplicate pairs to build")
    ap.add_argument("--n-nondup", type=int, default=150, help="non-duplicate pairs to build")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/dedup-pages"),
                    help="render cache of the pairs' pages")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--text-cache", type=Path, default=None,
                    help="keep per-page stripped texts here and reuse them (faster re-runs)")
    ap.add_argument("--build-only", action="store_true", help="build, do not score")
    a = ap.parse_args(argv)
    try:
        params = ShingleParams(a.window, a.k, a.threshold)
    except ValueError as e:
        ap.error(str(e))
    strategies = [s.strip() for s in a.strategies.split(",") if s.strip()]
    bad = [s for s in strategies if s not in STRATEGIES]
    if bad:
        ap.error(f"unknown strategies {bad}; choose from {', '.join(STRATEGIES)}")
    from webseg.pipeline.process import PARSED_SEGMENTER, needs_layout

    if a.segmenter is None:
        a.segmenter = PARSED_SEGMENTER if a.no_render else "gcuts"
    if a.no_render:
        if needs_layout(a.segmenter):
            ap.error(f"--no-render: segmenter {a.segmenter} needs layout")
        left = [s for s in strategies if s in ("pagelevel", "sitelevel")]
        if left:
            print(f"eval.dedup: --no-render leaves out {', '.join(left)} (they need layout)",
                  file=sys.stderr)
        strategies = [s for s in strategies if s not in left]
    from eval.dedup.build import build
    from eval.dedup.harness import evaluate

    pairs = a.pairs
    if a.build_from:
        for d in a.build_from:
            if not (d / "manifest.jsonl").is_file():
                ap.error(f"{d}: not a dataset folder (no manifest.jsonl)")
        build(a.build_from, a.bench, a.n_dup, a.n_nondup, a.seed)
        pairs = a.bench / "pairs.jsonl"
        a.out.mkdir(parents=True, exist_ok=True)
        # the manifest (ids, URLs, alignment; no page content) is small enough to commit
        shutil.copy(pairs, a.out / "pairs.jsonl")
        shutil.copy(a.bench / "build.json", a.out / "build.json")
        if a.build_only:
            return 0
    elif not pairs.is_file():
        ap.error(f"no such pairs file: {pairs}")
    try:
        run = evaluate(pairs, a.out, strategies, a.segmenter, params, a.cache, a.concurrency,
                       text_cache=a.text_cache, render=not a.no_render)
    except ValueError as e:
        print(f"eval.dedup: error: {e}", file=sys.stderr)
        return 2
    print((a.out / "table.md").read_text(encoding="utf-8"))
    return 1 if run["counts"]["pages_render_failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
