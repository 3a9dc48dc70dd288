"""Build a semi-synthetic web version of a plain-text IR collection.

``python -m eval.prf.build_web_collection --collection ../shared/data/ir/med
--templates ../shared/data/boilerplate/dragnet --docs-per-page 1 --seed 0 --out DIR``

Every document of the collection is put into a real page taken from a boilerplate data set:
the page keeps its real navigation, sidebars, headers and footers, and its gold main-content
region is replaced by the document (title as ``<h2>``, text as ``<p>``). With ``k > 1``
documents per page, the k documents become separate ``<section>`` elements of one page
(multi-topic pages). A page is relevant to a topic with the maximum grade of its documents.

**Semi-synthetic**: the documents, queries, judgments and boilerplate are real; their
combination is made here. Results on it must say so.

Finding the main-content region: the gold text of the template page is tokenised; for every
element of the parsed page we count its text tokens and how many of them occur in the gold
vocabulary; the element with the best F1 (precision = in-gold share of its tokens, recall =
in-gold tokens / gold tokens) is the region. Templates are used when that F1 is at least
``--min-f1`` (0.6) and the page keeps at least ``--min-boilerplate`` (50) words outside it.
Scripts, styles and iframes are removed (they are never run offline anyway). By default only
the Dragnet *test* split is used, because the PageLevel segmenter was trained on Dragnet's
train split.

Output folder: ``pages/<pid>.html`` (UTF-8), ``pages.jsonl`` (pid, html path, template data set
and id, documents), ``topics.jsonl`` (copied), ``qrels.txt`` (page level), ``templates.jsonl``
(the usable templates with their F1) and ``README.md``.
"""

from __future__ import annotations

import argparse
import html as html_mod
import json
import random
import re
import shutil
import sys
from pathlib import Path
from typing import Any

__all__ = ["build", "find_main_region", "main"]

_WORD = re.compile(r"[a-z0-9]+")
_DROP = ("script", "style", "iframe", "noscript", "object", "embed")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def find_main_region(root: Any, gold: str) -> tuple[Any, float, int]:
    """(element, F1, words outside it) of the best gold-matching element of an lxml tree."""
    gold_toks = _tokens(gold)
    if not gold_toks:
        return None, 0.0, 0
    vocab = set(gold_toks)
    n_gold = len(gold_toks)
    tot: dict[Any, int] = {}
    hit: dict[Any, int] = {}
    for el in reversed(list(root.iter())):  # children before parents
        if not isinstance(el.tag, str):
            continue
        own = _tokens(el.text or "") + [t for c in el for t in _tokens(c.tail or "")]
        a = len(own) + sum(tot.get(c, 0) for c in el)
        h = sum(t in vocab for t in own) + sum(hit.get(c, 0) for c in el)
        tot[el], hit[el] = a, h
    best, best_f1 = None, 0.0
    for el, a in tot.items():
        if a == 0 or el.tag in ("html", "head"):
            continue
        p, r = hit[el] / a, min(hit[el], n_gold) / n_gold
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        if f1 > best_f1 or (f1 == best_f1 and best is not None and a < tot[best]):
            best, best_f1 = el, f1
    outside = tot.get(root, 0) - (tot.get(best, 0) if best is not None else 0)
    return best, best_f1, outside


def _parse(raw: bytes) -> Any:
    import lxml.html

    from webseg.decode import decode_html

    text = decode_html(raw).text
    root = lxml.html.document_fromstring(text)
    for bad in root.xpath("//" + " | //".join(_DROP)):
        bad.drop_tree()
    for m in root.xpath("//meta[@charset] | //meta[@http-equiv]"):
        m.drop_tree()
    return root


def _fill(region: Any, docs: list[dict]) -> None:
    import lxml.html

    for c in list(region):
        region.remove(c)
    region.text = None
    parts = []
    for d in docs:
        t = html_mod.escape(d.get("title") or "")
        body = html_mod.escape(d.get("text") or "")
        parts.append(f'<section class="doc"><h2>{t}</h2><p>{body}</p></section>')
    frag = lxml.html.fragment_fromstring("<div>" + "".join(parts) + "</div>")
    region.append(frag)


def usable_templates(folders: list[str], split: str | None, min_f1: float,
                     min_boilerplate: int, log: Any = print) -> list[dict[str, Any]]:
    """Templates (data set, id, F1, words outside) whose gold region was found."""
    from webseg.datasets import load_records

    out = []
    for folder in folders:
        recs = [r for r in load_records(folder) if r.gold is not None
                and (split is None or r.split in (None, split)) and not r.exclude_text_metrics]
        for r in recs:
            try:
                root = _parse(r.read_html())
                _, f1, outside = find_main_region(root, r.read_gold() or "")
            except Exception as e:  # noqa: BLE001 - a broken template is skipped and counted
                log(f"template {r.dataset}/{r.id}: skipped ({type(e).__name__}: {e})")
                continue
            if f1 >= min_f1 and outside >= min_boilerplate:
                out.append({"folder": str(folder), "dataset": r.dataset, "id": r.id,
                            "f1": round(f1, 3), "boilerplate_words": outside})
        log(f"{folder}: {len(out)} usable templates of {len(recs)}")
    return out


def build(collection: str, templates: list[str], out: str, docs_per_page: int = 1,
          seed: int = 0, split: str | None = "test", min_f1: float = 0.6,
          min_boilerplate: int = 50, log: Any = print) -> dict[str, Any]:
    """Write the web collection; returns counts."""
    from eval.prf.collection import load_collection
    from webseg.datasets import load_records

    if docs_per_page < 1:
        raise ValueError("--docs-per-page must be >= 1")
    coll = load_collection(collection)
    outp = Path(out)
    (outp / "pages").mkdir(parents=True, exist_ok=True)
    tpls = usable_templates(templates, split, min_f1, min_boilerplate, log)
    if not tpls:
        raise ValueError("no usable template pages")
    recs = {(str(r.dataset), r.id): r for f in templates for r in load_records(f)}
    rng = random.Random(seed)
    docs = list(coll.docs)
    rng.shuffle(docs)
    pages, page_of = [], {}
    for n, i in enumerate(range(0, len(docs), docs_per_page)):
        group = docs[i: i + docs_per_page]
        t = tpls[rng.randrange(len(tpls))]
        root = _parse(recs[(t["dataset"], t["id"])].read_html())
        region, _, _ = find_main_region(root, recs[(t["dataset"], t["id"])].read_gold() or "")
        _fill(region, group)
        head = root.find("head")
        if head is None:
            head = root.makeelement("head", {})
            root.insert(0, head)
        import lxml.html

        head.insert(0, lxml.html.fragment_fromstring('<meta charset="utf-8">'))
        pid = f"p{n:05d}"
        body = lxml.html.tostring(root, encoding="unicode", doctype="<!DOCTYPE html>")
        (outp / "pages" / f"{pid}.html").write_text(body, encoding="utf-8")
        ids = [str(d["id"]) for d in group]
        for d in ids:
            page_of[d] = pid
        pages.append({"id": pid, "html": f"pages/{pid}.html", "template": t, "docs": ids})
    with (outp / "pages.jsonl").open("w", encoding="utf-8") as f:
        for p in pages:
            f.write(json.dumps(p) + "\n")
    with (outp / "templates.jsonl").open("w", encoding="utf-8") as f:
        for t in tpls:
            f.write(json.dumps(t) + "\n")
    shutil.copy(coll.path / "topics.jsonl", outp / "topics.jsonl")
    qrels: dict[tuple[str, str], int] = {}
    for q, rel in coll.qrels.items():
        for d, g in rel.items():
            key = (q, page_of[d])
            qrels[key] = max(qrels.get(key, g), g)
    with (outp / "qrels.txt").open("w", encoding="utf-8") as f:
        for (q, p), g in sorted(qrels.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
            f.write(f"{q} 0 {p} {g}\n")
    info = {"collection": coll.name, "docs": len(docs), "pages": len(pages),
            "docs_per_page": docs_per_page, "seed": seed, "templates": len(tpls),
            "template_sets": templates, "template_split": split}
    (outp / "README.md").write_text(
        f"# {coll.name} web version (semi-synthetic)\n\n"
        "Real documents, queries, judgments and boilerplate; the combination is made by "
        "`eval/prf/build_web_collection.py`.\n\n```json\n" + json.dumps(info, indent=1)
        + "\n```\n", encoding="utf-8")
    log(f"wrote {len(pages)} pages ({docs_per_page} docs/page, {len(tpls)} templates) to {outp}")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", required=True)
    ap.add_argument("--templates", required=True, help="boilerplate data set folder(s), "
                    "comma-separated")
    ap.add_argument("--out", required=True)
    ap.add_argument("--docs-per-page", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split", default="test", help="template split to use ('' = all)")
    ap.add_argument("--min-f1", type=float, default=0.6)
    ap.add_argument("--min-boilerplate", type=int, default=50)
    a = ap.parse_args(argv)
    build(a.collection, [t for t in a.templates.split(",") if t], a.out, a.docs_per_page,
          a.seed, a.split or None, a.min_f1, a.min_boilerplate)
    return 0


if __name__ == "__main__":
    sys.exit(main())
