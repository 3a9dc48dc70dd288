"""Why block PRF is only a few per cent above RM3 on the content-aware index: what each
feedback method actually feeds back.

``python -m eval.prf.fb_units --web .cache/webseg/prf/web/med-k3-s0`` runs RM3 and content-block
PRF with the parameters of ``eval/results/prf/content/chosen.json`` on the default index of a
web version and measures, per topic (then averaged), on the *documents* behind the pages (the
web versions know which collection documents each page holds):

* ``units rel``: share of feedback units that are relevant: a page (RM3) holding a relevant
  document, a block whose text is mostly (>= 60% of its terms) from a relevant document;
* ``rel mass``: share of the feedback *term mass* (what the relevance model is estimated from)
  that is text of relevant documents: for a page, the terms of its relevant documents over all
  its terms (its template and its other documents dilute it); for a block, all or nothing;
* ``template mass``: share of that mass from no document at all (template text);
* ``exp prec``: share of the expansion terms (weights of terms not in the query) that are in
  the *oracle* relevance model, the 50 best terms of the relevant documents' clean text
  (the same relevance-model estimator over the relevant documents, equal weights);
* ``AP``: the run's mean average precision.

Nothing is chosen here: this explains the tables, it does not tune anything.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from eval.prf.collection import load_collection
from eval.prf.measures import evaluate

__all__ = ["analyse", "main"]

RESULTS = Path("eval/results/prf/content")


def _doc_of_block(terms: dict[str, int], docs: dict[str, Counter]) -> str | None:
    """The document of the page that holds >= 60% of the block's term occurrences, if any."""
    n = sum(terms.values())
    best, share = None, 0.0
    for did, dt in docs.items():
        s = sum(min(c, dt.get(t, 0)) for t, c in terms.items()) / n if n else 0.0
        if s > share:
            best, share = did, s
    return best if share >= 0.6 else None


def analyse(web: Path, data: Path, model: str | None = None) -> dict[str, dict[str, float]]:
    from eval.prf.content import chosen_model, content_index_path
    from ir import Index
    from ir.feedback import relevance_model

    chosen = json.loads((RESULTS / "chosen.json").read_text())
    model = model or chosen_model()
    ix = Index.open(content_index_path(web, model), k1=chosen["k1"], b=chosen["b"],
                    fields=chosen["fields"], passages=chosen["passages"])
    coll = load_collection(web, docs_file="pages.jsonl")
    clean = load_collection(data / web.name.split("-k")[0])
    an = ix.analyzer
    dterms = {str(d["id"]): Counter(an.tokens(f"{d.get('title') or ''} {d.get('text', '')}"))
              for d in clean.docs}
    page_docs = {p["id"]: [str(x) for x in p["docs"]] for p in coll.docs}
    runs: dict[str, dict[str, dict[str, float]]] = {"rm3": {}, "blocks": {}}
    acc: dict[str, dict[str, list[float]]] = {k: {} for k in runs}
    bp = chosen["blocks"]
    for qid in coll.judged_topics:
        rel = {d for d, r in clean.qrels.get(qid, {}).items() if r >= 1}
        oracle = relevance_model([(dterms[d], 1.0) for d in rel if d in dterms], 50,
                                 ix.engine.df, len(ix), 1.0)
        for method, params in (("rm3", chosen["rm3"]), ("blocks", bp)):
            res = ix.search(coll.topics[qid], k=1000, prf=method, snippets=False, **params)
            runs[method][qid] = dict(zip(res.ids, res.scores.tolist(), strict=True))
            units = []  # (relevant?, relevant mass, template mass, total mass)
            for u in res.feedback_units:
                docs = {d: dterms.get(d, Counter()) for d in page_docs[u["doc"]]}
                if method == "rm3":
                    terms = ix.engine.doc_terms(ix.pos[u["doc"]])
                    tot = sum(terms.values())
                    relm = sum(sum(docs[d].values()) for d in docs if d in rel)
                    docm = sum(sum(c.values()) for c in docs.values())
                    units.append((any(d in rel for d in docs), min(relm, tot),
                                  max(tot - docm, 0.0), tot))
                else:
                    blk = next(b for b in ix._source_blocks(ix.pos[u["doc"]], bp["source"])
                               if b.seg == u["seg"])
                    d = _doc_of_block(blk.terms, docs)
                    n = blk.length
                    units.append((d in rel, n if d in rel else 0, n if d is None else 0, n))
            q = set(ix.query_terms(coll.topics[qid]))
            exp = {t: w for t, w in res.expanded.items() if t not in q}
            z = sum(exp.values()) or 1.0
            tot = sum(u[3] for u in units) or 1.0
            vals = {"units rel": sum(u[0] for u in units) / max(1, len(units)),
                    "rel mass": sum(u[1] for u in units) / tot,
                    "template mass": sum(u[2] for u in units) / tot,
                    "exp prec": sum(w for t, w in exp.items() if t in oracle) / z}
            for k, v in vals.items():
                acc[method].setdefault(k, []).append(v)
    out = {}
    for method, vals in acc.items():
        ap = evaluate(runs[method], coll.qrels, coll.judged_topics)["AP"]
        out[method] = {k: round(sum(v) / len(v), 4) for k, v in vals.items()}
        out[method]["AP"] = round(sum(ap.values()) / len(ap), 4)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--web", required=True, help="web version folder(s), comma-separated")
    ap.add_argument("--data", default="../shared/data/ir")
    ap.add_argument("--out", default=str(RESULTS / "feedback_units.md"))
    a = ap.parse_args(argv)
    lines = ["| web version | method | units rel | rel mass | template mass | exp prec | MAP |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for w in a.web.split(","):
        got = analyse(Path(w), Path(a.data))
        for method, v in got.items():
            lines.append(f"| {Path(w).name} | {method} | {v['units rel']:.3f} | "
                         f"{v['rel mass']:.3f} | {v['template mass']:.3f} | "
                         f"{v['exp prec']:.3f} | {v['AP']:.4f} |")
        print("\n".join(lines[-2:]), flush=True)
    md = "\n".join(lines) + "\n"
    Path(a.out).write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
