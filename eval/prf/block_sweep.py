"""One block-PRF parameter swept on the dev web versions, then reported on test as chosen.

``python -m eval.prf.block_sweep --param page_weight --values 0,0.5,1,2 --dev <cranfield k=3>,
<cranfield k=1> --test <med ...>,<cacm ...>`` runs block PRF on the default index with the
chosen parameters (``chosen.json``) and ``--param`` set to each value, picks the value with the
best mean MAP over the dev versions (ties: the first listed, which should be the current
default), and writes every value's MAP on every version to
``eval/results/prf/content/block_sweep_<param>.md`` with the paired tests of the dev choice
against the current default. Nothing is chosen on test and no library default is changed
here: a dev choice becomes a default only by editing ``chosen.json`` / ``ir.feedback``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from eval.prf.collection import load_collection
from eval.prf.measures import evaluate, paired_tests
from eval.prf.run import System, run_system

__all__ = ["main", "sweep"]

RESULTS = Path("eval/results/prf/content")


def sweep(web: Path, param: str, values: list[float]) -> dict[float, dict[str, float]]:
    """Per-topic AP of block PRF on ``web``'s default index for each value of ``param``."""
    from eval.prf.content import chosen_model, content_index_path
    from ir import Index
    from ir.feedback import BlockParams

    if param not in BlockParams.__dataclass_fields__:
        raise ValueError(f"{param!r} is not a block-PRF parameter")
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    ix = Index.open(content_index_path(web, chosen_model()), k1=chosen["k1"], b=chosen["b"],
                    fields=chosen["fields"], passages=chosen["passages"])
    coll = load_collection(web, docs_file="pages.jsonl")
    out = {}
    for v in values:
        run, _ = run_system(System(f"{param}={v}", ix, "blocks",
                                   {**chosen["blocks"], param: v}), coll)
        out[v] = evaluate(run, coll.qrels, coll.judged_topics)["AP"]
    return out


def _mean(d: dict[str, float]) -> float:
    return sum(d.values()) / len(d) if d else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.block_sweep",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--param", required=True)
    ap.add_argument("--values", required=True, help="comma-separated; the first = default")
    ap.add_argument("--dev", required=True)
    ap.add_argument("--test", default="")
    a = ap.parse_args(argv)
    values = [float(x) for x in a.values.split(",")]
    dev = [Path(w) for w in a.dev.split(",") if w]
    test = [Path(w) for w in a.test.split(",") if w]
    res = {}
    for w in dev + test:
        res[w.name] = sweep(w, a.param, values)
        print(w.name, {v: round(_mean(d), 4) for v, d in res[w.name].items()}, flush=True)
    dev_mean = {v: sum(_mean(res[w.name][v]) for w in dev) / len(dev) for v in values}
    best = max(values, key=lambda v: (round(dev_mean[v], 6), -values.index(v)))
    base = values[0]
    lines = [f"Block PRF on the default index, `{a.param}` swept (other parameters from "
             f"`chosen.json`); chosen on dev ({', '.join(w.name for w in dev)}): **{best}** "
             "(dev mean MAP " + ", ".join(f"{v:g}: {dev_mean[v]:.4f}" for v in values)
             + f"). Last column: the dev choice against `{a.param}` = {base:g} (the current "
             "value), paired t-test / randomisation p.", "",
             "| web version | role | " + " | ".join(f"{v:g}" for v in values)
             + " | choice vs current (p) |", "|---|---|" + "---:|" * (len(values) + 1)]
    for w in dev + test:
        r = res[w.name]
        t_p, r_p = paired_tests(r[best], r[base])
        lines.append(f"| {w.name} | {'dev' if w in dev else 'test'} | "
                     + " | ".join(f"{_mean(r[v]):.4f}" for v in values)
                     + f" | {_mean(r[best]) - _mean(r[base]):+.4f} ({t_p:.3f} / {r_p:.3f}) |")
    md = "\n".join(lines) + "\n"
    (RESULTS / f"block_sweep_{a.param}.md").write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
