"""Diagnostics that explain the small BM25 gaps reported in eval/results/prf/README.md.

``python -m eval.prf.gaps --work .cache/webseg/prf`` (after ``python -m eval.prf`` built the
clean indexes) prints, per collection:

* ``padded``: our embedded run padded to depth 1000 with non-matching (score 0) documents, as
  the shared README's sanity script (rank-bm25 ``get_scores`` + argsort over every document)
  does - trec_eval then credits relevant documents found among the zero-score tail;
* ``lucene_idf``: our embedded BM25 with Lucene's IDF ``log(1 + (N - df + 0.5)/(df + 0.5))``
  instead of rank-bm25's ``log((N - df + 0.5)/(df + 0.5))`` floored at 0.25 x mean IDF; what
  remains of the gap to Lucene is its one-byte (lossy) document-length norms.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from eval.prf.collection import load_collection
from eval.prf.measures import evaluate
from eval.prf.run import System, run_system


def _map(run: dict, coll) -> float:
    ap = evaluate(run, coll.qrels, coll.judged_topics)["AP"]
    return sum(ap.values()) / len(ap)


def main(argv: list[str] | None = None) -> int:
    from ir import Index

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data/ir")
    ap.add_argument("--work", default=".cache/webseg/prf")
    ap.add_argument("--collections", default="cacm,cranfield,med")
    a = ap.parse_args(argv)
    print("| collection | index | ours | padded to 1000 | with Lucene IDF |")
    print("|---|---|---:|---:|---:|")
    for name in a.collections.split(","):
        coll = load_collection(Path(a.data) / name)
        for suffix in ("bm25", "bm25-nostem"):
            ix = Index.open(Path(a.work) / f"{name}-{suffix}")
            ours = _map(run_system(System("x", ix), coll, log=lambda m: None)[0], coll)
            padded = {}
            for q in coll.judged_topics:
                w: dict[str, float] = {}
                for t in ix.query_terms(coll.topics[q]):
                    w[t] = w.get(t, 0.0) + 1.0
                s = ix.engine.scores(w)
                order = np.argsort(-s, kind="stable")[:1000]
                padded[q] = {ix.docs[i].id: float(s[i]) for i in order}
            e, n = ix.engine, ix.engine.n
            e.idf = lambda t, e=e, n=n: (math.log(1 + (n - e.df(t) + 0.5) / (e.df(t) + 0.5))
                                         if e.df(t) else 0.0)
            luc = _map(run_system(System("x", ix), coll, log=lambda m: None)[0], coll)
            print(f"| {name} | {suffix} | {ours:.4f} | {_map(padded, coll):.4f} | {luc:.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
