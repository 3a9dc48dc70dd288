"""``webseg dedup`` on whole shared datasets, from the shared render cache.

The shared sets are rendered once for all harnesses (:func:`webseg.datasets.render_cached`);
this runs the same pipeline as the ``webseg dedup`` command (:func:`dedup.run.run_items`) on
those cached pages instead of rendering them again, and writes the same report. Sites are the
manifests' ``site`` field. There are no duplicate labels here: the report is for reading.

    python -m eval.dedup.collection --data ../shared/data/boilerplate/cleaneval \\
        --strip pagelevel --report .cache/webseg/dedup-reports/collection-cleaneval-pagelevel

The report's HTML quotes page text (third-party content): keep it out of the repository.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dedup.run import run_items
from dedup.strip import STRATEGIES, Item, Stripper
from webseg.datasets import DEFAULT_CACHE, load_records, render_cached


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, nargs="+", required=True)
    ap.add_argument("--strip", choices=STRATEGIES, default="pagelevel")
    ap.add_argument("--segmenter", default="gcuts")
    ap.add_argument("--report", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    a = ap.parse_args(argv)
    records = [r for d in a.data for r in load_records(d)]
    pages = render_cached(records, a.cache)
    failed = {f"{r.dataset}/{r.id}": "render: failed (see the render log)"
              for r in records if r not in pages}
    items = ((f"{r.dataset}/{r.id}",
              Item(page=pages[r], html=r.read_html() if a.strip == "extractor" else None,
                   site=r.site, url=r.url), pages[r].title)
             for r in records if r in pages)
    run = run_items(items, Stripper(a.strip, segmenter=a.segmenter), failed=failed,
                    on_error=lambda rid, msg: print(f"{rid}: {msg}", file=sys.stderr))
    s = run.report(a.report, strip=a.strip, data=[str(d) for d in a.data],
                   segmenter=a.segmenter if a.strip == "largest" else None)
    print(f"{s['pages']} pages ({s['failed']} failed, {s['empty_text']} with no text): "
          f"{s['duplicate_pairs']} duplicate pairs in {s['clusters']} clusters "
          f"({s['pages_in_clusters']} pages) -> {a.report / 'report.html'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
