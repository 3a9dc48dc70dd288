"""Train the PageLevel templateness classifier from SiteLevel labels (paper, section 5.1-5.2).

::

    python -m webseg.templates.train --data ../shared/data/boilerplate/dragnet \\
        [--data ../shared/data/boilerplate/cleanportaleval] --out webseg/models [--max-pages N]

Steps, all deterministic (fixed seed, sorted inputs):

1. **Pages.** From each ``--data`` folder (the shared boilerplate format), the pages of sites
   with at least two pages (manifest ``site``; pages without a site are skipped). Where the
   manifest has a ``split`` (Dragnet) only ``split == "train"`` pages are used, so Dragnet's
   test pages stay unseen; the two-page rule is applied after the split filter. At most
   ``--max-per-site`` pages per site (the first by id) and at most ``--max-pages`` pages in
   total (whole sites, in a fixed pseudo-random order of sites, so the cap keeps diversity).
2. **Rendering.** HTML is read as bytes and gunzipped here, then rendered offline with JS off
   by :meth:`webseg.render.Renderer.render_many`. Every rendered page is cached as gzipped
   Page JSON in ``.cache/webseg/boilerplate/<dataset>/<id>.json.gz`` (``--cache``) and reused
   on reruns. Pages are rendered from bytes, so their URL is synthetic: the page's real URL
   (manifest ``url``, else ``url_declared``) is put in ``page.url`` before features are
   computed, so that ``intra_links_frac`` compares links with the right host. Failed renders
   are reported and skipped.
3. **Labels.** :func:`webseg.templates.sitelevel.sitelevel_labels` per site with ``theta=0.1``
   (the paper's SiteLevel(0.1)) and ``min_size=8`` (``--min-size``): a repeated subtree must
   have an HTML-size proxy of at least 8 (nodes + characters) to be a site-level template by
   itself. Without it, trivial subtrees (``<br>``, an empty ``<div>``, a one-word ``<span>``
   such as "Share") that repeat on any two pages of a site would mark pieces of article bodies
   as template. With sites of 2-10 pages, theta 0.1 means "on at least two pages".
   ``--labels gold`` is the supervised variant: a node is content when more than half of the
   words of its visible text occur in the page's gold main text (:func:`gold_labels`), on the
   same pages (the site rule is kept so that both variants see the same data).
4. **Samples.** Only nodes the smoother sees (area >= 2,000 px^2, visible), per page at most
   ``--per-page`` (default 60) of each class, drawn at random; pages where one class is absent
   contribute at most ``--per-page`` nodes of the other. Samples are weighted so that both
   classes carry the same total weight in each area bucket.
5. **Fit** the four area-bucketed logistic regressions
   (:class:`webseg.templates.classifier.TemplateClassifier`) and write ``<out>/pagelevel.json``
   with the counts and the command in its ``meta``.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from webseg.datasets import DEFAULT_CACHE, PageRecord, load_records, render_cached
from webseg.page import Page
from webseg.templates.classifier import DEFAULT_EDGES, TemplateClassifier
from webseg.templates.features import node_features
from webseg.templates.sitelevel import sitelevel_labels

__all__ = ["PageRecord", "build_samples", "gold_labels", "load_records", "render_cached",
           "select_sites", "train"]

HIDDEN_AREA = 2000.0
_WORD = re.compile(r"\w+")


def _stable_key(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def select_sites(records: Iterable[PageRecord], split: str | None = "train",
                 max_per_site: int = 10, max_pages: int | None = None
                 ) -> dict[str, list[PageRecord]]:
    """Multi-page sites for SiteLevel labelling, keyed by ``dataset/site``.

    Records with a ``split`` other than ``split`` are dropped (records without a split are
    kept); sites with fewer than two remaining pages are dropped; each site keeps its first
    ``max_per_site`` pages by id; sites are taken in a fixed pseudo-random order (sha256 of the
    key) until ``max_pages`` pages are reached.
    """
    sites: dict[str, list[PageRecord]] = defaultdict(list)
    for r in records:
        if r.site is None or (split is not None and r.split is not None and r.split != split):
            continue
        sites[f"{r.dataset}/{r.site}"].append(r)
    out: dict[str, list[PageRecord]] = {}
    total = 0
    for key in sorted(sites, key=_stable_key):
        recs = sorted(sites[key], key=lambda r: r.id)[:max_per_site]
        if len(recs) < 2:
            continue
        if max_pages is not None and total + len(recs) > max_pages:
            if total + 2 > max_pages:
                break
            recs = recs[:max_pages - total]
        out[key] = recs
        total += len(recs)
    return out


def build_samples(site_pages: Sequence[Page], labels: Sequence[np.ndarray], per_page: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, areas and labels of the sampled nodes of one site's pages."""
    Xs, As, Ys = [], [], []
    for page, lab in zip(site_pages, labels, strict=True):
        if page.n == 0:
            continue
        area = page.area
        cand = np.flatnonzero((area >= HIDDEN_AREA) & page.visible)
        if not len(cand):
            continue
        F = node_features(page)
        picked = []
        for cls in (1, 0):  # labels: 1 template, 0 content, -1 unlabelled
            ids = cand[np.asarray(lab)[cand].astype(np.int8) == cls]
            if len(ids) > per_page:
                ids = np.sort(rng.choice(ids, per_page, replace=False))
            picked.append(ids)
        ids = np.concatenate(picked)
        Xs.append(F[ids])
        As.append(area[ids])
        Ys.append(lab[ids].astype(np.int8))
    if not Xs:
        return np.zeros((0, 0)), np.zeros(0), np.zeros(0, np.int8)
    return np.vstack(Xs), np.concatenate(As), np.concatenate(Ys)


def gold_labels(page: Page, gold: str, share: float = 0.5) -> np.ndarray:
    """Supervised labels from gold main text: 0 (content) when more than ``share`` of the
    words of a node's visible text occur in the gold text, 1 (template) otherwise, -1 for
    nodes without words. Words are ``\\w+`` tokens, lower-cased; occurrence is set
    membership (bag of words, not positions), so a common word of the page chrome also found
    in the article counts as content."""
    gold_words = set(_WORD.findall(gold.lower()))
    n = page.n
    words = np.zeros(n)
    hits = np.zeros(n)
    for j in page.text_leaves.tolist():
        toks = _WORD.findall(page.text[j].lower())
        words[j] = len(toks)
        hits[j] = sum(t in gold_words for t in toks)
    end = page.subtree_end
    cw = np.concatenate([[0.0], np.cumsum(words)])
    ch = np.concatenate([[0.0], np.cumsum(hits)])
    ids = np.arange(n)
    sw, sh = cw[end] - cw[ids], ch[end] - ch[ids]
    lab = np.where(sh > share * sw, 0, 1).astype(np.int8)
    lab[sw == 0] = -1
    return lab


def _balance_weights(area: np.ndarray, y: np.ndarray, edges: Sequence[float]) -> np.ndarray:
    w = np.ones(len(y))
    bucket = np.searchsorted(np.asarray(edges), area, side="right")
    for b in np.unique(bucket):
        sel = bucket == b
        n1 = int(y[sel].sum())
        n0 = int(sel.sum()) - n1
        if n0 and n1:
            w[sel & (y == 1)] = sel.sum() / (2.0 * n1)
            w[sel & (y == 0)] = sel.sum() / (2.0 * n0)
    return w


def train(data: Sequence[str | Path], out: str | Path | None = None, *,
          max_pages: int | None = None, max_per_site: int = 10, per_page: int = 60,
          theta: float = 0.1, min_size: int = 8, C: float = 1.0, seed: int = 0,
          cache: str | Path = DEFAULT_CACHE, concurrency: int = 3, labels: str = "sitelevel",
          log=print) -> TemplateClassifier:
    """Render, label, sample and fit (see the module docstring); save when ``out`` is given.

    ``labels``: ``"sitelevel"`` (the paper) or ``"gold"`` (:func:`gold_labels`, supervised).
    """
    if labels not in ("sitelevel", "gold"):
        raise ValueError(f"labels must be 'sitelevel' or 'gold', got {labels!r}")
    t0 = time.perf_counter()
    sites: dict[str, list[PageRecord]] = {}
    per_dataset = {}
    for d in data:
        recs = load_records(d)
        left = None if max_pages is None else max_pages - sum(map(len, sites.values()))
        if left is not None and left < 2:
            break
        chosen = select_sites(recs, max_per_site=max_per_site, max_pages=left)
        per_dataset[str(d)] = {"sites": len(chosen), "pages": sum(map(len, chosen.values()))}
        sites.update(chosen)
    all_recs = [r for rs in sites.values() for r in rs]
    log(f"{len(sites)} sites, {len(all_recs)} pages selected")
    pages = render_cached(all_recs, cache, concurrency, log)
    rng = np.random.default_rng(seed)
    Xs, As, Ys = [], [], []
    n_pages = n_sites = 0
    for recs in sites.values():
        ok = [r for r in recs if r in pages and pages[r].has_layout and pages[r].n]
        got = [pages[r] for r in ok]
        if len(got) < 2:
            continue
        if labels == "gold":
            labs = [gold_labels(pages[r], r.read_gold() or "") for r in ok]
        else:
            labs = sitelevel_labels(got, theta=theta, min_size=min_size)
        X, A, Y = build_samples(got, labs, per_page, rng)
        if len(Y):
            Xs.append(X)
            As.append(A)
            Ys.append(Y)
            n_sites += 1
            n_pages += len(got)
    if not Ys:
        raise RuntimeError("no training samples: no site had two rendered pages")
    X, A, Y = np.vstack(Xs), np.concatenate(As), np.concatenate(Ys)
    log(f"{len(Y)} samples ({int(Y.sum())} template) from {n_pages} pages of {n_sites} sites")
    clf = TemplateClassifier(edges=DEFAULT_EDGES, C=C)
    clf.fit(X, A, Y, sample_weight=_balance_weights(A, Y, clf.edges))
    clf.meta = {
        "trained_on": per_dataset, "sites_used": n_sites, "pages_used": n_pages,
        "samples": int(len(Y)), "template_samples": int(Y.sum()),
        "params": {"max_pages": max_pages, "max_per_site": max_per_site, "per_page": per_page,
                   "theta": theta, "min_size": min_size, "C": C, "seed": seed},
        "labels": labels,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if out is not None:
        out = Path(out)
        path = out / "pagelevel.json" if out.is_dir() or not out.suffix else out
        path.parent.mkdir(parents=True, exist_ok=True)
        clf.save(path)
        log(f"wrote {path}")
    return clf


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m webseg.templates.train", description=__doc__
                                 .split("\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", action="append", required=True,
                    help="boilerplate dataset folder (repeatable)")
    ap.add_argument("--out", default="webseg/models", help="folder or .json file")
    ap.add_argument("--max-pages", type=int, default=None, help="cap on pages in total")
    ap.add_argument("--max-per-site", type=int, default=10)
    ap.add_argument("--per-page", type=int, default=60, help="sampled nodes per class per page")
    ap.add_argument("--theta", type=float, default=0.1)
    ap.add_argument("--min-size", type=int, default=8)
    ap.add_argument("-C", type=float, default=1.0, help="inverse L2 strength")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", default=str(DEFAULT_CACHE))
    ap.add_argument("--concurrency", type=int, default=3)
    ap.add_argument("--labels", choices=("sitelevel", "gold"), default="sitelevel",
                    help="SiteLevel labels (paper) or supervised labels from gold text")
    ap.add_argument("--render-only", action="store_true",
                    help="only render the selected pages into the cache")
    a = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if a.render_only:
        recs: list[PageRecord] = []
        for d in a.data:
            left = None if a.max_pages is None else a.max_pages - len(recs)
            for rs in select_sites(load_records(d), max_per_site=a.max_per_site,
                                   max_pages=left).values():
                recs.extend(rs)
        render_cached(recs, a.cache, a.concurrency, log)
        return 0
    train(a.data, a.out, max_pages=a.max_pages, max_per_site=a.max_per_site,
          per_page=a.per_page, theta=a.theta, min_size=a.min_size, C=a.C, seed=a.seed,
          cache=a.cache, concurrency=a.concurrency, labels=a.labels, log=log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
