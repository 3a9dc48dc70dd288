"""Page-type prediction cost from a page's views, parsed pages, one model against another.

    python bench/classify_parsed.py --data ../shared/data/wcxb-dev --pages 200 MODEL [MODEL...]

The views (:func:`classify.pagefeatures.page_views` of the page parsed without a browser) come
from the view cache (``classify.corpus.compute_page_views(rendered=False)``, filled on first
use); timed is only the stacked model's ``predict_proba`` on one page at a time (vectorising
the text, title, URL, markup and metadata views, the linear models, the stacker): the part a
different tokenisation changes. CPU time per page, median and mean.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# run as a script, this file's folder comes first on sys.path and its name would hide the
# ``classify`` package: put the repository root there instead
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from classify.corpus import compute_page_views  # noqa: E402
from classify.model import load_model  # noqa: E402
from webseg.datasets import load_records  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", help="stacked page-type model files")
    ap.add_argument("--data", default="../shared/data/wcxb-dev")
    ap.add_argument("--pages", type=int, default=200)
    a = ap.parse_args()
    recs = load_records(a.data)[:a.pages]
    docs = list(compute_page_views(recs, rendered=False, log=lambda m: None)
                .texts["pageviews"].values())
    for path in a.models:
        sm = load_model(path).model
        sm.predict_proba(docs[:5])  # warm caches (vocabulary index, analyzers)
        ts = []
        for doc in docs:
            t = time.process_time()
            sm.predict_proba([doc])
            ts.append(time.process_time() - t)
        ts.sort()
        print(f"{path}: median {1000 * ts[len(ts) // 2]:.1f} ms, mean "
              f"{1000 * sum(ts) / len(ts):.1f} ms CPU per page ({len(ts)} parsed pages)")


if __name__ == "__main__":
    main()
