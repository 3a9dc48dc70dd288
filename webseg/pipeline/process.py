"""Per-page work of the indexing pipeline: one rendered page in, one JSON-able record out.

The same :func:`process_page` runs in the single-machine pipeline and inside Spark executors,
which is what makes their outputs comparable line by line. Stages run in a fixed order
(``segment``, ``clean``, ``classify``, ``sketch``); each adds fields to the record. A stage that
raises stops the page there: the record gets ``status: "error"`` with the stage name and the
message, and keeps what the earlier stages produced. Whole-collection work (duplicate clusters,
the search index) happens after all pages, in :mod:`webseg.pipeline.run`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from webseg.page import Page

__all__ = ["PAGE_STAGES", "PipelineConfig", "PageProcessor", "error_record"]

#: Stages that run on each page, in this order.
PAGE_STAGES = ("segment", "clean", "classify", "sketch")
#: Stages that run once over the whole collection after the pages.
COLLECTION_STAGES = ("dedup", "index")


@dataclass(frozen=True)
class PipelineConfig:
    """What the pipeline does; every field has a default that suits a crawl.

    ``segmenter`` is summarised in the output and is the block source stored in the search
    index for block-based feedback (``vips`` means VIPS at PDoC 0.6 as in :mod:`ir.blocks`);
    ``clean_segmenter`` decides the main (non-template) text, which is classified and
    sketched. The index holds each page's full visible text, like ``webseg index``.
    """

    stages: tuple[str, ...] = PAGE_STAGES + COLLECTION_STAGES
    segmenter: str = "vips"
    segmenter_params: dict[str, Any] = field(default_factory=dict)
    clean_segmenter: str = "pagelevel"
    template_threshold: float = 0.5
    dedup_strip: str = "pagelevel"
    dedup_params: dict[str, int] = field(
        default_factory=lambda: {"window": 6, "k": 8, "threshold": 4})
    minhash_perm: int = 64
    lsh_threshold: float = 0.3
    index_backend: str = "bm25"

    def __post_init__(self) -> None:
        unknown = [s for s in self.stages if s not in PAGE_STAGES + COLLECTION_STAGES]
        if unknown:
            raise ValueError(f"unknown stage(s) {', '.join(unknown)}; known: "
                             f"{', '.join(PAGE_STAGES + COLLECTION_STAGES)}")
        if self.dedup_strip not in ("pagelevel", "none"):
            raise ValueError(f"dedup_strip must be 'pagelevel' or 'none', got "
                             f"{self.dedup_strip!r}")
        if "dedup" in self.stages and "sketch" not in self.stages:
            raise ValueError("the dedup stage needs the sketch stage")
        if "sketch" in self.stages and "clean" not in self.stages and \
                self.dedup_strip == "pagelevel":
            raise ValueError("the sketch stage strips templates with the clean stage: "
                             "keep 'clean' in the stages or set dedup_strip='none'")

    def to_dict(self) -> dict[str, Any]:
        return {"stages": list(self.stages), "segmenter": self.segmenter,
                "segmenter_params": dict(self.segmenter_params),
                "clean_segmenter": self.clean_segmenter,
                "template_threshold": self.template_threshold,
                "dedup_strip": self.dedup_strip, "dedup_params": dict(self.dedup_params),
                "minhash_perm": self.minhash_perm, "lsh_threshold": self.lsh_threshold,
                "index_backend": self.index_backend}


def stored_doc_to_dict(doc: Any) -> dict[str, Any]:
    """An :class:`ir.store.StoredDoc` as JSON (what the journal keeps until indexing)."""
    return doc.to_dict()


def stored_doc_from_dict(d: dict[str, Any]) -> Any:
    from ir.store import StoredDoc

    return StoredDoc.from_dict(d)


def error_record(rec_id: str, url: str | None, stage: str, message: str,
                 **extra: Any) -> dict[str, Any]:
    """The output line of a record that failed at ``stage``."""
    return {"id": rec_id, "url": url, "status": "error",
            "error": {"stage": stage, "message": message}, **extra}


class PageProcessor:
    """Runs the page stages of a :class:`PipelineConfig`; segmenters and models load once."""

    def __init__(self, config: PipelineConfig) -> None:
        self.config = config
        self._stage_fns: dict[str, Callable[[Page, dict[str, Any], dict[str, Any]], None]] = {
            "segment": self._segment, "clean": self._clean,
            "classify": self._classify, "sketch": self._sketch}

    @cached_property
    def segmenter(self) -> Any:
        from ir.blocks import SOURCES
        from webseg.segmenters import get_segmenter

        # The block sources of the search index name their segmenters and parameters
        # (vips = VIPS at PDoC 0.6, wps = wps-margin, ...); other names are segmenters.
        spec = SOURCES.get(self.config.segmenter) or (self.config.segmenter, {})
        return get_segmenter(spec[0], **{**spec[1], **self.config.segmenter_params})

    @cached_property
    def analyzer(self) -> Any:
        from ir.analysis import Analyzer

        return Analyzer()

    def process(self, rec_id: str, url: str | None, page: Page) -> dict[str, Any]:
        """The output record of one rendered page (never raises for a bad page)."""
        out: dict[str, Any] = {"id": rec_id, "url": url or page.url, "status": "ok",
                               "error": None, "title": page.title}
        scratch: dict[str, Any] = {}
        timings: dict[str, float] = {}
        for stage in PAGE_STAGES:
            if stage not in self.config.stages:
                continue
            t0 = time.perf_counter()
            try:
                self._stage_fns[stage](page, out, scratch)
            except Exception as e:  # one bad page must not end the run: record it and go on
                out["status"] = "error"
                out["error"] = {"stage": stage, "message": f"{type(e).__name__}: {e}"}
                break
            finally:
                timings[stage] = round(time.perf_counter() - t0, 4)
        if "index" in self.config.stages and out["status"] == "ok":
            t0 = time.perf_counter()
            out["index_doc"] = self._index_doc(rec_id, url, page, scratch.get("segmentation"))
            timings["index"] = round(time.perf_counter() - t0, 4)
        out["timings"] = timings
        return out

    def _index_doc(self, rec_id: str, url: str | None, page: Page,
                   seg: Any = None) -> dict[str, Any]:
        """The page as the search index stores it (terms + blocks), exactly as ``webseg index``
        builds it (:func:`ir.pipeline.doc_from_page`), reusing the segment stage's
        segmentation when it has one (same segmenter and parameters)."""
        from ir.pipeline import doc_from_page

        source = self.config.segmenter
        segs = {} if seg is None else {source: seg}
        doc = doc_from_page(rec_id, page, self.analyzer, [source], url=url, segmentations=segs)
        return stored_doc_to_dict(doc)

    # ------------------------------------------------------------------ stages
    def _segment(self, page: Page, out: dict[str, Any], scratch: dict[str, Any]) -> None:
        seg = self.segmenter.segment(page)
        tops = seg.at_level(1)
        out["segmentation"] = {
            "algorithm": seg.algorithm, "segments": len(seg), "depth": seg.depth,
            "top": [{"id": s.id, "box": [round(float(v), 1) for v in s.box],
                     "words": len(s.text.split())} for s in tops],
        }
        scratch["segmentation"] = seg

    def _clean(self, page: Page, out: dict[str, Any], scratch: dict[str, Any]) -> None:
        from webseg.templates.clean import clean

        out["main_text"] = clean(page, threshold=self.config.template_threshold,
                                 segmenter=self.config.clean_segmenter)

    @cached_property
    def page_type_model(self) -> Any:
        from classify.model import PageTypeModel

        return PageTypeModel.load()  # the shipped WCXB page-type model

    def _classify(self, page: Page, out: dict[str, Any], scratch: dict[str, Any]) -> None:
        """Page functional type (WCXB types) from in-segment-position TF-ISF features."""
        ((label, prob),) = self.page_type_model.predict_pages([page])
        out["page_type"] = {"type": label, "probability": round(float(prob), 4)}

    def _sketch(self, page: Page, out: dict[str, Any], scratch: dict[str, Any]) -> None:
        """Bottom-k sketch of the (template-stripped) text, plus its MinHash signature for the
        LSH candidate search (kept in the journal, not in the output)."""
        from dedup.lsh import minhash_values
        from dedup.shingle import ShingleParams, shingle_hashes, sketch

        params = ShingleParams(**self.config.dedup_params)
        if self.config.dedup_strip == "pagelevel":
            text = out["main_text"]
        else:  # dedup's "none" strategy
            from dedup.strip import full_text

            text = full_text(page)
        hashes = shingle_hashes(text, params.window)
        out["sketch"] = [int(v) for v in sketch(hashes, params.k)]
        out["minhash"] = ([int(v) for v in minhash_values(hashes, self.config.minhash_perm)]
                          if len(hashes) else [])
