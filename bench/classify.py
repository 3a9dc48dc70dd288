"""Page-type classification speed: prediction after segmentation, and training time.

    python bench/classify.py --data ../shared/data/wcxb-dev [--pages 200] [--model PATH]

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
    a = ap.parse_args(argv)

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


if __name__ == "__main__":
    raise SystemExit(main())
