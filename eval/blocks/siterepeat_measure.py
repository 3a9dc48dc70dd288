"""Step 2 of ``python -m eval.blocks.siterepeat``: the site-repetition rule
(:mod:`webseg.blocks.siterepeat`) applied to the out-of-fold leaf decisions of the block CV.

Protocol: ``eval/results/blocks/siterepeat/README.md`` (pre-registered). For every rendered
table page, the site group is every other record of the same dataset's manifest with the same
``site`` whose rendered page is in the render cache (gold never read). The pages' leaf keys
are cached (``<cache>/keys/<dataset>.json.gz``) so that the tables can be re-made quickly.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from webseg.blocks.reveal import revealed
from webseg.blocks.siterepeat import MIN_PAGES, SiteRepeats, leaf_keys, repeated_drop
from webseg.datasets import DEFAULT_CACHE, cache_path, load_records
from webseg.page import Page

DATA = {"wcxb": Path("../shared/data/wcxb-dev"),
        "dragnet": Path("../shared/data/boilerplate/dragnet"),
        "cleaneval": Path("../shared/data/boilerplate/cleaneval"),
        "l3s-gn1": Path("../shared/data/boilerplate/l3s-gn1"),
        "cleanportaleval": Path("../shared/data/boilerplate/cleanportaleval")}
DECODERS = ("blocks-stack-page", "blocks-stack-nested")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def dataset_keys(ds: str, cache: Path) -> dict[str, dict[str, Any]]:
    """id -> {"site", "keys"} for every manifest record of ``ds`` rendered in the cache
    (the revealed page's text-leaf keys, in order)."""
    f = cache / "keys" / f"{ds}.json.gz"
    if f.is_file():
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    out: dict[str, dict[str, Any]] = {}
    recs = load_records(DATA[ds])
    t0 = time.perf_counter()
    for k, r in enumerate(recs, 1):
        cp = cache_path(DEFAULT_CACHE, r)
        if not cp.is_file():
            continue
        try:
            page = Page.load(cp)
        except Exception as e:  # noqa: BLE001 - one unreadable cache file is logged
            log(f"  {ds}/{r.id}: {type(e).__name__}: {e}")
            continue
        out[r.id] = {"site": r.site or r.id, "keys": leaf_keys(revealed(page))}
        if k % 500 == 0:
            log(f"  {ds}: {k}/{len(recs)} pages, {time.perf_counter() - t0:.0f} s")
    f.parent.mkdir(parents=True, exist_ok=True)
    tmp = f.with_name(f.name + ".part")
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        json.dump(out, fh)
    tmp.replace(f)
    return out


def _wilcoxon(d: np.ndarray) -> str:
    """Two-sided p of the signed-rank test and the side with the larger rank sum (which way
    the typical page moved, as opposed to the mean)."""
    from scipy.stats import rankdata, wilcoxon

    d = d[(d != 0) & ~np.isnan(d)]
    if len(d) < 1:
        return "-"
    r = rankdata(np.abs(d))
    side = "+" if r[d > 0].sum() > r[d < 0].sum() else "-"
    return f"{float(wilcoxon(d).pvalue):.3g} ({side})"


def _mean(v: list[float]) -> float:
    a = np.asarray(v, dtype=float)
    a = a[~np.isnan(a)]
    return float(a.mean()) if len(a) else float("nan")


def measure(out: Path, cache: Path) -> None:
    from webseg.blocks.train import TABLE_ROOT, load_tables, page_f1

    z = np.load(cache / "oof_leaves.npz")
    n = int(z["n"])
    dec = {d: np.unpackbits(z[d], count=n).astype(bool) for d in DECODERS}
    meta = json.loads(str(z["meta"]))
    t = load_tables(list(DATA), TABLE_ROOT)
    assert len(t.y) == n and [m["id"] for m in t.meta] == [m["id"] for m in meta], \
        "table changed since the out-of-fold run"
    rows: list[dict[str, Any]] = []
    for ds in DATA:
        keys = dataset_keys(ds, cache)
        groups: dict[str, list[str]] = defaultdict(list)
        for rid, v in keys.items():
            groups[v["site"]].append(rid)
        sites = {s: SiteRepeats((keys[r]["keys"] for r in ids), MIN_PAGES)
                 for s, ids in groups.items() if len(ids) >= MIN_PAGES}
        mismatch = 0
        for p, m in enumerate(t.meta):
            if m["dataset"] != ds or m["variant"] != "rendered":
                continue
            a, b = t.off[p], t.off[p + 1]
            k = keys.get(m["id"])
            group = len(groups.get(k["site"], ())) if k else 0
            ok = k is not None and len(k["keys"]) == b - a
            if k is not None and not ok:
                mismatch += 1
            for d in DECODERS:
                keep = dec[d][a:b]
                drop = np.zeros(b - a, dtype=bool)
                if ok and k["site"] in sites:
                    drop = repeated_drop(keep, k["keys"], sites[k["site"]], member=True)
                p0, r0, f0 = page_f1(t, p, keep)
                p1, r1, f1 = page_f1(t, p, keep & ~drop)
                rows.append({"dataset": ds, "id": m["id"], "split": m.get("split"),
                             "page_type": m.get("page_type"), "site": m["site"],
                             "group_pages": group, "method": d, "matched": ok,
                             "kept_leaves": int(keep.sum()), "dropped_leaves": int(drop.sum()),
                             "kept_chars": float(t.chars[a:b][keep].sum()),
                             "dropped_chars": float(t.chars[a:b][drop].sum()),
                             "p0": p0, "r0": r0, "f0": f0, "p1": p1, "r1": r1, "f1": f1})
        log(f"{ds}: {len(keys)} pages with keys, {len(groups)} sites, "
            f"{sum(len(v) >= MIN_PAGES for v in groups.values())} with >= {MIN_PAGES} pages, "
            f"{mismatch} table pages whose leaves do not match")
    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(out / "per_page.csv.gz", "wt", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    md = summarise(rows)
    (out / "summary.md").write_text(
        "Command: `python -m eval.blocks.siterepeat measure --out " + str(out) + "`\n\n" + md,
        encoding="utf-8")
    print(md)


def _line(name: str, rs: list[dict[str, Any]]) -> str:
    if not rs:
        return f"| {name} | 0 | - | - | - | - | - | - | - | - | - |"
    f0 = np.array([r["f0"] for r in rs], dtype=float)
    f1 = np.array([r["f1"] for r in rs], dtype=float)
    changed = sum(r["dropped_leaves"] > 0 for r in rs)
    up, down = int((f1 > f0).sum()), int((f1 < f0).sum())
    share = (sum(r["dropped_chars"] for r in rs) / max(sum(r["kept_chars"] for r in rs), 1))
    return (f"| {name} | {len(rs)} | {changed} | {up} / {down} | {share:.3f} | {_mean(f0):.4f} | "
            f"{_mean(f1):.4f} | {_mean(f1) - _mean(f0):+.4f} | "
            f"{_mean([r['p0'] for r in rs]):.3f} / {_mean([r['r0'] for r in rs]):.3f} | "
            f"{_mean([r['p1'] for r in rs]):.3f} / {_mean([r['r1'] for r in rs]):.3f} | "
            f"{_wilcoxon(f1 - f0)} |")


HEAD = ["| set | pages | changed | F1 up / down | kept chars dropped | F1 before | F1 after | "
        "diff | P / R before | P / R after | Wilcoxon p (side) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]


def summarise(rows: list[dict[str, Any]]) -> str:
    def reported(r: dict[str, Any]) -> bool:
        return not (r["dataset"] == "dragnet" and r["split"] not in (None, "", "test"))

    lines: list[str] = []
    for d in DECODERS:
        for scope, cond in ((f"eligible pages (site with >= {MIN_PAGES} pages)",
                             lambda r: r["group_pages"] >= MIN_PAGES),
                            ("all pages", lambda r: True)):
            lines += ["", f"## {d}, {scope}", "", *HEAD]
            for ds in DATA:
                rs = [r for r in rows if r["method"] == d and r["dataset"] == ds
                      and reported(r) and cond(r)]
                lines.append(_line(ds + (" test" if ds == "dragnet" else ""), rs))
            rs = [r for r in rows if r["method"] == d and r["dataset"] == "dragnet" and cond(r)]
            lines.append(_line("dragnet (train+test)", rs))
            types = sorted({r["page_type"] for r in rows if r["dataset"] == "wcxb"
                            and r["page_type"]})
            for pt in types:
                rs = [r for r in rows if r["method"] == d and r["dataset"] == "wcxb"
                      and r["page_type"] == pt and cond(r)]
                lines.append(_line(f"wcxb {pt}", rs))
    return "\n".join(lines).lstrip() + "\n"
