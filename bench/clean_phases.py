"""Where ``webseg clean``'s CPU time goes: per-phase CPU ms per page, rendered or parsed.

    python bench/clean_phases.py --data ../shared/data/wcxb-dev \\
        --data ../shared/data/boilerplate/dragnet --limit 30 --mode rendered

On the first ``--limit`` pages of every ``--data`` set that are in the render cache (the
selection and hash order of ``bench/clean.py``), the same work as ``bench/clean.py``'s
``rendered`` (the cached Page) or ``no-render`` (decode + parse) column: the text, then the
JSON result's metadata, language, XPaths and reason (block roles apart). Each phase is timed
by wrapping the module function that does it (``time.process_time``: CPU time of this process,
the comparable number on a shared machine); nested phases (``features.*`` inside ``features``,
``htmldate`` inside ``metadata``) are included in their parent. Prints the median and mean CPU
ms per page of the whole, and the mean per phase.
"""

from __future__ import annotations

import argparse
import collections
import functools
import hashlib
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import webseg.blocks as blocks  # noqa: E402
import webseg.blocks.features as features  # noqa: E402
import webseg.blocks.gbt as gbt  # noqa: E402
import webseg.clean as clean  # noqa: E402
import webseg.clean.json_out as json_out  # noqa: E402
import webseg.clean.metadata as metadata  # noqa: E402
from eval.templates.harness import select_records  # noqa: E402
from webseg.datasets import DEFAULT_CACHE, KNOWN_ENCODINGS, cache_path, load_records  # noqa: E402
from webseg.decode import decode_html  # noqa: E402
from webseg.page import Page  # noqa: E402
from webseg.parse import parse  # noqa: E402

#: (module, function name, phase name); a function a version of the code lacks is skipped
PHASES = [
    (blocks, "leaf_features", "features"),
    *((features, f, f"features.{f.strip('_')}") for f in (
        "_leaf_text", "_markup", "_siblings", "_fill_levels", "_fill_markup", "_fill_position",
        "_fill_geometry", "_fill_pagelevel", "_leaf_ranges", "_subtree_sums",
        "_context_nodes")),
    (gbt.TreeEnsemble, "raw", "tree ensembles (stage 1, 2, page threshold)"),
    (blocks, "revealed", "reveal"),
    (blocks, "apply_units", "units"),
    (clean.txt, "to_text", "text"),
    (clean, "extract_metadata", "metadata"),
    (metadata, "_htmldate", "metadata.htmldate"),
    (json_out, "xpaths_of", "xpaths"),
]


def _wrap(acc: dict[str, float], owner: Any, name: str, phase: str) -> None:
    f = getattr(owner, name, None)
    if f is None:
        return

    @functools.wraps(f)
    def timed(*a: Any, **k: Any) -> Any:
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            acc[phase] += time.process_time() - t

    setattr(owner, name, timed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/clean_phases.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, action="append", required=True)
    ap.add_argument("--limit", type=int, default=30, help="pages per set")
    ap.add_argument("--split", default="test")
    ap.add_argument("--mode", choices=("rendered", "parsed"), default="rendered")
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    acc: dict[str, float] = collections.defaultdict(float)
    for owner, name, phase in PHASES:
        _wrap(acc, owner, name, phase)
    try:
        from webseg import lang

        _wrap(acc, lang, "identify", "language")
    except ImportError:
        pass
    recs = []
    for d in args.data:
        rs, _ = select_records(load_records(d), args.split)
        rs = sorted(rs, key=lambda r: hashlib.sha1(r.id.encode()).hexdigest())
        recs += [r for r in rs if cache_path(args.render_cache, r).is_file()][:args.limit]
    if not recs:
        ap.error("no pages of the --data sets in the render cache")

    def run(rec: Any) -> float:
        raw = rec.read_html()
        enc = KNOWN_ENCODINGS.get(rec.dataset)
        if args.mode == "rendered":
            page = Page.load(cache_path(args.render_cache, rec))
            if rec.url:
                page.url = rec.url
            t = time.process_time()
            res = clean.extract(page, "blocks")
            res.text  # noqa: B018 - computed, cached
            res.html = decode_html(raw, encoding=enc).text
        else:
            t = time.process_time()
            dec = decode_html(raw, encoding=enc)
            page = parse(dec.text, url=rec.url, encoding=dec.encoding)
            acc["decode + parse"] += time.process_time() - t
            res = clean.extract(page, "blocks", html=dec.text)
            res.text  # noqa: B018
        res.metadata, res.language, res.xpaths, res.reason  # noqa: B018
        return time.process_time() - t

    run(recs[0])  # models loaded outside the timings
    acc.clear()
    total = np.array([run(r) for r in recs]) * 1000
    n = len(recs)
    print(f"{args.mode}, {n} pages: median {np.median(total):.1f}, mean {total.mean():.1f} "
          "CPU ms per page; mean CPU ms per page by phase:")
    for phase, v in sorted(acc.items(), key=lambda kv: -kv[1]):
        print(f"  {phase:45s} {1000 * v / n:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
