"""Choosing the title field weight: title known-item search on real pages, MAP on web versions.

``python -m eval.prf.title_weight --pages ../shared/data/wcxb-dev
--pages ../shared/data/boilerplate/daniel-dev --web .cache/web/cranfield-k1 --web ...
--out eval/results/prf/title``

Why this harness: the content-aware index scores a page by ``title`` x w + ``main`` + ``rest``
x 0.03 (BM25F weighted counts). The semi-synthetic web versions keep the *template's*
``<title>`` (the document's own title is an ``<h2>`` in the main text), so there a title can
only mislead, and a weight chosen on them alone was 0: a word found only in a real page's
title then found nothing. Real page titles are the strongest field there is. So the weight is
chosen on real pages (known-item: the page's own title as the query, success@10 and MRR)
under the constraint that MAP on the web versions does not fall by more than 0.005.

Cheap, browser-free proxy of the default index, the same for every weight (so the weight's
*effect* is what is measured): pages are parsed without a browser (:func:`webseg.parse.parse`),
the fields are an oracle content split - real pages: ``main`` = the gold main text, ``rest`` =
the rest of the page's text; web versions: ``main`` = the inserted documents (their title and
text), ``rest`` = the rest - and only the page engine scores (k1 1.5, b 0.4, rest 0.03; no
passage evidence, no repetition rule: both need the rendered content model). Titles are the
page's ``<title>``.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ir.analysis import Analyzer
from ir.bm25 import EmbeddedBM25

__all__ = ["known_item", "page_fields_real", "page_fields_web", "web_map"]

Fields = dict[str, dict[str, float]]


def _counts(an: Analyzer, text: str) -> dict[str, float]:
    return {t: float(c) for t, c in Counter(an.tokens(text)).items()}


def _rest(full: Mapping[str, float], main: Mapping[str, float]) -> dict[str, float]:
    return {t: c - main.get(t, 0.0) for t, c in full.items() if c - main.get(t, 0.0) > 0}


def _parse(html: bytes | str) -> tuple[str, str]:
    """(title, visible text) of a page parsed without a browser."""
    from ir.blocks import page_text
    from webseg.parse import parse

    page = parse(html)
    return (page.title or "").strip(), page_text(page)


def page_fields_real(folder: Path, an: Analyzer, cache: Path | None = None
                     ) -> list[tuple[str, str, Fields]]:
    """(id, title, fields) of every page of a boilerplate data set with gold text."""
    cache_f = cache / f"{folder.name}.fields.json.gz" if cache else None
    if cache_f and cache_f.is_file():
        with gzip.open(cache_f, "rt", encoding="utf-8") as f:
            return [tuple(r) for r in json.load(f)]  # type: ignore[misc]
    out = []
    with (folder / "manifest.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(x) for x in f if x.strip()]
    for r in rows:
        if not r.get("gold") or r.get("gold_not_in_html"):
            continue
        title, text = _parse(gzip.decompress((folder / r["html"]).read_bytes()))
        gold = (folder / r["gold"]).read_text(encoding="utf-8")
        main = _counts(an, gold)
        out.append((r["id"], title, {"title": _counts(an, title), "main": main,
                                     "rest": _rest(_counts(an, text), main)}))
    if cache_f:
        cache_f.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(cache_f, "wt", encoding="utf-8") as f:
            json.dump(out, f)
    return out


def page_fields_web(web: Path, docs: Mapping[str, Mapping[str, Any]], an: Analyzer
                    ) -> list[tuple[str, Fields]]:
    """(page id, fields) of a web version built by :mod:`eval.prf.build_web_collection`."""
    out = []
    with (web / "pages.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(x) for x in f if x.strip()]
    for r in rows:
        title, text = _parse((web / r["html"]).read_bytes())
        inner = " ".join(f"{docs[d].get('title') or ''} {docs[d].get('text') or ''}"
                         for d in r["docs"])
        main = _counts(an, inner)
        out.append((r["id"], {"title": _counts(an, title), "main": main,
                              "rest": _rest(_counts(an, text), main)}))
    return out


def _engine(fields: Sequence[Fields], w: Mapping[str, float], k1: float, b: float
            ) -> EmbeddedBM25:
    docs = []
    for fs in fields:
        acc: dict[str, float] = {}
        for name, wt in w.items():
            if wt:
                for t, c in fs.get(name, {}).items():
                    acc[t] = acc.get(t, 0.0) + wt * c
        docs.append(acc)
    return EmbeddedBM25(docs, k1=k1, b=b)


def known_item(pages: Sequence[tuple[str, str, Fields]], w: Mapping[str, float], an: Analyzer,
               k1: float = 1.5, b: float = 0.4) -> dict[str, float]:
    """Each page's own title as the query: success@1/@10 and MRR (ties by row: pessimistic
    only in that an equal-scoring earlier page ranks first)."""
    e = _engine([f for _, _, f in pages], w, k1, b)
    s1 = s10 = rr = 0.0
    n = 0
    for row, (_, title, _) in enumerate(pages):
        q = Counter(an.tokens(title))
        if not q:
            continue
        n += 1
        rows, _ = e.top({t: float(c) for t, c in q.items()}, 10)
        hit = np.flatnonzero(rows == row)
        if len(hit):
            s10 += 1
            s1 += float(hit[0] == 0)
            rr += 1.0 / (hit[0] + 1)
    return {"queries": n, "success@1": s1 / max(n, 1), "success@10": s10 / max(n, 1),
            "mrr@10": rr / max(n, 1)}


def web_map(web: Path, pages: Sequence[tuple[str, Fields]], w: Mapping[str, float],
            an: Analyzer, k1: float = 1.5, b: float = 0.4) -> float:
    """MAP@1000 of the field-weighted page engine on a web version."""
    from eval.prf.collection import load_collection
    from eval.prf.measures import evaluate

    coll = load_collection(web, docs_file="pages.jsonl")
    e = _engine([f for _, f in pages], w, k1, b)
    ids = [p for p, _ in pages]
    run: dict[str, dict[str, float]] = {}
    for qid, text in coll.topics.items():
        terms = an.tokens(text)
        if not terms:
            continue
        rows, sc = e.top({t: float(c) for t, c in Counter(terms).items()}, 1000)
        run[qid] = {ids[r]: float(s) for r, s in zip(rows.tolist(), sc.tolist(), strict=True)}
    topics = coll.judged_topics
    return float(np.mean(list(evaluate(run, coll.qrels, topics)["AP"].values())))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.title_weight", description=__doc__)
    ap.add_argument("--pages", action="append", default=[], help="real pages with gold text")
    ap.add_argument("--web", action="append", default=[], help="built web version folder")
    ap.add_argument("--weights", default="0,0.25,0.5,1,2,3,5")
    ap.add_argument("--rest", type=float, default=0.03)
    ap.add_argument("--cache", default=".cache/title_weight")
    ap.add_argument("--ir", action="append", default=[],
                    help="folder(s) holding the clean collections the web versions were built "
                         "from (default ../shared/data/ir)")
    ap.add_argument("--out", required=True, help="results JSON file")
    a = ap.parse_args(argv)
    an = Analyzer()
    grid = [float(x) for x in a.weights.split(",")]
    res: dict[str, Any] = {"weights": grid, "rest": a.rest, "known_item": {}, "web_map": {}}
    for p in a.pages:
        pages = page_fields_real(Path(p), an, Path(a.cache))
        res["known_item"][Path(p).name] = {
            str(w): known_item(pages, {"title": w, "main": 1.0, "rest": a.rest}, an)
            for w in grid}
        print(Path(p).name, json.dumps(res["known_item"][Path(p).name]), flush=True)
    for wv in a.web:
        from eval.prf.collection import load_collection

        web = Path(wv)
        name = _collection_of(web)
        roots = [Path(r) for r in (a.ir or ["../shared/data/ir"])]
        found = [r / name for r in roots if (r / name / "docs.jsonl").is_file()]
        if not found:
            raise SystemExit(f"{web}: collection {name} not under {', '.join(map(str, roots))}")
        docs = {str(d["id"]): d for d in load_collection(found[0]).docs}
        pages_w = page_fields_web(web, docs, an)
        res["web_map"][web.name] = {str(w): web_map(web, pages_w, {"title": w, "main": 1.0,
                                                                   "rest": a.rest}, an)
                                    for w in grid}
        print(web.name, json.dumps(res["web_map"][web.name]), flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1), encoding="utf-8")
    return 0


def _collection_of(web: Path) -> str:
    """The name of the clean collection a web version was built from (the JSON block of the
    README the builder writes)."""
    text = (web / "README.md").read_text(encoding="utf-8")
    start, end = text.find("```json"), text.rfind("```")
    try:
        return str(json.loads(text[start + 7: end])["collection"])
    except (ValueError, KeyError) as e:
        raise SystemExit(f"{web}: cannot tell which collection it was built from ({e})") from e


if __name__ == "__main__":
    raise SystemExit(main())
