"""Scoring template-stripping strategies on labelled page pairs (the papers' Table 2).

Input: a pairs file (JSONL, one pair per line)::

    {"pair_id": "...", "a": {"html": "<path relative to the pairs file, .html or .html.gz>",
     "id": "...", "url": "...", "site": "..."}, "b": {...},
     "label": "duplicate" | "not-duplicate" | "unsure"}

Extra fields are ignored; ``unsure`` pairs are reported but not scored. Every page is rendered
once (offline, JavaScript off; cached by the SHA-256 of its bytes under ``--cache``), each
strategy of :mod:`dedup.strip` turns it into text (``sitelevel`` groups the pages of the file by
their ``site``), and every pair is judged with the papers' rule (6-word shingles, 8-hash
sketches, duplicate when >= 4 shared). Pages that fail to render, and the pairs that use them,
are counted and listed, never dropped silently.

Outputs in ``--out``: ``table.md`` / ``table.csv`` (Table 2 per strategy: duplicate pairs
detected, non-duplicate pairs correctly left apart, precision / recall / F1 of the "duplicate"
decision), ``pr_threshold.csv`` + ``pr_threshold.png`` (precision and recall against the match
threshold 1..k), ``per_pair.csv``, ``errors.csv`` and ``run.json``; when every page names its
``content`` (builder pairs), ``collection.csv``: all pairs of the file's pages judged.
Pages with ``dataset`` and ``record_id`` (natural pairs of the shared sets) are taken from the
shared render cache, never rendered here.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dedup.shingle import PAPER, ShingleParams, estimated_jaccard, is_duplicate, shared, text_sketch
from dedup.strip import STRATEGIES, Item, Stripper
from webseg.page import Page

__all__ = ["PairSpec", "evaluate", "read_pairs", "render_pages"]

LABELS = ("duplicate", "not-duplicate", "unsure")
DEFAULT_CACHE = Path(".cache/webseg/dedup-pages")


@dataclass
class PageSpec:
    path: Path
    id: str
    url: str | None
    site: str | None
    #: set for pages of a shared dataset (``dataset``/``record_id`` fields): they come from the
    #: shared render cache instead of being rendered here
    dataset: str | None = None
    record_id: str | None = None
    #: id of the page's main content where known (the benchmark builder writes it): enables
    #: the collection-level check over all page pairs
    content: str | None = None


@dataclass
class PairSpec:
    pair_id: str
    a: PageSpec
    b: PageSpec
    label: str
    extra: dict[str, Any] = field(default_factory=dict)


def read_pairs(path: str | Path) -> list[PairSpec]:
    """Parse and validate a pairs file; a bad line raises ``ValueError`` naming the line."""
    path = Path(path)
    root = path.parent
    out = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{ln}"
            try:
                d = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{where}: not JSON: {e}") from None
            if not isinstance(d, dict):
                raise ValueError(f"{where}: a pair must be a JSON object")
            label = d.get("label")
            if label not in LABELS:
                raise ValueError(f"{where}: label must be one of {LABELS}, got {label!r}")
            pid = str(d.get("pair_id", f"line-{ln}"))
            if pid in seen:
                raise ValueError(f"{where}: pair_id {pid!r} repeated")
            seen.add(pid)
            sides = []
            for s in ("a", "b"):
                p = d.get(s)
                if not isinstance(p, dict) or not isinstance(p.get("html"), str):
                    raise ValueError(f"{where}: {s!r} must be an object with an 'html' path")
                if not p["html"].endswith((".html", ".htm", ".html.gz", ".htm.gz")):
                    raise ValueError(f"{where}: {s}.html must be a .html or .html.gz file")
                full = (root / p["html"]).resolve()
                sides.append(PageSpec(full, str(p.get("id") or p["html"]), p.get("url"),
                                      p.get("site"), p.get("dataset"), p.get("record_id"),
                                      p.get("content")))
            out.append(PairSpec(pid, sides[0], sides[1], label,
                                {k: v for k, v in d.items() if k not in ("a", "b")}))
    return out


def _read_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def _shared_pages(specs: list[PageSpec], log: Any) -> tuple[dict[Path, Page], dict[Path, bytes],
                                                             dict[Path, str]]:
    """Pages of the shared datasets, through the shared render cache (never rendered here)."""
    from webseg.datasets import load_records, render_cached

    pages: dict[Path, Page] = {}
    raw: dict[Path, bytes] = {}
    errors: dict[Path, str] = {}
    by_root: dict[Path, list[PageSpec]] = {}
    for s in specs:
        by_root.setdefault(s.path.parent.parent, []).append(s)
    for root, group in by_root.items():
        recs = {r.id: r for r in load_records(root)}
        want = {s.path: recs.get(str(s.record_id)) for s in group}
        for path, r in want.items():
            if r is None or r.html.resolve() != path:
                errors[path] = f"read: no record for {path} in {root}/manifest.jsonl"
        todo = [r for r in want.values() if r is not None]
        got = render_cached(todo, log=log)
        for path, r in want.items():
            if r is None or path in errors:
                continue
            if r in got:
                pages[path] = got[r]
                raw[path] = r.read_html()
            else:
                errors[path] = "render: failed (shared render cache)"
    return pages, raw, errors


def render_pages(paths: list[Path], cache: Path = DEFAULT_CACHE, concurrency: int = 2,
                 log: Any = print, specs: dict[Path, PageSpec] | None = None
                 ) -> tuple[dict[Path, Page], dict[Path, bytes], dict[Path, str]]:
    """Rendered page, bytes and error of every path (cache keyed by the bytes' SHA-256).

    Pages whose spec names a shared dataset record come from :func:`_shared_pages`.
    """
    shared = [specs[p] for p in paths if specs and specs[p].dataset and specs[p].record_id]
    pages, raw, errors = _shared_pages(shared, log) if shared else ({}, {}, {})
    todo: list[tuple[Path, Path]] = []
    for p in paths:
        if p in pages or p in errors:
            continue
        try:
            raw[p] = _read_bytes(p)
        except (OSError, EOFError, gzip.BadGzipFile) as e:
            errors[p] = f"read: {e}"
            continue
        c = cache / f"{hashlib.sha256(raw[p]).hexdigest()}.json.gz"
        if c.is_file():
            try:
                pages[p] = Page.load(c)
                continue
            except (OSError, ValueError, EOFError):
                pass
        todo.append((p, c))
    if todo:
        from webseg.render import Renderer

        log(f"rendering {len(todo)} pages ({len(pages)} cached)")
        cache.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        with Renderer() as r:
            for k, ((p, c), res) in enumerate(zip(todo, r.render_many(
                    (raw[p] for p, _ in todo), concurrency), strict=True)):
                if res.error is not None or res.page is None:
                    errors[p] = f"render: {res.error}"
                    log(f"  {p}: render failed: {res.error}")
                    continue
                tmp = c.with_name(c.name + ".part.gz")
                res.page.save(tmp)
                tmp.replace(c)
                pages[p] = res.page
                if (k + 1) % 50 == 0:
                    log(f"  {k + 1}/{len(todo)} rendered, {time.perf_counter() - t0:.0f} s")
    return pages, raw, errors


def parse_pages(paths: list[Path], log: Any = print
                ) -> tuple[dict[Path, Page], dict[Path, bytes], dict[Path, str]]:
    """Every path parsed without a browser (as ``webseg dedup --no-render``): page, bytes and
    error of each. Parsed pages have no layout (``page.has_layout`` is False)."""
    from webseg.parse import parse

    pages: dict[Path, Page] = {}
    raw: dict[Path, bytes] = {}
    errors: dict[Path, str] = {}
    for p in paths:
        try:
            raw[p] = _read_bytes(p)
            pages[p] = parse(raw[p])
        except (OSError, EOFError, gzip.BadGzipFile) as e:
            errors[p] = f"read: {e}"
        except ValueError as e:
            errors[p] = f"parse: {e}"
    log(f"parsed {len(pages)} pages ({len(errors)} failed)")
    return pages, raw, errors


def strategy_texts(strategy: str, specs: dict[Path, PageSpec], pages: dict[Path, Page],
                   raw: dict[Path, bytes], segmenter: str = "gcuts",
                   text_cache: Path | None = None, parsed: bool = False
                   ) -> tuple[dict[Path, str], dict[Path, str], float, dict[str, int]]:
    """Text of every rendered page under ``strategy``, errors per page, seconds, notes.

    With ``text_cache``, per-page texts (every strategy but ``sitelevel``, whose text depends
    on the other pages of the site) are kept under ``text_cache/<strategy>/<sha256>.txt`` and
    reused; delete the folder when a model or the code changes. ``parsed``: the pages were
    parsed without a browser (their texts are cached apart from the rendered pages').
    """
    st = Stripper(strategy, segmenter=segmenter)
    keys = [p for p in specs if p in pages]
    cached: dict[Path, str] = {}
    folder = None
    if text_cache is not None and strategy != "sitelevel":
        folder = text_cache / (f"largest-{segmenter}" if strategy == "largest" else strategy)
        if parsed:
            folder = folder.with_name(folder.name + "-parsed")
        for p in keys:
            f = folder / f"{hashlib.sha256(raw[p]).hexdigest()}.txt"
            if f.is_file():
                cached[p] = f.read_text(encoding="utf-8")
    todo = [p for p in keys if p not in cached]
    items = [Item(page=pages[p], html=raw.get(p), site=specs[p].site, url=specs[p].url)
             for p in todo]
    texts: dict[Path, str] = dict(cached)
    errs: dict[Path, str] = {}
    t0 = time.perf_counter()
    if strategy == "sitelevel":
        texts = dict(zip(todo, st.texts(items), strict=True))
    else:
        for p, it in zip(todo, items, strict=True):
            try:
                texts[p] = st.text(it)
            except Exception as e:  # noqa: BLE001 - scored as an empty text, listed
                texts[p] = ""
                errs[p] = f"{type(e).__name__}: {e}"
                continue
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
                f = folder / f"{hashlib.sha256(raw[p]).hexdigest()}.txt"
                tmp = f.with_name(f.name + ".part")
                tmp.write_text(texts[p], encoding="utf-8")
                tmp.replace(f)
    return texts, errs, time.perf_counter() - t0, dict(st.notes)


def evaluate(pairs_file: Path, out: Path, strategies: list[str], segmenter: str = "gcuts",
             params: ShingleParams = PAPER, cache: Path = DEFAULT_CACHE,
             concurrency: int = 2, log: Any = print, text_cache: Path | None = None,
             render: bool = True) -> dict[str, Any]:
    """Run every strategy on every pair and write the outputs (module doc). ``render=False``:
    pages parsed without a browser, as ``webseg dedup --no-render`` reads them."""
    for s in strategies:
        if s not in STRATEGIES:
            raise ValueError(f"unknown strategy {s!r}; choose from {', '.join(STRATEGIES)}")
    pairs = read_pairs(pairs_file)
    specs: dict[Path, PageSpec] = {}
    for pr in pairs:
        for ps in (pr.a, pr.b):
            specs.setdefault(ps.path, ps)
    if render:
        pages, raw, page_errors = render_pages(list(specs), cache, concurrency, log, specs)
    else:
        pages, raw, page_errors = parse_pages(list(specs), log)
    for p, page in pages.items():
        if specs[p].url:
            page.url = specs[p].url
    out.mkdir(parents=True, exist_ok=True)
    semi = sum(bool(pr.extra.get("semi_synthetic")) for pr in pairs)
    scored = [pr for pr in pairs if pr.label != "unsure"
              and pr.a.path in pages and pr.b.path in pages]
    unscored = [pr for pr in pairs if pr.label != "unsure" and pr not in scored]
    per_pair: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = [{"strategy": "", "page": str(p), "error": e}
                                    for p, e in page_errors.items()]
    timing: dict[str, float] = {}
    notes: dict[str, dict[str, int]] = {}
    sketches: dict[str, dict[Path, Any]] = {}
    for s in strategies:
        log(f"strategy {s} ...")
        texts, errs, secs, nt = strategy_texts(s, specs, pages, raw, segmenter, text_cache,
                                               parsed=not render)
        timing[s] = secs
        notes[s] = nt
        errors.extend({"strategy": s, "page": str(p), "error": e} for p, e in errs.items())
        sketches[s] = {p: text_sketch(t, params) for p, t in texts.items()}
        words = {p: len(t.split()) for p, t in texts.items()}
        for pr in pairs:
            if pr.a.path not in pages or pr.b.path not in pages:
                continue
            sa, sb = sketches[s][pr.a.path], sketches[s][pr.b.path]
            per_pair.append({"pair_id": pr.pair_id, "label": pr.label, "strategy": s,
                             "shared": shared(sa, sb),
                             "jaccard_estimate": round(estimated_jaccard(sa, sb, params.k), 4),
                             "duplicate": int(is_duplicate(sa, sb, params)),
                             "words_a": words[pr.a.path], "words_b": words[pr.b.path],
                             "sketch_a": len(sa), "sketch_b": len(sb)})
    coll = _collection(strategies, sketches, specs, params)
    if coll:
        _write_csv(out / "collection.csv", coll)
    table = _table(per_pair, strategies, params.threshold)
    pr_rows = _pr_threshold(per_pair, strategies, sketches, scored, params)
    _write_csv(out / "per_pair.csv", per_pair)
    _write_csv(out / "table.csv", table)
    _write_csv(out / "pr_threshold.csv", pr_rows)
    _write_csv(out / "errors.csv", errors, ["strategy", "page", "error"])
    semi_note = (f"{semi} of {len(pairs)} pairs semi-synthetic" if semi else "natural pairs")
    _plot(pr_rows, strategies, out / "pr_threshold.png", params.k, semi_note)
    counts = {"pairs": len(pairs), "duplicate": sum(p.label == "duplicate" for p in pairs),
              "not_duplicate": sum(p.label == "not-duplicate" for p in pairs),
              "unsure_not_scored": sum(p.label == "unsure" for p in pairs),
              "unscored_render_failed": len(unscored), "scored": len(scored),
              "semi_synthetic_pairs": semi, "pages": len(specs),
              "pages_render_failed": len(page_errors)}
    (out / "table.md").write_text(_markdown(table, counts, params) + _collection_md(coll),
                                  encoding="utf-8")
    run = {"pairs_file": str(pairs_file), "strategies": strategies, "segmenter": segmenter,
           "render": render,
           "params": {"window": params.window, "k": params.k, "threshold": params.threshold},
           "counts": counts, "strategy_seconds": {k: round(v, 1) for k, v in timing.items()},
           "notes": notes, "unscored_pairs": [p.pair_id for p in unscored]}
    (out / "run.json").write_text(json.dumps(run, indent=2) + "\n", encoding="utf-8")
    return run


def _collection(strategies: list[str], sketches: dict[str, dict[Path, Any]],
                specs: dict[Path, PageSpec], params: ShingleParams) -> list[dict[str, Any]]:
    """Every pair of rendered pages judged, when every page says which content it holds.

    The labelled pairs are a sample; a deployment compares *all* pages. Pages with the same
    ``content`` id are the duplicates, every other pair is a non-duplicate (builder pages: the
    builder keeps near-duplicate contents out of its non-duplicate pairs, but two different
    contents can still be near-duplicates of each other; such pairs count as false here).
    """
    from itertools import combinations

    if not sketches or any(s.content is None for s in specs.values()):
        return []
    rows = []
    for s in strategies:
        sk = sketches[s]
        keys = sorted(sk, key=str)
        same = sum(1 for a, b in combinations(keys, 2) if specs[a].content == specs[b].content)
        tp = fp = 0
        for a, b in combinations(keys, 2):
            if is_duplicate(sk[a], sk[b], params):
                if specs[a].content == specs[b].content:
                    tp += 1
                else:
                    fp += 1
        p, r, f = _prf(tp, fp, same - tp)
        rows.append({"strategy": s, "pages": len(keys),
                     "page_pairs": len(keys) * (len(keys) - 1) // 2,
                     "same_content_pairs": same, "flagged": tp + fp, "true": tp, "false": fp,
                     "precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)})
    return rows


def _collection_md(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    lines = ["", f"All {rows[0]['page_pairs']:,} pairs of the {rows[0]['pages']} pages "
             f"({rows[0]['same_content_pairs']} hold the same content):", "",
             "| strategy | pairs flagged | same content | different content | precision | "
             "recall |", "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['strategy']} | {r['flagged']} | {r['true']} | {r['false']} | "
                     f"{r['precision']:.3f} | {r['recall']:.3f} |")
    return "\n".join(lines) + "\n"


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _table(per_pair: list[dict[str, Any]], strategies: list[str], k: int
           ) -> list[dict[str, Any]]:
    """Table 2 rows; ``k`` here is the matching threshold (a side with fewer sketch hashes
    has too little text to judge)."""
    rows = []
    for s in strategies:
        rs = [r for r in per_pair if r["strategy"] == s and r["label"] != "unsure"]
        dup = [r for r in rs if r["label"] == "duplicate"]
        non = [r for r in rs if r["label"] == "not-duplicate"]
        tp = sum(r["duplicate"] for r in dup)
        fp = sum(r["duplicate"] for r in non)
        p, r_, f = _prf(tp, fp, len(dup) - tp)
        rows.append({"strategy": s, "duplicate_pairs": len(dup), "duplicates_detected": tp,
                     "duplicates_detected_pct": round(100 * tp / len(dup), 1) if dup else 0.0,
                     "not_duplicate_pairs": len(non),
                     "not_duplicates_kept_apart": len(non) - fp,
                     "not_duplicates_kept_apart_pct": round(100 * (len(non) - fp) / len(non), 1)
                     if non else 0.0,
                     "precision": round(p, 3), "recall": round(r_, 3), "f1": round(f, 3),
                     "too_little_text_pairs": sum(1 for r in rs if min(r["sketch_a"],
                                                                      r["sketch_b"]) < k)})
    return rows


def _pr_threshold(per_pair: list[dict[str, Any]], strategies: list[str],
                  sketches: dict[str, dict[Path, Any]], scored: list[PairSpec],
                  params: ShingleParams) -> list[dict[str, Any]]:
    rows = []
    for s in strategies:
        for t in range(1, params.k + 1):
            pt = ShingleParams(params.window, params.k, t)
            tp = fp = fn = 0
            for pr in scored:
                d = is_duplicate(sketches[s][pr.a.path], sketches[s][pr.b.path], pt)
                if pr.label == "duplicate":
                    tp += d
                    fn += not d
                else:
                    fp += d
            p, r, f = _prf(tp, fp, fn)
            rows.append({"strategy": s, "threshold": t, "precision": round(p, 4),
                         "recall": round(r, 4), "f1": round(f, 4), "tp": tp, "fp": fp,
                         "fn": fn})
    return rows


def _write_csv(path: Path, rows: list[dict[str, Any]], fields: list[str] | None = None) -> None:
    fields = fields or (list(rows[0]) if rows else [])
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows(rows)


def _markdown(table: list[dict[str, Any]], counts: dict[str, Any],
              params: ShingleParams) -> str:
    lines = [f"Duplicate detection by shingling ({params.window}-word shingles, "
             f"{params.k} smallest hashes, duplicate when >= {params.threshold} shared).",
             "", f"Pairs: {counts['duplicate']} duplicate, {counts['not_duplicate']} "
             f"not duplicate ({counts['semi_synthetic_pairs']} of {counts['pairs']} "
             "semi-synthetic); "
             f"{counts['unsure_not_scored']} unsure (not scored); "
             f"{counts['unscored_render_failed']} not scored because a page failed to render "
             f"({counts['pages_render_failed']} of {counts['pages']} pages).", "",
             "| strategy | duplicate pairs detected | non-duplicate pairs kept apart | "
             "precision | recall | F1 | pairs with too little text |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in table:
        lines.append(f"| {r['strategy']} | {r['duplicates_detected']} / {r['duplicate_pairs']}"
                     f" ({r['duplicates_detected_pct']:.1f} %) | "
                     f"{r['not_duplicates_kept_apart']} / {r['not_duplicate_pairs']} "
                     f"({r['not_duplicates_kept_apart_pct']:.1f} %) | {r['precision']:.3f} | "
                     f"{r['recall']:.3f} | {r['f1']:.3f} | {r['too_little_text_pairs']} |")
    return "\n".join(lines) + "\n"


def _plot(rows: list[dict[str, Any]], strategies: list[str], path: Path, k: int,
          note: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for s in strategies:
        rs = [r for r in rows if r["strategy"] == s]
        ts = [r["threshold"] for r in rs]
        axes[0].plot(ts, [r["precision"] for r in rs], marker="o", label=s)
        axes[1].plot(ts, [r["recall"] for r in rs], marker="o", label=s)
    for ax, name in zip(axes, ("precision", "recall"), strict=True):
        ax.set_xlabel(f"match threshold (shared hashes of {k})")
        ax.set_ylabel(name)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xticks(range(1, k + 1))
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.suptitle(f"Duplicate decision vs match threshold ({note})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
