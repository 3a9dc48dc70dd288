"""``python -m eval.blocks.decoders``: decoder variants re-scored on a CV's saved leaf scores.

    python -m eval.blocks --datasets ... --scores --out RUN     # writes RUN/scores.npz
    python -m eval.blocks.decoders --run RUN --part iter        # compare variants
    python -m eval.blocks.decoders --run RUN --part holdout     # once, at the end

A decoder change (what is kept given the leaf scores) needs no retraining: the out-of-fold
stage-2 scores and each page's ``stack-page`` threshold of a CV run (``eval.blocks
--scores``) are decoded again with each variant and scored with the CV's own per-page F1
(:func:`webseg.blocks.train.page_f1`). ``base`` reproduces the run's ``blocks-stack-page``
page for page (checked, and printed).

Parts: every site is in ``iter`` (about 80 % of the sites of each set) or ``holdout`` (the
rest, by a hash of the site with its own salt, independent of the CV folds). Variants are
compared on ``iter``; ``holdout`` is scored once, for the variant chosen there. Scores: mean
page F1 per set on rendered pages (Dragnet: its ``test`` split), and the worst change against
``base`` over the sets.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from webseg.blocks.boilerplate import boilerplate_margin
from webseg.blocks.comments import comment_margin, comment_threads
from webseg.blocks.features import FEATURE_NAMES
from webseg.blocks.model import FALLBACK_MIN, decide
from webseg.blocks.repeats import drop_copies, drop_repeated
from webseg.blocks.train import TABLE_ROOT, PageTable, fold_of, load_tables, page_f1

#: salt of the look-once part (independent of the CV folds, whose salt is empty)
HOLDOUT_SALT = "decoder-holdout"


def part_of(site: str) -> str:
    """``holdout`` for one site in five (by a hash of the site), ``iter`` otherwise."""
    return "holdout" if fold_of(site, 5, HOLDOUT_SALT) == 0 else "iter"


def page_tokens(t: PageTable, p: int) -> list[tuple[int, ...]]:
    """Each leaf's tokens (page-local ids) of page ``p``."""
    ids, off = t.tok_ids[p], t.tok_off[p]
    return [tuple(ids[off[i]:off[i + 1]].tolist()) for i in range(len(off) - 1)]


Variant = Callable[[PageTable, int, np.ndarray, np.ndarray, float], np.ndarray]


def _repeats(min_tokens: int) -> Variant:
    def f(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
        return drop_repeated(page_tokens(t, p), keep, min_tokens)
    return f


def _col(t: PageTable, p: int, name: str) -> np.ndarray:
    return t.X[t.off[p]:t.off[p + 1], FEATURE_NAMES.index(name)]


def _copies(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
    """The shipped copies step (:func:`webseg.blocks.repeats.drop_copies`): repeats dropped
    under ``share``/``hidden`` markup."""
    return drop_copies(page_tokens(t, p), t.X[t.off[p]:t.off[p + 1]], keep)


def _comments(min_words: float) -> Variant:
    """Kept leaves under a comment-category element dropped when the page keeps at least
    ``min_words`` words outside such elements (an article with its comments)."""
    def f(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
        com = _col(t, p, "cat_any_comment") > 0
        wd = t.words[t.off[p]:t.off[p + 1]]
        if wd[keep & ~com].sum() < min_words:
            return keep
        return keep & ~com
    return f


def _comment_margin(margin: float) -> Variant:
    """The shipped comment step (:func:`webseg.blocks.comments.comment_margin`) at
    ``margin``: kept leaves under comment markup need ``margin`` more than the threshold."""
    def f(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
        return comment_margin(t.X[t.off[p]:t.off[p + 1]], s, keep, thr, margin)
    return f


def _chain(*fs: Variant) -> Variant:
    def f(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
        for g in fs:
            keep = g(t, p, s, keep, thr)
        return keep
    return f


def _cat_margin(cats: str, margin: float) -> Variant:
    """Kept leaves under an element of one of the ``+``-joined categories ``cats`` need
    ``margin`` more than the threshold (the comment step's rule for other categories)."""
    def f(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
        X = t.X[t.off[p]:t.off[p + 1]]
        inside = np.zeros(len(keep), dtype=bool)
        for c in cats.split("+"):
            inside |= X[:, FEATURE_NAMES.index(f"cat_any_{c}")] > 0
        return keep & ~(inside & (s < thr + margin))
    return f


BOILER = "nav+footer+sidebar+comment+share+related+ad+cookie"


def _boiler_near(margin: float) -> Variant:
    """The shipped nearby-boilerplate step (:func:`webseg.blocks.boilerplate
    .boilerplate_margin`) at ``margin``."""
    def f(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
        return boilerplate_margin(t.X[t.off[p]:t.off[p + 1]], s, keep, thr, margin)
    return f


def _threads(share: float) -> Variant:
    """The shipped comment-thread step (:func:`webseg.blocks.comments.comment_threads`)."""
    def f(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
        a, b = t.off[p], t.off[p + 1]
        return comment_threads(t.X[a:b], t.ranges[a:b], t.chars[a:b], keep, share)
    return f


def _comment_runs(share: float) -> Variant:
    """Tried, not shipped: a thread taken as the maximal run of consecutive comment-markup
    leaves in document order (instead of the widest all-comment context subtree), dropped
    when less than ``share`` of its characters is kept and something outside it is."""
    def f(t: PageTable, p: int, s: np.ndarray, keep: np.ndarray, thr: float) -> np.ndarray:
        a, b = t.off[p], t.off[p + 1]
        com = t.X[a:b, FEATURE_NAMES.index("cat_any_comment")] > 0
        ch = t.chars[a:b].astype(np.float64)
        out = keep.copy()
        i, n = 0, len(keep)
        while i < n:
            j = i
            while j < n and com[j]:
                j += 1
            if j > i and keep[i:j].any() and keep[:i].sum() + keep[j:].sum() > 0 \
                    and (ch[i:j] * keep[i:j]).sum() < share * ch[i:j].sum():
                out[i:j] = False
            i = max(j, i + 1)
        return out
    return f


#: the default decoder steps before this comparison (copies, comment margin 0.2)
_DEFAULT_STEPS = (_copies, _comment_margin(0.2))


VARIANTS: dict[str, Variant] = {
    "base": lambda t, p, s, keep, thr: keep,
    "repeats-8": _repeats(8),
    "repeats-8-share-hidden": _copies,
    "comments-50": _comments(50),
    "comments-200": _comments(200),
    "comment-margin-0.1": _comment_margin(0.1),
    "comment-margin-0.2": _comment_margin(0.2),
    "comment-margin-0.3": _comment_margin(0.3),
    "copies+comment-margin-0.1": _chain(_copies, _comment_margin(0.1)),
    "copies+comment-margin-0.2": _chain(_copies, _comment_margin(0.2)),
    "related-margin-0.1": _cat_margin("related", 0.1),
    "related-margin-0.2": _cat_margin("related", 0.2),
    "sidebar-margin-0.1": _cat_margin("sidebar", 0.1),
    "meta-margin-0.1": _cat_margin("meta", 0.1),
    "boiler-margin-0.1": _cat_margin(BOILER, 0.1),
    "boiler-margin-0.2": _cat_margin(BOILER, 0.2),
    "copies+boiler-margin-0.1": _chain(_copies, _cat_margin(BOILER, 0.1)),
    "sidebar+comment-margin-0.1": _cat_margin("sidebar+comment", 0.1),
    "copies+sidebar+comment-margin-0.1": _chain(_copies, _cat_margin("sidebar+comment", 0.1)),
    "copies+comment-0.2+sidebar-0.1": _chain(_copies, _comment_margin(0.2),
                                             _cat_margin("sidebar", 0.1)),
    "comment-margin-0.4": _comment_margin(0.4),
    # against the default steps (copies + comment margin 0.2): nearby boilerplate markup
    # needs a margin; comment threads decided by their majority
    "default": _chain(*_DEFAULT_STEPS),
    "default+boiler-near-0.1": _chain(*_DEFAULT_STEPS, _boiler_near(0.1)),
    "default+threads-0.5": _chain(*_DEFAULT_STEPS, _threads(0.5)),
    "default+boiler-near-0.1+threads-0.5": _chain(*_DEFAULT_STEPS, _boiler_near(0.1),
                                                  _threads(0.5)),
    "default+boiler-near-0.05": _chain(*_DEFAULT_STEPS, _boiler_near(0.05)),
    "default+boiler-near-0.15": _chain(*_DEFAULT_STEPS, _boiler_near(0.15)),
    "default+threads-0.3": _chain(*_DEFAULT_STEPS, _threads(0.3)),
    "default+threads-0.7": _chain(*_DEFAULT_STEPS, _threads(0.7)),
    "default+comment-runs-0.5": _chain(*_DEFAULT_STEPS, _comment_runs(0.5)),
    "default+boiler-any-0.1": _chain(*_DEFAULT_STEPS, _cat_margin(BOILER, 0.1)),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.blocks.decoders", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", type=Path, required=True, help="a CV run with scores.npz")
    ap.add_argument("--part", choices=("iter", "holdout", "all"), default="iter")
    ap.add_argument("--variant", action="append", choices=sorted(VARIANTS),
                    help="variants to score (default: all)")
    ap.add_argument("--table-root", type=Path, default=TABLE_ROOT)
    ap.add_argument("--lang-dataset", default="daniel-multilingual-v2.1",
                    help="the set also scored per language on its parsed pages (the language "
                    "is the id's prefix)")
    ap.add_argument("--leaves-out", type=Path, default=None,
                    help="write that set's kept leaves per variant to DIR/leaves.npz (the "
                    "form of eval.blocks --leaves, for eval.blocks.multilingual)")
    ap.add_argument("--per-page", type=Path, default=None,
                    help="write per-page F1 of every variant here (CSV)")
    a = ap.parse_args(argv)
    z = np.load(a.run / "scores.npz")
    meta = json.loads(str(z["meta"]))
    datasets = list(dict.fromkeys(m["dataset"] for m in meta))
    t = load_tables(datasets, a.table_root)
    if [(m["dataset"], m["id"], m["variant"]) for m in t.meta] != \
            [(m["dataset"], m["id"], m["variant"]) for m in meta]:
        raise SystemExit("the table's pages differ from the run's: rebuild or use its table")
    names = a.variant or list(VARIANTS)
    if "base" not in names:
        names = ["base", *names]
    s2_all = z["s2"].astype(np.float64)
    sums: dict[tuple[str, str], list[float]] = defaultdict(list)
    by_lang: dict[tuple[str, str], list[float]] = defaultdict(list)
    leaves: dict[str, list[np.ndarray]] = defaultdict(list)
    leaf_pages: list[int] = []
    rows = []
    for p, m in enumerate(meta):
        if m["dataset"] == "dragnet" and m.get("split") != "test":
            continue
        part = part_of(m["site"])
        if a.part != "all" and part != a.part:
            continue
        if m["variant"] != "rendered" and m["dataset"] != a.lang_dataset:
            continue
        lo, hi = t.off[p], t.off[p + 1]
        s = s2_all[lo:hi]
        thr, fb = float(z["page_threshold"][p]), bool(z["fallback"][p])
        keep = decide(s, thr, fb)
        if fb and len(s) and not (s >= thr).any() and s.max() >= FALLBACK_MIN:
            thr = float(s.max()) / 2
        if m["dataset"] == a.lang_dataset:
            leaf_pages.append(p)
        for n in names:
            kept = VARIANTS[n](t, p, s, keep, thr)
            f1 = page_f1(t, p, kept)[2]
            if m["dataset"] == a.lang_dataset:
                leaves[n].append(kept)
                if m["variant"] == "parsed":
                    by_lang[(m["id"].split("-")[0], n)].append(f1)
                    continue
            sums[(m["dataset"], n)].append(f1)
            rows.append((m["dataset"], m["id"], part, n, f1))
    out = ["| variant | " + " | ".join(datasets) + " | worst change |",
           "|---|" + "---:|" * (len(datasets) + 1)]
    for n in names:
        cells, worst = [], np.inf
        for ds in datasets:
            v = np.mean(sums[(ds, n)]) if sums[(ds, n)] else np.nan
            b = np.mean(sums[(ds, "base")]) if sums[(ds, "base")] else np.nan
            worst = min(worst, v - b)
            cells.append(f"{v:.4f} ({len(sums[(ds, n)])})")
        out.append(f"| {n} | " + " | ".join(cells) + f" | {worst:+.4f} |")
    langs = sorted({k[0] for k in by_lang})
    if langs:
        out += ["", f"{a.lang_dataset}, parsed pages, per language (table tokens):", "",
                "| variant | " + " | ".join(langs) + " |", "|---|" + "---:|" * len(langs)]
        for n in names:
            out.append(f"| {n} | " + " | ".join(
                f"{np.mean(by_lang[(lg, n)]):.4f} ({len(by_lang[(lg, n)])})" for lg in langs)
                + " |")
    print("\n".join(out))
    if a.leaves_out and leaf_pages:
        sizes = [int(t.off[p + 1] - t.off[p]) for p in leaf_pages]
        lmeta = [{k: meta[p][k] for k in ("dataset", "id", "variant", "site")}
                 for p in leaf_pages]
        a.leaves_out.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(a.leaves_out / "leaves.npz", meta=np.array(json.dumps(lmeta)),
                            off=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                            **{f"blocks-stack-page{'' if n == 'base' else '+' + n}":
                               np.concatenate(v) for n, v in leaves.items()})
    if a.per_page:
        import csv

        with a.per_page.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["dataset", "id", "part", "variant", "f1"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
