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

from webseg.clean import DEFAULT_METHOD, METHODS
from webseg.page import Page
from webseg.segmentation import summary_rows

__all__ = ["PAGE_STAGES", "PipelineConfig", "PageProcessor", "error_record", "record_html"]

#: Stages that run on each page, in this order.
PAGE_STAGES = ("segment", "clean", "classify", "sketch")
#: Stages that run once over the whole collection after the pages.
COLLECTION_STAGES = ("dedup", "index")
#: Fields of the page-result schema the clean stage fills (from ``CleanResult.to_dict``).
CLEAN_FIELDS = ("status", "reason", "title", "text", "language", "authors", "date_published",
                "date_modified", "site_name", "description", "canonical_url", "image", "tags",
                "method", "xpaths", "roles", "site_repeated")


@dataclass(frozen=True)
class PipelineConfig:
    """What the pipeline does; every field has a default that suits a crawl.

    ``segmenter`` is summarised in the output and is the block source stored in the search
    index for block-based feedback (``vips`` means VIPS at PDoC 0.6 as in :mod:`ir.blocks`);
    ``clean_segmenter`` is the :func:`webseg.clean.extract` method of the main text (the
    block model by default; ``pagelevel``... stay selectable). ``dedup_strip`` says which text
    is sketched: a clean method (the clean stage's text when it is the same method) or
    ``none`` (all visible text). The index holds each page's full visible text, like
    ``webseg index``.

    ``render=False`` (``--no-render``) parses pages without a browser (:mod:`webseg.parse`):
    every stage then runs on a page without layout, so ``segmenter`` must be one that needs
    none (:data:`PARSED_SEGMENTER` by default; ``webseg algos`` says which), the clean and
    dedup text come from the block model and the index's content fields from the block model
    alone (PageLevel needs layout).
    """

    stages: tuple[str, ...] = PAGE_STAGES + COLLECTION_STAGES
    segmenter: str = "vips"
    segmenter_params: dict[str, Any] = field(default_factory=dict)
    clean_segmenter: str = DEFAULT_METHOD
    template_threshold: float = 0.5
    dedup_strip: str = DEFAULT_METHOD
    dedup_params: dict[str, int] = field(
        default_factory=lambda: {"window": 6, "k": 8, "threshold": 4})
    minhash_perm: int = 64
    lsh_threshold: float = 0.3
    index_backend: str = "bm25"
    render: bool = True

    def __post_init__(self) -> None:
        unknown = [s for s in self.stages if s not in PAGE_STAGES + COLLECTION_STAGES]
        if unknown:
            raise ValueError(f"unknown stage(s) {', '.join(unknown)}; known: "
                             f"{', '.join(PAGE_STAGES + COLLECTION_STAGES)}")
        if self.clean_segmenter not in METHODS:
            raise ValueError(f"clean_segmenter must be one of {', '.join(METHODS)}, got "
                             f"{self.clean_segmenter!r}")
        if self.dedup_strip not in (*METHODS, "none"):
            raise ValueError(f"dedup_strip must be one of {', '.join(METHODS)} or 'none', "
                             f"got {self.dedup_strip!r}")
        if "dedup" in self.stages and "sketch" not in self.stages:
            raise ValueError("the dedup stage needs the sketch stage")
        if not self.render:
            if needs_layout(self.segmenter):
                raise ValueError(f"--no-render: the segmenter {self.segmenter!r} needs layout; "
                                 f"use one that needs none ({', '.join(layout_free())})")
            for what, name in (("clean method", self.clean_segmenter),
                               ("dedup strip", self.dedup_strip)):
                if needs_layout(name):
                    raise ValueError(f"--no-render: the {what} {name!r} needs layout; use "
                                     "blocks (the block model)")

    def to_dict(self) -> dict[str, Any]:
        return {"stages": list(self.stages), "segmenter": self.segmenter,
                "segmenter_params": dict(self.segmenter_params),
                "clean_segmenter": self.clean_segmenter,
                "template_threshold": self.template_threshold,
                "dedup_strip": self.dedup_strip, "dedup_params": dict(self.dedup_params),
                "minhash_perm": self.minhash_perm, "lsh_threshold": self.lsh_threshold,
                "index_backend": self.index_backend,
                **({} if self.render else {"render": False})}

    @classmethod
    def parsed(cls, **fields: Any) -> PipelineConfig:
        """A configuration for ``--no-render``: the layout-free segmenter unless one is given."""
        fields.setdefault("segmenter", PARSED_SEGMENTER)
        return cls(render=False, **fields)


#: The block source of the parsed pipeline (``--no-render``): BlockFusion's text-density
#: blocks, the layout-free segmenter of :mod:`webseg.segmenters.blockfusion`.
PARSED_SEGMENTER = "blockfusion"


def needs_layout(name: str) -> bool:
    """Whether a segmenter, block source or clean method needs rendered geometry.

    Block sources of the index (:data:`ir.blocks.SOURCES`) map to their segmenters;
    ``windows`` and ``none`` need nothing; clean methods other than ``blocks`` (the block
    model, which runs on parsed pages) are PageLevel variants and need layout.
    """
    if name in ("windows", "none", "blocks", "largest", "extractor"):
        return False
    if name.startswith("pagelevel") or name == "sitelevel":
        return True
    from ir.blocks import SOURCES
    from webseg.segmenters import get_segmenter

    spec = SOURCES.get(name) or (name, {})
    try:
        return bool(getattr(get_segmenter(spec[0], **spec[1]), "needs_layout", True))
    except KeyError:
        return False  # unknown names are refused where they are used, with the list


def layout_free() -> list[str]:
    """Registered segmenters that run on parsed pages (``needs_layout`` False)."""
    from webseg.segmenters import available, get_segmenter

    return [n for n in available() if not getattr(get_segmenter(n), "needs_layout", True)]


def error_record(rec_id: str, url: str | None, stage: str, message: str,
                 record: Any = None, skipped: bool = False, **extra: Any) -> dict[str, Any]:
    """The output line of a record that failed at ``stage`` (or, ``skipped``, is not a page):
    the page-result schema (:mod:`webseg.clean.json_out`) with its fields empty."""
    from webseg.clean.json_out import blank, source_of, warc_fields

    line = blank(rec_id, source=source_of(record) if record is not None else _source(rec_id),
                 url=url, status="skipped" if skipped else "error",
                 reason=f"{stage}: {message}",
                 error=None if skipped else {"stage": stage, "message": message},
                 warc=warc_fields(record) if record is not None else None)
    line.update(extra)
    return line


def _source(rec_id: str) -> str:
    """The input of a record id when the record is not at hand (``x.warc.gz#12`` -> the WARC)."""
    if "#" in rec_id and not rec_id.startswith(("http://", "https://")):
        return rec_id.rpartition("#")[0]
    return rec_id


def record_html(rec: Any, config: PipelineConfig) -> str | None:
    """The decoded HTML source of a local input record when the clean, classify or index
    stage runs (metadata, the classifier's structured-metadata view and the language the
    index stores read ``<meta>`` / JSON-LD / ``<html lang>``, which the Page model drops);
    None for URL inputs, undecodable bytes, or when all three are off."""
    if not {"classify", "clean", "index"} & set(config.stages):
        return None
    return rec.source_html()


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

    def process(self, rec_id: str, url: str | None, page: Page,
                html: str | None = None, record: Any = None) -> dict[str, Any]:
        """The output record of one rendered page (never raises for a bad page): the
        page-result schema (:mod:`webseg.clean.json_out`), then the stage fields.
        ``html``: the page's source when at hand (:func:`record_html`), for the metadata and
        the classifier; ``record``: the input record (its source, URL and WARC fields)."""
        from webseg.clean.json_out import blank, source_of, warc_fields

        if record is not None:
            from webseg.clean.run import page_url

            url = page_url(record, page, html)
        url = url or page.url
        page.url = url
        out = blank(rec_id, source=source_of(record) if record is not None else _source(rec_id),
                    url=url, warc=warc_fields(record) if record is not None else None)
        out["title"] = page.title or None
        scratch: dict[str, Any] = {"html": html}
        timings: dict[str, float] = {}
        # CPU seconds per stage (the journal only): ``cpu`` is this thread's own work, what
        # the stage costs; ``proc`` is the whole process's, which also counts the renderer's
        # event-loop thread (Playwright's messages, the walk's JSON -> Page) working on the
        # next pages meanwhile: in a rendered run that inflates every stage's figure
        cpu: dict[str, float] = {}
        proc: dict[str, float] = {}
        for stage in PAGE_STAGES:
            if stage not in self.config.stages:
                continue
            t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
            try:
                self._stage_fns[stage](page, out, scratch)
            except Exception as e:  # one bad page must not end the run: record it and go on
                out["status"] = "error"
                out["error"] = {"stage": stage, "message": f"{type(e).__name__}: {e}"}
                out["reason"] = f"{stage}: {type(e).__name__}: {e}"
                break
            finally:
                timings[stage] = round(time.perf_counter() - t0, 4)
                cpu[stage] = round(time.thread_time() - c0, 4)
                proc[stage] = round(time.process_time() - p0, 4)
        if "index" in self.config.stages and out["status"] in ("ok", "empty"):
            t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
            out["index_doc"] = self._index_doc(rec_id, url, page, scratch, record)
            timings["index"] = round(time.perf_counter() - t0, 4)
            cpu["index"] = round(time.thread_time() - c0, 4)
            proc["index"] = round(time.process_time() - p0, 4)
        out["timings"] = timings
        out["cpu_timings"] = cpu
        out["process_cpu_timings"] = proc
        return out

    def _index_doc(self, rec_id: str, url: str | None, page: Page, scratch: dict[str, Any],
                   record: Any = None) -> dict[str, Any]:
        """The page as the search index stores it (terms + blocks), exactly as ``webseg index``
        builds it (:func:`ir.pipeline.doc_from_page`), reusing the segment stage's
        segmentation when it has one (same segmenter and parameters) and the clean stage's
        result: its block-model result (the index's content model would otherwise run it
        again) and its language, the one stored (identified once per page; ``webseg index``
        stores its clean result's too). Without a clean stage the result is made here, as
        ``webseg index`` makes it (:func:`ir.pipeline.page_result`)."""
        from ir.pipeline import (
            declared_hints,
            doc_from_page,
            index_result,
            result_block_fn,
            result_language,
        )

        source = self.config.segmenter
        seg = scratch.get("segmentation")
        segs = {} if seg is None else {source: seg}
        res = scratch.get("clean")
        if res is not None:
            language = result_language(res)
        else:
            res, language = index_result(page, scratch.get("html"), url)
        hints = declared_hints(record) if res is None and record is not None else ()
        doc = doc_from_page(rec_id, page, self.analyzer, [source], url=url, segmentations=segs,
                            block_fn=result_block_fn(res), language=language,
                            lang_hints=hints)
        return doc.to_dict()

    # ------------------------------------------------------------------ stages
    def _segment(self, page: Page, out: dict[str, Any], scratch: dict[str, Any]) -> None:
        seg = self.segmenter.segment(page)
        tops = seg.at_level(1)
        out["segmentation"] = {
            "algorithm": seg.algorithm, "segments": len(seg), "depth": seg.depth,
            "top": summary_rows(tops),
        }
        scratch["segmentation"] = seg

    def _clean(self, page: Page, out: dict[str, Any], scratch: dict[str, Any]) -> None:
        from webseg.clean import extract

        res = extract(page, self.config.clean_segmenter,
                      threshold=self.config.template_threshold, html=scratch.get("html"),
                      url=out["url"])
        d = res.to_dict(roles=False)  # the finer roles: clean -f json (a second model)
        for k in CLEAN_FIELDS:
            out[k] = d[k]
        scratch["clean"] = res

    @cached_property
    def page_type_model(self) -> Any:
        from classify.model import load_model

        return load_model()  # the shipped WCXB page-type model (stacked; no WPS run)

    def _classify(self, page: Page, out: dict[str, Any], scratch: dict[str, Any]) -> None:
        """Page functional type (WCXB types) and the probability of every type."""
        from webseg.clean.json_out import page_type_object

        (probs,) = self.page_type_model.predict_proba_pages([page], [scratch.get("html")],
                                                             urls=[out.get("url")])
        out["page_type"] = page_type_object(probs)

    def _sketch(self, page: Page, out: dict[str, Any], scratch: dict[str, Any]) -> None:
        """Bottom-k sketch of the (template-stripped) text, plus its MinHash signature for the
        LSH candidate search (kept in the journal, not in the output)."""
        from dedup.lsh import minhash_values
        from dedup.shingle import ShingleParams, shingle_hashes, sketch

        params = ShingleParams(**self.config.dedup_params)
        strip = self.config.dedup_strip
        done = scratch.get("clean")
        if strip == "none":  # dedup's "none" strategy
            from dedup.strip import full_text

            text = full_text(page)
        elif done is not None and done.method == strip:
            text = done.text
        else:
            from webseg.clean import extract

            text = extract(page, strip, threshold=self.config.template_threshold).text
        hashes = shingle_hashes(text, params.window)
        out["sketch"] = sketch(hashes, params.k).tolist()  # numpy's unsigned: Python ints
        out["minhash"] = (minhash_values(hashes, self.config.minhash_perm).tolist()
                          if len(hashes) else [])
