"""Training the block model: a feature/label table from labelled sets, then the two stages.

    python -m webseg.blocks.train table --data ../shared/data/wcxb-dev --data ...
    python -m webseg.blocks.train fit --data ../shared/data/wcxb-dev --data ... \\
        --out webseg/models/blocks.json.gz

``table`` turns every labelled page (gold not null, gold found in the HTML) of each dataset into
one ``.npz`` under ``.cache/webseg/blocks/table/<features-hash>/<dataset>/``: leaf features
(:mod:`webseg.blocks.features`), labels (gold alignment, :mod:`webseg.blocks.align`), word
weights, the leaf ranges for stage 2, and the leaf tokens and gold token counts (so F1 can be
computed without the page). Pages come from the shared render cache (``rendered`` variant);
a fixed share of pages (by hash of the id) is also parsed without a browser
(:func:`webseg.parse.parse`, ``parsed`` variant: no geometry, markup-only visibility), so the
model learns to work on ``--no-render`` pages. Existing files are skipped (resumable).

``fit`` trains stage 1 as a bag of two models, each on half of the sites, so that every page
has an out-of-fold stage-1 score; stage 2 learns from those scores in context plus a few
features; new pages get the mean raw stage-1 score of the bag. The decision threshold (and
whether to fall back to the page's relatively best leaves when none reaches it) is chosen on
out-of-fold stage-2 scores of the training pages (stage 2 refitted on two site-grouped halves),
so nothing is tuned on pages the model is evaluated on. It writes the JSON model. The
evaluation (site-grouped CV) is ``python -m eval.blocks``.

Training rows are drawn per page, a fixed number per page, each leaf with probability
proportional to its words (:func:`training_rows`): every page weighs the same and within a page
every word does, as in the mean per-page word F1 that is reported; leaves without words are
never drawn.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from webseg.blocks.align import align_gold, words
from webseg.blocks.context import CONTEXT_NAMES, context_features
from webseg.blocks.features import FEATURE_NAMES, LeafFeatures, leaf_features
from webseg.blocks.gbt import export_hgb
from webseg.blocks.isotree import leaf_tree, smooth_leaf_scores
from webseg.blocks.model import tree_decision
from webseg.blocks.pagedecision import (
    PAGE_GATE_PARTS,
    PAGE_GATE_SALT,
    PageDecision,
    fit_page_decision,
    page_features,
    pick,
)
from webseg.blocks.reveal import revealed
from webseg.datasets import DEFAULT_CACHE, KNOWN_ENCODINGS, cache_path, load_records
from webseg.page import Page

__all__ = ["PageTable", "Stages", "build_table", "choose_decision", "choose_page_decision",
           "export_stages", "fit_model", "fit_stages", "gate_parts", "load_tables", "page_f1",
           "table_dir"]

TABLE_ROOT = Path(".cache/webseg/blocks/table")
PARSED_SHARE = 0.35
HGB_PARAMS: dict[str, Any] = {"max_iter": 100, "learning_rate": 0.12, "max_leaf_nodes": 31,
                              "min_samples_leaf": 40, "l2_regularization": 1.0,
                              "max_bins": 255, "early_stopping": False, "random_state": 0}


#: what else than the feature names decides a table file's content (bump on changes)
#: "unspaced-words": words of unspaced scripts are letters (webseg.blocks.align.words), CJK
#: full stops end sentences
TABLE_VERSION = "reveal-1;unspaced-words-1"  # pages are revealed (webseg.blocks.reveal) first


def table_dir(root: Path = TABLE_ROOT) -> Path:
    h = hashlib.sha1("\n".join([*FEATURE_NAMES, TABLE_VERSION]).encode()).hexdigest()[:10]
    return root / h


def _hash01(s: str) -> float:
    return int(hashlib.sha1(s.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


def page_arrays(lf: LeafFeatures, gold: str | None) -> dict[str, np.ndarray]:
    """The per-page arrays stored in the table (labels only when ``gold`` is given)."""
    vocab: dict[str, int] = {}
    tok_ids = np.fromiter((vocab.setdefault(t, len(vocab)) for toks in lf.tokens for t in toks),
                          dtype=np.int32)
    tok_off = np.concatenate([[0], np.cumsum([len(t) for t in lf.tokens])]).astype(np.int64)
    out = {"X": lf.X.astype(np.float32), "chars": lf.chars.astype(np.float32),
           "words": lf.words.astype(np.float32), "ranges": lf.ranges.astype(np.int32),
           "tok_ids": tok_ids, "tok_off": tok_off}
    if gold is not None:
        g = words(gold)
        gid = np.fromiter((vocab.get(t, -1) for t in g), dtype=np.int64, count=len(g))
        out["gold_unmatched"] = np.array([int((gid < 0).sum())])
        out["gold_counts"] = np.bincount(gid[gid >= 0], minlength=len(vocab)).astype(np.int32)
    return out


def build_table(data: Path, render_cache: Path = DEFAULT_CACHE, root: Path = TABLE_ROOT,
                parsed_share: float = PARSED_SHARE, limit: int = 0, log=print,
                reuse: Path | None = None) -> int:
    """Write the table files of one dataset; returns the number of new files.

    ``reuse``: a table directory (``<root>/<hash>``) built by the same code before pages were
    revealed (:data:`TABLE_VERSION`); a page that :func:`webseg.blocks.reveal.revealed` leaves
    unchanged gets a symbolic link to its file there instead of being recomputed (the same
    bytes; only the revealed pages are computed)."""
    from webseg.parse import parse

    recs = [r for r in load_records(data) if r.gold is not None and not r.exclude_text_metrics]
    recs.sort(key=lambda r: hashlib.sha1(r.id.encode()).hexdigest())
    if limit:
        recs = recs[:limit]
    out_dir = table_dir(root) / recs[0].dataset if recs else table_dir(root)
    out_dir.mkdir(parents=True, exist_ok=True)
    new = 0
    t0 = time.perf_counter()
    for k, r in enumerate(recs, 1):
        safe = cache_path(Path(""), r).name.removesuffix(".json.gz")
        variants = ["rendered"] + (["parsed"] if _hash01("parsed:" + r.id) < parsed_share else [])
        for var in variants:
            f = out_dir / f"{safe}.{var}.npz"
            if f.is_file():
                continue
            try:
                if var == "rendered":
                    cp = cache_path(render_cache, r)
                    if not cp.is_file():
                        continue
                    page = Page.load(cp)
                else:
                    page = parse(r.read_html(), url=r.url,
                                 encoding=KNOWN_ENCODINGS.get(r.dataset))
                if r.url:
                    page.url = r.url
                shown = revealed(page)
                old = reuse / r.dataset / f.name if reuse is not None else None
                if shown is page and old is not None and old.is_file():
                    f.symlink_to(old.resolve())
                    new += 1
                    continue
                was_revealed = shown is not page
                page = shown
                gold = r.read_gold() or ""
                lf = leaf_features(page)
                al = align_gold(page, gold)
            except Exception as e:  # noqa: BLE001 - one bad page is logged and skipped
                log(f"  {r.dataset}/{r.id} ({var}): {type(e).__name__}: {e}")
                continue
            arr = page_arrays(lf, gold)
            arr["y"] = al.content.astype(np.int8)
            meta = {"dataset": r.dataset, "id": r.id, "site": r.site or r.id, "split": r.split,
                    "page_type": r.label, "variant": var, "coverage": al.coverage,
                    "revealed": was_revealed}
            arr["meta"] = np.array(json.dumps(meta))
            tmp = f.with_name(f.name + ".part.npz")
            np.savez_compressed(tmp, **arr)
            tmp.replace(f)
            new += 1
        if k % 100 == 0:
            log(f"  {data.name}: {k}/{len(recs)} pages, {new} new files, "
                f"{time.perf_counter() - t0:.0f} s")
    return new


@dataclass
class PageTable:
    """All table rows of many pages, concatenated; ``off[p]:off[p+1]`` are page ``p``'s rows."""

    X: np.ndarray
    y: np.ndarray
    words: np.ndarray
    chars: np.ndarray
    ranges: np.ndarray
    off: np.ndarray
    meta: list[dict[str, Any]]
    tok_ids: list[np.ndarray]
    tok_off: list[np.ndarray]
    gold_counts: list[np.ndarray]
    gold_unmatched: np.ndarray

    @property
    def n_pages(self) -> int:
        return len(self.meta)

    def rows(self, pages: Iterable[int]) -> np.ndarray:
        return np.concatenate([np.arange(self.off[p], self.off[p + 1]) for p in pages]
                              or [np.zeros(0, dtype=np.int64)])


_ARRAYS = ("X", "y", "words", "chars", "ranges", "tok_ids", "tok_off", "gold_counts")


def _load_dataset(d: Path) -> dict[str, Any]:
    """One dataset's page files, concatenated; kept as one uncompressed pack next to them
    (rebuilt when the set of page files changes), because reading thousands of small
    compressed files takes minutes."""
    files = sorted(f for f in d.glob("*.npz") if not f.name.endswith(".part.npz"))
    names = "\n".join(f.name for f in files)
    key = hashlib.sha1(names.encode()).hexdigest()[:12]
    pack = d.parent / f"{d.name}.pack.npz"
    if pack.is_file():
        with np.load(pack) as z:
            if str(z["key"]) == key:
                return {k: z[k] for k in z.files}
    parts: dict[str, list[Any]] = {k: [] for k in _ARRAYS}
    meta, unmatched = [], []
    for f in files:
        with np.load(f) as z:
            for k in _ARRAYS:
                parts[k].append(z[k])
            meta.append(json.loads(str(z["meta"])))
            unmatched.append(int(z["gold_unmatched"][0]))
    out: dict[str, Any] = {"key": np.array(key), "meta": np.array(json.dumps(meta)),
                           "gold_unmatched": np.asarray(unmatched, dtype=np.int64)}
    for k in _ARRAYS:
        sizes = [len(x) for x in parts[k]]
        out[f"{k}_off"] = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        out[k] = (np.concatenate(parts[k]) if parts[k] else np.zeros(0))
    tmp = pack.with_name(pack.name + ".part.npz")
    np.savez(tmp, **out)
    tmp.replace(pack)
    return out


def load_tables(datasets: Iterable[str], root: Path = TABLE_ROOT,
                variants: tuple[str, ...] = ("rendered", "parsed"),
                directory: Path | None = None) -> PageTable:
    """Concatenate the table files of ``datasets`` (dataset names, e.g. ``wcxb``) of the
    current table under ``root`` (or of the table ``directory``, e.g. an older version)."""
    X, y, wd, ch, rg, meta = [], [], [], [], [], []
    tok_ids, tok_off, gold_counts, unmatched = [], [], [], []
    for ds in datasets:
        z = _load_dataset((directory or table_dir(root)) / ds)
        m_all = json.loads(str(z["meta"]))
        for p, m in enumerate(m_all):
            if m["variant"] not in variants:
                continue

            sl = {k: z[k][z[f"{k}_off"][p]:z[f"{k}_off"][p + 1]] for k in _ARRAYS}
            X.append(sl["X"])
            y.append(sl["y"])
            wd.append(sl["words"])
            ch.append(sl["chars"])
            rg.append(sl["ranges"])
            tok_ids.append(sl["tok_ids"])
            tok_off.append(sl["tok_off"])
            gold_counts.append(sl["gold_counts"])
            unmatched.append(int(z["gold_unmatched"][p]))
            meta.append(m)
    sizes = [len(v) for v in y]
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    F = len(FEATURE_NAMES)
    return PageTable(
        X=np.concatenate(X) if X else np.zeros((0, F), np.float32),
        y=np.concatenate(y) if y else np.zeros(0, np.int8),
        words=np.concatenate(wd) if wd else np.zeros(0, np.float32),
        chars=np.concatenate(ch) if ch else np.zeros(0, np.float32),
        ranges=np.concatenate(rg) if rg else np.zeros((0, 8, 2), np.int32),
        off=off, meta=meta, tok_ids=tok_ids, tok_off=tok_off, gold_counts=gold_counts,
        gold_unmatched=np.asarray(unmatched, dtype=np.int64))


def page_f1(t: PageTable, p: int, keep: np.ndarray) -> tuple[float, float, float]:
    """Bag-of-words (P, R, F1) of page ``p`` keeping the leaves in ``keep`` (as eval.templates
    computes it, including its conventions for empty gold and empty output)."""
    ids, toff = t.tok_ids[p], t.tok_off[p]
    gc = t.gold_counts[p]
    n_gold = int(gc.sum()) + int(t.gold_unmatched[p])
    sel = np.repeat(keep, np.diff(toff))
    pred = ids[sel]
    n_pred = len(pred)
    if n_gold == 0:
        return (1.0, 1.0, 1.0) if n_pred == 0 else (0.0, float("nan"), 0.0)
    if n_pred == 0:
        return float("nan"), 0.0, 0.0
    pc = np.bincount(pred, minlength=len(gc))
    common = int(np.minimum(pc, gc).sum())
    pr, rc = common / n_pred, common / n_gold
    return pr, rc, (2 * pr * rc / (pr + rc) if common else 0.0)


def training_rows(t: PageTable, pages: Iterable[int], max_rows: int = 40,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Rows to fit on: ``max_rows`` draws per page (with replacement), each leaf drawn with
    probability proportional to its words. So every page weighs the same and, within a page,
    every word does - the weighting of the mean per-page word F1 - without sample weights
    (sklearn's weighted binning is ~50x slower than the unweighted one). Returns the rows and
    their (unit) weights."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in pages:
        r = np.arange(t.off[p], t.off[p + 1])
        wd = t.words[r].astype(np.float64)
        if not len(r) or wd.sum() <= 0:
            continue
        rows.append(np.sort(rng.choice(r, max_rows, replace=True, p=wd / wd.sum())))
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    out = np.concatenate(rows)
    return out, np.ones(len(out))


def _hgb(**over: Any):
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(**{**HGB_PARAMS, **over})


def fold_of(site: str, k: int, salt: str = "") -> int:
    """Fold of a site: a hash, so that every page of a site lands in the same fold."""
    return int(hashlib.sha1((salt + site).encode()).hexdigest()[:8], 16) % k


def _drop(name: str) -> bool:
    return ("_near" in name or name.startswith(("pl_b1_", "p3_")))


#: stage-1 inputs: the feature columns the trees may split on (the rest are computed but not
#: used: near-duplicates, dropped to keep training affordable on a 2-core machine)
STAGE1_COLS = np.array([k for k, n in enumerate(FEATURE_NAMES) if not _drop(n)])
_STAGE2_FEATURES = (
    "leaf_log_chars", "leaf_words", "leaf_in_link", "leaf_is_heading", "leaf_stop_ratio",
    "leaf_punct_ratio", "leaf_title_cover", "b0_link_density", "b0_log_chars",
    "b1_link_density", "b1_log_chars", "pos_chars", "dist_title_leaf", "dist_h1", "has_layout",
    "page_log_chars", "cat_any_comment", "cat_any_nav", "cat_any_footer", "cat_any_related",
    "cat_any_content", "t_nav_any", "t_footer_any", "t_aside_any", "t_a_any", "t_heading_any",
    "t_article_any", "t_main_any", "g_x", "g_w", "g_font_rel")
#: stage-2 inputs: indices into ``hstack([features, context])``
STAGE2_COLS = np.concatenate([[FEATURE_NAMES.index(n) for n in _STAGE2_FEATURES],
                              len(FEATURE_NAMES) + np.arange(len(CONTEXT_NAMES))])


#: Share of the training pages stage 2 (and with it the decision and the per-page decision)
#: learns from, by a hash of the page id. Stage 2 needs every leaf of its pages scored by
#: stage 1, which was the expensive part of training on a loaded 2-core machine, hence 0.5
#: at first; all pages (1.0) were then adopted by a pre-registered rule (eval/results/blocks;
#: WCXB 0.8559 -> 0.8626 in the site-grouped CV).
STAGE2_SHARE = 1.0

#: thresholds tried by the nested selection (:func:`choose_decision`)
THRESHOLDS = tuple(np.round(np.arange(0.25, 0.651, 0.05), 2).tolist())


@dataclass
class Stages:
    """Fitted models: stage 1 is a bag of models (mean raw score), stage 2 one model, and the
    decision (threshold, fallback) chosen on the training pages' out-of-fold stage-2 scores."""

    stage1: list[Any]
    stage2: Any
    threshold: float = 0.5
    fallback: bool = False
    #: the decision chosen by the mean over pages instead (diagnostic, ``choose_decision``)
    threshold_by_page: float = 0.5
    fallback_by_page: bool = False
    #: tree decoders (:mod:`webseg.blocks.isotree`) chosen on the same out-of-fold scores:
    #: name -> {"c", "penalty", "threshold", "fallback", "f1"} (``choose_tree_decision``);
    #: ``isotonic``/``cut`` decode stage 2, ``isotonic-s1`` stage 1
    tree: dict[str, dict[str, Any]] | None = None
    #: the learned per-page threshold (``stack-page``; :mod:`webseg.blocks.pagedecision`),
    #: JSON as stored in the model file, fitted on the same out-of-fold stage-2 scores
    page_decision: dict[str, Any] | None = None
    #: the first page-model candidate, fitted whatever the choice (diagnostic, not shipped)
    page_decision_forced: dict[str, Any] | None = None

    def page_threshold(self, s: np.ndarray, chars: np.ndarray, X: np.ndarray,
                       forced: bool = False) -> float:
        """The ``stack-page`` threshold of one page (the global one without a page model);
        ``forced``: that of :attr:`page_decision_forced`."""
        d = self.page_decision_forced if forced else self.page_decision
        if d is None:
            return self.threshold
        key = "_pd_forced" if forced else "_pd"
        if getattr(self, key, None) is None:
            setattr(self, key, PageDecision(d))
        return getattr(self, key).threshold(s, chars, X, self.threshold)

    def s1(self, X: np.ndarray) -> np.ndarray:
        if not len(X):
            return np.zeros(0)
        raw = np.mean([m.decision_function(X[:, STAGE1_COLS]) for m in self.stage1], axis=0)
        return 1.0 / (1.0 + np.exp(-raw))

    def s2(self, X: np.ndarray, s1: np.ndarray, chars: np.ndarray,
           ranges: np.ndarray) -> np.ndarray:
        if not len(X):
            return np.zeros(0)
        X2 = np.hstack([X, context_features(s1, chars, ranges)])
        return self.stage2.predict_proba(X2[:, STAGE2_COLS])[:, 1]


def gate_parts(t: PageTable, pages: np.ndarray, k: int = PAGE_GATE_PARTS) -> np.ndarray:
    """The part of each of ``pages`` in the per-page decision's cross-fit: ``k`` parts by a
    hash of the site (:data:`webseg.blocks.pagedecision.PAGE_GATE_SALT`), so that a page is
    never decided by a page model trained on a page of its site; ``k = 0``: the two stage-2
    halves (the older gate, see :func:`fit_stages`)."""
    salt, k = (PAGE_GATE_SALT, k) if k else ("stage2-half", 2)
    return np.array([fold_of(t.meta[p]["site"], k, salt) for p in pages], dtype=np.int64)


def fit_stages(t: PageTable, pages: np.ndarray, inner_folds: int = 2, log=print,
               max_rows: int = 30, stage2_share: float = STAGE2_SHARE, choose: bool = True,
               tree_decoders: tuple[str, ...] = (), page_gate_parts: int = PAGE_GATE_PARTS,
               **hgb: Any) -> Stages:
    """Stage 1: one model per inner fold (grouped by site), each scoring the pages it did not
    see - those out-of-fold scores train stage 2; new pages get the mean of the models.
    Stage 2 trains on a ``stage2_share`` of the pages (by hash of the id; scoring every leaf
    of every training page is the expensive part), with twice the draws per page.
    ``page_gate_parts``: the parts the per-page decision's candidates are cross-fitted over
    (:func:`gate_parts`; 0: the two stage-2 halves, the older gate)."""
    pages = np.sort(np.asarray(pages))
    s1 = np.zeros(len(t.y))
    inner = np.array([fold_of(t.meta[p]["site"], inner_folds, "inner") for p in pages])
    s2_pages = np.array([_hash01("stage2:" + t.meta[p]["id"]) < stage2_share for p in pages])
    models = []
    for k in range(inner_folds):
        tr, te = pages[inner != k], pages[(inner == k) & s2_pages]
        rows, _ = training_rows(t, tr, max_rows=max_rows, seed=k)
        t0 = time.perf_counter()
        m = _hgb(**hgb).fit(t.X[rows][:, STAGE1_COLS], t.y[rows])
        r_te = t.rows(te)
        s1[r_te] = m.predict_proba(t.X[r_te][:, STAGE1_COLS])[:, 1]
        models.append(m)
        log(f"    stage 1, inner fold {k}: {len(rows)} rows, {time.perf_counter() - t0:.0f} s")
    pages2 = pages[s2_pages]
    rows2, _ = training_rows(t, pages2, max_rows=2 * max_rows, seed=7)
    # stage-2 rows of the sampled leaves (context needs the whole page's scores)
    X2 = []
    for p in pages2:
        a, b = t.off[p], t.off[p + 1]
        sel = rows2[(rows2 >= a) & (rows2 < b)]
        if not len(sel):
            continue
        ctx = context_features(s1[a:b], t.chars[a:b], t.ranges[a:b])
        X2.append(np.hstack([t.X[sel], ctx[sel - a]]))
    X2m = np.concatenate(X2)[:, STAGE2_COLS]
    t0 = time.perf_counter()
    m2 = _hgb(**hgb).fit(X2m, t.y[rows2])
    log(f"    stage 2: {len(rows2)} rows, {time.perf_counter() - t0:.0f} s")
    if not choose:
        return Stages(models, m2)
    # nested choice of the decision: stage 2 refitted on two site-grouped halves of its pages,
    # each scoring the other half's pages (every leaf), then the (threshold, fallback) with
    # the best mean page F1 over those out-of-fold scores
    t0 = time.perf_counter()
    half = gate_parts(t, pages2, 0)  # the two stage-2 halves
    row_page = np.searchsorted(t.off, rows2, side="right") - 1
    row_half = half[np.searchsorted(pages2, row_page)]
    s2 = np.zeros(len(t.y))
    for k in range(2):
        mk = _hgb(**hgb).fit(X2m[row_half != k], t.y[rows2[row_half != k]])
        for p in pages2[half == k]:
            a, b = t.off[p], t.off[p + 1]
            s2[a:b] = _stage2_scores(mk, t.X[a:b], s1[a:b], t.chars[a:b], t.ranges[a:b])
    thr, fb, f1 = choose_decision(t, pages2, s2, "dataset")
    thr_p, fb_p, f1_p = choose_decision(t, pages2, s2, "page")
    log(f"    decision: threshold {thr}, fallback {fb} (out-of-fold mean of the sets' mean F1 "
        f"{f1:.4f} on {len(pages2)} training pages; by page: {thr_p}, {fb_p}, {f1_p:.4f}), "
        f"{time.perf_counter() - t0:.0f} s")
    t0 = time.perf_counter()
    pdec, pdec_forced = choose_page_decision(t, pages2, s2, thr, fb,
                                             gate_parts(t, pages2, page_gate_parts), log)
    log(f"    per-page decision: {time.perf_counter() - t0:.0f} s")
    tree: dict[str, dict[str, Any]] = {}
    if tree_decoders:
        trees = {int(p): leaf_tree(t.ranges[t.off[p]:t.off[p + 1]]) for p in pages2}
        for name in tree_decoders:
            t0 = time.perf_counter()
            kind = "cut" if name == "cut" else "isotonic"
            tree[name] = choose_tree_decision(t, pages2, s1 if name.endswith("-s1") else s2,
                                              kind, trees)
            log(f"    {name}: {tree[name]}, {time.perf_counter() - t0:.0f} s")
    return Stages(models, m2, thr, fb, thr_p, fb_p, tree, pdec, pdec_forced)


def choose_page_decision(t: PageTable, pages: np.ndarray, s2: np.ndarray, threshold: float,
                         fallback: bool, parts: np.ndarray | None = None, log=print
                         ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The per-page threshold model (:mod:`webseg.blocks.pagedecision`) for ``pages`` under
    their out-of-fold stage-2 scores ``s2``, with the global ``fallback``.

    Every candidate of :data:`webseg.blocks.pagedecision.PAGE_CANDIDATES` (``global``: no page
    model, the global ``threshold``) is cross-fitted on the site-grouped ``parts`` (default:
    :func:`gate_parts`, :data:`~webseg.blocks.pagedecision.PAGE_GATE_PARTS` of them; each part
    decided by the model fitted on the other parts) and scored by the criterion of the global
    decision (mean over datasets of the mean page F1; ties: the earlier candidate, so
    ``global`` first). The winner is refitted on all ``pages``. Returns ``(chosen, forced)``:
    the chosen model's JSON (``None`` when ``global`` wins) with the cross-fit scores, and
    the first page-model candidate fitted on all pages whatever wins (a diagnostic)."""
    from webseg.blocks.model import decide
    from webseg.blocks.pagedecision import PAGE_CANDIDATES

    pages = np.asarray(pages)
    grid = np.asarray(THRESHOLDS, dtype=np.float64)
    feats, f1 = [], np.zeros((len(pages), len(grid)))
    for j, p in enumerate(pages):
        a, b = t.off[p], t.off[p + 1]
        feats.append(page_features(s2[a:b], t.chars[a:b], t.X[a:b], grid))
        f1[j] = [page_f1(t, p, decide(s2[a:b], float(thr), fallback))[2] for thr in grid]
    g = int(np.argmin(np.abs(grid - threshold)))
    ds = np.array([t.meta[p].get("dataset", "") for p in pages])
    groups = [ds == d for d in np.unique(ds)]
    parts = gate_parts(t, pages) if parts is None else np.asarray(parts)
    ks = np.unique(parts)
    scores: dict[str, dict[str, float]] = {}
    best: tuple[float, str] | None = None
    for name, params, margin in PAGE_CANDIDATES:
        chosen = f1[:, g].copy()
        if params is not None and len(ks) >= 2:
            for k in ks:
                pd = PageDecision(fit_page_decision(
                    [feats[j] for j in np.flatnonzero(parts != k)], f1[parts != k], grid,
                    params, margin))
                for j in np.flatnonzero(parts == k):
                    thr = pick(grid, pd.ensemble.raw(feats[j]), threshold, margin)
                    chosen[j] = f1[j, int(np.argmin(np.abs(grid - thr)))]
        crit = round(float(np.mean([chosen[m].mean() for m in groups])), 6)
        scores[name] = {"by_set": crit, "by_page": round(float(chosen.mean()), 6),
                        **{d: round(float(chosen[ds == d].mean()), 5) for d in np.unique(ds)}}
        if best is None or crit > best[0]:
            best = (crit, name)
    assert best is not None
    log(f"    per-page decision, cross-fitted on {len(ks)} site-grouped parts: " + "; ".join(
        f"{n} {v['by_set']:.4f} (by page {v['by_page']:.4f})" for n, v in scores.items())
        + f" -> {best[1]}")
    cands = {n: (p, m) for n, p, m in PAGE_CANDIDATES}
    first = next(n for n, p, _ in PAGE_CANDIDATES if p is not None)
    forced = fit_page_decision(feats, f1, grid, *cands[first])
    forced["candidate"] = first
    if cands[best[1]][0] is None:
        return None, forced
    chosen_model = forced if best[1] == first else fit_page_decision(feats, f1, grid,
                                                                      *cands[best[1]])
    chosen_model = {**chosen_model, "candidate": best[1], "crossfit": scores,
                    "crossfit_parts": len(ks)}
    return chosen_model, forced


def _stage2_scores(m2: Any, X: np.ndarray, s1: np.ndarray, chars: np.ndarray,
                   ranges: np.ndarray) -> np.ndarray:
    if not len(X):
        return np.zeros(0)
    X2 = np.hstack([X, context_features(s1, chars, ranges)])
    return m2.predict_proba(X2[:, STAGE2_COLS])[:, 1]


def choose_decision(t: PageTable, pages: np.ndarray, s2: np.ndarray, by: str = "dataset"
                    ) -> tuple[float, bool, float]:
    """The (threshold, fallback) of :data:`THRESHOLDS` x (off, on) with the best F1 on
    ``pages`` under leaf scores ``s2`` (ties: the threshold nearest 0.5, no fallback).

    ``by="dataset"`` (the default) maximises the mean over datasets of the mean page F1, so
    that every kind of page counts the same (each set has its own target; the largest set,
    WCXB, alone would pull the threshold to what suits its listings and costs news pages);
    ``by="page"`` maximises the plain mean over pages."""
    from webseg.blocks.model import decide

    if by not in ("dataset", "page"):
        raise ValueError(f"by must be 'dataset' or 'page', not {by!r}")
    pages = np.asarray(pages)
    groups = [np.ones(len(pages), dtype=bool)]
    if by == "dataset":
        ds = np.array([t.meta[p].get("dataset", "") for p in pages])
        groups = [ds == d for d in np.unique(ds)]
    best: tuple[tuple[float, float, bool], float, bool] | None = None
    for thr in THRESHOLDS:
        for fb in (False, True):
            f1 = np.array([page_f1(t, p, decide(s2[t.off[p]:t.off[p + 1]], thr, fb))[2]
                           for p in pages])
            f = float(np.mean([f1[g].mean() for g in groups]))
            key = (round(f, 6), -abs(thr - 0.5), not fb)
            if best is None or key > best[0]:
                best = (key, thr, fb)
    assert best is not None
    return best[1], best[2], best[0][0]


#: tree decoders whose regulariser and decision training chooses (stored in the model)
TREE_DECODERS = ("isotonic", "cut", "isotonic-s1")
#: the shipped model's default decoder (webseg.blocks.model.DECODERS), fixed from the
#: site-grouped CVs of eval/results/blocks/isotonic/ (tree decoders: no) and perpage/
#: (the per-page threshold, adopted by the rule pre-registered in that README)
DEFAULT_DECODER = "stack-page"

#: regulariser grid of the tree decoders (``c = 0`` is plain thresholding); ranges set so that
#: the largest changes about a tenth of a page's characters (webseg.blocks.isotree)
TREE_GRID: tuple[tuple[float, str], ...] = (
    (0.0, "share"), (1e-5, "share"), (1e-4, "share"), (1e-3, "share"),
    (1e-3, "const"), (1e-2, "const"))


def choose_tree_decision(t: PageTable, pages: np.ndarray, s: np.ndarray, kind: str,
                         trees: dict[int, Any]) -> dict[str, Any]:
    """The (c, penalty, threshold, fallback) of :data:`TREE_GRID` x :data:`THRESHOLDS` x
    (off, on) with the best mean over datasets of the mean page F1 on ``pages`` under leaf
    scores ``s`` (ties: smaller c, threshold nearer 0.5, no fallback)."""
    from webseg.blocks.model import decide

    pages = np.asarray(pages)
    ds = np.array([t.meta[p].get("dataset", "") for p in pages])
    groups = [ds == d for d in np.unique(ds)]
    best: tuple[Any, dict[str, Any]] | None = None
    for c, pen in TREE_GRID:
        sm = {}
        if kind == "isotonic":
            sm = {int(p): smooth_leaf_scores(s[t.off[p]:t.off[p + 1]],
                                             t.chars[t.off[p]:t.off[p + 1]],
                                             t.ranges[t.off[p]:t.off[p + 1]], c, pen,
                                             trees.get(int(p)))
                  for p in pages}
        for thr in THRESHOLDS:
            f1 = {False: np.zeros(len(pages)), True: np.zeros(len(pages))}
            for j, p in enumerate(pages):
                a, b = t.off[p], t.off[p + 1]
                keep = tree_decision(kind, s[a:b], t.chars[a:b], t.ranges[a:b], c, pen, thr,
                                     False, trees.get(int(p)), sm.get(int(p)))
                f1[False][j] = f1[True][j] = page_f1(t, p, keep)[2]
                if not keep.any():
                    f1[True][j] = page_f1(t, p, decide(s[a:b], thr, True))[2]
            for fb in (False, True):
                f = round(float(np.mean([f1[fb][g].mean() for g in groups])), 6)
                key = (f, -c, -abs(thr - 0.5), not fb)
                if best is None or key > best[0]:
                    best = (key, {"c": c, "penalty": pen, "threshold": thr, "fallback": fb,
                                  "f1": f})
    assert best is not None
    return best[1]


def _remap(ens: dict[str, Any], cols: np.ndarray, n_features: int,
           scale: float = 1.0) -> dict[str, Any]:
    """An exported ensemble over column subset ``cols`` as one over all ``n_features``."""
    for tr in ens["trees"]:
        tr["feature"] = [int(cols[f]) if not leaf else 0
                         for f, leaf in zip(tr["feature"], tr["leaf"], strict=True)]
        tr["value"] = [v * scale for v in tr["value"]]
    ens["n_features"] = n_features
    ens["baseline"] *= scale
    return ens


def export_stages(st: Stages) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both stages as JSON ensembles over the full feature vectors (stage 1's bag merged into
    one ensemble: mean of raw scores = all trees with values scaled by 1/len(bag))."""
    k = len(st.stage1)
    parts = [_remap(export_hgb(m), STAGE1_COLS, len(FEATURE_NAMES), 1.0 / k)
             for m in st.stage1]
    e1 = {"kind": "binary-logistic", "baseline": sum(p["baseline"] for p in parts),
          "n_features": len(FEATURE_NAMES), "trees": [tr for p in parts for tr in p["trees"]]}
    e2 = _remap(export_hgb(st.stage2), STAGE2_COLS, len(FEATURE_NAMES) + len(CONTEXT_NAMES))
    return e1, e2


def fit_model(t: PageTable, log=print, max_rows: int = 30,
              page_gate_parts: int = PAGE_GATE_PARTS, stage2_share: float = STAGE2_SHARE,
              **hgb: Any) -> dict[str, Any]:
    """The JSON model trained on every page of ``t``."""
    from webseg.blocks import ROLES

    st = fit_stages(t, np.arange(t.n_pages), log=log, max_rows=max_rows,
                    tree_decoders=TREE_DECODERS, page_gate_parts=page_gate_parts,
                    stage2_share=stage2_share, **hgb)
    e1, e2 = export_stages(st)
    datasets = sorted({m["dataset"] for m in t.meta})
    return {"format": "webseg.blocks", "version": 1, "roles": list(ROLES),
            "feature_names": list(FEATURE_NAMES), "context_names": list(CONTEXT_NAMES),
            "threshold": st.threshold, "fallback": st.fallback,
            "decoder": DEFAULT_DECODER, "tree_decoders": st.tree or {},
            "page_decision": st.page_decision,
            "page_decision_forced": st.page_decision_forced,
            "trained_on": {"datasets": datasets, "pages": t.n_pages, "rows": int(len(t.y))},
            "hgb_params": {**HGB_PARAMS, **hgb}, "max_rows": max_rows,
            "stage2_share": stage2_share,
            "stage1": e1, "stage2": e2}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m webseg.blocks.train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("table", "fit"))
    ap.add_argument("--data", action="append", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("webseg/models/blocks.json.gz"))
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--table-root", type=Path, default=TABLE_ROOT)
    ap.add_argument("--limit", type=int, default=0, help="pages per set (table)")
    ap.add_argument("--max-rows", type=int, default=30, help="training draws per page (fit)")
    ap.add_argument("--max-iter", type=int, default=HGB_PARAMS["max_iter"],
                    help="boosting iterations (fit)")
    ap.add_argument("--parsed-share", type=float, default=PARSED_SHARE,
                    help="share of pages also parsed without a browser (table)")
    ap.add_argument("--reuse", type=Path, default=None,
                    help="table: link the files of unrevealed pages to this older table "
                    "directory instead of recomputing them (see build_table)")
    ap.add_argument("--page-gate-parts", type=int, default=PAGE_GATE_PARTS,
                    help="site-grouped parts the per-page decision's candidates are "
                    "cross-fitted over (fit; 0: the two stage-2 halves, the older gate)")
    ap.add_argument("--stage2-share", type=float, default=STAGE2_SHARE,
                    help="share of the training pages stage 2 and the decisions learn from "
                    "(fit)")
    a = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if a.command == "table":
        for d in a.data:
            n = build_table(d, a.render_cache, a.table_root, a.parsed_share, a.limit, log,
                            a.reuse)
            log(f"{d}: {n} new table files")
        return 0
    names = [load_records(d)[0].dataset for d in a.data]
    t = load_tables(names, a.table_root)
    log(f"table: {t.n_pages} pages, {len(t.y)} leaves")
    model = fit_model(t, log=log, max_rows=a.max_rows, page_gate_parts=a.page_gate_parts,
                      stage2_share=a.stage2_share, max_iter=a.max_iter)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(a.out, "wt", encoding="utf-8") as f:
        json.dump(model, f, separators=(",", ":"))
    log(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
