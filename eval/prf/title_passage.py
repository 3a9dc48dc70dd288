"""Does the title passage cost ad-hoc search? MAP@1000 of the default page index of each
rendered web version with ``passages.title`` off and on.

``python -m eval.prf.title_passage --web W/cranfield-k3-s0,W/med-k3-s0 [--work DIR]``

Each web version's cached rendered pages (:mod:`eval.prf.render_web`) are stored once as
``webseg index`` stores a page (:func:`ir.pipeline.doc_from_page`, ``vips`` blocks and the
default content model) in an index with the page defaults of ``webseg index`` (fields, BM25,
passages, repeats: :mod:`ir.index`), under ``<work>/<version>-idx`` (resumable); the index is
then opened twice, with the title passage off and on (:data:`ir.index.DEFAULT_PASSAGES`), and
every judged query is run at depth 1000. The web versions keep their template's ``<title>``
(the document's own title is an ``<h2>`` of the main text), so there a title passage can only
add noise: the check is that it does not cost MAP.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["build_default", "main", "title_rows"]


def build_default(web: Path, out: Path, log: Any = print) -> Path:
    """The default page index of a rendered web version (pages already in it are kept)."""
    from ir import Index, doc_from_page
    from ir.index import DEFAULT_B, DEFAULT_FIELDS, DEFAULT_K1, DEFAULT_PASSAGES, DEFAULT_REPEATS
    from ir.store import IndexNotFoundError
    from webseg.page import Page

    try:
        ix = Index.open(out)
    except IndexNotFoundError:
        ix = Index.create(out, sources=["vips"], k1=DEFAULT_K1, b=DEFAULT_B,
                          fields=dict(DEFAULT_FIELDS), passages=dict(DEFAULT_PASSAGES),
                          repeats=DEFAULT_REPEATS)
    pages = [json.loads(line) for line in (web / "pages.jsonl").open(encoding="utf-8")]
    todo = [p for p in pages if p["id"] not in ix.pos]
    batch = []
    for n, p in enumerate(todo, 1):
        f = web / "rendered" / f"{p['id']}.page.json.gz"
        if f.exists():  # a page that did not render is missing from the version's index too
            batch.append(doc_from_page(p["id"], Page.load(f), ix.analyzer, ["vips"]))
        if len(batch) >= 100 or (n == len(todo) and batch):
            ix.add(batch)
            batch = []
            log(f"  {web.name}: {n}/{len(todo)} pages")
    return out


def title_rows(web: Path, index: Path) -> dict[str, Any]:
    """MAP@1000 of the index with the title passage off and on."""
    from eval.prf.collection import load_collection
    from eval.prf.content import _map
    from ir import Index
    from ir.index import DEFAULT_PASSAGES

    coll = load_collection(web, docs_file="pages.jsonl")
    row: dict[str, Any] = {"web": web.name}
    for label, on in (("no title passage", False), ("title passage", True)):
        row[label] = round(_map(Index.open(index, passages={**DEFAULT_PASSAGES, "title": on}),
                                coll), 4)
    row["difference"] = round(row["title passage"] - row["no title passage"], 4)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.title_passage", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--web", required=True, help="web version folder(s), comma-separated")
    ap.add_argument("--work", type=Path, default=Path(".cache/title-passage"))
    ap.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    rows = []
    for w in [Path(x) for x in args.web.split(",") if x]:
        if not (w / "pages.jsonl").is_file():
            print(f"{w}: no pages.jsonl (python -m eval.prf.render_web builds it)",
                  file=sys.stderr)
            return 2
        idx = build_default(w, args.work / f"{w.name}-idx",
                            log=lambda m: print(m, file=sys.stderr, flush=True))
        rows.append(title_rows(w, idx))
        print(json.dumps(rows[-1]), flush=True)
    if args.out and rows:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"command": "python -m eval.prf.title_passage " + " ".join(
            argv if argv is not None else sys.argv[1:]), "rows": rows}, indent=1) + "\n",
            encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
