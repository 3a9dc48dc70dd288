"""Reading a test collection in the shared IR format (docs.jsonl, topics.jsonl, qrels.txt).

The same format is used for the clean collections (``../shared/data/ir/<name>``) and for the
web versions that :mod:`eval.prf.build_web_collection` writes (whose ``docs.jsonl`` is replaced
by ``pages/`` plus ``pages.jsonl``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Collection", "load_collection", "read_qrels"]


@dataclass
class Collection:
    name: str
    path: Path
    docs: list[dict]
    topics: dict[str, str]
    qrels: dict[str, dict[str, int]]

    @property
    def judged_topics(self) -> list[str]:
        """Topics with at least one relevant document (trec_eval averages over these)."""
        return [q for q in self.topics if any(r >= 1 for r in self.qrels.get(q, {}).values())]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4:
                raise ValueError(f"{path}:{ln}: expected 'qid 0 docid rel'")
            out.setdefault(parts[0], {})[parts[2]] = int(parts[3])
    return out


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_collection(path: str | Path, docs_file: str = "docs.jsonl") -> Collection:
    p = Path(path)
    for f in (docs_file, "topics.jsonl", "qrels.txt"):
        if not (p / f).is_file():
            raise FileNotFoundError(f"{p / f} not found: --collection must be a folder with "
                                    "docs.jsonl, topics.jsonl and qrels.txt")
    topics = {str(t["qid"]): str(t["query"]) for t in _jsonl(p / "topics.jsonl")}
    return Collection(name=p.name, path=p, docs=_jsonl(p / docs_file), topics=topics,
                      qrels=read_qrels(p / "qrels.txt"))
