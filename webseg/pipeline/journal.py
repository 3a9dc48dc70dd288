"""An append-only JSONL journal that survives ``kill -9`` and resumes.

The pipeline writes one line per input record as soon as the record is finished. A process
killed at any instant leaves at most one incomplete last line (a write that was cut off):
:meth:`Journal.open` truncates that tail, reads the ids already done and appends after them, so
a resumed run skips finished records and redoes only the one that was in flight. Lines are
flushed to the OS after every record (which is what survives a killed process; ``fsync`` every
``sync_every`` lines also bounds what a power loss can take).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from webseg.fastjson import dumps_line, loads

__all__ = ["Journal", "read_journal"]


def _complete_prefix(path: Path) -> int:
    """Byte length of the part of ``path`` made of complete, parseable JSON lines."""
    good = 0
    with path.open("rb") as f:
        for line in f:
            if not line.endswith(b"\n"):
                break
            try:
                loads(line)
            except ValueError:
                break
            good += len(line)
    return good


def read_journal(path: str | Path) -> Iterator[dict[str, Any]]:
    """The complete lines of a journal (an incomplete tail line is ignored)."""
    path = Path(path)
    if not path.exists():
        return
    with path.open("rb") as f:
        for line in f:
            if not line.endswith(b"\n"):
                return
            try:
                yield loads(line)
            except ValueError:
                return


class Journal:
    """Append records keyed by ``id``; reopen to resume.

    >>> j = Journal.open(path)          # doctest: +SKIP
    >>> if "page-1" not in j.done: j.append({"id": "page-1", ...})
    """

    def __init__(self, path: Path, done: set[str], sync_every: int) -> None:
        self.path = path
        self.done = done
        self.sync_every = sync_every
        self._f = path.open("ab")
        #: the journal's length in bytes: where the next line starts
        self.size = path.stat().st_size
        self._unsynced = 0

    @classmethod
    def open(cls, path: str | Path, sync_every: int = 50) -> Journal:
        """Open (creating) the journal, dropping a torn last line left by a killed run."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            size = path.stat().st_size
            keep = _complete_prefix(path)
            if keep < size:
                with path.open("r+b") as f:
                    f.truncate(keep)
        done = {str(rec["id"]) for rec in read_journal(path) if "id" in rec}
        return cls(path, done, sync_every)

    def append(self, record: dict[str, Any], encoded: bytes | None = None) -> int:
        """Write one record as one line and flush it (never two lines for one id); returns
        the line's byte offset in the journal. ``encoded``: the record's line, already
        encoded by the caller (one JSON object ending in a newline)."""
        rid = str(record["id"])
        if rid in self.done:
            raise ValueError(f"record {rid!r} is already in the journal")
        line = dumps_line(record) if encoded is None else encoded
        pos = self.size
        self._f.write(line)
        self._f.flush()
        self.size += len(line)
        self.done.add(rid)
        self._unsynced += 1
        if self._unsynced >= self.sync_every:
            os.fsync(self._f.fileno())
            self._unsynced = 0
        return pos

    def close(self) -> None:
        if not self._f.closed:
            self._f.flush()
            os.fsync(self._f.fileno())
            self._f.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
