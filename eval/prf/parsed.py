"""What search loses without a browser: the default index of a web version built from its
rendered pages against the same pages parsed (``webseg index --no-render``), MAP@1000.

``python -m eval.prf.parsed --web W/cacm-k3-s0,W/med-k1-s0 [--out FILE.json] [--limit N]``

The rendered index is the content index ``python -m eval.prf.content index --content-model
max`` builds from the cached rendered pages; the parsed index (``<web>-parsed-index``, built
here once, resumable) stores every page as ``webseg index --no-render`` does: the HTML parsed
without a browser, the block model's main text (PageLevel needs layout) as the ``main``
field, ``blockfusion`` blocks (layout-free) as the passage source. Both are opened with the
chosen default settings (``eval/results/prf/content/chosen.json``: fields, repeats, passage
evidence), the parsed one with its passages taken from ``blockfusion`` as ``webseg index
--no-render`` does. Rows: MAP of each with no feedback, with block feedback and with the
fields alone (no passage evidence), and the ratios parsed / rendered.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["build_parsed", "main", "rows_for"]


def parsed_index_path(web: Path) -> Path:
    return web.parent / f"{web.name}-parsed-index"


def build_parsed(web: Path, log: Any = print) -> Path:
    """The ``--no-render`` index of a web version (resumable: pages already in it are kept)."""
    from ir import Index
    from ir.pipeline import doc_from_page
    from ir.store import IndexNotFoundError
    from webseg.parse import parse
    from webseg.pipeline.process import PARSED_SEGMENTER

    out = parsed_index_path(web)
    try:
        ix = Index.open(out)
    except IndexNotFoundError:
        ix = Index.create(out, sources=[PARSED_SEGMENTER])
    pages = [json.loads(line) for line in (web / "pages.jsonl").open(encoding="utf-8")]
    todo = [p for p in pages if p["id"] not in ix.pos]
    log(f"{web.name}: {len(todo)} pages to parse and index")
    t0, batch = time.process_time(), []
    for n, p in enumerate(todo, 1):
        page = parse((web / p["html"]).read_bytes())
        batch.append(doc_from_page(p["id"], page, ix.analyzer, [PARSED_SEGMENTER]))
        if len(batch) >= 100 or n == len(todo):
            ix.add(batch)
            batch = []
            log(f"  {n}/{len(todo)} ({(time.process_time() - t0) / n * 1000:.0f} ms CPU/page)")
    return out


def rows_for(web: Path, chosen: dict[str, Any]) -> dict[str, Any]:
    """MAP of the rendered and the parsed default index of one web version."""
    from eval.prf.collection import load_collection
    from eval.prf.content import _map, content_index_path
    from ir import Index
    from ir.feedback import BEST_BLOCKS
    from webseg.pipeline.process import PARSED_SEGMENTER

    coll = load_collection(web, docs_file="pages.jsonl")
    f, rep, pas = dict(chosen["fields"]), chosen.get("repeats") or {}, dict(chosen["passages"])
    row: dict[str, Any] = {"web": web.name}
    for label, path, p in (
            ("rendered", content_index_path(web, chosen.get("model", "max")), pas),
            ("parsed", parsed_index_path(web), {**pas, "source": PARSED_SEGMENTER})):
        ix = Index.open(path, k1=chosen["k1"], b=chosen["b"], fields=f, passages=p,
                        repeats=rep)
        row[label] = round(_map(ix, coll), 4)
        row[f"{label} blocks"] = round(_map(ix, coll, "blocks", **BEST_BLOCKS), 4)
        # the fields alone (no passage evidence): what the main-content model gives
        ix = Index.open(path, k1=chosen["k1"], b=chosen["b"], fields=f, passages={},
                        repeats=rep)
        row[f"{label} fields"] = round(_map(ix, coll), 4)
    row["parsed / rendered"] = round(row["parsed"] / row["rendered"], 3)
    row["blocks parsed / rendered"] = round(row["parsed blocks"] / row["rendered blocks"], 3)
    row["fields parsed / rendered"] = round(row["parsed fields"] / row["rendered fields"], 3)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.prf.parsed", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--web", required=True, help="web version folder(s), comma-separated")
    ap.add_argument("--chosen", type=Path, default=Path("eval/results/prf/content/chosen.json"))
    ap.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    ap.add_argument("--build-only", action="store_true", help="build the parsed indexes only")
    args = ap.parse_args(argv)
    chosen = json.loads(args.chosen.read_text())
    rows = []
    for w in [Path(x) for x in args.web.split(",") if x]:
        if not (w / "pages.jsonl").is_file():
            print(f"{w}: no pages.jsonl (python -m eval.prf.render_web builds it)",
                  file=sys.stderr)
            return 2
        build_parsed(w, log=lambda m: print(m, file=sys.stderr, flush=True))
        if not args.build_only:
            rows.append(rows_for(w, chosen))
            print(json.dumps(rows[-1]), flush=True)
    if args.out and rows:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
