"""JSON for the pipeline's journal: orjson when installed, the standard library otherwise.

A journal line holds the page's whole index entry (its blocks with their terms, about 120 KB a
page); writing it once and reading it twice (duplicate scan, final lines) with the standard
``json`` module cost about a tenth of a parsed page's CPU. orjson does the same work several
times faster and gives back the same Python objects: strings, integers and floats round-trip
exactly (floats are written in their shortest round-trip form, as ``repr`` does). Whatever
orjson refuses - a non-string key, an integer wider than 64 bits, a string with a lone
surrogate, ``NaN`` in a line written by the standard module - goes through ``json`` exactly as
before, so the objects read back never depend on which module wrote the line. (``NaN`` itself
is the one value orjson writes differently, as ``null``; no pipeline field holds one.)

The final ``pages.jsonl`` and the index files keep the standard module's bytes.
"""

from __future__ import annotations

import json
from typing import Any

try:  # pragma: no cover - which branch runs depends on the environment
    import orjson as _orjson
except ImportError:  # pragma: no cover
    _orjson = None

__all__ = ["dumps_line", "loads"]


def dumps_line(obj: Any) -> bytes:
    """``obj`` as one UTF-8 JSON line (compact, no ASCII escaping), newline included."""
    if _orjson is not None:
        try:
            return _orjson.dumps(obj, option=_orjson.OPT_APPEND_NEWLINE)
        except TypeError:  # orjson.JSONEncodeError: what only the standard module writes
            pass
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def loads(data: bytes | str) -> Any:
    """Parse one JSON document; raises ``ValueError`` (as ``json.loads``) when it is not one."""
    if _orjson is not None:
        try:
            return _orjson.loads(data)
        except ValueError:  # orjson.JSONDecodeError: NaN, huge integers, or not JSON at all
            pass
    return json.loads(data)
