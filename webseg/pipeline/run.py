"""The single-machine indexing pipeline: inputs -> pages.jsonl + duplicate report + index.

Two phases, both restartable:

1. **Pages.** Every input record (:func:`webseg.inputs.iter_inputs`) not yet in the journal
   ``OUT/work/pages.jsonl`` is rendered (offline, batch renderer) and processed
   (:class:`~webseg.pipeline.process.PageProcessor`); its line is appended and flushed at once.
   A record that cannot be read or rendered, or whose processing fails, gets an error line.
   ``kill -9`` at any moment loses at most the pages in flight; the next run skips every
   record already in the journal.
2. **Collection.** From the journal alone (no rendering): duplicate clusters over the page
   sketches, the search index over the main text and stored blocks, and the final
   ``OUT/pages.jsonl`` with one line per input record, in input order, each with its
   ``duplicate_cluster``. Outputs are written to temporary names and renamed, so a run killed
   here simply redoes this phase.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import shutil
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webseg.clean.json_out import upgrade_line
from webseg.inputs import InputRecord, iter_inputs, parse_inputs_html, record_inputs
from webseg.pipeline.collect import (
    CompactDuplicateIndex,
    JournalScan,
    journal_line_parts,
    scan_journal,
    write_final,
)
from webseg.pipeline.journal import Journal
from webseg.pipeline.process import PageProcessor, PipelineConfig, error_record, record_html
from webseg.progress import is_quiet

__all__ = ["RunSummary", "cluster_label", "duplicate_index", "finalize", "index_builder",
           "page_phase_gc",
           "run_pipeline", "split_error", "unique_ids"]

WORK = "work"
JOURNAL = "pages.jsonl"
#: Allocations between two young-generation garbage collections while pages are processed
#: (Python's default: 700).
PAGE_PHASE_GC_THRESHOLD = 50_000
#: Fields of the journal that stay out of the final pages.jsonl (they live in the index).
INTERNAL_FIELDS = ("index_doc", "minhash", "cpu_timings", "process_cpu_timings")


#: Failed records named at the end of a run (the rest are counted; pages.jsonl has them all).
ERRORS_LISTED = 20


@dataclass
class RunSummary:
    """Counts and timings of one run, written to ``OUT/summary.json``."""

    records: int = 0
    ok: int = 0
    #: Pages without main content, per reason (``no text``, ``script-only shell``...).
    empty: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    processed_now: int = 0
    resumed: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    duplicate_clusters: int = 0
    pages_in_duplicate_clusters: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    warc_records: dict[str, int] = field(default_factory=dict)
    revisits_matched: int = 0
    rendered: bool = True
    outputs: dict[str, str] = field(default_factory=dict)
    #: Pages with main text per language code (``und`` when none was identified): what a crawl
    #: holds is the first thing a user of a multilingual index asks.
    languages: dict[str, int] = field(default_factory=dict)
    #: Pages with main text per page type (when the classify stage ran).
    page_types: dict[str, int] = field(default_factory=dict)
    #: The first :data:`ERRORS_LISTED` failed records as ``[id, stage, message]``, so the end
    #: of a run names what failed and why (every one is in pages.jsonl).
    first_errors: list[list[str]] = field(default_factory=list)

    def table(self) -> str:
        """A human summary for the end of a run."""
        rate = self.processed_now / self.seconds if self.seconds else 0.0
        rows = [("input records", self.records), ("ok", self.ok),
                *((f"empty ({k})", v) for k, v in sorted(self.empty.items())),
                ("skipped", self.skipped),
                *((f"  skipped: {k}", v) for k, v in sorted(self.skipped_reasons.items())),
                *((f"error at {k}", v) for k, v in sorted(self.errors.items())),
                *((f"WARC {k} records", v) for k, v in sorted(self.warc_records.items())),
                *([("revisits of a record in the input", self.revisits_matched)]
                  if self.warc_records.get("revisit") else []),
                ("pages", "rendered" if self.rendered else "parsed (no browser)"),
                ("done in earlier runs", self.resumed), ("processed now", self.processed_now),
                ("pages/s (this run)", f"{rate:.2f}" if self.processed_now else "-"),
                *([("languages", _counts(self.languages))] if self.languages else []),
                *([("page types", _counts(self.page_types))] if self.page_types else []),
                ("duplicate clusters", self.duplicate_clusters),
                ("pages in them", self.pages_in_duplicate_clusters),
                *((f"{k} s/page (median)", f"{v:.3f}") for k, v in
                  sorted(self.stage_seconds.items()))]
        width = max(len(str(k)) for k, _ in rows)
        return "\n".join(f"  {str(k).ljust(width)}  {v}" for k, v in rows)


def _counts(c: dict[str, int]) -> str:
    """``en 19, zh 3`` (most first, then by name) for one line of the run's table."""
    return ", ".join(f"{k} {v}" for k, v in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def unique_ids(records: Iterable[InputRecord]) -> Iterator[InputRecord]:
    """Make record ids unique (the same file given twice gets ``id~2``), keeping order."""
    seen: Counter[str] = Counter()
    for r in records:
        seen[r.id] += 1
        if seen[r.id] > 1:
            r = dataclasses.replace(r, id=f"{r.id}~{seen[r.id]}")
        yield r


def cluster_label(smallest_member: str) -> str:
    """A duplicate cluster's id: derived from its smallest member id, so the single-machine
    and the Spark pipeline name the same cluster the same way."""
    import hashlib

    return "dup-" + hashlib.sha1(smallest_member.encode("utf-8")).hexdigest()[:12]


def split_error(err: str) -> tuple[str, str]:
    """``"stage: message"`` -> ``(stage, message)``; messages without a stage are render's."""
    stage, sep, msg = err.partition(": ")
    return (stage, msg) if sep and stage.isidentifier() else ("render", err)


def run_pipeline(inputs: Sequence[str | Path], out_dir: str | Path,
                 config: PipelineConfig | None = None, *, concurrency: int = 3,
                 render_options: dict[str, Any] | None = None, progress: bool = True,
                 processor: PageProcessor | None = None) -> RunSummary:
    """Run (or resume) the pipeline over ``inputs`` into ``out_dir``; see the module doc."""
    config = config or PipelineConfig()
    out = Path(out_dir)
    work = out / WORK
    work.mkdir(parents=True, exist_ok=True)
    _check_config(work, config)
    processor = processor or PageProcessor(config)

    counts: dict[str, int] = {}  # WARC record types, for the summary
    # A bar needs the number of records before the first page: one reading pass of its own.
    # Without a bar the inputs are read once, and the final order noted on the way.
    total = sum(1 for _ in iter_inputs(inputs)) if progress and not is_quiet() else None
    order: list[str] = []  # every input record's id, in input order: the final order
    t0 = time.perf_counter()
    processed = 0
    with Journal.open(work / JOURNAL) as journal:
        resumed = len(journal.done)
        # A fresh journal is scanned as it is written: the collection phase then reads each
        # line once (a resumed one is scanned from the file, earlier runs' lines included).
        scan = JournalScan(dedup=duplicate_index(config)) if not journal.done else None

        def todo() -> Iterator[InputRecord]:
            for r in unique_ids(iter_inputs(inputs, counts)):
                order.append(r.id)
                if r.id not in journal.done:
                    yield r

        # ... and its index entries go to the index builder as they are made (the journal
        # lines are in input order, the index's order), so the collection phase reads back
        # only each line's public fields
        builder = index_builder(out, config) if scan is not None else None
        records = todo()
        bar = _progress(total, resumed, progress)
        try:
            with page_phase_gc():
                for rec, page, err, html in _page_inputs(records, config, concurrency,
                                                          render_options or {}):
                    line = record_line(rec, page, err, processor, html)
                    data, head, parts = journal_line_parts(line, INTERNAL_FIELDS)
                    pos = journal.append(line, data)
                    if scan is not None:
                        scan.add(line, pos, head)
                    if builder is not None and line.get("index_doc"):
                        # made by StoredDoc.to_dict in this process: rows already
                        builder.add(line["index_doc"], rows_made=True, encoded=parts)
                    processed += 1
                    bar.update(1)
        finally:
            bar.close()
        deque(records, maxlen=0)  # the order is complete only once every record was read
    with page_phase_gc():  # the collection phase parses every journal line: the same holds
        summary = finalize(order, out, config, scan, builder)
    summary.warc_records = dict(sorted(counts.items()))
    summary.rendered = config.render
    summary.processed_now = processed
    summary.resumed = resumed
    summary.seconds = round(time.perf_counter() - t0, 2)
    (out / "summary.json").write_text(json.dumps(summary.__dict__, indent=2) + "\n")
    return summary


@contextmanager
def page_phase_gc() -> Iterator[None]:
    """Collect cyclic garbage less often while pages are processed (and while the collection
    phase reads their journal lines).

    A page allocates hundreds of thousands of containers (nodes' attributes, tokens, term
    counts) that reference counting frees, so Python's default collector (a young collection
    every 700 net allocations) ran ~1,700 collections over 200 pages, and its full
    collections walked every long-lived object (models, analyzer caches) each time: 7 % of
    a parsed run's CPU, measured with ``gc.callbacks``. Every 50,000 allocations it collects
    the same cycles at a fraction of the cost; peak memory did not change (344 MB on 200
    pages, both ways). The previous thresholds are restored afterwards."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], PAGE_PHASE_GC_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _page_inputs(records: Iterable[InputRecord], config: PipelineConfig, concurrency: int,
                 render_options: dict[str, Any]
                 ) -> Iterator[tuple[InputRecord, Any, str | None, str | None]]:
    """``(record, page, error, decoded HTML or None)`` of every record, in order: rendered
    pages, or parsed ones with the HTML their parse decoded (:func:`record_line` uses it)."""
    if config.render:
        for rec, page, err in record_inputs(records, concurrency, render=True,
                                            **render_options):
            yield rec, page, err, None
    else:
        yield from parse_inputs_html(records, int(render_options.get("max_nodes", 200_000)))


def record_line(rec: InputRecord, page: Any, err: str | None,
                processor: PageProcessor, decoded: str | None = None) -> dict[str, Any]:
    """The journal line of one input record, on one machine and on Spark alike: the
    processed page, or :func:`no_page_record` (an error line keeps a text-only index entry
    when the HTML still parses, so the page is still found).

    ``decoded``: the HTML the page was parsed from (:func:`webseg.inputs.parse_inputs_html`).
    For a WARC record (its bytes in hand) it is what :func:`record_html` would decode from the
    same bytes, so it is used instead of decoding them a second time; files are decoded
    again as before (:meth:`InputRecord.read_bytes` undoes a ``.gz`` name its own way)."""
    if page is None:
        line = no_page_record(rec, err)
        if line["status"] == "error" and "index" in processor.config.stages:
            doc = text_only_doc(rec, line["reason"], processor)
            if doc is not None:
                line["index_doc"] = doc
        return line
    cfg = processor.config
    reuse = decoded is not None and isinstance(rec.source, bytes) and bool(
        {"classify", "clean", "index"} & set(cfg.stages))
    line = processor.process(rec.id, rec.url, page,
                             html=decoded if reuse else record_html(rec, cfg), record=rec)
    if line["error"]:
        line["reason"] = f"{line['error']['stage']}: {line['error']['message']}"
    return line


def no_page_record(rec: InputRecord, err: str | None) -> dict[str, Any]:
    """The line of a record without a page: ``skipped`` (a redirect, a 404, a revisit, not
    HTML: the reason says which, nothing to index) or ``error`` (with its stage)."""
    reason = err or rec.error or "unknown error"
    stage, msg = split_error(reason)
    return error_record(rec.id, rec.url, stage, msg, record=rec, skipped=rec.skipped)


def _check_config(work: Path, config: PipelineConfig) -> None:
    """Refuse to resume a run that was started with a different configuration."""
    path = work / "config.json"
    cur = config.to_dict()
    if path.exists():
        old = json.loads(path.read_text())
        if old != cur:
            raise ValueError(f"{work.parent} holds a run with another configuration "
                             f"({path}); use a new output directory or delete it")
    else:
        path.write_text(json.dumps(cur, indent=2) + "\n")


def _progress(total: int | None, initial: int, enabled: bool) -> Any:
    from webseg.progress import progress_bar  # a bar on a terminal, plain lines in a log

    return progress_bar(total=total, initial=initial, unit="page", enabled=enabled, desc="pages")


def duplicate_index(config: PipelineConfig) -> CompactDuplicateIndex | None:
    """The collection of page signatures the dedup stage clusters (None without it)."""
    if "dedup" not in config.stages:
        return None
    from dedup.shingle import ShingleParams

    return CompactDuplicateIndex(ShingleParams(**config.dedup_params), config.minhash_perm,
                                 config.lsh_threshold)


def index_builder(out: Path, config: PipelineConfig) -> Any:
    """The streaming builder of the run's index, writing into ``OUT/index.tmp`` (made anew);
    None without the index stage."""
    if "index" not in config.stages:
        return None
    from ir.analysis import Analyzer
    from ir.from_output import IndexBuilder

    tmp_index = out / "index.tmp"
    if tmp_index.exists():
        shutil.rmtree(tmp_index)
    return IndexBuilder(tmp_index, backend=config.index_backend, analyzer=Analyzer(),
                        sources=(config.segmenter,),
                        passage_source=None if config.render else config.segmenter)


def finalize(order: Sequence[str], out: Path, config: PipelineConfig,
             scan: JournalScan | None = None, builder: Any = None) -> RunSummary:
    """Phase 2: duplicate clusters, index and the final pages.jsonl from the journal.

    ``order`` is the input records' ids in input order (one output line each). Reads the
    journal in two passes and keeps only compact per-page data (:mod:`webseg.pipeline.collect`),
    so memory stays flat as the collection grows. ``scan``: the first pass, when the page phase
    made it while writing every line of the journal (its dedup index from
    :func:`duplicate_index` of the same ``config``). ``builder``: the :func:`index_builder`
    the page phase gave the index entries of those lines (the lines ``scan`` knows the
    public part of are then read without their entry).
    """
    work = out / WORK
    journal = work / JOURNAL
    if scan is None:
        scan = scan_journal(journal, duplicate_index(config))
    dedup = scan.dedup
    originals = scan.revisit_originals()
    missing = [i for i in order if i not in scan.offsets]
    if missing:
        raise RuntimeError(f"{len(missing)} input records have no journal line (first: "
                           f"{missing[0]}); run the pipeline again to process them")

    summary = RunSummary(records=len(order))
    clusters: dict[str, str] | None = None
    in_pairs: set[str] = set()
    result = None
    if dedup is not None:
        result = dedup.result()
        clusters = {str(k): cluster_label(min(str(m) for m in members))
                    for members in result.clusters for k in members}
        in_pairs = {str(x) for p in result.pairs for x in (p.a, p.b)}
        summary.duplicate_clusters = len(result.clusters)
        summary.pages_in_duplicate_clusters = sum(len(c) for c in result.clusters)
        for rv, orig in originals.items():  # a revisit is an exact copy of its original
            if orig not in clusters:
                clusters[orig] = cluster_label(min(orig, rv))
            clusters[rv] = clusters[orig]
    fed = builder is not None  # the page phase gave it every entry already
    if builder is None:
        builder = index_builder(out, config)
    pages: dict[str, Any] = {}
    stage_times: dict[str, list[float]] = {}

    def on_record(rec: dict[str, Any]) -> None:
        upgrade_line(rec)  # a journal line of an older run: main_text -> text, new fields
        rid = str(rec["id"])
        st = rec.get("status")
        if st == "ok":
            summary.ok += 1
            lang = (rec.get("language") or {}).get("code") or "und"
            summary.languages[lang] = summary.languages.get(lang, 0) + 1
            if ptype := (rec.get("page_type") or {}).get("type"):
                summary.page_types[ptype] = summary.page_types.get(ptype, 0) + 1
        elif st == "empty":
            reason = rec.get("reason") or "unknown"
            summary.empty[reason] = summary.empty.get(reason, 0) + 1
        elif st == "skipped":
            summary.skipped += 1
            why = skip_kind(rec.get("reason") or "")
            summary.skipped_reasons[why] = summary.skipped_reasons.get(why, 0) + 1
        else:
            stage = (rec.get("error") or {}).get("stage", "unknown")
            summary.errors[stage] = summary.errors.get(stage, 0) + 1
            if len(summary.first_errors) < ERRORS_LISTED:
                message = (rec.get("error") or {}).get("message") or rec.get("reason") or ""
                summary.first_errors.append([rid, stage, str(message)])
        for k, v in (rec.get("timings") or {}).items():
            stage_times.setdefault(k, []).append(float(v))
        if builder is not None and not fed and rec.get("index_doc"):
            builder.add(rec["index_doc"])
        if rid in in_pairs:
            from dedup.cli import site_of
            from dedup.report import PageInfo

            url = rec.get("url")
            pages[rid] = PageInfo(id=rid, url=url, title=rec.get("title") or "",
                                  text=rec.get("text") or "",
                                  site=site_of(url, rid, "warc" if "#" in rid else "file",
                                               "host"))

    final = out / "pages.jsonl"
    write_final(order, journal, scan, final, INTERNAL_FIELDS, clusters, on_record, originals)
    summary.revisits_matched = len(originals)
    if result is not None:
        from dedup.report import write_report

        tmp = out / "dedup.tmp"
        if tmp.exists():
            shutil.rmtree(tmp)
        write_report(tmp, result, pages, scan.failed,
                     run={"strip": config.dedup_strip, "source": "webseg pipeline"})
        _replace_dir(tmp, out / "dedup")
        summary.outputs["duplicate report"] = str(out / "dedup")
    if builder is not None:
        builder.close()
        _replace_dir(out / "index.tmp", out / "index")
        summary.outputs["index"] = str(out / "index")
    summary.stage_seconds = {k: sorted(v)[len(v) // 2] for k, v in stage_times.items() if v}
    summary.outputs["pages"] = str(final)
    return summary


def skip_kind(reason: str) -> str:
    """A skipped record's reason reduced to a summary key (``http 301``, ``revisit``,
    ``not HTML``...), so the summary counts kinds, not URLs."""
    stage, _, msg = reason.partition(": ")
    if stage == "http":
        return f"http {msg.split(' ', 1)[0]}"
    if stage == "revisit":
        return "revisit"
    if "not an HTML" in msg:
        return "not HTML"
    if "not a web page" in msg:
        return "not a web page"
    return msg.split("(", 1)[0].strip() or stage


def text_only_doc(rec: InputRecord, reason: str, processor: PageProcessor
                  ) -> dict[str, Any] | None:
    """Index entry of a page that did not render: its text parsed without a browser, so it is
    still searchable (status ``text-only``, the reason recorded), or ``empty``. None when
    there is no text to be had (unreadable, binary, unparsable, a URL): the record's error
    line says why, and an empty document would be a search result that is no page."""
    from ir.pipeline import declared_hints, doc_from_text, fallback_text

    text, _ = fallback_text(rec, reason)
    if text is None:
        return None
    doc = doc_from_text(rec.id, text, processor.analyzer, url=rec.url, status="text-only",
                        reason=reason, lang_hints=declared_hints(rec))
    if not doc.terms:
        doc.status = "empty"
    return doc.to_dict()


def _replace_dir(tmp: Path, final: Path) -> None:
    """Swap a freshly written directory into place."""
    old = final.with_name(final.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if final.exists():
        final.rename(old)
    tmp.rename(final)
    if old.exists():
        shutil.rmtree(old)
