"""Time of the exact tree isotonic smoothing DP against tree size and number of distinct scores.

    .venv/bin/python bench/isotonic.py --plot /tmp/isotonic.png

Random trees of 100..20,000 nodes of two shapes: ``random`` (random recursive tree: every node
hangs under a uniformly chosen earlier node; shallow and bushy) and ``dom`` (built depth-first
like an HTML document, in pre-order, depth ~10-30). Scores take ``m`` distinct values: a few
(``--few``, default 50) or one per node (``m = n``, the DP's worst case: time O(n * m), memory
O(n_internal * m) floats, so ``m = n`` stops at ``--max-full`` nodes to stay in memory).
Penalties are uniform in [0, 0.1]. Prints the fastest of ``--repeat`` runs in ms (the others
measure the machine's noise); the target is <= 100 ms for a 2,000-node page. Nothing asserts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webseg.templates.isotonic import isotonic_smooth  # noqa: E402


def random_tree(n: int, rng: np.random.Generator) -> np.ndarray:
    return np.r_[-1, rng.integers(0, np.arange(1, n))] if n > 1 else np.array([-1])


def dom_tree(n: int, rng: np.random.Generator) -> np.ndarray:
    parent, stack = [-1], [0]
    for i in range(1, n):
        while len(stack) > 1 and rng.random() < 0.35:
            stack.pop()
        parent.append(stack[-1])
        if rng.random() < 0.5:
            stack.append(i)
    return np.asarray(parent)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100,300,1000,2000,5000,10000,20000")
    ap.add_argument("--few", type=int, default=50, help="distinct values of the 'few' series")
    ap.add_argument("--max-full", type=int, default=5000,
                    help="largest n for the m = n series (memory: 8 * n_internal * n bytes)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plot", type=Path, help="write a log-log plot (PNG) here")
    ap.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    print(f"{'shape':7} {'values':>7} {'nodes':>7} {'distinct':>8} {'ms':>9}")
    for shape, make in (("dom", dom_tree), ("random", random_tree)):
        for series in ("few", "m=n"):
            for n in sizes:
                if series == "m=n" and n > args.max_full:
                    continue
                parent = make(n, rng)
                if series == "few":
                    y = rng.integers(0, args.few, n) / max(args.few - 1, 1)
                else:
                    y = rng.random(n)
                gamma = rng.random(n) * 0.1
                best = np.inf
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    isotonic_smooth(parent, y, gamma)
                    best = min(best, time.perf_counter() - t0)
                m = len(np.unique(y))
                rows.append({"shape": shape, "series": series, "nodes": n, "distinct": m,
                             "ms": best * 1000})
                print(f"{shape:7} {series:>7} {n:7d} {m:8d} {best * 1000:9.1f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        for shape, marker in (("dom", "o"), ("random", "s")):
            for series, style in (("few", "-"), ("m=n", "--")):
                pts = [(r["nodes"], r["ms"]) for r in rows
                       if r["shape"] == shape and r["series"] == series]
                if pts:
                    label = f"{shape}, {'m=' + str(args.few) if series == 'few' else 'm=n'}"
                    ax.plot(*zip(*pts, strict=True), style, marker=marker, label=label)
        ax.axhline(100, color="grey", lw=0.8, ls=":", label="100 ms target")
        ax.axvline(2000, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("nodes")
        ax.set_ylabel(f"ms (fastest of {args.repeat})")
        ax.set_title("webseg.templates.isotonic_smooth (exact L1 DP)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
