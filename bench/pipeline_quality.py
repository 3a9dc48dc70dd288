"""What the parsed pipeline (``--no-render``) loses per stage against the rendered one.

::

    python bench/pipeline_quality.py --data ../shared/data/wcxb-dev --pages 100

The first ``--pages`` pages of the manifest (sorted by id) are rendered once (cached as Page
JSON under ``.cache/crawl/pages``) and parsed; both go through the pipeline's page stages
(:class:`webseg.pipeline.process.PageProcessor`, the default configuration and
``PipelineConfig.parsed()``), and per stage:

* **clean**: bag-of-words F1 of the main text against the gold text (the measure of
  ``bench/clean.py``), mean over pages, and the paired difference;
* **classify**: agreement of the two predicted page types, and accuracy of each against the
  label. The shipped page-type model was trained on all WCXB dev pages, so accuracies on
  them are in-sample (optimistic for both paths); the agreement is what the parsed path
  changes;
* **sketch / dedup**: whether a page's parsed sketch is judged a duplicate of its rendered
  sketch (the papers' rule: >= 4 of 8 shared hashes), and the duplicate pairs found among the
  pages by each path;
* **index**: overlap of the index's ``main`` field terms (weighted Jaccard) and of the whole
  page terms.

Search quality (MAP) of a parsed index needs the IR web versions and is not measured here.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from eval.templates.textmetrics import bow_prf, words  # noqa: E402
from webseg.datasets import load_records  # noqa: E402
from webseg.decode import decode_html  # noqa: E402
from webseg.page import Page  # noqa: E402
from webseg.parse import parse  # noqa: E402
from webseg.pipeline.process import PageProcessor, PipelineConfig  # noqa: E402

CACHE = ROOT / ".cache" / "crawl" / "pages"


def rendered_pages(recs: list) -> dict[str, Page]:
    """Rendered pages of ``recs`` (from the cache; the missing ones rendered and cached)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    out, missing = {}, []
    for r in recs:
        f = CACHE / f"{r.id}.page.json.gz"
        if f.exists():
            out[r.id] = Page.load(f)
        else:
            missing.append(r)
    if missing:
        from webseg.render import Renderer

        with Renderer() as rd:
            for r, res in zip(missing, rd.render_many((r.read_html() for r in missing), 3),
                              strict=True):
                if res.page is not None:
                    res.page.url = r.url
                    res.page.save(CACHE / f"{r.id}.page.json.gz")
                    out[r.id] = res.page
    return out


def wjaccard(a: dict, b: dict) -> float:
    keys = set(a) | set(b)
    if not keys:
        return 1.0
    num = sum(min(a.get(k, 0), b.get(k, 0)) for k in keys)
    den = sum(max(a.get(k, 0), b.get(k, 0)) for k in keys)
    return num / den if den else 1.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/wcxb-dev")
    ap.add_argument("--pages", type=int, default=100)
    a = ap.parse_args()
    from dedup.shingle import ShingleParams, is_duplicate

    recs = sorted(load_records(a.data), key=lambda r: r.id)[:a.pages]
    pages = rendered_pages(recs)
    stages = ("segment", "clean", "classify", "sketch", "index")
    rend = PageProcessor(PipelineConfig(stages=stages))
    pars = PageProcessor(PipelineConfig.parsed(stages=stages))
    rows = []
    for r in recs:
        if r.id not in pages:
            continue
        raw = r.read_html()
        html = decode_html(raw).text
        g = r.read_gold()
        gold = words(g) if g else None
        pp = parse(raw, url=r.url)
        o_r = rend.process(r.id, r.url, pages[r.id], html=html)
        o_p = pars.process(r.id, r.url, pp, html=html)
        if o_r["status"] != "ok" or o_p["status"] != "ok":
            rows.append({"id": r.id, "failed": [o_r.get("error"), o_p.get("error")]})
            continue
        row = {"id": r.id, "label": r.label,
               "type_r": o_r["page_type"]["type"], "type_p": o_p["page_type"]["type"],
               "dup_rp": bool(is_duplicate(o_r["sketch"], o_p["sketch"], ShingleParams())),
               "sk_r": o_r["sketch"], "sk_p": o_p["sketch"],
               "main_j": wjaccard(o_r["index_doc"].get("fields", {}).get("main", {}),
                                  o_p["index_doc"].get("fields", {}).get("main", {})),
               "terms_j": wjaccard(o_r["index_doc"]["terms"], o_p["index_doc"]["terms"])}
        if gold is not None:
            row["f1_r"] = bow_prf(words(o_r["main_text"]), gold)[2]
            row["f1_p"] = bow_prf(words(o_p["main_text"]), gold)[2]
        rows.append(row)
    ok = [x for x in rows if "failed" not in x]
    n = len(ok)

    def mean(k: str) -> float:
        vals = [x[k] for x in ok if k in x]
        return statistics.fmean(vals) if vals else float("nan")

    def pairs(key: str) -> set:
        found = set()
        for i in range(n):
            for j in range(i + 1, n):
                if is_duplicate(ok[i][key], ok[j][key], ShingleParams()):
                    found.add((ok[i]["id"], ok[j]["id"]))
        return found

    pr, pp_ = pairs("sk_r"), pairs("sk_p")
    res = {"pages": len(recs), "rendered": len(pages), "compared": n,
           "failed": [x for x in rows if "failed" in x],
           "clean_pages_with_gold": sum("f1_r" in x for x in ok),
           "clean_f1_rendered": round(mean("f1_r"), 4),
           "clean_f1_parsed": round(mean("f1_p"), 4),
           "type_agreement": round(mean_b(ok, lambda x: x["type_r"] == x["type_p"]), 4),
           "type_acc_rendered_in_sample": round(mean_b(ok, lambda x: x["type_r"] == x["label"]),
                                                4),
           "type_acc_parsed_in_sample": round(mean_b(ok, lambda x: x["type_p"] == x["label"]),
                                              4),
           "parsed_sketch_duplicate_of_rendered": round(mean_b(ok, lambda x: x["dup_rp"]), 4),
           "dup_pairs_rendered": len(pr), "dup_pairs_parsed": len(pp_),
           "dup_pairs_both": len(pr & pp_),
           "index_main_field_wjaccard": round(mean("main_j"), 4),
           "index_page_terms_wjaccard": round(mean("terms_j"), 4)}
    d = [x["f1_p"] - x["f1_r"] for x in ok if "f1_r" in x]
    if d:
        res["clean_f1_paired_diff_mean"] = round(statistics.fmean(d), 4)
        res["clean_f1_paired_diff_sd"] = round(statistics.stdev(d), 4) if len(d) > 1 else None
    print(json.dumps(res, indent=2))
    return 0


def mean_b(rows: list, pred) -> float:
    return sum(1 for x in rows if pred(x)) / len(rows) if rows else float("nan")


if __name__ == "__main__":
    raise SystemExit(main())
