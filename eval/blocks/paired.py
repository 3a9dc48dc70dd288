"""Paired comparison of ``eval.blocks`` runs on the same pages (four-decimal tables).

    python -m eval.blocks.paired --run eval/results/blocks/perpage \\
        --run eval/results/blocks/gate5 --method blocks-stack-nested \\
        --method blocks-stack-page --method blocks-stack-page-forced

Runs on the same table, folds and seeds give identical per-page scores for the decoders their
change does not touch; this checks it (pages whose F1 differs from the first run's) and prints,
for every (run, method), the mean F1 per set on the rendered pages that every peer scored (as
``summary.md``'s "Same pages" table; Dragnet: test split), the mean of the four target sets,
WCXB per page type with the unrounded difference to trafilatura, and the per-fold WCXB / mean
of the four targets - what the adoption rules of eval/results/blocks/README.md are judged on.
"""

from __future__ import annotations

import argparse
import csv
import gzip
from pathlib import Path
from typing import Any

import numpy as np

from eval.blocks.cv import PEER_METHODS, peer_rows, reported

SETS = ("wcxb", "dragnet", "cleaneval", "l3s-gn1", "cleanportaleval")
TARGETS = SETS[:4]


def _load(run: Path) -> list[dict[str, Any]]:
    with gzip.open(run / "per_page.csv.gz", "rt", encoding="utf-8") as f:
        return [{**r, "f1": float(r["f1"])} for r in csv.DictReader(f)]


def _rendered(rows: list[dict[str, Any]], method: str) -> dict[tuple[str, str], dict]:
    return {(r["dataset"], r["id"]): r for r in rows
            if r["method"] == method and r["variant"] == "rendered" and reported(r)}


def report(runs: list[Path], methods: list[str], peers_csv: Path) -> str:
    data = {run: _load(run) for run in runs}
    out = []
    base = {(r["dataset"], r["id"], r["variant"], r["method"]): r["f1"] for r in data[runs[0]]}
    for run in runs[1:]:
        for m in methods:
            rs = [r for r in data[run] if r["method"] == m]
            diff = sum(abs(base.get((r["dataset"], r["id"], r["variant"], m), np.inf)
                           - r["f1"]) > 1e-12 for r in rs)
            out.append(f"{run.name} {m}: {diff} of {len(rs)} pages differ from {runs[0].name}")
    ref = _rendered(data[runs[0]], methods[0])
    peers: dict[str, dict] = {}
    for r in peer_rows(peers_csv):
        if (r["dataset"], r["id"]) in ref:
            peers.setdefault(r["method"], {})[(r["dataset"], r["id"])] = r["f1"]
    names = [m for m in PEER_METHODS if m in peers]
    common = sorted(k for k in ref if all(k in peers[m] for m in names))

    def mean(f1: dict, keys: list) -> float:
        return float(np.mean([f1[k] for k in keys]))

    def f1s(run: Path, m: str) -> dict:
        return {k: r["f1"] for k, r in _rendered(data[run], m).items()}

    by_set = {s: [k for k in common if k[0] == s] for s in SETS}
    rows = [(f"{run.name} {m}", f1s(run, m)) for run in runs for m in methods]
    traf = peers["trafilatura"]
    out += ["", "| same pages, rendered | " + " | ".join(SETS) + " | mean of 4 targets |",
            "|---|" + "---:|" * (len(SETS) + 1)]
    for name, f in rows + [("trafilatura", traf)]:
        v = [mean(f, by_set[s]) for s in SETS]
        out.append(f"| {name} | " + " | ".join(f"{x:.4f}" for x in v)
                   + f" | {np.mean(v[:4]):.4f} (WCXB {v[0]:.6f}, mean {np.mean(v[:4]):.6f}) |")
    types = sorted({ref[k]["page_type"] for k in by_set["wcxb"]})
    by_type = {t: [k for k in by_set["wcxb"] if ref[k]["page_type"] == t] for t in types}
    out += ["", "| WCXB per type (minus trafilatura, unrounded) | " + " | ".join(types) + " |",
            "|---|" + "---:|" * len(types)]
    for name, f in rows:
        out.append(f"| {name} | " + " | ".join(
            f"{mean(f, by_type[t]):.3f} ({mean(f, by_type[t]) - mean(traf, by_type[t]):+.4f})"
            for t in types) + " |")
    out.append("| trafilatura | " + " | ".join(f"{mean(traf, by_type[t]):.3f}" for t in types)
               + " |")
    folds = sorted({int(r["fold"]) for r in ref.values()})
    out += ["", "| WCXB / mean of 4 targets | " + " | ".join(f"fold {k}" for k in folds) + " |",
            "|---|" + "---:|" * len(folds)]
    for name, f in rows:
        cells = []
        for k in folds:
            v = [mean(f, [p for p in by_set[s] if int(ref[p]["fold"]) == k]) for s in TARGETS]
            cells.append(f"{v[0]:.4f} / {np.mean(v):.4f}")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.blocks.paired", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", type=Path, required=True,
                    help="an eval.blocks --out folder (the first is the reference)")
    ap.add_argument("--method", action="append", required=True)
    ap.add_argument("--peers-csv", type=Path,
                    default=Path("eval/results/templates/per_page.csv.gz"))
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    md = report(a.run, a.method, a.peers_csv)
    if a.out is not None:
        a.out.write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
