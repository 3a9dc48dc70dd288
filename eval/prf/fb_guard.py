"""Feedback worst case per collection, and a drift guard tried on it.

``python -m eval.prf.fb_guard clean:cranfield clean:cacm clean:med W/cranfield-k3-s0 ...``

For each clean collection (``clean:NAME``: whole documents, k1 1.5, b 0.75, windows as blocks)
or rendered web version (its content index with ``chosen.json``'s settings): MAP of RM3 with
Anserini's parameters, RM3 with the chosen ones and block PRF (``BEST_BLOCKS``), each as a
ratio to no feedback, plain (threshold 0) and with a drift guard: a query keeps its feedback
ranking only when at least ``tau`` of its top 10 pages were in the top 10 without feedback,
else it falls back to the original ranking.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

TAUS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)
Run = dict[str, tuple[list[str], list[float]]]


def runs(ix: Any, coll: Any, prf: str, kw: dict[str, Any]) -> tuple[Run, Run]:
    """Per topic, (ids, scores) without and with feedback."""
    from ir import EmptyQueryError

    base: Run = {}
    fbk: Run = {}
    for qid, q in coll.topics.items():
        try:
            a = ix.search(q, k=1000, snippets=False)
            b = ix.search(q, k=1000, snippets=False, prf=prf, **kw)
        except EmptyQueryError:
            continue
        base[qid] = (a.ids, a.scores.tolist())
        fbk[qid] = (b.ids, b.scores.tolist())
    return base, fbk


def mapof(run: Run, coll: Any) -> float:
    from eval.prf.measures import evaluate

    ap = evaluate({q: dict(zip(i, s, strict=True)) for q, (i, s) in run.items()}, coll.qrels,
                  coll.judged_topics)["AP"]
    return sum(ap.values()) / len(ap)


def guard(base: Run, fbk: Run, tau: float, n: int = 10) -> Run:
    out: Run = {}
    for q in base:
        a, b = set(base[q][0][:n]), set(fbk[q][0][:n])
        overlap = len(a & b) / max(1, min(n, len(a)))
        out[q] = fbk[q] if overlap >= tau else base[q]
    return out


def main(argv: list[str]) -> int:
    from eval.prf.collection import load_collection
    from eval.prf.content import RESULTS, _clean_index, content_index_path
    from ir import Index
    from ir.feedback import BEST_BLOCKS

    chosen = json.loads((RESULTS / "chosen.json").read_text())
    for spec in argv:
        if spec.startswith("clean:"):
            ix, coll = _clean_index(spec[6:], Path("../shared/data/ir"), Path(tempfile.mkdtemp()))
            kwb = {**BEST_BLOCKS, "source": "windows"}
        else:
            web = Path(spec)
            coll = load_collection(web, docs_file="pages.jsonl")
            ix = Index.open(content_index_path(web, "max"), k1=chosen["k1"], b=chosen["b"],
                            fields=chosen["fields"], passages=chosen["passages"],
                            repeats=chosen.get("repeats") or {})
            kwb = dict(BEST_BLOCKS)
        for label, prf, kw in (("rm3 anserini", "rm3", {}), ("rm3 chosen", "rm3", chosen["rm3"]),
                               ("blocks", "blocks", kwb)):
            base, fbk = runs(ix, coll, prf, kw)
            m0 = mapof(base, coll)
            res = {t: round(mapof(guard(base, fbk, t), coll) / m0, 4) for t in TAUS}
            print(spec, label, round(m0, 4), res, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
