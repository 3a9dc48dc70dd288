"""The page-type stage's CPU per page, its two halves apart, and a digest of everything it
outputs (to prove a faster version gives the same bits).

    python bench/classify_views.py --data ../shared/data/wcxb-dev --pages 200 [--rendered]
        [--repeat 3] [--evict MB] [--digests FILE]

Pages are parsed without a browser (``--rendered``: loaded from the render cache instead;
pages absent from it are left out); parsing and reading are not timed. Timed per page, as the
pipeline's page-type stage runs it (one page at a time, best of ``--repeat`` runs):
``views`` = :func:`classify.pagefeatures.page_views` (text statistics, markup walk, URL and
metadata tokens); ``predict`` = the shipped stacked model's ``predict_proba`` on those views
(tokenising the text views, the linear models, the stacker); ``stage`` = both, through
``predict_proba_pages`` as the pipeline calls it. CPU time, median and mean per page.

The digest (SHA-256) covers every view of every page (texts, token strings, each structure
number's exact bits), every base model's decision values and the probabilities, as raw float64
bytes: two versions of the code that print the same digests give bit-identical outputs.
``--digests FILE`` writes one line per page (id, views digest, decision digest, probability
digest), for finding the first page that differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

# run as a script, this file's folder comes first on sys.path and its name would hide the
# ``classify`` package: put the repository root there instead
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from classify.model import load_model  # noqa: E402
from webseg.datasets import DEFAULT_CACHE, load_records  # noqa: E402


def _views_digest(v: dict) -> str:
    """Views as canonical JSON, each float as the hex of its bits (not a rounded repr)."""
    canon = {k: ({n: float(x).hex() for n, x in sorted(val.items())}
                 if isinstance(val, dict) else val) for k, val in sorted(v.items())}
    return hashlib.sha256(json.dumps(canon, sort_keys=True, ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


def _pages(data: str, n: int, rendered: bool) -> list[tuple[str, object, str, str | None]]:
    from classify.corpus import _load_page
    from webseg.decode import decode_html
    from webseg.parse import parse

    out = []
    for rec in load_records(data)[:n]:
        html = decode_html(rec.read_html()).text
        if rendered:
            page, _ = _load_page(Path(DEFAULT_CACHE), rec)
            if page is None:
                continue
        else:
            page = parse(html, url=rec.url)
        out.append((rec.id, page, html, rec.url))
    return out


def _cpu(fn, repeat: int, evict: np.ndarray | None = None) -> float:
    best = float("inf")
    for _ in range(repeat):
        if evict is not None:
            evict += 1  # every cache line written: what the page's other stages do
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data/wcxb-dev")
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--rendered", action="store_true",
                    help="rendered pages from the render cache instead of parsed ones")
    ap.add_argument("--repeat", type=int, default=3, help="runs per page; the fastest counts")
    ap.add_argument("--model", default=None, help="page-type model (default: the shipped one)")
    ap.add_argument("--digests", default=None, help="write per-page digests to this file")
    ap.add_argument("--evict", type=float, default=0.0,
                    help="MB of memory written before every timed call, so the model's "
                         "vocabularies are out of the CPU's nearer caches as in a pipeline "
                         "run (0: off, every call after the first finds them warm)")
    a = ap.parse_args()
    pages = _pages(a.data, a.pages, a.rendered)
    pm = load_model(a.model)
    sm = pm.model
    pm.predict_proba_pages([p for _, p, _, _ in pages[:3]], [h for _, _, h, _ in pages[:3]],
                           urls=[u for _, _, _, u in pages[:3]])  # warm caches
    ev = np.zeros(int(a.evict * 2**20) // 8) if a.evict > 0 else None
    t_views, t_pred, t_stage = [], [], []
    whole = hashlib.sha256()
    lines = []
    for pid, page, html, url in pages:
        v = pm.page_views(page, html, url)
        t_views.append(_cpu(lambda: pm.page_views(page, html, url), a.repeat, ev))  # noqa: B023
        t_pred.append(_cpu(lambda: sm.predict_proba([v]), a.repeat, ev))  # noqa: B023
        t_stage.append(_cpu(lambda: pm.predict_proba_pages([page], [html], urls=[url]),  # noqa: B023
                            a.repeat, ev))
        dv = _views_digest(v)
        dec = np.hstack([b.decision([_field(v, b.view)]) for b in sm.base])
        dd = hashlib.sha256(np.ascontiguousarray(dec, dtype=np.float64).tobytes()).hexdigest()
        (probs,) = pm.predict_proba_pages([page], [html], urls=[url])
        dp = hashlib.sha256(np.array(list(probs.values()), dtype=np.float64).tobytes()
                            ).hexdigest()
        for d in (dv, dd, dp):
            whole.update(d.encode())
        lines.append(f"{pid}\t{dv[:16]}\t{dd[:16]}\t{dp[:16]}")
    if a.digests:
        Path(a.digests).write_text("\n".join(lines) + "\n")
    kind = "rendered" if a.rendered else "parsed"
    for name, ts in (("views", t_views), ("predict", t_pred), ("stage", t_stage)):
        print(f"{name:8s} median {1000 * statistics.median(ts):6.2f} ms, mean "
              f"{1000 * statistics.fmean(ts):6.2f} ms CPU per page ({len(ts)} {kind} pages)")
    print(f"digest {whole.hexdigest()}")


def _field(v: dict, view: str) -> object:
    from classify.stacked import _field as field

    return field(v, view)


if __name__ == "__main__":
    main()
