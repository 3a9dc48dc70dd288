"""The collection stage in bounded memory: duplicate clusters, index and final output.

The page stage leaves one journal line per input record; a line with its stored index entry
(terms and blocks of every block source) is tens of kilobytes. Holding every line at once is
what made the first version of this stage need ~230 KB per page (3 GB at 13k pages), so here
the journal is read in **two passes** and nothing per page is kept but small fixed-size data:

1. **Scan** (sequential): the byte offset of every line, the page's status, its bottom-k sketch
   and its MinHash signature in compact NumPy arrays (:class:`CompactDuplicateIndex`), error
   messages of failed records, stage timings. Duplicate clusters are computed at the end of
   this pass, from those arrays alone.
2. **Write** (in input order, by offset): each line is read again, its public fields go to
   the final ``pages.jsonl`` with its cluster, its index entry goes to the streaming index
   builder (:class:`ir.from_output.IndexBuilder`, which writes shards of a few hundred
   documents), and the few pages that are in duplicate pairs keep their text for the report.
   A line the page phase wrote in this run has its public fields first (its index entry and
   the other internal fields after them); the page phase noted where they end
   (:attr:`JournalScan.heads`) and gave the index entry to the builder itself, so only that
   head is read again: the index entry, nine tenths of the line, is parsed once, never.

:class:`CompactDuplicateIndex` gives exactly the candidates of datasketch's ``MinHashLSH``
(the same bands of the same signatures, compared for equality) and verifies them with the
same bottom-k rule, so clusters do not change; it stores 4 bytes per MinHash value instead of
a Python dict entry per band.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from webseg.fastjson import dumps, dumps_line, loads

__all__ = ["CompactDuplicateIndex", "JournalScan", "journal_line", "journal_line_parts",
           "read_at", "scan_journal"]


class CompactDuplicateIndex:
    """MinHash-LSH duplicate candidates from compact arrays, verified with bottom-k sketches.

    Same interface subset as :class:`dedup.lsh.DuplicateIndex` that the pipeline uses
    (:meth:`add_signature`, then :meth:`result`).
    """

    def __init__(self, params: Any, num_perm: int, lsh_threshold: float) -> None:
        from webseg.pipeline.spark import lsh_bands

        self.params = params
        self.num_perm = num_perm
        self.bands, self.rows = lsh_bands(num_perm, lsh_threshold)
        self.keys: list[str] = []
        self.sketches: list[np.ndarray] = []
        self.empty: list[str] = []
        self.short: list[str] = []
        self._sig_rows: list[np.ndarray] = []  # signatures of indexed docs (grown in chunks)
        self._sig_pos: list[int] = []          # their positions in ``keys``

    def add_signature(self, key: str, sketch: Sequence[int], signature: Sequence[int]) -> None:
        sk = np.asarray(sketch, dtype=np.uint64)
        self.keys.append(key)
        self.sketches.append(sk)
        if len(sk) < self.params.threshold:
            (self.empty if len(sk) == 0 else self.short).append(key)
            return
        sig = np.asarray(signature, dtype=np.uint32)
        if len(sig) != self.num_perm:
            raise ValueError(f"{key}: signature has {len(sig)} values, expected {self.num_perm}")
        self._sig_rows.append(sig)
        self._sig_pos.append(len(self.keys) - 1)

    def candidates(self) -> list[tuple[int, int]]:
        """Candidate pairs (positions, a < b): pages sharing all ``rows`` values of a band."""
        if len(self._sig_rows) < 2:
            return []
        sig = np.vstack(self._sig_rows)
        pos = np.asarray(self._sig_pos, dtype=np.int64)
        seen: set[tuple[int, int]] = set()
        for band in range(self.bands):
            cols = sig[:, band * self.rows:(band + 1) * self.rows]
            order = np.lexsort(cols.T[::-1])
            srt = cols[order]
            same = np.all(srt[1:] == srt[:-1], axis=1)
            if not same.any():
                continue
            # runs of equal band values: start where a row differs from the one before
            starts = np.flatnonzero(np.concatenate(([True], ~same)))
            ends = np.concatenate((starts[1:], [len(order)]))
            for s, e in zip(starts, ends, strict=True):
                if e - s < 2:
                    continue
                members = np.sort(pos[order[s:e]])
                for i in range(len(members)):
                    for j in range(i + 1, len(members)):
                        seen.add((int(members[i]), int(members[j])))
        return sorted(seen)

    def result(self) -> Any:
        """A :class:`dedup.detect.DedupResult` (keys, verified pairs, clusters)."""
        from dedup.detect import DedupResult
        from dedup.lsh import Pair, clusters
        from dedup.shingle import estimated_jaccard, is_duplicate, shared

        cands = self.candidates()
        pairs = []
        for a, b in cands:
            sa, sb = self.sketches[a], self.sketches[b]
            if is_duplicate(sa, sb, self.params):
                pairs.append(Pair(self.keys[a], self.keys[b], shared(sa, sb),
                                  estimated_jaccard(sa, sb, self.params.k), True))
        return DedupResult(keys=self.keys, sketches={}, pairs=pairs,
                           clusters=clusters(self.keys, ((p.a, p.b) for p in pairs)),
                           empty=self.empty, candidates=len(cands), params=self.params,
                           short=self.short)


@dataclass
class JournalScan:
    """What the first pass keeps: line offsets, failure messages, signatures, and the WARC
    identities needed to match each revisit record to its original."""

    offsets: dict[str, int] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    dedup: CompactDuplicateIndex | None = None
    by_record_id: dict[str, str] = field(default_factory=dict)
    by_uri_date: dict[tuple[str, str], str] = field(default_factory=dict)
    revisits: dict[str, tuple[str | None, str | None, str | None]] = field(default_factory=dict)
    #: line id -> byte length of the line's public part (:func:`journal_line`), for lines
    #: noted as they were written: the write pass reads only that part
    heads: dict[str, int] = field(default_factory=dict)

    def note_warc(self, rid: str, warc: dict[str, Any]) -> None:
        if warc.get("type") == "revisit":
            self.revisits[rid] = (warc.get("refers_to_record_id"), warc.get("refers_to_uri"),
                                  warc.get("refers_to_date"))
            return
        if warc.get("record_id"):
            self.by_record_id.setdefault(str(warc["record_id"]), rid)
        if warc.get("target_uri") and warc.get("date"):
            self.by_uri_date.setdefault((str(warc["target_uri"]), str(warc["date"])), rid)

    def add(self, rec: dict[str, Any], pos: int, head: int | None = None) -> None:
        """Note one journal line (``pos``: its byte offset in the journal). The page phase
        calls this with each line it appends, so a run that started from an empty journal
        needs no first pass over it (:func:`scan_journal` does the same from the file).
        ``head``: the byte length of the line's public part (:func:`journal_line`)."""
        rid = str(rec["id"])
        self.offsets[rid] = pos
        if head is not None:
            self.heads[rid] = head
        st = rec.get("status")
        if isinstance(rec.get("warc"), dict):
            self.note_warc(rid, rec["warc"])
        dedup = self.dedup
        if dedup is None or st == "skipped":  # skipped records are no pages: not failures
            return
        if st not in ("ok", "empty") or "sketch" not in rec:
            err = rec.get("error") or {}
            self.failed[rid] = f"{err.get('stage', 'unknown')}: {err.get('message', '')}"
            return
        dedup.add_signature(rid, rec["sketch"], rec.get("minhash") or [])

    def revisit_originals(self) -> dict[str, str]:
        """Revisit line id -> the id of the record it refers to, for those whose original is
        in the input (by WARC-Refers-To, else by refers-to URI and date)."""
        out: dict[str, str] = {}
        for rid, (ref_id, uri, date) in self.revisits.items():
            orig = self.by_record_id.get(ref_id) if ref_id else None
            if orig is None and uri and date:
                orig = self.by_uri_date.get((uri, date))
            if orig is not None:
                out[rid] = orig
        return out


def iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(byte offset, line) of every complete line of a journal."""
    pos = 0
    with path.open("rb") as f:
        for line in f:
            if not line.endswith(b"\n"):
                return
            yield pos, line
            pos += len(line)


def scan_journal(path: Path, dedup: CompactDuplicateIndex | None) -> JournalScan:
    """Pass 1 over the journal (see the module doc); journal ids are unique."""
    scan = JournalScan(dedup=dedup)
    for pos, line in iter_lines(path):
        try:
            rec = loads(line)
        except ValueError:
            break  # a torn tail: what follows was never committed
        scan.add(rec, pos)
    return scan


def journal_line(line: dict[str, Any], internal: Sequence[str]) -> tuple[bytes, int]:
    """The journal bytes of ``line`` (one JSON object and a newline) with its ``internal``
    fields last, and the byte length of the part before them: that part plus ``}`` is the
    line's public fields alone, in their order (:func:`read_at` with ``head``). The two parts
    are encoded apart and joined, which is the encoding of the whole object."""
    data, head, _ = journal_line_parts(line, internal)
    return data, head


def journal_line_parts(line: dict[str, Any], internal: Sequence[str], entry: str = "index_doc"
                       ) -> tuple[bytes, int, tuple[bytes, bytes] | None]:
    """:func:`journal_line`, and the encodings of the line's index entry (field ``entry``)
    that make it: its fields without its blocks, and its blocks (None when the line has no
    entry or it was encoded in one piece).

    Why: the index builder writes each page's entry again, as a document line (the fields)
    and a blocks line, and encoding the same ~100 KB a page a second time was a third of
    the collection stage's CPU. orjson's compact text of an object is its members' texts in
    order (``{"k":v,...}``), so an entry whose blocks are its last member is encoded as its
    fields' text with the blocks' text spliced in, the same bytes as encoding it whole.
    Whenever orjson takes no part of it (a value only the standard module writes: see
    :mod:`webseg.fastjson`) the line is encoded as before, whole."""
    tail = {k: line[k] for k in internal if k in line}
    doc = tail.get(entry)
    parts = _entry_parts(doc) if tail and isinstance(doc, dict) else None
    tail_text = _spliced(tail, entry, parts) if parts is not None else None
    if tail_text is None:
        parts = None
    public = {k: v for k, v in line.items() if k not in tail} if tail else line
    if not public:  # no public field (every line has its id): nothing to read apart
        return dumps_line(line), 0, parts
    head = dumps(public)
    if not tail:
        return head + b"\n", len(head) - 1, parts
    if tail_text is None:
        tail_text = dumps(tail)
    return head[:-1] + b"," + tail_text[1:] + b"\n", len(head) - 1, parts


def _entry_parts(doc: dict[str, Any]) -> tuple[bytes, bytes] | None:
    """orjson's texts of an index entry's fields but ``blocks`` (an object) and of its
    ``blocks``, when ``blocks`` is its last member (as :meth:`ir.store.StoredDoc.to_dict`
    makes it) and orjson writes both; else None."""
    from webseg.fastjson import _orjson

    if _orjson is None or len(doc) < 2 or next(reversed(doc)) != "blocks":
        return None
    fields = {k: v for k, v in doc.items() if k != "blocks"}
    try:
        return _orjson.dumps(fields), _orjson.dumps(doc["blocks"])
    except TypeError:  # what only the standard module writes: the whole line goes there
        return None


def _spliced(tail: dict[str, Any], entry: str, parts: tuple[bytes, bytes]) -> bytes | None:
    """``dumps(tail)`` made of orjson's texts of its members, the entry's from ``parts``;
    None when orjson refuses a member (``dumps`` would then write the whole with the
    standard module)."""
    from webseg.fastjson import _orjson

    fields, blocks = parts
    out = []
    try:
        for k, v in tail.items():
            text = (fields[:-1] + b',"blocks":' + blocks + b"}" if k == entry
                    else _orjson.dumps(v))
            out.append(_orjson.dumps(k) + b":" + text)
    except TypeError:
        return None
    return b"{" + b",".join(out) + b"}"


def read_at(f: Any, pos: int, head: int | None = None) -> dict[str, Any]:
    """The journal line at ``pos``; with ``head`` (:attr:`JournalScan.heads`) only its
    public fields."""
    f.seek(pos)
    if head:
        return loads(f.read(head) + b"}")
    return loads(f.readline())


def write_final(order: Sequence[str], journal: Path, scan: JournalScan, final: Path,
                internal: Sequence[str], clusters: dict[str, str] | None,
                on_record: Callable[[dict[str, Any]], None],
                originals: dict[str, str] | None = None) -> None:
    """Pass 2: the final ``pages.jsonl`` in input order; ``on_record`` sees every full line.
    ``originals`` (revisit id -> original id) marks revisits as exact duplicates."""
    originals = originals or {}
    tmp = final.with_suffix(".jsonl.tmp")
    with journal.open("rb") as jf, tmp.open("w", encoding="utf-8") as out:
        heads = scan.heads
        for rid in order:
            rec = read_at(jf, scan.offsets[rid], heads.get(rid))
            on_record(rec)
            row = {k: v for k, v in rec.items() if k not in internal}
            if clusters is not None:
                row["duplicate_cluster"] = clusters.get(row["id"])
            if (row.get("warc") or {}).get("type") == "revisit":  # null off WARC input
                row["duplicate_of"] = originals.get(row["id"])
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()
        os.fsync(out.fileno())
    tmp.replace(final)
