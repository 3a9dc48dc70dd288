"""``python -m eval.blocks.multilingual``: the block model's out-of-fold decisions on daniel-dev,
scored per language with the multilingual harness's tokens, beside trafilatura and readability.

    python -m eval.blocks --datasets ...,daniel-multilingual-v2.1 \\
        --leaves daniel-multilingual-v2.1 --out RUN        # writes RUN/leaves.npz
    python -m eval.multilingual.content --no-classify   # peers, cached per page
    python -m eval.blocks.multilingual --run RUN [--run RUN2 ...] --out FILE.md
    python -m eval.blocks.multilingual --write-shipped DIR [--model M]  # a model's own leaves

``--write-shipped`` writes ``DIR/leaves.npz`` in the same form from a trained model applied to
every page (rendered and parsed) with the features code it is run with: the baseline of a
model that never saw the set (the shipped one before the set was added), run from a checkout
of that code.

Why a separate scorer: the CV's own F1 counts the table's tokens, which depend on the features
code that built the table (a baseline table built before unspaced scripts were split into
letters counts a Chinese sentence as one word). Here every run's kept leaves are turned back
into text - the page is loaded again (the render cache for ``rendered``, :func:`webseg.parse.parse`
for ``parsed``), revealed as the table was (:func:`webseg.blocks.reveal.revealed`), and its
text leaves, in the table's order, joined - and scored with
:func:`eval.multilingual.content.f1` (one token per unspaced-script letter, Unicode words
otherwise), the same scorer as the peers'. The peers' per-page scores come from that harness's
cache (``.cache/webseg/multilingual-content``; it parses the page without a browser, so the
``parsed`` copies are the like-for-like comparison). Pages: those of every run that the harness
also scored (it leaves out pages whose gold is not in the HTML).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

PEERS = ("trafilatura", "readability", "webseg")


def _page(rec: Any, variant: str, render_cache: Path) -> Any:
    from webseg.blocks.reveal import revealed
    from webseg.datasets import KNOWN_ENCODINGS, cache_path
    from webseg.page import Page
    from webseg.parse import parse

    if variant == "rendered":
        page = Page.load(cache_path(render_cache, rec))
    else:
        page = parse(rec.read_html(), url=rec.url, encoding=KNOWN_ENCODINGS.get(rec.dataset))
    if rec.url:
        page.url = rec.url
    return revealed(page)


def score_run(run: Path, data: Path, render_cache: Path, log=print) -> list[dict[str, Any]]:
    """Per page and decoder of ``run/leaves.npz``: the harness F1 of the kept leaves' text
    (cached in ``run/multilingual_per_page.csv.gz``)."""
    from eval.multilingual.content import f1
    from webseg.datasets import load_records

    cached = run / "multilingual_per_page.csv.gz"
    if cached.is_file():
        with gzip.open(cached, "rt", encoding="utf-8") as f:
            return [{**r, "f1": float(r["f1"])} for r in csv.DictReader(f)]
    z = np.load(run / "leaves.npz")
    meta = json.loads(str(z["meta"]))
    off = z["off"]
    decoders = [k for k in z.files if k.startswith("blocks-")]
    recs = {r.id: r for r in load_records(data)}
    rows: list[dict[str, Any]] = []
    for k, m in enumerate(meta):
        rec = recs[m["id"]]
        page = _page(rec, m["variant"], render_cache)
        leaves = page.text_leaves.tolist()
        if len(leaves) != off[k + 1] - off[k]:
            log(f"  {m['id']} ({m['variant']}): {len(leaves)} leaves, table has "
                f"{off[k + 1] - off[k]}; skipped")
            continue
        gold = rec.read_gold() or ""
        for d in decoders:
            keep = z[d][off[k]:off[k + 1]]
            text = " ".join(page.text[j] for j, kp in zip(leaves, keep, strict=True) if kp)
            rows.append({"id": m["id"], "variant": m["variant"], "lang": rec.extra.get("lang"),
                         "site": rec.site, "method": d, "f1": round(f1(text, gold), 6)})
        if (k + 1) % 200 == 0:
            log(f"  {run.name}: {k + 1}/{len(meta)} pages")
    with gzip.open(cached, "wt", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return rows


def write_shipped(out: Path, data: Path, render_cache: Path, model: Path | None,
                  log=print) -> None:
    """``out/leaves.npz`` (the form of :func:`eval.blocks.cv.write_leaves`) of ``model`` (the
    shipped one for ``None``) on every labelled page of ``data``, rendered and parsed, with
    its default decoder (``blocks-stack-page``), ``stack`` (``blocks-stack-nested``: the
    global decision) and stage 1 at 0.5 (``blocks-threshold``)."""
    from webseg.blocks.features import leaf_features
    from webseg.blocks.model import load_model
    from webseg.datasets import cache_path, load_records

    m = load_model(model)
    recs = [r for r in load_records(data) if r.gold is not None and not r.exclude_text_metrics]
    meta: list[dict[str, Any]] = []
    dec: dict[str, list[np.ndarray]] = defaultdict(list)
    sizes = []
    for k, rec in enumerate(recs, 1):
        for variant in ("rendered", "parsed"):
            if variant == "rendered" and not cache_path(render_cache, rec).is_file():
                continue
            lf = leaf_features(_page(rec, variant, render_cache))
            dec["blocks-stack-page"].append(m.decode(lf)[1])
            dec["blocks-stack-nested"].append(m.decode(lf, "stack")[1])
            dec["blocks-threshold"].append(m.decode(lf, "threshold")[1])
            sizes.append(len(lf.leaves))
            meta.append({"dataset": rec.dataset, "id": rec.id, "variant": variant,
                         "site": rec.site})
        if k % 200 == 0:
            log(f"  {k}/{len(recs)} pages")
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "leaves.npz", meta=np.array(json.dumps(meta)),
                        off=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                        **{d: np.concatenate(v).astype(bool) for d, v in dec.items()})


def peer_scores(cache: Path) -> dict[str, dict[str, Any]]:
    """The harness's per-page rows (id -> row with ``lang``, ``site`` and each system's F1)."""
    out = {}
    for f in cache.glob("*.json"):
        r = json.loads(f.read_text(encoding="utf-8"))
        out[r["id"]] = r
    return out


def _means(vals: list[tuple[str, float]]) -> tuple[float, float]:
    """Mean over pages, and over sites (each site's mean first)."""
    by_site: dict[str, list[float]] = defaultdict(list)
    for s, v in vals:
        by_site[s].append(v)
    pages = float(np.mean([v for _, v in vals]))
    sites = float(np.mean([np.mean(v) for v in by_site.values()]))
    return pages, sites


def table(runs: dict[str, list[dict[str, Any]]], peers: dict[str, dict[str, Any]],
          variant: str, method: str) -> str:
    """Markdown: F1 per language (mean over pages, over sites in brackets) of each run's
    ``method`` on ``variant`` pages and of the peers, on the pages every column has."""
    by_run = {name: {r["id"]: r for r in rows if r["variant"] == variant
                     and r["method"] == method} for name, rows in runs.items()}
    ids = set(peers)
    for d in by_run.values():
        ids &= set(d)
    langs = sorted({peers[i]["lang"] for i in ids})
    cols = list(by_run) + [p for p in PEERS]
    head = ["| lang | pages | sites | " + " | ".join(cols) + " |",
            "|---|---:|---:|" + "---:|" * len(cols)]
    lines = []
    for lang in [*langs, "all"]:
        sel = sorted(i for i in ids if lang in ("all", peers[i]["lang"]))
        cells = []
        for c in cols:
            if c in by_run:
                vals = [(peers[i]["site"], by_run[c][i]["f1"]) for i in sel]
            else:
                vals = [(peers[i]["site"], float(peers[i][c])) for i in sel]
            p, s = _means(vals)
            cells.append(f"{p:.3f} ({s:.3f})")
        n_sites = len({peers[i]["site"] for i in sel})
        lines.append(f"| {lang} | {len(sel)} | {n_sites} | " + " | ".join(cells) + " |")
    return "\n".join(head + lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.blocks.multilingual", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", type=Path, default=[],
                    help="an eval.blocks output folder with leaves.npz (repeatable)")
    ap.add_argument("--write-shipped", type=Path, default=None, metavar="DIR",
                    help="write DIR/leaves.npz from --model (default: the shipped model) "
                    "and stop")
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/boilerplate/daniel-dev"))
    ap.add_argument("--render-cache", type=Path, default=Path(".cache/webseg/boilerplate"))
    ap.add_argument("--peers", type=Path, default=Path(".cache/webseg/multilingual-content"),
                    help="eval.multilingual.content's per-page cache")
    ap.add_argument("--method", action="append", default=None,
                    help="decoders to report (default: blocks-stack-page)")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if a.write_shipped is not None:
        write_shipped(a.write_shipped, a.data, a.render_cache, a.model, log)
        return 0
    if not a.run:
        ap.error("give --run (or --write-shipped)")
    runs = {r.name: score_run(r, a.data, a.render_cache, log) for r in a.run}
    peers = peer_scores(a.peers)
    if not peers:
        print(f"{a.peers}: no per-page results; run python -m eval.multilingual.content first",
              file=sys.stderr)
        return 2
    cmd = "python -m eval.blocks.multilingual " + " ".join(sys.argv[1:] if argv is None
                                                             else argv)
    parts = [f"Command: `{cmd}`", ""]
    for method in a.method or ["blocks-stack-page"]:
        for variant in ("parsed", "rendered"):
            parts += [f"## {method}, {variant} pages (peers: parsed, as in "
                      "eval.multilingual.content; `webseg` = the shipped pipeline then)", "",
                      table(runs, peers, variant, method), ""]
    md = "\n".join(parts)
    print(md)
    if a.out:
        a.out.write_text(md, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
