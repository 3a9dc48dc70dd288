"""A mixture of RM3 and block-PRF expansions on the default index (issue 16, session 5 idea).

``feedback_units.md`` shows the two feedback methods fail differently: RM3's units (pages) are
relevant more often, block PRF's units (content blocks) carry far cleaner text. This runs, per
topic, both expansions with the chosen parameters (``chosen.json``) and ranks with
``alpha x RM3 weights + (1 - alpha) x block weights`` (each expanded query already holds its
original query share), for ``alpha`` in a small grid. ``alpha`` is chosen on the **dev** web
versions (mean MAP over them) and then reported on the test versions as it is: nothing is
chosen on test, and the library defaults are not changed by this script.

``python -m eval.prf.prf_mix --dev <cranfield k=3>,<cranfield k=1> --test <med ...>,<cacm ...>``
writes ``eval/results/prf/content/prf_mix.md`` (and ``prf_mix.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from eval.prf.collection import load_collection
from eval.prf.measures import evaluate, paired_tests

__all__ = ["ALPHAS", "mix", "runs_for", "main"]

RESULTS = Path("eval/results/prf/content")
ALPHAS = (0.0, 0.25, 0.5, 0.75, 1.0)


def mix(rm3: dict[str, float], blocks: dict[str, float], alpha: float) -> dict[str, float]:
    """``alpha`` x ``rm3`` + (1 - ``alpha``) x ``blocks`` over the union of their terms."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], not {alpha}")
    out = {t: alpha * w for t, w in rm3.items()}
    for t, w in blocks.items():
        out[t] = out.get(t, 0.0) + (1.0 - alpha) * w
    return {t: w for t, w in out.items() if w > 0}


def runs_for(web: Path, alphas: tuple[float, ...] = ALPHAS, depth: int = 1000
             ) -> tuple[dict[float, dict[str, dict[str, float]]], Any]:
    """Runs ``{alpha: {qid: {page: score}}}`` on the default index of ``web``."""
    from eval.prf.content import chosen_model, content_index_path
    from ir import EmptyQueryError, Index

    chosen = json.loads((RESULTS / "chosen.json").read_text())
    ix = Index.open(content_index_path(web, chosen_model()), k1=chosen["k1"], b=chosen["b"],
                    fields=chosen["fields"], passages=chosen["passages"])
    coll = load_collection(web, docs_file="pages.jsonl")
    runs: dict[float, dict[str, dict[str, float]]] = {a: {} for a in alphas}
    for qid in coll.judged_topics:
        q = coll.topics[qid]
        try:
            r = ix.search(q, k=1, prf="rm3", snippets=False, **chosen["rm3"]).expanded
            b = ix.search(q, k=1, prf="blocks", snippets=False, **chosen["blocks"]).expanded
        except EmptyQueryError:
            for a in alphas:
                runs[a][qid] = {}
            continue
        for a in alphas:
            rows, scores = ix.retrieve(mix(r, b, a), depth)
            runs[a][qid] = {ix._ids[i]: float(s) for i, s in zip(rows.tolist(),
                                                                 scores.tolist(), strict=True)}
    return runs, coll


def _mean(d: dict[str, float]) -> float:
    return sum(d.values()) / len(d) if d else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.prf_mix",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", required=True, help="dev web versions, comma-separated")
    ap.add_argument("--test", default="", help="test web versions, comma-separated")
    a = ap.parse_args(argv)
    dev = [Path(w) for w in a.dev.split(",") if w]
    test = [Path(w) for w in a.test.split(",") if w]
    ap_: dict[str, dict[float, dict[str, float]]] = {}
    for w in dev + test:
        runs, coll = runs_for(w)
        ap_[w.name] = {al: evaluate(r, coll.qrels, coll.judged_topics)["AP"]
                       for al, r in runs.items()}
        print(w.name, {al: round(_mean(v), 4) for al, v in ap_[w.name].items()}, flush=True)
    dev_mean = {al: sum(_mean(ap_[w.name][al]) for w in dev) / len(dev) for al in ALPHAS}
    best = max(ALPHAS, key=lambda al: (round(dev_mean[al], 6), -al))
    lines = [f"Mixture of RM3 and block-PRF expansions on the default index; alpha (RM3 share) "
             f"chosen on dev ({', '.join(w.name for w in dev)}): **{best}** (dev mean MAP "
             + ", ".join(f"{al}: {dev_mean[al]:.4f}" for al in ALPHAS) + "). alpha 0 = block "
             "PRF (the default), 1 = RM3 on the default index. p: paired t-test / "
             "randomisation test of the chosen alpha against block PRF (alpha 0).", "",
             "| web version | role | " + " | ".join(f"alpha {al}" for al in ALPHAS)
             + " | chosen vs block PRF (p) |", "|---|---|" + "---:|" * (len(ALPHAS) + 1)]
    for w in dev + test:
        v = ap_[w.name]
        t_p, r_p = paired_tests(v[best], v[0.0])
        role = "dev" if w in dev else "test"
        lines.append(f"| {w.name} | {role} | " + " | ".join(f"{_mean(v[al]):.4f}"
                                                            for al in ALPHAS)
                     + f" | {_mean(v[best]) - _mean(v[0.0]):+.4f} ({t_p:.3f} / {r_p:.3f}) |")
    md = "\n".join(lines) + "\n"
    (RESULTS / "prf_mix.md").write_text(md, encoding="utf-8")
    (RESULTS / "prf_mix.json").write_text(json.dumps(
        {"chosen_alpha": best, "dev_mean": dev_mean,
         "map": {w: {str(al): _mean(d) for al, d in v.items()} for w, v in ap_.items()}},
        indent=1), encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
