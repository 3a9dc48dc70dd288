"""Sweep one hyper-parameter of a segmenter and plot ARI / NMI against it.

    python -m eval.sweep --data ../shared/data/segmentation/kreuzer-random --algo vips \\
        --param pdoc --grid 0.3:0.9:0.1 --split dev --out eval/results/vips_pdoc

Scores with the segmentation harness (same cache, gold labels, metrics) at gold levels 1 and 2
and writes ``sweep.csv``, ``sweep.md`` (table + command) and ``sweep.png``. Tuning belongs on
``--split dev`` (train + val); the test split is refused unless ``--allow-test`` is given, for
curves shown *after* a value was chosen.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from eval.segmentation import evaluate, load_pages, read_dataset, summarise, write_csv
from eval.splits import select


def parse_grid(spec: str) -> list[float]:
    """``"0:1:0.05"`` (start:stop:step, stop included) or ``"0.1,0.38,0.65"``."""
    if ":" in spec:
        try:
            a, b, s = (float(x) for x in spec.split(":"))
        except ValueError:
            raise SystemExit(f"--grid: expected START:STOP:STEP, got {spec!r}") from None
        if s <= 0 or b < a:
            raise SystemExit(f"--grid: need STEP > 0 and STOP >= START, got {spec!r}")
        k = int(np.floor((b - a) / s + 1e-9))
        return [round(a + i * s, 6) for i in range(k + 1)]
    try:
        return sorted({float(x) for x in spec.split(",") if x.strip()})
    except ValueError:
        raise SystemExit(f"--grid: expected comma-separated numbers, got {spec!r}") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.sweep", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--algo", required=True)
    ap.add_argument("--param", required=True, help="hyper-parameter name")
    ap.add_argument("--grid", required=True, help="START:STOP:STEP or a,b,c")
    ap.add_argument("--fixed", action="append", default=[], metavar="KEY=VALUE",
                    help="other hyper-parameters held fixed")
    ap.add_argument("--split", default="dev", choices=["train", "val", "dev", "test", "all"])
    ap.add_argument("--allow-test", action="store_true")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/pages"))
    args = ap.parse_args(argv)
    if args.split in ("test", "all") and not args.allow_test:
        raise SystemExit("eval.sweep: tune on --split dev; --allow-test only for curves of a "
                         "value chosen elsewhere")
    fixed: dict[str, Any] = {}
    for kv in args.fixed:
        k, v = kv.split("=", 1)
        try:
            fixed[k] = json.loads(v)
        except json.JSONDecodeError:
            fixed[k] = v
    pages = read_dataset(args.data)
    if args.split != "all":
        keep = set(select([p.id for p in pages], args.split))
        pages = [p for p in pages if p.id in keep]
    rendered = load_pages(pages, args.cache, 3, 60.0, progress=False)
    rows = []
    for value in parse_grid(args.grid):
        params = {args.algo: {**fixed, args.param: value}}
        per_page, errors = evaluate(pages, rendered, [args.algo], [1, 2], "background",
                                    "match", params)
        s = {r["level"]: r for r in summarise(per_page, [args.algo], [1, 2])}
        rows.append({"value": value, "ari_l1": s[1]["ari"], "nmi_l1": s[1]["nmi"],
                     "bcubed_f_l1": s[1]["bcubed_f"], "ari_l2": s[2]["ari"],
                     "nmi_l2": s[2]["nmi"], "bcubed_f_l2": s[2]["bcubed_f"],
                     "segments_l1": s[1]["segments"], "segments_l2": s[2]["segments"],
                     "pages": s[1]["pages"], "errors": len(errors)})
        print(f"{args.param}={value:g}  ARI {rows[-1]['ari_l1']:.3f}/{rows[-1]['ari_l2']:.3f}"
              f"  NMI {rows[-1]['nmi_l1']:.3f}/{rows[-1]['nmi_l2']:.3f}", file=sys.stderr)
    write(args, rows, argv)
    return 0


def write(args: argparse.Namespace, rows: list[dict], argv: list[str] | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "sweep.csv", rows, list(rows[0]))
    cmd = "python -m eval.sweep " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = [f"# {args.algo}: sweep of {args.param} ({args.split} split)", "",
             f"Command: `{cmd}`", "",
             f"| {args.param} | ARI L1 | NMI L1 | BCubed-F L1 | ARI L2 | NMI L2 | BCubed-F L2 "
             "| segments L2 |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['value']:g} | {r['ari_l1']:.3f} | {r['nmi_l1']:.3f} | "
                     f"{r['bcubed_f_l1']:.3f} | {r['ari_l2']:.3f} | {r['nmi_l2']:.3f} | "
                     f"{r['bcubed_f_l2']:.3f} | {r['segments_l2']:.1f} |")
    (out / "sweep.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    x = [r["value"] for r in rows]
    for key, style in (("ari_l1", "o-"), ("nmi_l1", "s-"), ("ari_l2", "o--"),
                       ("nmi_l2", "s--")):
        ax.plot(x, [r[key] for r in rows], style, label=key.replace("_l", " level "))
    ax.set_xlabel(args.param)
    ax.set_ylabel("mean over pages")
    ax.set_title(f"{args.algo}: {args.param} sweep ({args.split} pages)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "sweep.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
