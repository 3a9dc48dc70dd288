"""The default index against clean-text BM25 and no feedback, per web version, in one table.

``python -m eval.prf.engine_check --web W/cranfield-k3-s0,W/cranfield-k1-s0 --out FILE.md``

For each rendered web version that has its content index (``python -m eval.prf.content index
--web W --parts content``): MAP@1000 of clean-text BM25 (the plain collection, chosen k1 and b,
whole documents: the ceiling), of the default index (``chosen.json``: fields, passage evidence,
repetition rule) with the title weight at 0 and at the chosen value, and of the feedback
methods on the default index (block PRF with :data:`ir.feedback.BEST_BLOCKS`, RM3 with the
chosen parameters), each with its ratio; the last rows give, per method, the worst case
(minimum ratio over the versions) beside the mean - the criterion a default must meet never to
lose to no feedback.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["engine_rows", "main"]


def engine_rows(web: Path, data: Path, chosen: dict[str, Any], model: str,
                clean_cache: dict[str, float]) -> dict[str, Any]:
    from eval.prf.collection import load_collection
    from eval.prf.content import _clean_index, _map, content_index_path
    from ir import Index
    from ir.feedback import BEST_BLOCKS

    name = web.name.split("-k")[0]
    if name not in clean_cache:
        root = data if (data / name / "docs.jsonl").is_file() else Path(".cache/data-short")
        with tempfile.TemporaryDirectory() as tmp:
            ix, coll_c = _clean_index(name, root, Path(tmp))
            best = Index.open(ix.store.path, k1=chosen["k1"], b=chosen["b"], fields={},
                              passages={})
            clean_cache[name] = _map(best, coll_c)
    coll = load_collection(web, docs_file="pages.jsonl")
    path = content_index_path(web, model)
    f = dict(chosen["fields"])
    rep, pas = chosen.get("repeats") or {}, chosen["passages"]
    row: dict[str, Any] = {"web": web.name, "clean": clean_cache[name]}
    for label, tw in (("default title 0", 0.0), ("default", float(f["title"]))):
        ix = Index.open(path, k1=chosen["k1"], b=chosen["b"], fields={**f, "title": tw},
                        passages=pas, repeats=rep)
        row[label] = _map(ix, coll)
    ix = Index.open(path, k1=chosen["k1"], b=chosen["b"], fields=f, passages=pas, repeats=rep)
    row["blocks"] = _map(ix, coll, "blocks", **BEST_BLOCKS)
    row["rm3"] = _map(ix, coll, "rm3", **chosen.get("rm3", {}))
    return row


def clean_rows(name: str, data: Path, chosen: dict[str, Any]) -> dict[str, Any]:
    """Feedback on a clean collection indexed as the harness's clean index (whole documents,
    k1 1.5, b 0.75; blocks are 50-word windows): no feedback, block PRF with
    :data:`ir.feedback.BEST_BLOCKS` (what ``webseg search --prf blocks`` runs there), RM3 with
    the chosen and with Anserini's parameters."""
    from eval.prf.content import _clean_index, _map
    from ir.feedback import BEST_BLOCKS

    with tempfile.TemporaryDirectory() as tmp:
        ix, coll = _clean_index(name, data, Path(tmp))
        row: dict[str, Any] = {"collection": name, "none": _map(ix, coll)}
        row["blocks"] = _map(ix, coll, "blocks", **{**BEST_BLOCKS, "source": "windows"})
        row["rm3"] = _map(ix, coll, "rm3", **chosen.get("rm3", {}))
        row["rm3 anserini"] = _map(ix, coll, "rm3", fb_docs=10, fb_terms=10, orig_weight=0.5)
    return row


def table(rows: list[dict[str, Any]], dev: set[str]) -> str:
    head = ("| web version | role | clean BM25 | default, title 0 | default | default / clean "
            "| block PRF | blocks / default | RM3 | RM3 / default |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    lines = [head]
    for r in rows:
        role = "dev" if r["web"] in dev else "test"
        lines.append(f"| {r['web']} | {role} | {r['clean']:.4f} | {r['default title 0']:.4f} | "
                     f"{r['default']:.4f} | {r['default'] / r['clean']:.3f} | "
                     f"{r['blocks']:.4f} | {r['blocks'] / r['default']:.3f} | {r['rm3']:.4f} | "
                     f"{r['rm3'] / r['default']:.3f} |")
    for what in ("blocks", "rm3"):
        ratios = [r[what] / r["default"] for r in rows]
        lines.append(f"\n{what}: worst case {min(ratios):.3f}, mean {sum(ratios) / len(ratios):.3f}"
                     f" x no feedback over {len(rows)} versions")
    ratios = [r["default"] / r["clean"] for r in rows]
    lines.append(f"\ndefault / clean BM25: worst {min(ratios):.3f}, mean "
                 f"{sum(ratios) / len(ratios):.3f}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from eval.prf.content import RESULTS, chosen_model

    ap = argparse.ArgumentParser(prog="python -m eval.prf.engine_check", description=__doc__)
    ap.add_argument("--web", default="", help="web version folders, comma-separated")
    ap.add_argument("--clean", default="",
                    help="instead: clean collections (e.g. cacm,cranfield,med): feedback vs "
                         "none on whole-document indexes")
    ap.add_argument("--combine", default="",
                    help="instead: JSON files written by earlier runs, comma-separated, "
                         "put into one table")
    ap.add_argument("--data", default="../shared/data/ir")
    ap.add_argument("--out", required=True, help="markdown file to write (and .json beside)")
    a = ap.parse_args(argv)
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    model = chosen_model()
    if a.clean:
        crow = []
        for name in [x for x in a.clean.split(",") if x]:
            crow.append(clean_rows(name, Path(a.data), chosen))
            print(json.dumps(crow[-1]), flush=True)
        lines = ["| collection | no feedback | block PRF (windows) | ratio | RM3 (chosen) | ratio "
                 "| RM3 (10/10/0.5) | ratio |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in crow:
            lines.append(f"| {r['collection']} | {r['none']:.4f} | {r['blocks']:.4f} | "
                         f"{r['blocks'] / r['none']:.3f} | {r['rm3']:.4f} | "
                         f"{r['rm3'] / r['none']:.3f} | {r['rm3 anserini']:.4f} | "
                         f"{r['rm3 anserini'] / r['none']:.3f} |")
        Path(a.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
        Path(a.out).with_suffix(".json").write_text(json.dumps(crow, indent=1),
                                                    encoding="utf-8")
        print("\n".join(lines))
        return 0
    cache: dict[str, float] = {}
    rows = [r for f in a.combine.split(",") if f
            for r in json.loads(Path(f).read_text(encoding="utf-8"))]
    for w in [Path(x) for x in a.web.split(",") if x]:
        rows.append(engine_rows(w, Path(a.data), chosen, model, cache))
        print(json.dumps(rows[-1]), flush=True)
    md = table(rows, set(chosen.get("dev", [])) | {"cranfield-titles-k1-s0"})
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(md, encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
