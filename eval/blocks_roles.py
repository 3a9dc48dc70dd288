"""Finer block roles (:mod:`webseg.blocks.roles`): training table, site-grouped CV, the model.

    python -m eval.blocks_roles table          # leaf features + role labels, cached
    python -m eval.blocks_roles cv --out eval/results/blocks/roles
    python -m eval.blocks_roles fit --out webseg/models/block_roles.json.gz

Two heads, each on its own gold: ``content`` on L3S-GN1 (folds: 5, grouped by the manifest's
``site``), ``layout`` on kreuzer-random (4 folds from :func:`eval.wps.make_folds`, every page
its own site, as ``eval.cv``). Scores are pooled over the held-out leaves and weighted by
characters: per-role precision / recall / F1, accuracy, macro F1 and the confusion matrix.
Baselines: ``majority`` (the training folds' most frequent role by characters) and ``rules``
(tag, class/id vocabulary and the main model's P(main), :func:`rule_roles`).

The ``main_score`` input is the shipped main model's stage-2 P(main). That model was trained on
every L3S-GN1 page, so on L3S-GN1 this input is in-sample and the ``gbt`` numbers of the content
head are optimistic on the main/boilerplate split; ``gbt-nomain`` (the same head without that
input) is free of this leak. kreuzer-random is not in the main model's training data.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from webseg.blocks.features import FEATURE_NAMES
from webseg.blocks.model import load_model
from webseg.blocks.roles import (
    FORMAT,
    HEADS,
    MAIN_SCORE,
    align_blocks,
    kreuzer_leaf_roles,
    role_columns,
)
from webseg.datasets import (
    DEFAULT_CACHE,
    DEFAULT_PAGE_CACHE,
    cache_path,
    load_records,
    read_gold_pages,
    render_gold_pages,
)
from webseg.page import Page

L3S = Path("../shared/data/boilerplate/l3s-gn1")
KREUZER = Path("../shared/data/segmentation/kreuzer-random")
TABLE = Path(".cache/webseg/blocks/roles")
HGB: dict[str, Any] = {"max_iter": 60, "learning_rate": 0.15, "max_leaf_nodes": 15,
                       "min_samples_leaf": 20, "l2_regularization": 1.0,
                       "early_stopping": False, "random_state": 0}
ROWS = {"content": 60, "layout": 300}
FOLDS = {"content": 5, "layout": 4}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] roles: {msg}", file=sys.stderr, flush=True)


def _table_file(head: str) -> Path:
    h = hashlib.sha1("\n".join(FEATURE_NAMES).encode()).hexdigest()[:10]
    return TABLE / f"{head}.{h}.npz"


def _page_rows(page: Page) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lf, s = load_model().predict_page(page)
    return lf.X.astype(np.float32), s.astype(np.float32), lf.chars.astype(np.float32)


def build_content(data: Path = L3S) -> dict[str, Any]:
    """L3S-GN1 pages (rendered, from the shared cache) with content-role labels."""
    blocks = {}
    with gzip.open(data / "blocks.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            blocks[d["id"]] = d["blocks"]
    X, s, ch, y, pid, meta = [], [], [], [], [], []
    for r in load_records(data):
        cp = cache_path(DEFAULT_CACHE, r)
        if r.id not in blocks or not cp.is_file():
            log(f"no render or blocks: {r.id}")
            continue
        page = Page.load(cp)
        lx, ls, lc = _page_rows(page)
        lab, cov = align_blocks(page, blocks[r.id])
        X.append(lx)
        s.append(ls)
        ch.append(lc)
        y.append(lab)
        pid.append(np.full(len(lab), len(meta)))
        meta.append({"id": r.id, "site": r.site or r.id, "coverage": cov})
    return _pack(X, s, ch, y, pid, meta)


def build_layout(data: Path = KREUZER) -> dict[str, Any]:
    """kreuzer-random pages (rendered, cached) with layout-role labels."""
    from eval.wps import make_folds

    recs = read_gold_pages(data)
    pages = render_gold_pages(recs, DEFAULT_PAGE_CACHE, 2, 60.0, progress=False)
    ok = [r for r in recs if isinstance(pages.get(r.id), Page)]
    folds = make_folds([r.id for r in ok], {r.id: r.html.read_bytes() for r in ok})
    X, s, ch, y, pid, meta = [], [], [], [], [], []
    for r in ok:
        page = pages[r.id]
        assert isinstance(page, Page)
        lx, ls, lc = _page_rows(page)
        lab, missing = kreuzer_leaf_roles(page, r.blocks)
        X.append(lx)
        s.append(ls)
        ch.append(lc)
        y.append(lab)
        pid.append(np.full(len(lab), len(meta)))
        meta.append({"id": r.id, "site": r.id, "fold": int(folds[r.id]), "missing": missing})
    return _pack(X, s, ch, y, pid, meta)


def _pack(X, s, ch, y, pid, meta) -> dict[str, Any]:
    return {"X": np.concatenate(X), "main": np.concatenate(s), "chars": np.concatenate(ch),
            "y": np.concatenate(y), "page": np.concatenate(pid),
            "meta": np.array(json.dumps(meta))}


def load_table(head: str, rebuild: bool = False) -> dict[str, Any]:
    f = _table_file(head)
    if f.is_file() and not rebuild:
        with np.load(f) as z:
            d = {k: z[k] for k in z.files}
    else:
        t0 = time.perf_counter()
        d = build_content() if head == "content" else build_layout()
        f.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(f, **d)
        log(f"{head} table: {len(d['y'])} leaves, {time.perf_counter() - t0:.0f} s")
    d["meta"] = json.loads(str(d["meta"]))
    return d


def folds_of(t: dict[str, Any], head: str) -> np.ndarray:
    """Fold of every page: site hash (content) or eval.cv's folds (layout)."""
    if head == "layout":
        return np.array([m["fold"] for m in t["meta"]])
    from webseg.blocks.train import fold_of

    return np.array([fold_of(m["site"], FOLDS[head], "roles") for m in t["meta"]])


# ------------------------------------------------------------------------------ models
def inputs(t: dict[str, Any], with_main: bool = True) -> tuple[np.ndarray, list[str]]:
    cols = role_columns()
    if not with_main:
        cols = [c for c in cols if c != MAIN_SCORE]
    idx = {n: k for k, n in enumerate(FEATURE_NAMES)}
    X = np.stack([t["X"][:, idx[c]] if c != MAIN_SCORE else t["main"] for c in cols], axis=1)
    return X.astype(np.float64), cols


def sample_rows(t: dict[str, Any], pages: np.ndarray, per_page: int, seed: int = 0
                ) -> np.ndarray:
    """``per_page`` draws per page, each leaf with probability proportional to its characters
    (every page weighs the same, and within a page every character: the weighting of the
    reported scores, without sklearn's slow weighted binning)."""
    rng = np.random.default_rng(seed)
    out = []
    order = np.argsort(t["page"], kind="stable")
    bounds = np.searchsorted(t["page"][order], np.arange(len(t["meta"]) + 1))
    for p in pages.tolist():
        r = order[bounds[p]:bounds[p + 1]]
        w = t["chars"][r].astype(np.float64)
        if not len(r) or w.sum() <= 0:
            continue
        out.append(rng.choice(r, per_page, replace=True, p=w / w.sum()))
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def fit_head(X: np.ndarray, y: np.ndarray, n_roles: int, **over: Any):
    from sklearn.ensemble import HistGradientBoostingClassifier

    # every role must be present so that the columns of predict_proba are the roles
    missing = sorted(set(range(n_roles)) - set(np.unique(y).tolist()))
    if missing:
        X = np.vstack([X, np.zeros((len(missing), X.shape[1]))])
        y = np.concatenate([y, missing])
    return HistGradientBoostingClassifier(**{**HGB, **over}).fit(X, y)


def rule_roles(t: dict[str, Any], head: str) -> np.ndarray:
    """Hand-written baseline: markup tags and class/id vocabulary first, then P(main)."""
    idx = {n: k for k, n in enumerate(FEATURE_NAMES)}

    def f(name: str) -> np.ndarray:
        return np.nan_to_num(t["X"][:, idx[name]]) > 0

    main = t["main"] >= 0.5
    roles = HEADS[head]
    if head == "content":
        rules = [("title", f("t_h1_any") | (f("leaf_is_heading") & f("cat_any_title"))),
                 ("comments", f("cat_any_comment")), ("related", f("cat_any_related")),
                 ("supplemental", main & (f("t_figure_any") | f("cat_any_media")
                                          | f("cat_any_meta"))),
                 ("body", main)]
        default = "boilerplate"
    else:
        rules = [("navigation", f("t_nav_any") | f("cat_any_nav") | f("cat_any_breadcrumb")),
                 ("header", f("t_header_any") | f("cat_any_header")),
                 ("footer", f("t_footer_any") | f("cat_any_footer")),
                 ("sidebar", f("t_aside_any") | f("cat_any_sidebar")), ("content", main)]
        default = "other"
    out = np.full(len(main), roles.index(default), dtype=np.int64)
    done = np.zeros(len(main), dtype=bool)
    for name, m in rules:
        sel = m & ~done
        out[sel] = roles.index(name)
        done |= m
    return out


def scores(y: np.ndarray, pred: np.ndarray, w: np.ndarray, roles: tuple[str, ...]
           ) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Per-role character-weighted P/R/F1 and the confusion matrix (gold rows, chars)."""
    K = len(roles)
    cm = np.zeros((K, K))
    np.add.at(cm, (y, pred), w)
    rows = []
    for k, r in enumerate(roles):
        tp, g, p = cm[k, k], cm[k].sum(), cm[:, k].sum()
        pr = tp / p if p else float("nan")
        rc = tp / g if g else float("nan")
        f1 = 2 * tp / (g + p) if g + p else float("nan")
        rows.append({"role": r, "precision": pr, "recall": rc, "f1": f1, "gold_share": g / w.sum()})
    return rows, cm


def cv(head: str, out: Path) -> list[dict[str, Any]]:
    t = load_table(head)
    roles = HEADS[head]
    fold = folds_of(t, head)
    pf = fold[t["page"]]
    y = t["y"].astype(np.int64)
    w = t["chars"].astype(np.float64)
    preds: dict[str, np.ndarray] = {m: np.zeros(len(y), dtype=np.int64)
                                    for m in ("majority", "rules", "gbt-nomain", "gbt")}
    preds["rules"] = rule_roles(t, head)
    for k in range(FOLDS[head]):
        tr_pages = np.unique(t["page"][pf != k])
        te = pf == k
        counts = np.bincount(y[pf != k], weights=w[pf != k], minlength=len(roles))
        preds["majority"][te] = int(counts.argmax())
        rows = sample_rows(t, tr_pages, ROWS[head], seed=k)
        for name, wm in (("gbt-nomain", False), ("gbt", True)):
            X, _ = inputs(t, wm)
            t0 = time.perf_counter()
            m = fit_head(X[rows], y[rows], len(roles))
            preds[name][te] = m.predict_proba(X[te]).argmax(axis=1)
            log(f"{head} fold {k} {name}: {len(rows)} rows, {time.perf_counter() - t0:.0f} s")
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    for method, pred in preds.items():
        per, cm = scores(y, pred, w, roles)
        with open(out / f"{head}.{method}.per_role.csv", "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(per[0]))
            wr.writeheader()
            wr.writerows(per)
        with open(out / f"{head}.{method}.confusion.csv", "w", newline="") as f:
            wr2 = csv.writer(f)
            wr2.writerow(["gold\\pred"] + list(roles))
            for k, r in enumerate(roles):
                wr2.writerow([r] + [f"{v / max(cm[k].sum(), 1e-9):.3f}" for v in cm[k]])
        f1s = [r["f1"] for r in per if r["gold_share"] > 0]
        summary.append({"head": head, "method": method, "accuracy": np.trace(cm) / cm.sum(),
                        "macro_f1": float(np.nanmean(f1s)), "pages": len(t["meta"]),
                        "leaves": int(len(y)), **{f"f1_{r['role']}": r["f1"] for r in per}})
        log(f"{head} {method}: acc {summary[-1]['accuracy']:.3f} "
            f"macro-F1 {summary[-1]['macro_f1']:.3f}")
    return summary


def fit(out: Path) -> dict[str, Any]:
    """The shipped model: both heads on every page of their set."""
    heads = {}
    trained = {}
    cols: list[str] = []
    for head, roles in HEADS.items():
        t = load_table(head)
        X, cols = inputs(t, True)
        rows = sample_rows(t, np.arange(len(t["meta"])), ROWS[head], seed=0)
        m = fit_head(X[rows], t["y"][rows].astype(np.int64), len(roles))
        from webseg.blocks.gbt import export_hgb

        heads[head] = {"roles": list(roles), "ensemble": export_hgb(m)}
        trained[head] = {"pages": len(t["meta"]), "rows": int(len(rows))}
    model = {"format": FORMAT, "version": 1, "feature_names": cols, "heads": heads,
             "trained_on": {"content": {"dataset": "l3s-gn1", **trained["content"]},
                            "layout": {"dataset": "kreuzer-random", **trained["layout"]}},
             "hgb_params": HGB, "rows_per_page": ROWS,
             "licence": "content head trained on L3S-GN1: research use only (L3S licence, "
                        "non-transferable; the main model blocks.json.gz is trained on it too); "
                        "layout head trained on kreuzer-random (public domain)",
             "main_score": "stage-2 P(main) of webseg/models/blocks.json.gz"}
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump(model, f, separators=(",", ":"))
    log(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    return model


def write_summary(out: Path, summary: list[dict[str, Any]]) -> None:
    keys = sorted({k for r in summary for k in r}, key=lambda k: (k.startswith("f1_"), k))
    with open(out / "summary.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=keys)
        wr.writeheader()
        for r in summary:
            wr.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.blocks_roles", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("table", "cv", "fit"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--head", choices=tuple(HEADS), action="append")
    ap.add_argument("--rebuild", action="store_true")
    a = ap.parse_args(argv)
    heads = a.head or list(HEADS)
    if a.command == "table":
        for h in heads:
            load_table(h, a.rebuild)
    elif a.command == "cv":
        out = a.out or Path("eval/results/blocks/roles")
        summary = [r for h in heads for r in cv(h, out)]
        write_summary(out, summary)
    else:
        fit(a.out or Path("webseg/models/block_roles.json.gz"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
