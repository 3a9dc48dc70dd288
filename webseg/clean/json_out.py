"""JSON output: one object per page with the fields a downstream job needs.

``url``, ``title``, ``text`` (the txt format), ``page_type`` (null unless given or
classified), ``method`` and ``xpaths``: the XPaths of the kept subtrees' roots, in document
order, in the Page's form (``/html[1]/body[1]/div[2]``, text nodes ending in ``text()[k]``),
which address the same nodes in the rendered and the parsed page. With the ``blocks`` method,
``roles`` gives the finer roles of each XPath (``{"content": "body", "layout": "content"}``,
:mod:`webseg.blocks.roles`), in the same order. When the site-repetition rule ran
(several pages of a site: :mod:`webseg.blocks.siterepeat`), ``site_repeated`` lists the XPaths
of the text leaves the model kept but the rule dropped as the site's repeated text (absent
when it did not run, so a single page's JSON is unchanged).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["to_json", "to_dict"]


def to_dict(result: Any) -> dict[str, Any]:
    """The JSON object of a :class:`~webseg.clean.CleanResult`."""
    d = {"url": result.url, "title": result.title, "text": result.text,
         "page_type": result.page_type, "method": result.method, "xpaths": result.xpaths}
    roles = getattr(result, "roles", None)
    if roles is not None:
        d["roles"] = roles
    rep = getattr(result, "site_repeated", None)
    if rep is not None:
        xp = result.page.xpaths
        d["site_repeated"] = [xp[i] for i in result.page.text_leaves[rep].tolist()]
    return d


def to_json(result: Any, indent: int | None = None) -> str:
    """The result as a JSON string (UTF-8 text, not ASCII-escaped)."""
    return json.dumps(to_dict(result), ensure_ascii=False, indent=indent)
