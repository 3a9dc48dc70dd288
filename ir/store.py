"""The on-disk index directory: a manifest plus append-only, checksummed shards.

Layout of an index directory::

    index.json                 manifest: format, backend, analyzer, BM25 parameters, shards
    00000.docs.jsonl.gz        one line per document: id, url, title, status, reason, terms
    00000.blocks.jsonl.gz      one line per document: its blocks per source (text, terms, ...)
    00000.keys.jsonl.gz        one line per document: the keys of its main-text leaves (when
                               it has any; :mod:`ir.repeats` counts them at open time)
    00000.passages.jsonl.gz    one line per document: what the passage evidence needs of its
                               blocks (indexes with passages: :func:`passage_record`), so the
                               first query reads this, not every stored block
    lucene/                    the Lucene index (``lucene`` backend only)
    lucene-passages/           its content blocks as Lucene documents ``<row>#<n>`` (with
                               passages), and lucene-passages.json: how many rows are in

Every :meth:`IndexStore.append` writes a new shard pair and then replaces the manifest
atomically, so an interrupted add leaves the previous index intact (incremental adds, like
Lucene segments). A document id added again supersedes the earlier copy. The manifest holds
the SHA-256 of every shard: a truncated or edited file is reported as
:class:`IndexCorruptError` naming the file, never read as a smaller index.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections.abc import Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from webseg import fastjson
from webseg.page import text_key

try:  # pragma: no cover - which branch runs depends on the environment
    from isal import igzip as _igzip
except ImportError:  # pragma: no cover
    _igzip = None

__all__ = ["FORMAT", "Block", "IndexCorruptError", "IndexNotFoundError", "IndexStore",
           "StoredDoc", "block_row", "main_text_hash", "passage_record", "passage_rows",
           "source_blocks"]

FORMAT = "webseg.ir"
VERSION = 1


class IndexNotFoundError(FileNotFoundError):
    """The path is not an index directory."""


class IndexCorruptError(ValueError):
    """An index file is missing, truncated, edited or unreadable."""


_B = TypeVar("_B")


#: A block's box when none is known (its default: one tuple, so a default box is this one).
_NO_BOX = (0.0, 0.0, 0.0, 0.0)


@dataclass
class Block:
    """One feedback unit of a page: a segment (or a text window) with its analysed terms.

    ``seg`` is the segment id in the source segmentation (the window number for windows),
    ``rank`` the block's geometry rank on the page (0 = top-left-most, reading order by the
    box's top then left edge), ``box`` its x, y, width, height in CSS px (zeros without layout).
    ``weight`` is the block's probability of being main content (1.0 when unknown) and
    ``role`` its role (``main``, ``template``; empty when unknown), set by :mod:`ir.content`.
    """

    text: str
    terms: dict[str, int]
    seg: int = 0
    rank: int = 0
    box: tuple[float, float, float, float] = _NO_BOX
    weight: float = 1.0
    role: str = ""

    @property
    def length(self) -> int:
        return sum(self.terms.values())

    def to_dict(self) -> dict[str, Any]:
        """The block's stored row (:func:`block_row`, which defines the row's format), made
        from the attributes directly (a page stores about 200 blocks). A box left at its
        default (windows: no layout) is the default's row, not rounded again."""
        box = self.box
        if box is _NO_BOX:
            row_box = [0.0, 0.0, 0.0, 0.0]
        elif len(box) == 4:  # every box: rounded without a comprehension's frame
            x, y, w, h = box
            row_box = [round(float(x), 1), round(float(y), 1), round(float(w), 1),
                       round(float(h), 1)]
        else:
            row_box = [round(float(v), 1) for v in box]
        row = {"text": self.text, "terms": self.terms, "seg": int(self.seg),
               "rank": int(self.rank), "box": row_box}
        weight, role = float(self.weight), str(self.role)
        if weight != 1.0 or role:
            row["weight"], row["role"] = weight, role
        return row

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Block:
        return cls(text=d["text"], terms=d["terms"], seg=int(d.get("seg", 0)),
                   rank=int(d.get("rank", 0)), box=tuple(d.get("box", (0, 0, 0, 0))),
                   weight=float(d.get("weight", 1.0)), role=str(d.get("role", "")))


@dataclass
class StoredDoc:
    """A document as the index keeps it: analysed terms (its vector) plus provenance.

    ``status`` is ``ok`` (rendered and segmented), ``text-only`` (render failed or input had
    no layout; indexed from its parsed text, ``reason`` says why) or ``empty`` (no text).
    ``terms`` are the counts of the whole page (title + all visible text); ``fields`` (optional)
    split them into ``title``, ``main`` and ``rest`` (soft counts weighted by P(main), see
    :mod:`ir.content`), which a field-weighted index scores instead of ``terms``.
    ``main_leaves`` (optional) splits the ``main`` field by leaf text (leaf key -> the term
    counts of one such leaf; ``main_leaf_n``: key -> number of main leaves with that text,
    when more than one; :func:`ir.content.main_leaves`), so the index can move leaves
    repeated across pages to ``rest`` (:mod:`ir.repeats`).
    ``main_hash``: :func:`main_text_hash`, set when the document is stored (search results
    fold pages with equal main text); ``cluster``: the duplicate cluster the indexing pipeline
    gave the page (None elsewhere). ``surface`` (optional; text collections of an index with
    a surface field): the counts of the unstemmed terms (:func:`ir.pipeline.surface_analyzer`),
    which score exact word forms beside the stemmed terms.
    """

    id: str
    terms: dict[str, int]
    url: str | None = None
    title: str = ""
    status: str = "ok"
    reason: str | None = None
    blocks: dict[str, list[Block]] = field(default_factory=dict)
    fields: dict[str, dict[str, float]] = field(default_factory=dict)
    main_leaves: dict[str, dict[str, float]] = field(default_factory=dict)
    main_leaf_n: dict[str, int] = field(default_factory=dict)
    #: ISO 639-1 code of the page's language (:func:`webseg.lang.identify`), None if unknown
    lang: str | None = None
    main_hash: str | None = None
    cluster: str | None = None
    surface: dict[str, int] = field(default_factory=dict)

    @property
    def length(self) -> int:
        return sum(self.terms.values())

    def head_dict(self) -> dict[str, Any]:
        d = {"id": self.id, "url": self.url, "title": self.title, "status": self.status,
             "reason": self.reason, "terms": self.terms}
        if self.fields:
            d["fields"] = self.fields
        if self.main_leaves:
            d["main_leaves"] = self.main_leaves
        if self.main_leaf_n:
            d["main_leaf_n"] = self.main_leaf_n
        if self.lang:
            d["lang"] = self.lang
        h = self.main_hash or main_text_hash(self)
        if h:
            d["main_hash"] = h
        if self.cluster is not None:
            d["cluster"] = self.cluster
        if self.surface:
            d["surface"] = self.surface
        return d

    def to_dict(self) -> dict[str, Any]:
        """The whole document as JSON (head + blocks); :meth:`from_dict` reads it back."""
        return {**self.head_dict(),
                "blocks": {s: [b.to_dict() for b in bl] for s, bl in self.blocks.items()}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StoredDoc:
        return cls(id=str(d["id"]), terms=d["terms"], url=d.get("url"),
                   title=d.get("title") or "", status=d.get("status", "ok"),
                   reason=d.get("reason"), fields=d.get("fields") or {},
                   main_leaves=d.get("main_leaves") or {},
                   main_leaf_n=d.get("main_leaf_n") or {}, lang=d.get("lang"),
                   main_hash=d.get("main_hash"), cluster=d.get("cluster"),
                   surface=d.get("surface") or {},
                   blocks=_blocks_from_json(d.get("blocks") or {}))


def main_text_hash(d: StoredDoc) -> str | None:
    """A hash of what the page is about: its main-text term counts (the ``main`` field; the
    whole text for a document stored without fields), None when that is empty.

    Why terms and not the raw text: they are what every document has stored, whichever way it
    was made (rendered page, parsed page, text record, pipeline output), and two copies of a
    page under different templates, titles or URLs have the same ones. It is an exact test
    (equal counts of equal analysed words), cheap enough to compute for every page at index
    time; near-duplicates are the pipeline's duplicate clusters' job."""
    main = d.fields.get("main") if d.fields else d.terms
    if not main:
        return None
    # sorted by term (terms are unique: the pairs sort as their terms); a whole float (every
    # count of a hard split) is its own value rounded to 3 digits, so it is not rounded
    keys = sorted(main)  # strings sort faster alone than as pairs
    items = [(t, c if type(c) is float and c.is_integer()
              else float(c) if type(c) is int else round(float(c), 3))
             for t, c in zip(keys, map(main.__getitem__, keys), strict=True) if c > 0]
    if not items:
        return None
    return hashlib.sha1(json.dumps(items, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def _blocks_from_json(d: Mapping[str, list[dict[str, Any]]]) -> dict[str, list[Block]]:
    return {s: [Block.from_dict(b) for b in bl] for s, bl in d.items()}


def source_blocks(blocks: Mapping[str, list[_B]], source: str) -> list[_B]:
    """A page's blocks of ``source`` (:class:`Block` objects or their stored rows); pages
    without them (text-only pages) fall back to windows."""
    got = blocks.get(source)
    return got if got is not None else blocks.get("windows", [])


def passage_record(blocks: Mapping[str, list[Block]], source: str, min_weight: float
                   ) -> dict[str, Any]:
    """What passage evidence reads of a page: the text key of each of its ``source`` blocks
    (:func:`webseg.page.text_key`, for the block repetition counts) and the position, weight
    and terms of those with weight >= ``min_weight``. Why: a block store holds every source's
    blocks with their text and geometry; reading all of it on a process's first query took
    11 s on a 3,204-page index."""
    bl = source_blocks(blocks, source)
    return {"keys": [text_key(b.text) for b in bl],
            "content": [[i, b.weight, b.terms] for i, b in enumerate(bl)
                        if b.weight >= min_weight]}


def block_row(d: Mapping[str, Any]) -> dict[str, Any]:
    """The stored row of a block given as a mapping (a :class:`Block`'s fields, or its JSON:
    ``Block.from_dict(d).to_dict()`` without the object). Why a mapping: the collection stage
    stores the blocks its journal holds as JSON already, and turning each of ~150 blocks a
    page into a :class:`Block` and back was a third of the index's share of that stage."""
    row = {"text": d["text"], "terms": d["terms"], "seg": int(d.get("seg", 0)),
           "rank": int(d.get("rank", 0)),
           "box": [round(float(v), 1) for v in d.get("box", (0, 0, 0, 0))]}
    weight, role = float(d.get("weight", 1.0)), str(d.get("role", ""))
    if weight != 1.0 or role:
        row["weight"], row["role"] = weight, role
    return row


def passage_rows(rows: Mapping[str, list[dict[str, Any]]], source: str, min_weight: float
                 ) -> dict[str, Any]:
    """:func:`passage_record` of blocks given as their stored rows (:func:`block_row`): the
    same record (a row without ``weight`` is a block of weight 1.0)."""
    bl = source_blocks(rows, source)
    content = []
    for i, b in enumerate(bl):
        w = b.get("weight", 1.0)
        if w >= min_weight:
            content.append([i, w, b["terms"]])
    return {"keys": [text_key(b["text"]) for b in bl], "content": content}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _gzip_writer(path: Path) -> Any:
    """A gzip file open for writing: ISA-L's deflate (:mod:`isal.igzip`, level 3) when
    installed, else zlib's at level 4.

    Why: compressing the shards was a quarter of the collection stage's CPU. ISA-L's level 3
    compresses the 47 MB of a 400-page index's shards in 0.12 s of CPU where zlib's level 4
    takes 0.56 s, for 6 % more bytes (14.5 MB instead of 13.7 MB); the files are ordinary gzip
    that every reader (``gzip``, ``zcat``) reads, and hold the same lines either way. zlib's
    level 4 is a third less CPU than its level 5 for 3 % more bytes."""
    if _igzip is not None:
        return _igzip.open(path, "wb", compresslevel=3)
    return gzip.open(path, "wb", compresslevel=4)


class _Encoded(bytes):
    """A row already encoded as :func:`_write_jsonl_gz` would encode it (no newline)."""


def _write_jsonl_gz(path: Path, rows: Iterator[dict[str, Any] | _Encoded]) -> None:
    """JSON lines, gzip (:func:`_gzip_writer`), written in pieces of about 1 MB (one
    compressor call each, not one per line); an :class:`_Encoded` row is written as it is."""
    tmp = path.with_name(path.name + ".tmp")
    with _gzip_writer(tmp) as f:
        buf: list[bytes] = []
        size = 0
        for r in rows:
            # values read back as the standard module's (webseg.fastjson), NaN included
            line = r if type(r) is _Encoded else fastjson.dumps(r, exact_nan=True)
            buf.append(line)
            size += len(line)
            if size >= 1 << 20:
                buf.append(b"")
                f.write(b"\n".join(buf))
                buf, size = [], 0
        if buf:
            buf.append(b"")
            f.write(b"\n".join(buf))
    os.replace(tmp, path)


def _read_jsonl_gz(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    raise IndexCorruptError(f"{path}:{ln}: not JSON ({e})") from None
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise IndexCorruptError(f"{path}: unreadable ({type(e).__name__}: {e})") from None


class IndexStore:
    """Reads and appends the shards of one index directory (backend-independent)."""

    def __init__(self, path: str | Path, manifest: dict[str, Any]) -> None:
        self.path = Path(path)
        self.manifest = manifest

    # ------------------------------------------------------------------ create / open
    @classmethod
    def create(cls, path: str | Path, settings: dict[str, Any], overwrite: bool = False
               ) -> IndexStore:
        p = Path(path)
        if (p / "index.json").exists() and not overwrite:
            raise FileExistsError(f"{p}: an index exists already (add to it, or overwrite)")
        if p.exists() and not p.is_dir():
            raise NotADirectoryError(f"{p}: exists and is not a directory")
        p.mkdir(parents=True, exist_ok=True)
        if overwrite:
            for f in p.glob("*.jsonl.gz"):
                f.unlink()
            import shutil

            for d in ("lucene", "lucene-passages"):
                if (p / d).is_dir():
                    shutil.rmtree(p / d)
            (p / "lucene-passages.json").unlink(missing_ok=True)
        st = cls(p, {"format": FORMAT, "version": VERSION, **settings, "shards": []})
        st._write_manifest()
        return st

    @classmethod
    def open(cls, path: str | Path) -> IndexStore:
        p = Path(path)
        mf = p / "index.json"
        if not p.is_dir() or not mf.is_file():
            raise IndexNotFoundError(f"{p}: not an index directory (no index.json); "
                                     "build one with `webseg index`")
        try:
            manifest = json.loads(mf.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise IndexCorruptError(f"{mf}: unreadable manifest ({e})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise IndexCorruptError(f"{mf}: not a webseg.ir manifest")
        if manifest.get("version") != VERSION:
            raise IndexCorruptError(f"{mf}: format version {manifest.get('version')} is not "
                                    f"{VERSION}; rebuild the index")
        return cls(p, manifest)

    def _write_manifest(self) -> None:
        tmp = self.path / "index.json.tmp"
        tmp.write_text(json.dumps(self.manifest, indent=1), encoding="utf-8")
        os.replace(tmp, self.path / "index.json")

    @property
    def settings(self) -> dict[str, Any]:
        return self.manifest

    # ------------------------------------------------------------------ append
    def append(self, docs: Sequence[StoredDoc]) -> str:
        """Write ``docs`` as a new shard and commit it to the manifest; returns its name."""
        return self.append_rows([(d, None) for d in docs])

    def append_rows(self, docs: Sequence[tuple[StoredDoc, dict[str, list[dict[str, Any]]]
                                               | None] | tuple[
        StoredDoc, dict[str, list[dict[str, Any]]] | None, Mapping[str, bytes] | None]]
                    ) -> str:
        """:meth:`append` of documents whose blocks may be given as their stored rows:
        ``(doc, rows)`` pairs, ``rows`` per source as :func:`block_row` makes them (the
        document's own :attr:`StoredDoc.blocks` are then not read), or None to store
        ``doc.blocks``. The shard holds the same lines either way.

        A third item, when not None, holds the document's ``docs``, ``blocks`` and (when the
        index stores passages) ``passages`` lines already encoded, without newlines: the bytes
        :func:`webseg.fastjson.dumps` gives ``doc.head_dict()``, ``{"id": doc.id, "blocks":
        rows}`` and :meth:`passage_line` (:class:`ir.from_output.IndexBuilder` makes them as
        each page comes); they are written as they are, and of ``doc`` only its id and its
        main leaves' keys are read."""
        name = f"{len(self.manifest['shards']):05d}"
        dpath = self.path / f"{name}.docs.jsonl.gz"
        bpath = self.path / f"{name}.blocks.jsonl.gz"
        items = [(t[0], t[1], t[2] if len(t) > 2 else None) for t in docs]
        _write_jsonl_gz(dpath, (d.head_dict() if pre is None else _Encoded(pre["docs"])
                                for d, _, pre in items))
        _write_jsonl_gz(bpath, (_Encoded(pre["blocks"]) if pre is not None else
                                {"id": d.id, "blocks": rows if rows is not None else
                                 {s: [b.to_dict() for b in bl] for s, bl in d.blocks.items()}}
                                for d, rows, pre in items))
        sums = {"docs": _sha256(dpath), "blocks": _sha256(bpath)}
        if any(d.main_leaves for d, _, _ in items):
            kpath = self.path / f"{name}.keys.jsonl.gz"
            _write_jsonl_gz(kpath, ({"id": d.id, "keys": list(d.main_leaves)}
                                    for d, _, _ in items))
            sums["keys"] = _sha256(kpath)
        entry: dict[str, Any] = {"name": name, "docs": len(docs), "sha256": sums}
        what = self.passage_settings()
        if what is not None:
            ppath = self.path / f"{name}.passages.jsonl.gz"
            _write_jsonl_gz(ppath, (self.passage_line(d, rows) if pre is None
                                    else _Encoded(pre["passages"]) for d, rows, pre in items))
            sums["passages"] = _sha256(ppath)
            entry["passages"] = what
        self.manifest["shards"].append(entry)
        self._write_manifest()
        return name

    def passage_settings(self) -> dict[str, Any] | None:
        """The passage evidence the shards store (source, minimum block weight), or None."""
        pas = self.settings.get("passages")
        if not pas:
            return None
        return {"source": str(pas["source"]),
                "min_block_weight": float(pas.get("min_block_weight", 0.5))}

    def passage_line(self, d: StoredDoc, rows: Mapping[str, list[dict[str, Any]]] | None
                     ) -> dict[str, Any]:
        """A document's line of the passages shard (:meth:`passage_settings` must be set):
        :func:`passage_record` of its blocks, or :func:`passage_rows` of its ``rows``."""
        what = self.passage_settings()
        assert what is not None
        src, mw = what["source"], what["min_block_weight"]
        return {"id": d.id, **(passage_record(d.blocks, src, mw) if rows is None
                               else passage_rows(rows, src, mw))}

    # ------------------------------------------------------------------ read
    def _shard_file(self, shard: dict[str, Any], kind: str) -> Path:
        f = self.path / f"{shard['name']}.{kind}.jsonl.gz"
        if not f.is_file():
            raise IndexCorruptError(f"{f}: missing (listed in index.json)")
        if _sha256(f) != shard["sha256"][kind]:
            raise IndexCorruptError(f"{f}: checksum mismatch (truncated or modified)")
        return f

    def iter_docs(self, shards: Container[int] | None = None) -> Iterator[StoredDoc]:
        """Every stored document, shards in order (later copies of an id come later);
        ``shards``: only those shards (by position in the manifest)."""
        for i, shard in enumerate(self.manifest["shards"]):
            if shards is not None and i not in shards:
                continue
            for r in _read_jsonl_gz(self._shard_file(shard, "docs")):
                try:
                    yield StoredDoc(id=str(r["id"]), terms=r["terms"], url=r.get("url"),
                                    title=r.get("title") or "", status=r.get("status", "ok"),
                                    reason=r.get("reason"), fields=r.get("fields") or {},
                                    main_leaves=r.get("main_leaves") or {},
                                    main_leaf_n=r.get("main_leaf_n") or {},
                                    lang=r.get("lang"), main_hash=r.get("main_hash"),
                                    cluster=r.get("cluster"), surface=r.get("surface") or {})
                except (KeyError, TypeError) as e:
                    raise IndexCorruptError(f"shard {shard['name']}: bad record ({e})") from None

    def iter_docs_with_blocks(self) -> Iterator[StoredDoc]:
        """Every stored document with its blocks, shards in order: what copying an index into
        a new one (other settings, another backend) adds."""
        for d, (did, bl) in zip(self.iter_docs(), self.iter_blocks(), strict=True):
            if did != d.id:
                raise IndexCorruptError(f"{self.path}: blocks of {did!r} stored beside {d.id!r}")
            d.blocks = bl
            yield d

    def iter_leaf_keys(self) -> Iterator[tuple[str, list[str]]]:
        """(doc id, keys of its main-text leaves) for every stored document, shards in order:
        from the small keys files, or from the documents for shards written without one."""
        for i, shard in enumerate(self.manifest["shards"]):
            if "keys" not in shard["sha256"]:
                for d in self.iter_docs({i}):
                    yield d.id, list(d.main_leaves)
                continue
            for r in _read_jsonl_gz(self._shard_file(shard, "keys")):
                try:
                    yield str(r["id"]), [str(k) for k in r["keys"]]
                except (KeyError, TypeError) as e:
                    raise IndexCorruptError(f"shard {shard['name']}: bad keys record ({e})"
                                            ) from None

    def has_passages(self, source: str, min_weight: float) -> bool:
        """Whether every shard has a passages file for ``source`` holding all blocks of
        weight >= ``min_weight`` (shards written before it, or for other settings, do not)."""
        return all((w := sh.get("passages")) and w["source"] == source
                   and float(w["min_block_weight"]) <= min_weight
                   for sh in self.manifest["shards"])

    def iter_passages(self) -> Iterator[tuple[str, list[str], list[tuple[int, float,
                                                                          dict[str, int]]]]]:
        """(doc id, block keys, content blocks as (position, weight, terms)) for every stored
        document, shards in order (:func:`passage_record`; check :meth:`has_passages`)."""
        for shard in self.manifest["shards"]:
            for r in _read_jsonl_gz(self._shard_file(shard, "passages")):
                try:
                    yield (str(r["id"]), [str(k) for k in r["keys"]],
                           [(int(i), float(w), t) for i, w, t in r["content"]])
                except (KeyError, TypeError, ValueError) as e:
                    raise IndexCorruptError(f"shard {shard['name']}: bad passages record ({e})"
                                            ) from None

    def blocks_of(self, ids: Container[str], shards: Container[int] | None = None
                  ) -> dict[str, dict[str, list[Block]]]:
        """The blocks of the documents ``ids`` (their last stored copies; ``shards``: look in
        those shards only, by position): only the lines of those ids are parsed, so showing
        a page of results does not parse every stored block."""
        out: dict[str, dict[str, list[Block]]] = {}
        dec = json.JSONDecoder()
        for i, shard in enumerate(self.manifest["shards"]):
            if shards is not None and i not in shards:
                continue
            path = self._shard_file(shard, "blocks")
            try:
                with gzip.open(path, "rb") as f:
                    for line in f:
                        if not line.startswith(b'{"id":'):
                            continue
                        r = None
                        try:  # the id alone, from the line's head
                            did = dec.raw_decode(line[6:400].decode("utf-8", "ignore"))[0]
                        except json.JSONDecodeError:  # an id longer than the head
                            r = json.loads(line)
                            did = r["id"]
                        if did in ids:
                            r = r or json.loads(line)
                            out[str(did)] = _blocks_from_json(r["blocks"])
            except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError, KeyError,
                    TypeError, AttributeError) as e:
                raise IndexCorruptError(f"{path}: unreadable ({type(e).__name__}: {e})"
                                        ) from None
        return out

    def iter_blocks(self) -> Iterator[tuple[str, dict[str, list[Block]]]]:
        """(doc id, blocks per source) for every stored document, shards in order."""
        for shard in self.manifest["shards"]:
            for r in _read_jsonl_gz(self._shard_file(shard, "blocks")):
                try:
                    yield str(r["id"]), _blocks_from_json(r["blocks"])
                except (KeyError, TypeError, AttributeError) as e:
                    raise IndexCorruptError(f"shard {shard['name']}: bad block record ({e})"
                                            ) from None
