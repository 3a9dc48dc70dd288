"""Page-type classification speed: prediction after rendering, and training time.

    python bench/classify.py --data ../shared/data/wcxb-dev [--pages 200] [--model PATH]
    python bench/classify.py --data ../shared/data/wcxb-dev --method paper

Default (``--method stacked``, the shipped default model; target <= 20 ms per page after
rendering, no WPS): per page, the views (:func:`classify.pagefeatures.page_views` on the
rendered page + its HTML source) and the stacked model's probabilities, timed separately and
together, best of ``--repeat`` runs, wall clock and CPU time.

``--method paper`` (the paper's WPS-positions SVM):

Prediction (target <= 50 ms per page after segmentation) is timed per page on rendered pages
from the render cache, in three parts: WPS segmentation + in-segment positions (the shared
segmentation cost, reported for context), then features (tokenise + TF-ISF) + SVM + Platt
probabilities with the model (the part the target is about), best of ``--repeat`` runs.
Training is timed on the cached position texts of the whole dataset
(``python -m eval.classify.precompute`` fills them): the pipeline with the probability
calibration (3 extra internal fits) as ``webseg classify train`` runs it, and without.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# run as a script, this file's folder comes first on sys.path and its name would hide the
# ``classify`` package: put the repository root there instead
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from classify.corpus import compute_views  # noqa: E402
from classify.model import PageTypeModel, make_pipeline  # noqa: E402
from classify.views import position_texts  # noqa: E402
from webseg.datasets import DEFAULT_CACHE, cache_path, load_records  # noqa: E402
from webseg.page import Page  # noqa: E402
from webseg.segmenters import get_segmenter  # noqa: E402


def _stats(ms: list[float]) -> str:
    a = np.asarray(ms)
    return (f"median {np.median(a):7.2f}  p95 {np.percentile(a, 95):7.2f}  "
            f"max {a.max():7.2f}  mean {a.mean():7.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--pages", type=int, default=200, help="pages timed for prediction")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model", default=None, help="model file (default: the shipped one)")
    ap.add_argument("--no-train", action="store_true", help="skip the training timing")
    ap.add_argument("--method", choices=["stacked", "paper"], default="stacked")
    a = ap.parse_args(argv)
    if a.method == "stacked":
        return _bench_stacked(a)

    recs = load_records(a.data)
    model = PageTypeModel.load(a.model)
    wps = get_segmenter(model.segmenter)
    seg_ms, pred_ms = [], []
    step = max(1, len(recs) // a.pages)
    timed = 0
    for r in recs[::step][:a.pages]:
        p = cache_path(DEFAULT_CACHE, r)
        if not p.is_file():
            continue
        page = Page.load(p)
        t0 = time.perf_counter()
        texts = position_texts(page, wps)
        seg_ms.append(1000 * (time.perf_counter() - t0))
        best = np.inf
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            model.predict_texts([texts])
            best = min(best, time.perf_counter() - t0)
        pred_ms.append(1000 * best)
        timed += 1
    print(f"prediction on {timed} pages of {a.data.name} (model: {a.model or 'shipped'})")
    print(f"  WPS segmentation + positions ms/page: {_stats(seg_ms)}")
    print(f"  features + SVM + probability ms/page: {_stats(pred_ms)}   (target <= 50)")

    if not a.no_train:
        labelled = [r for r in recs if r.label]
        vs = compute_views(labelled, ["positions"], log=lambda m: None)
        have = [r for r in labelled if r.id in vs.texts["positions"]]
        X = [vs.texts["positions"][r.id] for r in have]
        y = [r.label for r in have]
        for name, folds in (("with Platt calibration (as `classify train`)", 3),
                            ("SVM only", 0)):
            t0 = time.perf_counter()
            make_pipeline(platt_folds=folds).fit(X, y)
            print(f"  training on {len(have)} pages, {name}: "
                  f"{time.perf_counter() - t0:.1f} s (from cached position texts)")
    return 0


def _bench_stacked(a: argparse.Namespace) -> int:
    from classify.model import load_model
    from classify.pagefeatures import page_views
    from webseg.decode import decode_html

    model = load_model(a.model, None if a.model else "stacked")
    recs = load_records(a.data)
    step = max(1, len(recs) // a.pages)
    rows: dict[str, list[float]] = {k: [] for k in ("views", "model", "total", "total_cpu")}
    for r in recs[::step][:a.pages]:
        p = cache_path(DEFAULT_CACHE, r)
        if not p.is_file():
            continue
        page = Page.load(p)
        html = decode_html(r.read_html()).text  # reading the source is I/O, not timed
        best = {k: np.inf for k in rows}
        for _ in range(a.repeat):
            for name in ("text_leaves", "subtree_end", "depth", "is_element", "is_text"):
                page.__dict__.pop(name, None)  # no cached per-page work between runs
            c0, t0 = time.process_time(), time.perf_counter()
            v = page_views(page, html, r.url)
            t1 = time.perf_counter()
            model.model.predict_proba([v])
            t2, c2 = time.perf_counter(), time.process_time()
            for k, x in (("views", t1 - t0), ("model", t2 - t1), ("total", t2 - t0),
                         ("total_cpu", c2 - c0)):
                best[k] = min(best[k], 1000 * x)
        for k in rows:
            rows[k].append(best[k])
    print(f"stacked model on {len(rows['total'])} rendered pages of {a.data.name} "
          f"(model: {a.model or 'shipped'}; views {','.join(model.model.views)})")
    print(f"  views (page_views) ms/page:          {_stats(rows['views'])}")
    print(f"  model (base SVMs + trees) ms/page:   {_stats(rows['model'])}")
    print(f"  total wall ms/page:                  {_stats(rows['total'])}   (target <= 20)")
    print(f"  total CPU ms/page:                   {_stats(rows['total_cpu'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
