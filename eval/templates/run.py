"""Per-page evaluation of PageLevel and the peers, with a result cache so reruns are quick.

One *method* turns a rendered page (ours) or its decoded HTML (peers) into main-content text;
ours also give a segmentation, scored for template detection. Every (dataset, method, page)
result is one JSON line in ``<cache>/<dataset>/<method>.<signature>.jsonl``; the signature
hashes what the result depends on (model file bytes and parameters for ours, the library
version for peers, and :data:`SCORING_VERSION`), so a changed model or scorer starts a new file
and an unchanged one is read back instead of recomputed.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from eval.templates.peers import PEERS, peer_version, run_peer
from eval.templates.textmetrics import Alignment, align_gold, bow_prf, page_words, words
from webseg.datasets import KNOWN_ENCODINGS, PageRecord
from webseg.metrics import template_scores
from webseg.page import Page, normalize_text
from webseg.segmentation import UNASSIGNED, Segmentation

__all__ = ["DEFAULT_OURS", "Method", "ResultCache", "evaluate_page", "our_method",
           "peer_method", "pred_template_leaves"]

#: bump when the scoring (alignment, tokenisation, metrics) changes: invalidates the cache
SCORING_VERSION = 1
THRESHOLD = 0.5
GOLD_MODEL = Path(__file__).resolve().parents[2] / "webseg" / "models" / "pagelevel-gold.json"
SITE_MODEL = Path(__file__).resolve().parents[2] / "webseg" / "models" / "pagelevel.json"
BLOCKS_MODEL = Path(__file__).resolve().parents[2] / "webseg" / "models" / "blocks.json.gz"


@dataclass
class Method:
    """A named extractor. ``kind`` is ``"ours"`` (needs the rendered page, yields a
    segmentation), ``"blocks"`` (the block-function model, :mod:`webseg.blocks`; no
    segmentation), ``"peer"`` (needs the decoded HTML), ``"all"`` (keep every visible word)
    or ``"align"`` (no extraction: the gold alignment statistics of the page)."""

    name: str
    kind: str
    signature: str
    segmenter: str = ""
    params: dict[str, Any] = field(default_factory=dict)


def _digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else json.dumps(p, sort_keys=True).encode())
    return h.hexdigest()[:12]


def our_method(name: str, segmenter: str, **params: Any) -> Method:
    """A PageLevel variant; the signature covers the model file it uses and ``params``."""
    model = Path(params.get("model") or SITE_MODEL)
    return Method(name, "ours", _digest(model.read_bytes(), segmenter, params, SCORING_VERSION),
                  segmenter, params)


def blocks_method(name: str = "blocks", decoder: str = "stack",
                  model: Path = BLOCKS_MODEL) -> Method:
    """The block-function model (shipped model unless ``model``). It was trained on these
    datasets: its numbers here are in-sample; the held-out ones come from ``eval.blocks``."""
    sig = model.read_bytes() if model.is_file() else b"missing"
    return Method(name, "blocks", _digest(sig, decoder, SCORING_VERSION), "blocks",
                  {"decoder": decoder, "model": str(model)})


def peer_method(name: str) -> Method:
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}")
    return Method(name, "peer", _digest(name, peer_version(name), SCORING_VERSION))


def default_ours() -> list[Method]:
    """The variants of the results tables (Basic, Smooth, Basic+Merge, supervised Smooth)."""
    return [our_method("pagelevel", "pagelevel"),
            our_method("pagelevel-basic", "pagelevel-basic"),
            our_method("pagelevel-merge", "pagelevel-merge"),
            our_method("pagelevel-gold", "pagelevel", model=str(GOLD_MODEL)),
            blocks_method(),
            Method("keep-all", "all", _digest("keep-all", SCORING_VERSION))]


ALIGN = Method("alignment", "align", _digest("alignment", SCORING_VERSION))

DEFAULT_OURS = ["pagelevel", "pagelevel-basic", "pagelevel-merge", "pagelevel-gold",
                "blocks", "keep-all"]


class ResultCache:
    """JSON-lines result store per (dataset, method signature)."""

    def __init__(self, root: Path, dataset: str, method: Method) -> None:
        self.path = root / dataset / f"{method.name}.{method.signature}.jsonl"
        self.rows: dict[str, dict[str, Any]] = {}
        if self.path.is_file():
            # at "\n" only (str.splitlines also splits inside strings at U+2028 / U+0085)
            for line in self.path.read_text(encoding="utf-8").split("\n"):
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by an interrupted run: recomputed
                self.rows[row["id"]] = row

    def add(self, row: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row, allow_nan=True) + "\n")
        self.rows[row["id"]] = row


def pred_template_leaves(seg: Segmentation, threshold: float = THRESHOLD) -> np.ndarray:
    """True per visible text leaf when its segment is template (or it is in no segment)."""
    labels = seg.leaf_labels()
    tmpl = {s.id: float(s.attrs.get("templateness", 0.0)) >= threshold
            for s in seg.at_level(None)}
    return np.fromiter((lab == UNASSIGNED or tmpl.get(int(lab), True) for lab in labels.tolist()),
                       dtype=bool, count=len(labels))


def _leaf_text(page: Page, keep: np.ndarray) -> str:
    leaves = page.text_leaves.tolist()
    return " ".join(t for j, k in zip(leaves, keep.tolist(), strict=True)
                    if k and (t := normalize_text(page.text[j])))


@dataclass
class PageInput:
    """What one page offers the methods; the decoded HTML is made on first use."""

    rec: PageRecord
    page: Page
    gold: str
    _html: str | None = None
    _words: list[str] | None = None
    _alignment: Alignment | None = None

    @property
    def html(self) -> str:
        if self._html is None:
            from webseg.decode import decode_html

            self._html = decode_html(self.rec.read_html(),
                                     encoding=KNOWN_ENCODINGS.get(self.rec.dataset)).text
        return self._html

    @property
    def alignment(self) -> Alignment:
        """Gold alignment of the page (computed once, shared by every method)."""
        if self._alignment is None:
            self._alignment = align_gold(self.page, self.gold)
        return self._alignment

    @property
    def words(self) -> list[str]:
        if self._words is None:
            self._words = page_words(self.page)[0]
        return self._words


def evaluate_page(inp: PageInput, method: Method, get_segmenter: Callable[[Method], Any]
                  ) -> dict[str, Any]:
    """Score one method on one page: content P/R/F1 and, for ours, template P/R/F."""
    row: dict[str, Any] = {"id": inp.rec.id, "error": ""}
    if method.kind == "align":
        al = inp.alignment
        tmpl_words = al.page_words - al.content_words
        return {**row, "coverage": al.coverage, "gold_words": al.gold_words,
                "page_words": al.page_words, "content_words": al.content_words,
                "template_share": tmpl_words / al.page_words if al.page_words else math.nan,
                "leaves": int(len(inp.page.text_leaves)), "nodes": int(inp.page.n)}
    t0 = time.perf_counter()
    text = ""
    seg = None
    try:
        if method.kind == "ours":
            seg = get_segmenter(method).segment(inp.page)
            text = _leaf_text(inp.page, ~pred_template_leaves(seg))
        elif method.kind == "blocks":
            from webseg.blocks import block_functions

            bf = block_functions(inp.page, model=method.params["model"],
                                 decoder=method.params["decoder"])
            text = _leaf_text(bf.page, bf.keep[bf.page.text_leaves])
        elif method.kind == "all":
            text = _leaf_text(inp.page, np.ones(len(inp.page.text_leaves), dtype=bool))
        else:
            text = run_peer(method.name, inp.html, inp.words)
    except Exception as e:  # noqa: BLE001 - one page's failure is scored as empty output
        row["error"] = f"{type(e).__name__}: {e}"[:300]
    row["seconds"] = round(time.perf_counter() - t0, 4)
    pred = words(text)
    row["p"], row["r"], row["f1"] = bow_prf(pred, inp.gold)
    row["pred_words"] = len(pred)
    if seg is not None:
        al = inp.alignment
        sc = template_scores(inp.page, seg, al.content, THRESHOLD)
        for key, prf in sc.items():
            row[f"t_{key}_p"], row[f"t_{key}_r"] = prf.precision, prf.recall
            row[f"t_{key}_f"] = prf.f1
        row["segments"] = len(seg.at_level(None))
    return row


def run_methods(inputs: Iterable[PageInput], methods: list[Method], caches: dict[str, ResultCache],
                get_segmenter: Callable[[Method], Any], log: Callable[[str], None] = print,
                every: int = 100) -> None:
    """Fill every method's cache for every page; pages already cached are skipped."""
    t0 = time.perf_counter()
    for done, inp in enumerate(inputs, 1):
        for m in methods:
            if inp.rec.id not in caches[m.name].rows:
                caches[m.name].add(evaluate_page(inp, m, get_segmenter))
        if done % every == 0:
            log(f"    {done} pages, {time.perf_counter() - t0:.0f} s")


def nanmean(values: Iterable[float]) -> float:
    v = np.array([x for x in values if x is not None], dtype=float)
    v = v[~np.isnan(v)]
    return float(v.mean()) if len(v) else math.nan
