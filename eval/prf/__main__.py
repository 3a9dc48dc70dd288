"""``python -m eval.prf --collection DIR [--templates DIR] --out DIR``: the whole comparison.

Without ``--templates``: the clean collection (BM25, RM3, window-block PRF; Lucene rows when
pyserini is installed). With ``--templates``: also the semi-synthetic web version built by
:mod:`eval.prf.build_web_collection` (rendered and segmented once, cached), with none / rm3 /
blocks from every block source, significance, and the feedback-size sweeps and plots.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf", description=__doc__)
    ap.add_argument("--collection", required=True, help="folder with docs.jsonl, topics.jsonl, "
                    "qrels.txt (e.g. ../shared/data/ir/med)")
    ap.add_argument("--templates", help="boilerplate dataset folder(s), comma-separated, for "
                    "the web version (e.g. ../shared/data/boilerplate/cleaneval)")
    ap.add_argument("--out", required=True, help="results folder")
    ap.add_argument("--work", default=".cache/webseg/prf", help="indexes and rendered pages")
    ap.add_argument("--docs-per-page", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sources", default="vips,dom,wps,pagelevel,windows",
                    help="block sources for the web version (another list than the default "
                    "gets its own index and results folder, e.g. --sources gcuts)")
    ap.add_argument("--concurrency", type=int, default=2, help="pages rendered at once")
    ap.add_argument("--no-lucene", action="store_true", help="skip the Lucene backend")
    ap.add_argument("--no-clean", action="store_true", help="only the web version")
    ap.add_argument("--no-sweep", action="store_true", help="skip the feedback-size sweeps")
    ap.add_argument("--limit", type=int, default=0, help="at most this many pages (smoke runs)")
    a = ap.parse_args(argv)

    from eval.prf.collection import load_collection
    from eval.prf.run import write_tables

    coll = load_collection(a.collection)
    out, work = Path(a.out), Path(a.work)
    lucene = not a.no_lucene and _have_pyserini()
    if not a.no_clean:
        from eval.prf.clean import clean_systems

        print(f"{coll.name}: clean collection ({len(coll.docs)} docs)")
        res = clean_systems(coll, work, lucene)
        md = write_tables(res, out / coll.name / "clean", f"{coll.name} (clean text)")
        print(md)
    if a.templates:
        from eval.prf.web import web_experiment

        web_experiment(coll, [t for t in a.templates.split(",") if t], out, work,
                       docs_per_page=a.docs_per_page, seed=a.seed,
                       sources=[s for s in a.sources.split(",") if s],
                       concurrency=a.concurrency, sweep=not a.no_sweep, limit=a.limit)
    return 0


def _have_pyserini() -> bool:
    try:
        from ir.lucene import require

        require()
    except ImportError as e:
        print(f"lucene backend skipped: {e}", file=sys.stderr)
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
