"""The page-result schema: one JSON object per input record, the same everywhere.

``webseg clean -f json``, :meth:`webseg.clean.CleanResult.to_dict`, the pipeline's
``pages.jsonl`` and the columns of its Spark output all carry these fields, with these names
and types (:data:`FIELDS`; the pipeline adds its own stage fields after them: ``segmentation``,
``sketch``, ``timings``, ``duplicate_cluster``):

``schema``          ``"webseg.result/2"``
``id``              the record's id: the file path, ``<warc path>#<byte offset>``, or the URL
``source``          the input it came from: the file, the WARC file, or the URL
``url``             the page's address: the WARC target URI or the URL given; for a local file
                    its canonical URL (``<link rel=canonical>``, ``og:url``) or else the file's
                    own ``file://`` URI (a ``.html.gz`` named as itself); ``--url`` overrides
``status``          ``ok`` | ``empty`` (no main content: see ``reason``) | ``skipped`` (not a
                    page: an image or PDF in a WARC...) | ``error``
``reason``          why the status is not ``ok`` (``no text``, ``script-only shell``,
                    ``too deep``, ``render: timeout``...), else null
``error``           ``{"stage", "message"}`` when ``status`` is ``error``, else null
``title``           the headline: JSON-LD / Open Graph, else the ``<title>`` (less the site's
                    name when it starts with the first ``<h1>``)
``text``            the main content as plain text (the txt format); ``""`` when not ok
``language``        ``{"code", "confidence", "source"}`` (:mod:`webseg.lang`) or null
``authors``         list of names; ``date_published``, ``date_modified``: ISO 8601 or null;
``site_name``, ``description``, ``canonical_url``, ``image``: string or null; ``tags``: list
``page_type``       ``{"type", "probability", "probabilities"}`` or null (not classified)
``method``          the clean method (``blocks``...) or null
``xpaths``          XPaths of the kept subtrees' roots in document order, in the Page's form
                    (``/html[1]/body[1]/div[2]``), which address the same nodes in the rendered
                    and the parsed page
``roles``           per XPath, its finer roles (``{"content": "body", "layout": "content"}``,
                    :mod:`webseg.blocks.roles`), or null when the method gives none and in
                    the pipeline's lines (a second model per page; ``clean -f json`` has them)
``site_repeated``   XPaths of text leaves the model kept but the site-repetition rule dropped
                    (:mod:`webseg.blocks.siterepeat`), or null when the rule did not run
``warc``            ``{"record_id", "date", "target_uri", "http_status", "content_type",
                    "type"}`` for a WARC record (a revisit adds ``refers_to_uri``,
                    ``refers_to_date``, ``refers_to_record_id``; a redirect ``location``),
                    else null
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["FIELDS", "METADATA_FIELDS", "SCHEMA", "blank", "page_type_object", "source_of",
           "to_dict", "to_json", "upgrade_line", "warc_fields", "xpaths_of"]

SCHEMA = "webseg.result/2"
#: Metadata fields (:class:`webseg.clean.metadata.Metadata`), at the top level of a result.
METADATA_FIELDS = ("authors", "date_published", "date_modified", "site_name", "description",
                   "canonical_url", "image", "tags")
#: Every field of a page result, in output order.
FIELDS = ("schema", "id", "source", "url", "status", "reason", "error", "title", "text",
          "language", *METADATA_FIELDS, "page_type", "method", "xpaths", "roles",
          "site_repeated", "warc")
STATUSES = ("ok", "empty", "skipped", "error")
WARC_KEYS = ("record_id", "date", "target_uri", "http_status", "content_type")
_LIST_FIELDS = ("authors", "tags", "xpaths")


def blank(rec_id: str | None = None, *, source: str | None = None, url: str | None = None,
          status: str = "ok", reason: str | None = None,
          error: dict[str, str] | None = None, warc: dict[str, Any] | None = None
          ) -> dict[str, Any]:
    """A result with every field present and empty: the line of a record that has no page
    (an error, a skipped record), and the base every result is filled into."""
    d: dict[str, Any] = {k: None for k in FIELDS}
    d.update({k: [] for k in _LIST_FIELDS})
    d.update(schema=SCHEMA, id=rec_id, source=source, url=url, status=status, reason=reason,
             error=error, text="", warc=warc)
    return d


def source_of(rec: Any) -> str | None:
    """The input a record came from: the WARC file of a WARC record (its id without the
    ``#offset``), else the record's id (file path or URL)."""
    rid = getattr(rec, "id", None)
    if rid is None:
        return None
    if getattr(rec, "kind", None) == "warc" and "#" in rid:
        return rid.rpartition("#")[0]
    return str(rid)


#: Spellings of the WARC fields on an input record (``rec.warc`` as a mapping or object, or
#: flat attributes).
_WARC_ATTRS = {"record_id": ("warc_record_id", "record_id"),
               "date": ("warc_date", "date"),
               "target_uri": ("target_uri", "warc_target_uri"),
               "http_status": ("http_status", "status_code"),
               "content_type": ("content_type", "http_content_type")}


def warc_fields(rec: Any) -> dict[str, Any] | None:
    """The WARC fields of an input record (``record_id``, ``date``, ``target_uri``,
    ``http_status``, ``content_type``), read from ``rec.warc`` or flat attributes when the
    record has them; None for records that are not from a WARC."""
    w = getattr(rec, "warc", None)
    if getattr(rec, "kind", None) != "warc" and w is None:
        return None
    if hasattr(w, "to_dict"):  # webseg.inputs.WarcFacts: the five, and a revisit's or
        return w.to_dict()     # redirect's extra facts when set
    out: dict[str, Any] = {}
    for key, names in _WARC_ATTRS.items():
        v = None
        if isinstance(w, dict):
            v = next((w[n] for n in (key, *names) if w.get(n) is not None), None)
        elif w is not None:
            v = next((getattr(w, n) for n in (key, *names)
                      if getattr(w, n, None) is not None), None)
        if v is None:
            v = next((getattr(rec, n) for n in names if getattr(rec, n, None) is not None),
                     None)
        out[key] = v
    if out["target_uri"] is None:
        out["target_uri"] = getattr(rec, "url", None)
    if out["http_status"] is not None:
        try:
            out["http_status"] = int(out["http_status"])
        except (TypeError, ValueError):
            out["http_status"] = None
    if out["date"] is not None and not isinstance(out["date"], str):
        out["date"] = str(out["date"])
    return out


def page_type_object(probs: dict[str, float] | None = None, label: str | None = None,
                     probability: float | None = None) -> dict[str, Any] | None:
    """The ``page_type`` field: from the probability of every type, or a label alone."""
    if probs:
        label = max(probs, key=lambda k: probs[k])
        return {"type": label, "probability": round(float(probs[label]), 4),
                "probabilities": {k: round(float(v), 4) for k, v in sorted(probs.items())}}
    if label is None:
        return None
    return {"type": label, "probability": None if probability is None
            else round(float(probability), 4), "probabilities": None}


def to_dict(result: Any, roles: bool = True) -> dict[str, Any]:
    """The result object of a :class:`~webseg.clean.CleanResult` (module docstring).
    ``roles=False`` leaves ``roles`` null: the role model costs about as much as the main-text
    model itself (~19 ms a page), which the pipeline does not spend on every page."""
    d = blank(result.record_id, source=result.source, url=result.url, status=result.status,
              reason=result.reason, warc=result.warc)
    d["title"] = result.title or None
    d["text"] = result.text
    d["language"] = result.language
    if result.metadata is not None:
        d.update(result.metadata.to_dict())
    pt = result.page_type
    d["page_type"] = page_type_object(label=pt) if isinstance(pt, str) else pt
    d["method"] = result.method
    d["xpaths"] = result.xpaths
    d["roles"] = getattr(result, "roles", None) if roles else None
    rep = getattr(result, "site_repeated", None)
    if rep is not None:
        xp = result.page.xpaths
        d["site_repeated"] = [xp[i] for i in result.page.text_leaves[rep].tolist()]
    d["title"] = result.title or None  # metadata's title is the result's title
    return {k: d[k] for k in FIELDS}


def to_json(result: Any, indent: int | None = None) -> str:
    """The result as a JSON string (UTF-8 text, not ASCII-escaped)."""
    return json.dumps(to_dict(result), ensure_ascii=False, indent=indent)


def upgrade_line(line: dict[str, Any]) -> dict[str, Any]:
    """A pipeline line written before this schema, in place: ``main_text`` becomes ``text``
    and the fields the older run did not compute are added, empty (null / ``[]``). Lines of
    the current schema are returned unchanged."""
    if line.get("schema") == SCHEMA:
        return line
    if "main_text" in line:
        line["text"] = line.pop("main_text")
    src = line.get("source")
    if src is None and isinstance(line.get("id"), str):
        rid = line["id"]
        src = rid.rpartition("#")[0] if "#" in rid and not rid.startswith("http") else rid
    base = blank(line.get("id"), source=src, url=line.get("url"),
                 status=line.get("status") or "ok", error=line.get("error"))
    if line.get("status") == "error" and not line.get("reason"):
        err = line.get("error") or {}
        base["reason"] = f"{err.get('stage', 'unknown')}: {err.get('message', '')}"
    if line.get("status") == "skipped" and not line.get("reason"):
        base["reason"] = (line.get("error") or {}).get("message")
    rest = {k: v for k, v in line.items() if k not in base}
    for k in FIELDS:
        if k in line and k not in ("schema",):
            base[k] = line[k]
    base["schema"] = SCHEMA
    if base["text"] is None:
        base["text"] = ""
    line.clear()
    line.update(base)
    line.update(rest)
    return line


def xpaths_of(page: Any, nodes: Any) -> list[str]:
    """The XPaths of ``nodes`` in the form of :attr:`webseg.page.Page.xpaths`, built for
    these nodes and their ancestors only: the Page's own list joins a path for every node,
    where a result reports a few dozen roots. Taken from that list when it is already built,
    else from the Page's steps (:attr:`~webseg.page.Page.xpath_steps`) when they are, else
    from the steps of the children of these nodes' parents alone (:func:`_sibling_steps`),
    which spares the whole page's ranking (a sort of every node)."""
    nodes = [int(i) for i in nodes]
    if "xpaths" in page.__dict__:
        xp = page.xpaths
        return [xp[i] for i in nodes]
    parent = page.parent.tolist()
    memo: dict[int, str] = {}
    if "xpath_steps" in page.__dict__:
        names, ranks = page.xpath_steps
        rank = ranks.tolist()

        def step(a: int) -> str:
            return f"/{names[a]}[{rank[a]}]"
    else:
        steps: dict[int, str] = {}
        end, kinds = page.subtree_end.tolist(), page.kind.tolist()

        def step(a: int) -> str:
            if a not in steps:
                _sibling_steps(parent[a], end, kinds, page.tag, steps)
            return steps[a]

    def path(i: int) -> str:
        chain = []
        j = i
        while j >= 0 and j not in memo:
            chain.append(j)
            j = parent[j]
        prefix = memo[j] if j >= 0 else ""
        for a in reversed(chain):
            prefix = memo[a] = prefix + step(a)
        return memo[i]

    return [path(i) for i in nodes]


def _sibling_steps(p: int, end: list[int], kinds: list[int], tags: list[str],
                   steps: dict[int, str]) -> None:
    """The XPath steps (``/div[2]``) of every child of node ``p`` (-1: the top-level nodes)
    into ``steps``: the children are the nodes from ``p + 1`` on, each after the previous
    one's subtree (pre-order), and a step's index counts the earlier children of the same
    name, as :attr:`~webseg.page.Page.xpath_steps` ranks them."""
    from webseg.page import TEXT

    counts: dict[str, int] = {}
    j, hi = p + 1, (end[p] if p >= 0 else len(end))
    while j < hi:
        name = "text()" if kinds[j] == TEXT else tags[j]
        k = counts[name] = counts.get(name, 0) + 1
        steps[j] = f"/{name}[{k}]"
        j = end[j]


def file_uri(path: str | Path) -> str:
    """A local file's own ``file://`` URI (absolute; a ``.gz`` keeps its name)."""
    return Path(path).resolve().as_uri()
