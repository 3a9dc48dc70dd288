"""Main-content F1 per language on daniel-dev, with tokens that work for every script; and
what the page-type classifier calls these (all news-article) pages.

``python -m eval.multilingual.content [--data DIR] [--limit N] [--out FILE]``

Pages are parsed without a browser (:func:`webseg.parse.parse`) and cleaned with
``webseg.clean.extract`` (the default method); peers on the same bytes: trafilatura
(``extract``, comments excluded) and readability-lxml (``Document.summary``, its text).
Pages whose gold is not all in the HTML are left out (``gold_not_in_html`` or
``gold_bigram_recall_in_html < 0.8``, as the set's SOURCE.md advises).

Tokens (:func:`tokens`): a letter of an unspaced script (Han, kana, Thai, ...) is one token,
otherwise Unicode words (``\\w+``), case-folded; F1 of the two token multisets. Means per
language over pages and over sites (each site's mean first: Greek and Polish have few sites).

The page-type classifier (``classify.model.load_model()``, the shipped default) is run on the
same parsed pages; every daniel-dev page is a news article, so the share it calls ``article``
is its accuracy here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from eval.multilingual import DANIEL

SYSTEMS = ("webseg", "trafilatura", "readability")


def tokens(text: str) -> list[str]:
    """Case-folded Unicode words; each letter of an unspaced script is its own token."""
    from dedup.shingle import words

    return words(text)


def f1(pred: str, gold: str) -> float:
    p, g = Counter(tokens(pred)), Counter(tokens(gold))
    if not p or not g:
        return 1.0 if not p and not g else 0.0
    inter = sum((p & g).values())
    if inter == 0:
        return 0.0
    prec, rec = inter / sum(p.values()), inter / sum(g.values())
    return 2 * prec * rec / (prec + rec)


def readability_text(html: str) -> str:
    from lxml import html as lhtml
    from readability import Document

    summary = Document(html).summary(html_partial=True)
    return lhtml.fromstring(summary).text_content() if summary.strip() else ""


def run_page(rec: Any, model: Any) -> dict[str, Any]:
    import trafilatura

    from webseg.clean import extract
    from webseg.decode import decode_html
    from webseg.parse import parse

    raw = rec.read_html()
    html = decode_html(raw).text
    gold = rec.read_gold() or ""
    out: dict[str, Any] = {"id": rec.id, "lang": rec.extra.get("lang"), "site": rec.site}
    texts: dict[str, str] = {}
    page = None
    try:
        page = parse(raw, url=rec.url)
        texts["webseg"] = extract(page).text
    except Exception as e:  # noqa: BLE001 - a failure scores 0 and is reported
        texts["webseg"] = ""
        out["webseg_error"] = f"{type(e).__name__}: {e}"
    try:
        texts["trafilatura"] = trafilatura.extract(html, url=rec.url,
                                                   include_comments=False) or ""
    except Exception:  # noqa: BLE001
        texts["trafilatura"] = ""
    try:
        texts["readability"] = readability_text(html)
    except Exception:  # noqa: BLE001
        texts["readability"] = ""
    for s in SYSTEMS:
        out[s] = round(f1(texts[s], gold), 4)
    if model is not None and page is not None:
        try:
            (probs,) = model.predict_proba_pages([page], [html], [rec.url])
            out["page_type"] = max(probs, key=lambda k: probs[k])
        except Exception as e:  # noqa: BLE001
            out["page_type"] = f"error: {type(e).__name__}"
    return out


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    res = []
    langs = sorted({r["lang"] for r in rows}) + ["all"]
    for lang in langs:
        sel = [r for r in rows if lang in ("all", r["lang"])]
        row: dict[str, Any] = {"lang": lang, "pages": len(sel),
                               "sites": len({r["site"] for r in sel})}
        for s in SYSTEMS:
            row[s] = round(sum(r[s] for r in sel) / len(sel), 3)
            by_site: dict[str, list[float]] = defaultdict(list)
            for r in sel:
                by_site[r["site"]].append(r[s])
            row[f"{s}_sites"] = round(sum(sum(v) / len(v) for v in by_site.values())
                                      / len(by_site), 3)
        types = Counter(r.get("page_type") for r in sel if r.get("page_type"))
        if types:
            row["page_types"] = dict(types.most_common())
            row["article_share"] = round(types.get("article", 0) / sum(types.values()), 3)
        res.append(row)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.multilingual.content", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(DANIEL))
    ap.add_argument("--limit", type=int, default=0, help="first N pages only (0: all)")
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/multilingual-content"))
    ap.add_argument("--no-classify", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    from webseg.datasets import load_records

    if not (args.data / "manifest.jsonl").is_file():
        print(f"{args.data}: no manifest.jsonl (daniel-dev is needed)", file=sys.stderr)
        return 2
    recs = [r for r in load_records(args.data) if r.gold is not None
            and not r.exclude_text_metrics
            and float(r.extra.get("gold_bigram_recall_in_html") or 1.0) >= 0.8]
    if args.limit:
        recs = recs[:args.limit]
    model, model_id = None, None
    if not args.no_classify:
        from classify.model import file_sha256, load_model, stacked_model_path

        model = load_model()
        # cached rows hold the page type of the model they were made with: a retrained
        # model must not be reported with its predecessor's types
        model_id = file_sha256(stacked_model_path())[:12]
        if any("daniel" in str(d) for d in (getattr(model, "info", None) or {}).get("data", [])):
            print("note: the page-type model was trained on daniel-dev pages: its article "
                  "share here is in-sample (see eval.classify.multilingual for CV numbers)",
                  file=sys.stderr)
    args.cache.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, rec in enumerate(recs):
        cf = args.cache / f"{rec.id}.json"
        if cf.is_file():
            row = json.loads(cf.read_text(encoding="utf-8"))
            if model is None or row.get("page_type_model") == model_id:
                rows.append(row)
                continue
        row = run_page(rec, model)
        if model is not None:
            row["page_type_model"] = model_id
        cf.write_text(json.dumps(row), encoding="utf-8")
        rows.append(row)
        if (i + 1) % 50 == 0:
            print(f"{i + 1}/{len(recs)}", file=sys.stderr, flush=True)
    summary = summarise(rows)
    print("| lang | pages | sites | " + " | ".join(SYSTEMS) + " | article share |")
    print("|---|---:|---:|" + "---:|" * (len(SYSTEMS) + 1))
    for r in summary:
        cells = [f"{r[s]:.3f} ({r[s + '_sites']:.3f})" for s in SYSTEMS]
        print(f"| {r['lang']} | {r['pages']} | {r['sites']} | " + " | ".join(cells)
              + f" | {r.get('article_share', '-')} |")
    print("(F1 over pages (over sites); article share: pages the classifier calls article)")
    for r in summary:
        if "page_types" in r:
            print(r["lang"], r["page_types"])
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"summary": summary}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
