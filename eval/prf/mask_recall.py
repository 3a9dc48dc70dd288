"""How much of each collection document the content-aware index keeps as content, per web version.

``python -m eval.prf.mask_recall --web .cache/webseg/prf/web/cacm-k1-s0,...`` reads the
default (content-aware) index of each web version and, for every page and every collection
document on it (the web versions know which documents a page holds), measures:

* ``doc share``: the document's term occurrences over the page's (how much the template and
  the page's other documents dilute it);
* ``main recall``: share of the document's term occurrences that are in the ``main`` field
  as the default index scores it (P(main) >= 0.5 per leaf, :mod:`ir.content`; main leaves
  repeated across pages moved to ``rest``, :mod:`ir.repeats`);
* ``main purity``: share of the page's ``main`` field that is text of its documents (the rest
  is template text the mask kept; per page, given for each of its documents);
  ``purity, models only``: the same before the repetition rule;
* ``in content block``: whether some content block of the passage source (weight >=
  ``min_block_weight``, >= ``min_terms`` terms; the units of the passage evidence) is mostly
  (>= 60% of its terms) this document, i.e. whether the passage evidence can rank the page by it;
* ``doc terms``: the document's length in analysed terms (median).

Means over all documents and over the *relevant* documents (judged relevant to some topic).
Nothing is chosen here: it explains the default index's tables.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

from eval.prf.collection import load_collection
from eval.prf.fb_units import _doc_of_block

__all__ = ["analyse", "main"]

RESULTS = Path("eval/results/prf/content")


def analyse(web: Path, data: Path, model: str | None = None) -> dict[str, dict[str, float]]:
    from eval.prf.content import chosen_model, content_index_path
    from ir import Index

    chosen = json.loads((RESULTS / "chosen.json").read_text())
    ix = Index.open(content_index_path(web, model or chosen_model()), fields=chosen["fields"],
                    repeats=chosen.get("repeats") or {})
    pas = chosen["passages"]
    src, mw, mt = pas["source"], float(pas["min_block_weight"]), int(pas["min_terms"])
    coll = load_collection(web, docs_file="pages.jsonl")
    clean = load_collection(data / web.name.split("-k")[0])
    an = ix.analyzer
    dterms = {str(d["id"]): Counter(an.tokens(f"{d.get('title') or ''} {d.get('text', '')}"))
              for d in clean.docs}
    rel = {d for q in clean.qrels.values() for d, r in q.items() if r >= 1}
    page_docs = {p["id"]: [str(x) for x in p["docs"]] for p in coll.docs}
    blocks = dict(ix.store.iter_blocks())
    rows: list[tuple[str, float, float, bool, int, float, float]] = []
    for sd in ix.store.iter_docs():
        docs = {d: dterms.get(d, Counter()) for d in page_docs.get(sd.id, [])}
        page_n = sum(sd.terms.values()) or 1
        main = ix.doc_fields(sd).get("main", {})
        raw = sd.fields.get("main", {})
        bl = blocks.get(sd.id, {})
        content = [b for b in bl.get(src, bl.get("windows", []))
                   if b.weight >= mw and b.length >= mt]
        owners = {_doc_of_block(b.terms, docs) for b in content}
        alld: Counter[str] = Counter()
        for dt in docs.values():
            alld.update(dt)
        purity, raw_purity = ((sum(min(c, alld.get(t, 0)) for t, c in m.items())
                               / (sum(m.values()) or 1.0)) for m in (main, raw))
        for d, dt in docs.items():
            n = sum(dt.values())
            if not n:
                continue
            kept = sum(min(c, main.get(t, 0.0)) for t, c in dt.items()) / n
            rows.append((d, n / page_n, kept, d in owners, n, purity, raw_purity))
    out = {}
    for label, sel in (("all", rows), ("relevant", [r for r in rows if r[0] in rel])):
        out[label] = {"docs": len(sel),
                      "doc share": round(statistics.fmean(r[1] for r in sel), 4),
                      "main recall": round(statistics.fmean(r[2] for r in sel), 4),
                      "main purity": round(statistics.fmean(r[5] for r in sel), 4),
                      "purity, models only": round(statistics.fmean(r[6] for r in sel), 4),
                      "in content block": round(statistics.fmean(r[3] for r in sel), 4),
                      "doc terms (median)": statistics.median(r[4] for r in sel)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.mask_recall",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--web", required=True, help="web version folder(s), comma-separated")
    ap.add_argument("--data", default="../shared/data/ir")
    ap.add_argument("--out", default=str(RESULTS / "mask_recall.md"))
    a = ap.parse_args(argv)
    cols = ["docs", "doc share", "main recall", "main purity", "purity, models only",
            "in content block", "doc terms (median)"]
    lines = ["| web version | documents | " + " | ".join(cols) + " |",
             "|---|---|" + "---:|" * len(cols)]
    for w in [Path(x) for x in a.web.split(",") if x]:
        res = analyse(w, Path(a.data))
        for label, vals in res.items():
            lines.append(f"| {w.name} | {label} | " + " | ".join(str(vals[c]) for c in cols)
                         + " |")
            print(lines[-1], flush=True)
    Path(a.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
