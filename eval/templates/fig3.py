"""Paper Figure 3 (segmentation accuracy vs penalty) from an ``eval.sweep`` table, log x axis.

    python -m eval.templates.fig3 eval/results/templates/penalty_ari_dev/sweep.csv \\
        --out eval/results/templates/penalty_ari_dev/ari_vs_c.png

``eval.sweep`` plots on a linear axis, which squeezes a log grid of ``c`` into one corner;
this replots its ARI columns with ``c`` on a log scale and ``c = 0`` as a dotted line.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.templates.fig3", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", type=Path, help="sweep.csv written by eval.sweep --param c")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    rows = list(csv.DictReader(args.csv.open(encoding="utf-8")))
    if not rows or "value" not in rows[0]:
        ap.error(f"{args.csv}: not an eval.sweep table")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for key, label in (("ari_l1", "ARI, gold level 1"), ("ari_l2", "ARI, gold level 2")):
        pts = sorted((float(r["value"]), float(r[key])) for r in rows)
        pos = [(c, v) for c, v in pts if c > 0]
        line = ax.plot([c for c, _ in pos], [v for _, v in pos], "o-", label=label)[0]
        for c, v in pts:
            if c == 0:
                ax.axhline(v, ls=":", color=line.get_color())
    ax.set_xscale("log")
    ax.axvline(0.01, color="grey", lw=0.8)
    ax.set_xlabel("penalty constant c (dotted: c = 0; grey: default 0.01)")
    ax.set_ylabel("mean adjusted Rand index")
    ax.set_title("PageLevel Smooth on kreuzer-random (dev pages)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
