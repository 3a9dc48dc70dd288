"""``python -m eval.blocks``: site-grouped cross-validation of the block model, beside peers.

    python -m webseg.blocks.train table --data ../shared/data/wcxb-dev --data ...  # once
    python -m eval.blocks --datasets wcxb,dragnet,cleaneval,l3s-gn1,cleanportaleval \\
        --out eval/results/blocks

Protocol. Every page of the training table (:mod:`webseg.blocks.train`; rendered pages and
the parsed copy of a fixed share of them: 35 % WCXB, 10 % the others) gets a fold from the hash
of its manifest ``site`` (``k`` folds, the same for all datasets, so a site is never in two
folds, and a page's parsed copy stays with its rendered page). For each fold the two stages
are trained on the other folds (stage 2 on inner out-of-fold stage-1 scores) and the held-out
pages are scored with each decoder. Dragnet is reported on its ``test`` split only (its train
pages are scored too, but left out of the tables, as in ``eval.templates``). Scores are the
bag-of-words P/R/F1 of ``eval.templates`` (mean over pages); the peers' per-page scores come
from the committed ``eval/results/templates/per_page.csv.gz`` (same pages, same scorer), and
the comparison tables use only pages that every method scored.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from webseg.blocks.context import context_features
from webseg.blocks.isotree import leaf_tree
from webseg.blocks.model import decide, tree_decision
from webseg.blocks.pagedecision import PAGE_GATE_PARTS
from webseg.blocks.train import (
    STAGE2_COLS,
    STAGE2_SHARE,
    TABLE_ROOT,
    PageTable,
    Stages,
    fit_stages,
    fold_of,
    load_tables,
    page_f1,
)

DECODERS = ("threshold", "stack", "isotonic-s1", "isotonic", "cut")
#: tree decoders (webseg.blocks.isotree) whose regulariser and decision each training fold
#: chooses (webseg.blocks.train.choose_tree_decision)
TREE_DECODERS = ("isotonic-s1", "isotonic", "cut")


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    import gzip

    with gzip.open(path, "wt", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def decodings(s1: np.ndarray, s2: np.ndarray, threshold: float, st: Stages,
              chars: np.ndarray | None = None, ranges: np.ndarray | None = None,
              X: np.ndarray | None = None) -> list[tuple[str, np.ndarray]]:
    """The decoders compared: stage 1 thresholded, stage 2 thresholded at ``threshold``, stage
    2 with the decision chosen on the training folds (``stack-nested``: threshold and fallback
    from :func:`webseg.blocks.train.choose_decision`, mean over sets; what the shipped model
    does; ``stack-nested-by-page``: the same chosen by the mean over pages), and two
    fixed diagnostics of stage 2 (threshold 0.4; the fallback at ``threshold``). With
    ``chars``/``ranges``, the tree decoders chosen on the training folds (``st.tree``:
    ``isotonic-s1-nested``, PageLevel isotonic smoothing of stage 1 over the DOM tree then its
    threshold - the paper's pipeline with our classifier; ``isotonic-nested`` the same on stage
    2; ``cut-nested`` the two-level version on stage 2). With ``chars`` and the leaf features
    ``X``, ``stack-page``: stage 2 at the threshold the training folds' per-page model
    (:mod:`webseg.blocks.pagedecision`) picks for this page, with the nested fallback (the
    global threshold when the training folds chose no page model); ``stack-page-forced``: the
    first page-model candidate whatever the training folds chose (diagnostic)."""
    out = [("threshold", s1 >= threshold), ("stack", s2 >= threshold),
           ("stack-nested", decide(s2, st.threshold, st.fallback)),
           ("stack-nested-by-page", decide(s2, st.threshold_by_page, st.fallback_by_page)),
           ("stack-t0.4", s2 >= 0.4), ("stack-fallback", decide(s2, threshold, True))]
    if chars is not None and X is not None:
        out.append(("stack-page", decide(s2, st.page_threshold(s2, chars, X), st.fallback)))
        if st.page_decision_forced is not None:
            out.append(("stack-page-forced",
                        decide(s2, st.page_threshold(s2, chars, X, True), st.fallback)))
    if chars is not None and ranges is not None and st.tree:
        tree = leaf_tree(ranges)
        for name, d in st.tree.items():
            kind = "cut" if name == "cut" else "isotonic"
            s = s1 if name.endswith("-s1") else s2
            out.append((f"{name}-nested",
                        tree_decision(kind, s, chars, ranges, d["c"], d["penalty"],
                                      d["threshold"], d["fallback"], tree)))
        # the stage-2 tree decoder with the better training-fold criterion (ties: isotonic,
        # whose grid holds c = 0, i.e. stack-nested itself)
        cands = [n for n in ("isotonic", "cut") if n in st.tree]
        if cands:
            pick = max(cands, key=lambda n: (st.tree[n]["f1"], n == "isotonic"))
            out.append(("auto-nested", dict(out)[f"{pick}-nested"]))
    return out


#: decoders whose per-leaf decisions :func:`write_leaves` keeps
LEAF_DECODERS = ("blocks-stack-page", "blocks-stack-nested", "blocks-threshold")


def write_leaves(path: Path, t: PageTable, leaf_out: dict[str, np.ndarray],
                 datasets: set[str]) -> None:
    """The out-of-fold per-leaf decisions of the pages of ``datasets``: for page ``k``,
    ``meta[k]`` (dataset, id, variant) and, per decoder of :data:`LEAF_DECODERS`, its leaves'
    decisions ``dec[off[k]:off[k + 1]]`` (in the page's text-leaf order, as in the table)."""
    import json

    pages = [p for p in range(t.n_pages) if t.meta[p]["dataset"] in datasets]
    rows = t.rows(pages)
    sizes = [int(t.off[p + 1] - t.off[p]) for p in pages]
    meta = [{k: t.meta[p][k] for k in ("dataset", "id", "variant", "site")} for p in pages]
    np.savez_compressed(path, meta=np.array(json.dumps(meta)),
                        off=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                        **{d: leaf_out[d][rows] for d in LEAF_DECODERS if d in leaf_out})


def write_scores(path: Path, t: PageTable, score_out: dict[str, np.ndarray]) -> None:
    """The out-of-fold scores of every page of the table (see :func:`cv_predict`), with the
    pages' meta in table order: page ``k``'s leaves are rows ``off[k]:off[k + 1]`` of the table
    (:func:`webseg.blocks.train.load_tables` with the same datasets gives the same order)."""
    import json

    meta = [{k: t.meta[p].get(k) for k in ("dataset", "id", "variant", "site", "split",
                                           "page_type")} for p in range(t.n_pages)]
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), off=np.asarray(t.off),
                        **score_out)


def cv_predict(t: PageTable, folds: int, log, threshold: float = 0.5, max_rows: int = 30,
               out_csv: Path | None = None, tree_decoders: tuple[str, ...] = TREE_DECODERS,
               leaf_out: dict[str, np.ndarray] | None = None,
               page_gate_parts: int = PAGE_GATE_PARTS, stage2_share: float = STAGE2_SHARE,
               score_only: frozenset[str] = frozenset(),
               score_out: dict[str, np.ndarray] | None = None, **hgb: Any) -> list[dict[str, Any]]:
    """Per-page out-of-fold scores for every decoder (written to ``out_csv`` after each fold,
    so an interrupted run keeps its finished folds). ``leaf_out``: a dict filled with the
    out-of-fold per-leaf decisions, ``"blocks-<decoder>"`` -> bool array over the table's
    rows (``t.off``), for later post-processing (:mod:`eval.blocks.siterepeat`).
    ``page_gate_parts``: the parts of each training fold's per-page decision gate
    (:func:`webseg.blocks.train.gate_parts`; 0: the sixth run's two stage-2 halves).
    ``stage2_share``: share of each training fold's pages stage 2 learns from.
    ``score_only``: datasets whose pages are scored in their fold but never trained on (the
    model as it would be without them, e.g. a new set before it is added to training).
    ``score_out``: a dict filled with the out-of-fold scores, for decoders studied later
    without retraining (:func:`write_scores`): ``s1``/``s2`` per table row, and per page its
    fold, the ``stack-page`` threshold and the training fold's global threshold and fallback."""
    fold = np.array([fold_of(m["site"], folds) for m in t.meta])
    trainable = np.array([m["dataset"] not in score_only for m in t.meta], dtype=bool)
    rows: list[dict[str, Any]] = []
    for k in range(folds):
        t0 = time.perf_counter()
        tr = np.flatnonzero((fold != k) & trainable)
        te = np.flatnonzero(fold == k)
        st = fit_stages(t, tr, log=log, max_rows=max_rows, tree_decoders=tree_decoders,
                        page_gate_parts=page_gate_parts, stage2_share=stage2_share, **hgb)
        r_te = t.rows(te)
        s1_all = np.zeros(len(t.y))
        s2_all = np.zeros(len(t.y))
        s1_all[r_te] = st.s1(t.X[r_te])
        X2 = np.vstack([np.hstack([t.X[t.off[p]:t.off[p + 1]],
                                   context_features(s1_all[t.off[p]:t.off[p + 1]],
                                                    t.chars[t.off[p]:t.off[p + 1]],
                                                    t.ranges[t.off[p]:t.off[p + 1]])])
                        for p in te])
        s2_all[r_te] = st.stage2.predict_proba(X2[:, STAGE2_COLS])[:, 1]
        if score_out is not None:
            for name, n in (("s1", len(t.y)), ("s2", len(t.y))):
                score_out.setdefault(name, np.zeros(n, dtype=np.float32))
            for name in ("fold", "page_threshold", "threshold", "fallback"):
                score_out.setdefault(name, np.full(t.n_pages, np.nan))
            score_out["s1"][r_te] = s1_all[r_te]
            score_out["s2"][r_te] = s2_all[r_te]
            for p in te:
                a, b = t.off[p], t.off[p + 1]
                score_out["fold"][p] = k
                score_out["page_threshold"][p] = st.page_threshold(s2_all[a:b], t.chars[a:b],
                                                                   t.X[a:b])
                score_out["threshold"][p] = st.threshold
                score_out["fallback"][p] = float(st.fallback)
        for p in te:
            a, b = t.off[p], t.off[p + 1]
            for dec, keep in decodings(s1_all[a:b], s2_all[a:b], threshold, st, t.chars[a:b],
                                       t.ranges[a:b], t.X[a:b]):
                pr, rc, f1 = page_f1(t, p, keep)
                if leaf_out is not None:
                    leaf_out.setdefault(f"blocks-{dec}", np.zeros(len(t.y), dtype=bool))[a:b] = keep
                rows.append({**{k_: t.meta[p][k_] for k_ in ("dataset", "id", "variant",
                                                              "page_type", "split", "site")},
                             "fold": k, "method": f"blocks-{dec}", "p": pr, "r": rc, "f1": f1})
        for name, d in (st.tree or {}).items():
            log(f"    fold {k} {name}: {d}")
        log(f"    fold {k} stack-page: "
            f"{(st.page_decision or {}).get('candidate', 'global')}")
        if st.page_decision is not None:
            chosen: dict[str, list[float]] = defaultdict(list)
            for p in te:
                a, b = t.off[p], t.off[p + 1]
                chosen[t.meta[p]["dataset"]].append(
                    st.page_threshold(s2_all[a:b], t.chars[a:b], t.X[a:b]))
            log(f"    fold {k} stack-page thresholds (held-out pages): " + "; ".join(
                f"{ds} " + " ".join(f"{v:g}:{n}" for v, n in zip(*np.unique(c, return_counts=True),
                                                               strict=True))
                for ds, c in sorted(chosen.items())))
        log(f"  fold {k}: {len(tr)} train pages, {len(te)} test pages, decision "
            f"{st.threshold}/{'fallback' if st.fallback else 'no fallback'}, "
            f"{time.perf_counter() - t0:.0f} s")
        if out_csv is not None and rows:
            write_rows(out_csv, rows)
    return rows


def _mean(v: list[float]) -> float:
    a = np.array([x for x in v if x is not None], dtype=float)
    a = a[~np.isnan(a)]
    return float(a.mean()) if len(a) else float("nan")


def reported(row: dict[str, Any]) -> bool:
    """Dragnet is reported on its test split only (as in eval.templates)."""
    return not (row["dataset"] == "dragnet" and row.get("split") not in (None, "test"))


PEER_METHODS = ("trafilatura", "readability", "justext", "boilerpy3", "pagelevel", "keep-all")


def peer_rows(per_page_csv: Path) -> list[dict[str, Any]]:
    """Per-page results of the peers (and PageLevel, keep-all) from ``eval.templates``'
    committed per-page table (same pages, same scorer; they do not depend on our model)."""
    import gzip

    out = []
    with gzip.open(per_page_csv, "rt", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["method"] not in PEER_METHODS:
                continue
            ds = {"wcxb-dev": "wcxb"}.get(r["dataset"], r["dataset"])
            out.append({"dataset": ds, "id": r["id"], "method": r["method"],
                        "f1": float(r["f1"]) if r["f1"] not in ("", "nan") else float("nan")})
    return out


def summarise(rows: list[dict[str, Any]], peers: list[dict[str, Any]]) -> str:
    """Markdown tables: F1 per dataset (and variant), per WCXB page type; same pages for all."""
    ours = [r for r in rows if reported(r)]
    by_page = {(r["dataset"], r["id"]): r for r in ours if r["variant"] == "rendered"}
    peer_by = defaultdict(dict)
    for r in peers:
        if (r["dataset"], r["id"]) in by_page:
            peer_by[r["method"]][(r["dataset"], r["id"])] = r
    peer_names = [m for m in PEER_METHODS if m in peer_by]
    datasets = sorted({r["dataset"] for r in ours})
    lines = ["## Main-content word F1 (mean over pages), site-grouped CV", "",
             "| method | variant | " + " | ".join(datasets) + " |",
             "|---|---|" + "---:|" * len(datasets)]
    for meth in sorted({r["method"] for r in ours}):
        for var in ("rendered", "parsed"):
            cells = []
            for ds in datasets:
                v = [r["f1"] for r in ours if r["method"] == meth and r["variant"] == var
                     and r["dataset"] == ds]
                cells.append(f"{_mean(v):.3f} ({len(v)})" if v else "-")
            lines.append(f"| {meth} | {var} | " + " | ".join(cells) + " |")
    # the peers and ours on exactly the same pages (rendered pages with a result from every peer)
    lines += ["", "## Same pages: ours (rendered) vs peers", "",
              "| method | " + " | ".join(datasets) + " |", "|---|" + "---:|" * len(datasets)]
    common = {k for k in by_page if all(k in peer_by[m] for m in peer_names)}
    meths = sorted({r["method"] for r in ours})
    for meth in meths + peer_names:
        cells = []
        for ds in datasets:
            keys = [k for k in common if k[0] == ds]
            if meth in peer_names:
                v = [peer_by[meth][k]["f1"] for k in keys]
            else:
                v = [r["f1"] for r in ours if r["method"] == meth and r["variant"] == "rendered"
                     and (r["dataset"], r["id"]) in common and r["dataset"] == ds]
            cells.append(f"{_mean(v):.3f} ({len(v)})" if v else "-")
        lines.append(f"| {meth} | " + " | ".join(cells) + " |")
    types = sorted({r["page_type"] for r in ours if r["page_type"]})
    if types:
        lines += ["", "## WCXB per page type (same pages)", "",
                  "| method | " + " | ".join(types) + " |", "|---|" + "---:|" * len(types)]
        for meth in meths + peer_names:
            cells = []
            for pt in types:
                keys = [k for k in common if by_page[k]["page_type"] == pt]
                if meth in peer_names:
                    v = [peer_by[meth][k]["f1"] for k in keys]
                else:
                    v = [r["f1"] for r in ours if r["method"] == meth
                         and r["variant"] == "rendered" and r["page_type"] == pt
                         and (r["dataset"], r["id"]) in common]
                cells.append(f"{_mean(v):.3f} ({len(v)})" if v else "-")
            lines.append(f"| {meth} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.blocks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="wcxb,dragnet,cleaneval,l3s-gn1,cleanportaleval",
                    help="table names (the manifests' source)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path("eval/results/blocks"))
    ap.add_argument("--table-root", type=Path, default=TABLE_ROOT)
    ap.add_argument("--peers-csv", type=Path,
                    default=Path("eval/results/templates/per_page.csv.gz"),
                    help="eval.templates per-page results holding the peers")
    ap.add_argument("--max-rows", type=int, default=12, help="training draws per page")
    ap.add_argument("--max-iter", type=int, default=70, help="boosting iterations")
    ap.add_argument("--tree-decoders", default=",".join(TREE_DECODERS),
                    help="tree decoders chosen on the training folds and reported "
                    "(comma-separated; empty: none)")
    ap.add_argument("--page-gate-parts", type=int, default=PAGE_GATE_PARTS,
                    help="site-grouped parts the per-page decision's candidates are "
                    "cross-fitted over in each training fold (0: the two stage-2 halves, "
                    "the sixth run's gate)")
    ap.add_argument("--stage2-share", type=float, default=STAGE2_SHARE,
                    help="share of each training fold's pages stage 2 and the decisions "
                    "learn from")
    ap.add_argument("--table-dir", type=Path, default=None,
                    help="a table directory (<table-root>/<hash>) instead of the current "
                    "features' one, e.g. one built by older features code for a baseline")
    ap.add_argument("--score-only", default="",
                    help="datasets scored in their folds but never trained on "
                    "(comma-separated)")
    ap.add_argument("--leaves", default="",
                    help="datasets whose out-of-fold per-leaf decisions are written to "
                    "<out>/leaves.npz (for eval.blocks.multilingual)")
    ap.add_argument("--scores", action="store_true",
                    help="also write every page's out-of-fold stage-1/stage-2 scores and "
                    "thresholds to <out>/scores.npz (to study decoders without retraining)")
    ap.add_argument("--report-only", action="store_true",
                    help="tables from the per-page CSV already in --out")
    a = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    datasets = [d for d in a.datasets.split(",") if d]
    a.out.mkdir(parents=True, exist_ok=True)
    per_page = a.out / "per_page.csv.gz"
    if a.report_only:
        import gzip

        with gzip.open(per_page, "rt", encoding="utf-8") as f:
            rows = [{**r, "f1": float(r["f1"]), "p": float(r["p"]), "r": float(r["r"])}
                    for r in csv.DictReader(f)]
    else:
        t = load_tables(datasets, a.table_root, directory=a.table_dir)
        log(f"table: {t.n_pages} pages ({sum(m['variant'] == 'parsed' for m in t.meta)} "
            f"parsed), {len(t.y)} leaves")
        leaf_out: dict[str, np.ndarray] | None = {} if a.leaves else None
        score_out: dict[str, np.ndarray] | None = {} if a.scores else None
        rows = cv_predict(t, a.folds, log, max_rows=a.max_rows, out_csv=per_page,
                          tree_decoders=tuple(d for d in a.tree_decoders.split(",") if d),
                          page_gate_parts=a.page_gate_parts, stage2_share=a.stage2_share,
                          score_only=frozenset(d for d in a.score_only.split(",") if d),
                          leaf_out=leaf_out, score_out=score_out, max_iter=a.max_iter)
        if score_out is not None:
            write_scores(a.out / "scores.npz", t, score_out)
        if leaf_out is not None:
            write_leaves(a.out / "leaves.npz", t, leaf_out,
                         {d for d in a.leaves.split(",") if d})
    peers = [r for r in peer_rows(a.peers_csv) if r["dataset"] in datasets]
    md = summarise(rows, peers)
    cmd = "python -m eval.blocks " + " ".join(sys.argv[1:] if argv is None else argv)
    (a.out / "summary.md").write_text(f"Command: `{cmd}`\n\n{md}", encoding="utf-8")
    print(md)
    return 0
