"""JSON lines for the pipeline's journal and the index's shards: orjson when installed, the
standard library otherwise.

A journal line holds the page's whole index entry (its blocks with their terms, about 120 KB a
page); writing it once and reading it twice (duplicate scan, final lines) with the standard
``json`` module cost about a tenth of a parsed page's CPU, and encoding the index's shards a
tenth of the collection phase's. orjson does the same work several
times faster and gives back the same Python objects: strings, integers and floats round-trip
exactly (floats are written in their shortest round-trip form, as ``repr`` does). Whatever
orjson refuses - a non-string key, an integer wider than 64 bits, a string with a lone
surrogate, ``NaN`` in a line written by the standard module - goes through ``json`` exactly as
before, so the objects read back never depend on which module wrote the line. (``NaN`` itself
is the one value orjson writes differently, as ``null``; no journal field holds one, and
``dumps(..., exact_nan=True)`` checks for it where a row may.)

The final ``pages.jsonl`` keeps the standard module's bytes.
"""

from __future__ import annotations

import json
from typing import Any

try:  # pragma: no cover - which branch runs depends on the environment
    import orjson as _orjson
except ImportError:  # pragma: no cover
    _orjson = None

__all__ = ["dumps", "dumps_line", "gunzip", "loads"]

#: One encoder for every call (``json.dumps`` with options builds a new one per call).
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def dumps(obj: Any, *, exact_nan: bool = False) -> bytes:
    """``obj`` as compact UTF-8 JSON (no ASCII escaping, no newline). ``exact_nan``: when
    orjson's text holds a ``null``, check that it reads back as ``obj`` and otherwise write it
    with the standard module (which writes ``NaN`` as ``NaN``); a row without ``null`` costs
    nothing more."""
    if _orjson is not None:
        try:
            out = _orjson.dumps(obj)
        except TypeError:  # orjson.JSONEncodeError: what only the standard module writes
            pass
        else:
            if (not exact_nan or b"null" not in out or _nulls_are_nones(out, obj)
                    or _orjson.loads(out) == obj):
                return out
    return _ENCODE(obj).encode("utf-8")


def _nulls_are_nones(out: bytes, obj: Any) -> bool:
    """Whether every ``null`` in ``out`` (orjson's text of ``obj``) is one of the ``None``
    values at the top level of ``obj``, so none is a ``NaN`` written as ``null``.

    Why it holds: every ``None`` and every non-finite float anywhere in ``obj`` is written as
    one ``null``, and a string or key may add more; so when the count of ``null`` equals the
    top-level ``None`` values alone, there is no room for a ``NaN``. Why: an index shard's
    document rows carry ``"reason": null``, and reading each of them back to compare cost a
    tenth of the collection stage."""
    if not isinstance(obj, dict):
        return False
    nones = sum(1 for v in obj.values() if v is None)
    return nones > 0 and out.count(b"null") == nones


def dumps_line(obj: Any) -> bytes:
    """``obj`` as one UTF-8 JSON line (compact, no ASCII escaping), newline included."""
    return dumps(obj) + b"\n"


def loads(data: bytes | str) -> Any:
    """Parse one JSON document; raises ``ValueError`` (as ``json.loads``) when it is not one."""
    if _orjson is not None:
        try:
            return _orjson.loads(data)
        except ValueError:  # orjson.JSONDecodeError: NaN, huge integers, or not JSON at all
            pass
    return json.loads(data)


def gunzip(data: bytes) -> bytes:
    """The content of gzip ``data`` (every member): ISA-L's inflate (:mod:`isal.igzip`, a
    dependency: the index shards are written with it) when installed, else zlib's. The same
    bytes either way, in about a quarter of the CPU: the shipped page-type model (10 MB of
    JSON) took 46 ms to inflate with zlib in every run, 12 ms with ISA-L. Data that is not
    gzip goes to :func:`gzip.decompress`, for its errors (ISA-L calls a few bytes of
    anything a truncated stream)."""
    try:
        from isal import igzip
    except ImportError:  # pragma: no cover - isal is a dependency
        igzip = None
    if igzip is None or data[:2] != b"\x1f\x8b":
        import gzip

        return gzip.decompress(data)
    return igzip.decompress(data)
