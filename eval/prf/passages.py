"""Passage-evidence sweeps and paired per-topic checks for the content-aware index (issue 16).

``python -m eval.prf.passages sweep --web $W/cranfield-k3-s0,$W/cranfield-k1-s0`` scores the
default index of each web version (``chosen.json``'s model, k1, b, fields and repetition rule)
with its passage evidence switched off ("fields only") and then under every combination of
``--idf`` (the passage engine's own block-level IDF, or the page index's), ``--repeated``
(``keep``: repeated blocks give evidence; ``drop``: they leave the passage engine; ``mask``:
they stay in its statistics but give no evidence; see :data:`ir.index.DEFAULT_PASSAGES`) and
``--weights``, and prints MAP@1000 per version and their mean. It is how the session-8 probes
of eval/results/prf/content/README.md were run (on dev versions; a diagnostic, it chooses
nothing and writes nothing).

``python -m eval.prf.passages paired --per-topic A.csv --a SYS --b SYS [--b-csv B.csv
--b-scale 0.95]`` compares two systems' per-topic AP from the tables ``report`` writes
(``per_topic.csv``): topics lower / higher, the spread of the differences and a paired t-test
(``--b-scale`` multiplies B, e.g. to test against 0.95 x clean BM25).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterator
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from eval.prf.collection import load_collection
from eval.prf.content import RESULTS, _map, content_index_path

#: passage keys the sweep sets itself (the rest, the engine's own k1 and b included unless
#: ``--passage-k1``/``--passage-b`` are given, come from ``chosen.json``)
_SWEPT = ("weight", "idf", "repeat_pages", "repeated", "norm")


def settings(weights: list[float], idfs: list[str], modes: list[str],
             min_pages: int = 2, norms: tuple[str, ...] = ("none",),
             engines: tuple[tuple[float, float] | None, ...] = (None,)
             ) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, passage overrides) of every swept point; ``{}`` first: no passage evidence.
    ``engines``: the passage engine's own (k1, b), None for the page index's."""
    yield "fields only", {}
    for eng, norm, idf, mode, w in product(engines, norms, idfs, modes, weights):
        over: dict[str, Any] = {"weight": w, "idf": idf, "norm": norm}
        if mode != "keep":
            over |= {"repeat_pages": min_pages, "repeated": mode}
        label = f"idf {idf}, repeated {mode}, weight {w:g}"
        if norm != "none":
            label = f"norm {norm}, {label}"
        if eng is not None:
            over |= {"k1": eng[0], "b": eng[1]}
            label = f"passage k1 {eng[0]:g} b {eng[1]:g}, {label}"
        yield label, over


def sweep(webs: list[Path], weights: list[float], idfs: list[str], modes: list[str],
          norms: tuple[str, ...] = ("none",),
          engines: tuple[tuple[float, float] | None, ...] = (None,)) -> str:
    from ir import Index

    chosen = json.loads((RESULTS / "chosen.json").read_text())
    base = {k: v for k, v in chosen["passages"].items() if k not in _SWEPT}
    colls = [load_collection(w, docs_file="pages.jsonl") for w in webs]
    blocks: dict[Path, Any] = {}  # one loaded block store per index, shared by every point
    lines = ["| passages | " + " | ".join(w.name for w in webs) + " | mean |",
             "|---|" + "---:|" * (len(webs) + 1)]
    for label, over in settings(weights, idfs, modes, norms=norms, engines=engines):
        maps = []
        for w, coll in zip(webs, colls, strict=True):
            path = content_index_path(w, chosen["model"])
            ix = Index.open(path, k1=chosen["k1"], b=chosen["b"], fields=chosen["fields"],
                            passages={**base, **over} if over else {},
                            repeats=chosen.get("repeats") or {})
            if over:
                if path in blocks:
                    ix._blocks = blocks[path]
                else:
                    ix.blocks(0)
                    blocks[path] = ix._blocks
            maps.append(_map(ix, coll))
        lines.append(f"| {label} | " + " | ".join(f"{m:.4f}" for m in maps)
                     + f" | {np.mean(maps):.4f} |")
        print(lines[-1], file=sys.stderr, flush=True)
    return "\n".join(lines) + "\n"


def _per_topic_ap(path: Path, system: str) -> dict[str, float]:
    with path.open(encoding="utf-8") as f:
        got = {r["qid"]: float(r["AP"]) for r in csv.DictReader(f) if r["system"] == system}
    if not got:
        raise SystemExit(f"{path}: no rows for system {system!r}")
    return got


def paired(a_csv: Path, a: str, b: str, b_csv: Path | None = None, b_scale: float = 1.0
           ) -> str:
    from scipy import stats

    ap_a = _per_topic_ap(a_csv, a)
    ap_b = _per_topic_ap(b_csv or a_csv, b)
    q = sorted(set(ap_a) & set(ap_b))
    x = np.array([ap_a[t] for t in q])
    y = b_scale * np.array([ap_b[t] for t in q])
    d = x - y
    p = stats.ttest_rel(x, y).pvalue
    return (f"{a} vs {b_scale:g} x {b} over {len(q)} topics: mean {x.mean():.4f} vs "
            f"{y.mean():.4f} (difference {d.mean():+.4f}); lower on {(d < 0).sum()}, higher on "
            f"{(d > 0).sum()}; differences {d.min():+.2f} to {d.max():+.2f}, sd "
            f"{d.std(ddof=1):.2f}; paired t-test p {p:.2f}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.passages", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sw = sub.add_parser("sweep")
    sw.add_argument("--web", required=True, help="web version folders, comma-separated")
    sw.add_argument("--weights", default="2")
    sw.add_argument("--idf", default="blocks", help="blocks, pages or both (comma-separated)")
    sw.add_argument("--repeated", default="keep", help="keep, drop, mask (comma-separated)")
    sw.add_argument("--norm", default="none",
                    help="none (page score + weight x best passage score), max (each over its "
                         "best candidate first), or both (comma-separated)")
    sw.add_argument("--passage-k1", default="",
                    help="the passage engine's own k1 values (comma-separated; with "
                         "--passage-b, every pair; default: the page index's k1 and b)")
    sw.add_argument("--passage-b", default="")
    pa = sub.add_parser("paired")
    pa.add_argument("--per-topic", required=True, type=Path)
    pa.add_argument("--a", required=True)
    pa.add_argument("--b", required=True)
    pa.add_argument("--b-csv", type=Path, default=None)
    pa.add_argument("--b-scale", type=float, default=1.0)
    a = ap.parse_args(argv)
    if a.command == "sweep":
        k1s = [float(v) for v in a.passage_k1.split(",") if v]
        bs = [float(v) for v in a.passage_b.split(",") if v]
        if bool(k1s) != bool(bs):
            ap.error("--passage-k1 and --passage-b go together")
        engines = tuple(product(k1s, bs)) if k1s else (None,)
        print(sweep([Path(w) for w in a.web.split(",") if w],
                    [float(w) for w in a.weights.split(",")], a.idf.split(","),
                    a.repeated.split(","), tuple(a.norm.split(",")), engines))
    else:
        print(paired(a.per_topic, a.a, a.b, a.b_csv, a.b_scale), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
