"""Page types across languages: tokenisation and non-English training pages, site-grouped CV.

``python -m eval.classify.multilingual --out eval/results/classify/multilingual``
``python -m eval.classify.multilingual --out ... --holdout CONFIG[,CONFIG]`` (once, at the end)

Data: WCXB dev (7 types, English-language sites with a few others) and ``daniel-dev`` (news
articles in zh, en, ru, pl, el: every page is an ``article``). Pages are parsed without a
browser (the shipped model is trained the same way, ``--no-render``).

**Look-once holdout.** About a fifth of the sites of each collection (:func:`holdout_site`:
the first byte of the SHA-256 of the site name < 52) are set aside. The CV below never sees
them; ``--holdout`` trains each named configuration on every other page and reports these
pages, and is meant to run once, after the configuration was chosen on the CV.

**CV.** The other pages, 5 outer folds grouped by site (stratified by collection + type,
seed 0). Per fold and configuration, every view's model is fitted on the fold's training
pages with ``C`` from an inner site-grouped 5-fold CV, which also gives the out-of-fold
outputs the stacker learns from (``--stacker``, default ``gbdt-bal``, the kind the inner CV
chose for the shipped model and in 4 of 5 folds of its CV; ``auto`` chooses per fold as
training does, at 5x the cost; calibrated). Test
pages are never seen by any fitting or choice. Configurations:

* ``a``: today's model: views ``text,title`` tokenised by ``\\w\\w+``, trained on WCXB only;
* ``b``: the words of every script (:func:`classify.text.words`), trained on WCXB only;
* ``c``: ``b`` + the daniel-dev pages of the training folds in training;
* ``c-<views>``: ``c``'s base models under a stacker over fewer views (language-neutral
  stacks without the text / title views: the risk that language stands in for ``article``).

Reported: WCXB accuracy and macro-F1 over its 7 types (pooled over the folds, and the spread
of per-fold accuracy: the CV noise), the share of daniel-dev pages called ``article`` per
language, and the proxy check: the WCXB pages whose text is confidently not English
(:func:`webseg.lang.identify`), their accuracy and how many of the non-articles among them
are called ``article``; and the language swap (:func:`swap_donors`): the WCXB non-article
test pages given the text and title of daniel-dev test pages of each language, the rest of
the page kept, and the share of them then called ``article`` (how much a language alone
pulls a page towards the only type it was seen with).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.model_selection import StratifiedGroupKFold

from classify.corpus import compute_page_views
from classify.stacked import (
    DEFAULT_VIEWS,
    VIEW_SPECS,
    StackedModel,
    ViewCounts,
    _field,
    _folds,
    count_matrix,
    fit_view,
)
from eval.classify.harness import macro
from webseg.datasets import load_records

WCXB = "../shared/data/wcxb-dev"
DANIEL = "../shared/data/boilerplate/daniel-dev"
#: today's text / title tokenisation (what the shipped model before this harness used)
OLD_TOKENS = {"token_pattern": r"(?u)\b\w\w+\b"}
TEXT_VIEWS = ("text", "title")
NEUTRAL = ("url", "dom", "head", "struct")
#: configuration -> (tokenisation, daniel-dev in training, views of the stack)
CONFIGS: dict[str, tuple[str, bool, tuple[str, ...]]] = {
    "a": ("old", False, DEFAULT_VIEWS),
    "b": ("new", False, DEFAULT_VIEWS),
    "c": ("new", True, DEFAULT_VIEWS),
    "c-notext": ("new", True, tuple(v for v in DEFAULT_VIEWS if v != "text")),
    "c-neutral": ("new", True, NEUTRAL),
}
LANGS = ("en", "zh", "ru", "pl", "el")


def holdout_site(site: str) -> bool:
    """Whether a site is in the look-once holdout (~20 % of sites, fixed by its name)."""
    return hashlib.sha256(site.encode("utf-8")).digest()[0] < 52


def params_for(view: str, tok: str) -> dict[str, Any] | None:
    """The vectoriser parameters of ``view`` under tokenisation ``tok`` (old / new)."""
    p = VIEW_SPECS[view][1]
    if p is None or view not in TEXT_VIEWS or tok == "new":
        return p
    q = {k: v for k, v in p.items() if k != "tokens"}
    q.update(OLD_TOKENS)
    return q


def load(log: Any = print) -> dict[str, Any]:
    """Records, views, labels, sites, languages of both collections."""
    recs = [r for r in load_records(WCXB) if r.label] + list(load_records(DANIEL))
    vs = compute_page_views(recs, log=log, rendered=False)
    have = [r for r in recs if r.id in vs.texts["pageviews"]]
    man = {}
    with open(Path(DANIEL) / "manifest.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            man[d["id"]] = d["lang"]
    from webseg.lang import identify

    lang = []
    for r in have:
        if r.id in man and r.dataset != "wcxb":
            lang.append(man[r.id])
        else:  # WCXB has no language field: the text's, when the detector is sure
            li = identify(vs.texts["pageviews"][r.id]["text"][:2000])
            lang.append(li.code if li.code and li.confidence >= 0.9 else "?")
    return {"recs": have, "docs": [vs.texts["pageviews"][r.id] for r in have],
            "y": np.array([str(r.label) for r in have], dtype=object),
            "ds": np.array(["wcxb" if r.dataset == "wcxb" else "daniel" for r in have]),
            "site": np.array([r.site or f"#{r.id}" for r in have]),
            "lang": np.array(lang), "missing": vs.missing}


def fit_config(D: dict[str, Any], counts: dict[tuple[str, str], ViewCounts], tr: np.ndarray,
               te: np.ndarray, cfgs: list[str], log: Any = print, stacker: str = "auto"
               ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, np.ndarray]]]:
    """Test predictions of every configuration in ``cfgs`` trained on pages ``tr``, and the
    language-swap predictions (:func:`swap_donors`): ``({config: pred}, {config: {lang:
    pred of the WCXB non-article test pages with that language's text and title}})``."""
    cache: dict[tuple[str, str, bool], tuple[np.ndarray, Any]] = {}
    donors = swap_donors(D, te)
    target = te[(D["ds"][te] == "wcxb") & (D["y"][te] != "article")]
    out, swapped = {}, {}
    for name in cfgs:
        tok, with_daniel, views = CONFIGS[name]
        rows = tr if with_daniel else tr[D["ds"][tr] == "wcxb"]
        y = D["y"][rows]
        classes = np.unique(y)
        inner = _folds(y, D["site"][rows], 5, 0)
        oofs = []
        for v in views:
            t = tok if v in TEXT_VIEWS else "-"
            key = (v, t, with_daniel)
            if key not in cache:
                t0 = time.perf_counter()
                c = counts.get((v, t))
                vm, oof = fit_view(v, [_field(D["docs"][i], v) for i in rows], y, classes,
                                   inner, ViewCounts(c.vocab, c.X[rows]) if c else None,
                                   params_for(v, tok))
                cache[key] = (oof, vm, c)
                log(f"    {name:9s} {v:7s} C={vm.C:<4g} inner acc "
                    f"{np.mean(classes[oof.argmax(1)] == y):.3f} "
                    f"({time.perf_counter() - t0:.0f} s)")
            oofs.append(cache[key][0])

        def decision(v: str, idx: np.ndarray, tok: str = tok, wd: bool = with_daniel
                     ) -> np.ndarray:
            _, vm, c = cache[(v, tok if v in TEXT_VIEWS else "-", wd)]
            X = vm.rep.transform_counts(c.X[idx]) if c else \
                vm.rep.transform([_field(D["docs"][i], v) for i in idx])
            return vm.decision_X(X)

        m = StackedModel(views=views, stacker=stacker)
        # no temperature: it does not move the argmax, and costs 5 more stacker fits
        m.fit_stacker(np.hstack(oofs), [D["docs"][i].get("struct", {}) for i in rows], y,
                      inner, calibrate=stacker == "auto")
        structs = [D["docs"][i].get("struct", {}) for i in te]
        p = m.proba_from_base(np.hstack([decision(v, te) for v in views]), structs)
        out[name] = classes[p.argmax(1)]
        swapped[name] = {}
        t_structs = [D["docs"][i].get("struct", {}) for i in target]
        for lg, don in donors.items():
            if not len(target) or not len(don):
                continue
            src = don[np.arange(len(target)) % len(don)]
            base = np.hstack([decision(v, src if v in TEXT_VIEWS else target) for v in views])
            swapped[name][lg] = classes[m.proba_from_base(base, t_structs).argmax(1)]
        log(f"    {name:9s} stacker {m.info.get('stacker')}")
    return out, swapped


def swap_donors(D: dict[str, Any], te: np.ndarray) -> dict[str, np.ndarray]:
    """Per language, the daniel-dev test pages whose text and title are put into the WCXB
    non-article test pages (markup, URL, metadata and structure kept): a translate-free check
    of whether a page's language alone makes it an ``article``. Only test pages give text, so
    no configuration has trained on a donor."""
    d = te[D["ds"][te] == "daniel"]
    return {lg: d[D["lang"][d] == lg] for lg in LANGS}


def report(D: dict[str, Any], idx: np.ndarray, pred: np.ndarray, fold: np.ndarray | None
           ) -> dict[str, Any]:
    """Metrics of one configuration's predictions ``pred`` on the pages ``idx``."""
    y, ds, lang = D["y"][idx], D["ds"][idx], D["lang"][idx]
    w = ds == "wcxb"
    labels = sorted(set(y[w].tolist()))
    r: dict[str, Any] = {"wcxb_pages": int(w.sum())}
    r.update({f"wcxb_{k}": round(v, 4) for k, v in macro(y[w], pred[w], labels).items()})
    if fold is not None:
        accs = [float(np.mean(pred[w & (fold == f)] == y[w & (fold == f)]))
                for f in sorted(set(fold[w].tolist()))]
        r["wcxb_fold_acc"] = [round(a, 4) for a in accs]
        r["wcxb_fold_sd"] = round(float(np.std(accs, ddof=1)), 4) if len(accs) > 1 else 0.0
    d = ds == "daniel"
    r["daniel_pages"] = int(d.sum())
    r["daniel_article"] = round(float(np.mean(pred[d] == "article")), 4) if d.any() else None
    for lg in LANGS:
        s = d & (lang == lg)
        r[f"daniel_{lg}"] = (round(float(np.mean(pred[s] == "article")), 4), int(s.sum()))
    r["daniel_worst"] = min((v[0] for k, v in r.items() if k.startswith("daniel_")
                             and isinstance(v, tuple) and v[1]), default=None)
    r["daniel_other_types"] = dict(Counter(pred[d & (pred != "article")].tolist()))
    # proxy check: WCXB pages confidently not English
    ne = w & (lang != "en") & (lang != "?")
    nea = ne & (y != "article")
    r["wcxb_nonen_pages"] = int(ne.sum())
    r["wcxb_nonen_langs"] = dict(Counter(lang[ne].tolist()))
    r["wcxb_nonen_acc"] = round(float(np.mean(pred[ne] == y[ne])), 4) if ne.any() else None
    r["wcxb_nonen_nonarticle"] = int(nea.sum())
    r["wcxb_nonen_nonarticle_called_article"] = int(np.sum(pred[nea] == "article"))
    na = w & (y != "article")
    r["wcxb_nonarticle_called_article"] = round(float(np.mean(pred[na] == "article")), 4)
    return r


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--configs", default="a,b,c,c-neutral")
    ap.add_argument("--stacker", default="gbdt-bal",
                    help="stacker kind (auto: chosen per fold by the inner CV, as training "
                    "does; 5x the stacker fits)")
    ap.add_argument("--holdout", default="",
                    help="configurations to train on all CV pages and test on the look-once "
                    "holdout (run once, after choosing)")
    a = ap.parse_args(argv)
    cfgs = [c for c in (a.holdout or a.configs).split(",") if c]
    bad = [c for c in cfgs if c not in CONFIGS]
    if bad:
        ap.error(f"unknown configurations {bad}; known: {', '.join(CONFIGS)}")

    def log(m: str) -> None:
        print(m, flush=True)

    D = load(log)
    n = len(D["y"])
    hold = np.array([holdout_site(s) for s in D["site"]])
    for ds in ("wcxb", "daniel"):
        m = D["ds"] == ds
        log(f"{ds}: {m.sum()} pages, {len(set(D['site'][m]))} sites; holdout "
            f"{(m & hold).sum()} pages, {len(set(D['site'][m & hold]))} sites")
    counts: dict[tuple[str, str], ViewCounts] = {}
    for v in DEFAULT_VIEWS:
        for t in (("old", "new") if v in TEXT_VIEWS else ("-",)):
            p = params_for(v, t)
            if p is not None:
                vocab, X = count_matrix(p, [_field(d, v) for d in D["docs"]])
                counts[(v, t)] = ViewCounts(vocab, X)
    log(f"counts done ({len(counts)} views)")
    preds = {c: np.full(n, "", dtype=object) for c in cfgs}
    swaps: dict[str, dict[str, list[np.ndarray]]] = {c: {} for c in cfgs}

    def add_swaps(sw: dict[str, dict[str, np.ndarray]]) -> None:
        for c, by in sw.items():
            for lg, p in by.items():
                swaps[c].setdefault(lg, []).append(p)

    dev = np.flatnonzero(~hold)
    if a.holdout:
        res, sw = fit_config(D, counts, dev, np.flatnonzero(hold), cfgs, log, a.stacker)
        add_swaps(sw)
        for c in cfgs:
            preds[c][hold] = res[c]
        idx, fold, what = np.flatnonzero(hold), None, "holdout"
    else:
        strat = np.char.add(D["ds"].astype(str), D["y"].astype(str))
        cv = StratifiedGroupKFold(n_splits=5, shuffle=True, random_state=0)
        fold = np.full(n, -1)
        for k, (tr, te) in enumerate(cv.split(np.zeros(len(dev)), strat[dev],
                                              D["site"][dev])):
            log(f"fold {k}: {len(tr)} train, {len(te)} test")
            res, sw = fit_config(D, counts, dev[tr], dev[te], cfgs, log, a.stacker)
            add_swaps(sw)
            fold[dev[te]] = k
            for c in cfgs:
                preds[c][dev[te]] = res[c]
                w = D["ds"][dev[te]] == "wcxb"
                log(f"  fold {k} {c:9s} wcxb acc {np.mean(res[c][w] == D['y'][dev[te]][w]):.3f}"
                    f" daniel article {np.mean(res[c][~w] == 'article'):.3f}")
        idx, fold, what = dev, fold[dev], "cv"
    rows = {c: report(D, idx, preds[c][idx], fold) for c in cfgs}
    for c in cfgs:  # language swap: WCXB non-articles with another language's text
        for lg, ps in swaps[c].items():
            p = np.concatenate(ps)
            rows[c][f"swap_{lg}"] = (round(float(np.mean(p == "article")), 4), len(p))
    a.out.mkdir(parents=True, exist_ok=True)
    cmd = "python -m eval.classify.multilingual " + " ".join(sys.argv[1:] if argv is None
                                                              else argv)
    (a.out / f"{what}.json").write_text(json.dumps(
        {"command": cmd, "what": what, "configs": {c: list(map(str, CONFIGS[c][:2])) +
                                                   [list(CONFIGS[c][2])] for c in cfgs},
         "results": rows, "missing": D["missing"]}, indent=1, ensure_ascii=False))
    with open(a.out / f"{what}-predictions.csv", "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f)
        wr.writerow(["dataset", "id", "site", "lang", "label"] + cfgs)
        for i in idx:
            wr.writerow([D["ds"][i], D["recs"][i].id, D["site"][i], D["lang"][i], D["y"][i]]
                        + [preds[c][i] for c in cfgs])
    lines = [f"## {what}: `{cmd}`", "",
             "| config | WCXB acc | WCXB macro-F1 | fold sd | daniel article | "
             + " | ".join(LANGS) + " | WCXB non-en acc | non-en non-articles called article |",
             "|---|" + "---:|" * (6 + len(LANGS))]
    for c, r in rows.items():
        lines.append(f"| {c} | {r['wcxb_accuracy']:.3f} | {r['wcxb_f1']:.3f} | "
                     f"{r.get('wcxb_fold_sd', float('nan')):.3f} | {r['daniel_article']:.3f} | "
                     + " | ".join(f"{r[f'daniel_{lg}'][0]:.3f} ({r[f'daniel_{lg}'][1]})"
                                  for lg in LANGS)
                     + f" | {r['wcxb_nonen_acc']} ({r['wcxb_nonen_pages']}) | "
                     f"{r['wcxb_nonen_nonarticle_called_article']}/"
                     f"{r['wcxb_nonen_nonarticle']} |")
    lines += ["", "Language swap (WCXB non-article test pages given the text and title of a "
              "daniel-dev test page of each language; share then called article; "
              "unswapped share in the first column):", "",
              "| config | unswapped | " + " | ".join(LANGS) + " |",
              "|---|" + "---:|" * (1 + len(LANGS))]
    for c, r in rows.items():
        lines.append(f"| {c} | {r['wcxb_nonarticle_called_article']:.3f} | " + " | ".join(
            f"{r[f'swap_{lg}'][0]:.3f}" if f"swap_{lg}" in r else "-" for lg in LANGS) + " |")
    (a.out / f"{what}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
