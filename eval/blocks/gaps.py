"""Where the block model loses WCXB points: the leaf-decision ceiling and the peers, per type.

    python -m eval.blocks.gaps --per-page eval/results/blocks/nested/per_page.csv.gz \\
        --method blocks-stack-nested --out eval/results/blocks/reveal/gaps.md

For every rendered WCXB page of the training table: the *oracle* F1 (keeping exactly the leaves
whose label - the gold aligned to the page's visible text leaves - is content; the ceiling of
any leaf decision on that page), the label coverage (share of gold words found in the leaves),
our out-of-fold P/R/F1 (``--per-page``, a CV run's per-page table) and trafilatura's (the
``eval.templates`` per-page table, same pages, same scorer). Per page type, and the pages where
the text is *lost* (oracle < 0.3 while trafilatura, reading the HTML, scores > 0.5): their
share of the type's F1 gap is what no leaf decision can win back.
"""

from __future__ import annotations

import argparse
import csv
import gzip
from collections import defaultdict
from pathlib import Path

import numpy as np

from webseg.blocks.train import TABLE_ROOT, load_tables, page_f1


def _f(x: str) -> float:
    return float(x) if x not in ("", "nan", None) else float("nan")


def _read(path: Path, keep) -> dict[str, tuple[float, float, float]]:
    out = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if keep(r):
                out[r["id"]] = (_f(r["p"]), _f(r["r"]), _f(r["f1"]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.blocks.gaps", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-page", type=Path, required=True)
    ap.add_argument("--method", default="blocks-stack-nested")
    ap.add_argument("--peers-csv", type=Path,
                    default=Path("eval/results/templates/per_page.csv.gz"))
    ap.add_argument("--table-root", type=Path, default=TABLE_ROOT)
    ap.add_argument("--table-dir", type=Path, default=None,
                    help="a table directory (<root>/<hash>) instead of the current one")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    t = load_tables(["wcxb"], a.table_root, variants=("rendered",), directory=a.table_dir)
    orc = {}
    for p in range(t.n_pages):
        lo, hi = t.off[p], t.off[p + 1]
        m = t.meta[p]
        orc[m["id"]] = (m["page_type"], page_f1(t, p, t.y[lo:hi] == 1)[2], m["coverage"],
                        bool(m.get("revealed", False)))
    ours = _read(a.per_page, lambda r: r["dataset"] == "wcxb" and r["variant"] == "rendered"
                 and r["method"] == a.method)
    traf = _read(a.peers_csv, lambda r: r["dataset"] in ("wcxb", "wcxb-dev")
                 and r["method"] == "trafilatura")
    keys = [k for k in orc if k in ours and k in traf]
    by = defaultdict(list)
    for k in keys:
        by[orc[k][0]].append(k)
    by["all"] = keys
    lines = [f"Method `{a.method}` from `{a.per_page}`; {len(keys)} rendered WCXB pages.", "",
             "| type | pages | oracle F1 | label coverage | ours P | ours R | ours F1 | "
             "trafilatura P | trafilatura R | trafilatura F1 | lost-text pages | their "
             "F1 gap / pages | revealed |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lost_all = []
    for ty in sorted(by, key=lambda x: (x == "all", x)):
        ks = by[ty]
        lost = [k for k in ks if orc[k][1] < 0.3 and traf[k][2] > 0.5]
        if ty != "all":
            lost_all += [(ty, k) for k in lost]
        gap = sum(traf[k][2] - ours[k][2] for k in lost) / len(ks)

        def mean(d, i, ks=ks):
            return np.nanmean([d[k][i] for k in ks])
        lines.append(
            f"| {ty} | {len(ks)} | {mean(orc, 1):.3f} | {mean(orc, 2):.3f} | "
            f"{mean(ours, 0):.3f} | {mean(ours, 1):.3f} | {mean(ours, 2):.3f} | "
            f"{mean(traf, 0):.3f} | {mean(traf, 1):.3f} | {mean(traf, 2):.3f} | {len(lost)} | "
            f"{gap:.3f} | {sum(orc[k][3] for k in ks)} |")
    lines += ["", "Lost-text pages (oracle < 0.3, trafilatura > 0.5): "
              + ", ".join(f"{k} ({ty})" for ty, k in lost_all)]
    md = "\n".join(lines) + "\n"
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
