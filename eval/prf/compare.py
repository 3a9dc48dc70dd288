"""Paired comparison of two systems of one results folder (from its per_topic.csv).

``python -m eval.prf.compare eval/results/prf/cranfield/clean lucene-rm3 anserini-rm3``
prints, per measure, the two means, the relative difference of A to B and the paired t-test /
randomisation p-values (:func:`eval.prf.measures.paired_tests`).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from eval.prf.measures import MEASURES, paired_tests


def load(folder: Path) -> dict[str, dict[str, dict[str, float]]]:
    out: dict[str, dict[str, dict[str, float]]] = {}
    with (folder / "per_topic.csv").open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            for m in MEASURES:
                out.setdefault(r["system"], {}).setdefault(m, {})[r["qid"]] = float(r[m])
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    per = load(Path(args[0]))
    a, b = args[1], args[2]
    for s in (a, b):
        if s not in per:
            print(f"unknown system {s!r}; have {sorted(per)}", file=sys.stderr)
            return 2
    print(f"| measure | {a} | {b} | relative | p (t-test) | p (randomisation) |")
    print("|---|---:|---:|---:|---:|---:|")
    for m in MEASURES:
        x, y = per[a][m], per[b][m]
        mx, my = sum(x.values()) / len(x), sum(y.values()) / len(y)
        t_p, r_p = paired_tests(x, y)
        rel = (mx - my) / my * 100 if my else 0.0
        print(f"| {m} | {mx:.4f} | {my:.4f} | {rel:+.2f}% | {t_p:.3f} | {r_p:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
