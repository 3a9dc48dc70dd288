"""Why a page's main content is empty, in words a user can act on.

An empty result is never silent: ``webseg clean`` prints the reason on stderr, JSON carries it
(``status: "empty"``, ``reason``), and the batch summary counts the reasons. The reasons,
checked in this order:

``no text``             the page shows no text at all (an empty or image-only document)
``script-only shell``   scripts and no text, or a few words ("Loading...", "enable JavaScript")
                        with an app mount point (``<div id="root|app|__next">``) or a
                        ``noscript``: a single-page-app shell whose content is built by
                        JavaScript (render it with JavaScript on: ``--javascript``)
``too deep``            the DOM nests deeper than a browser's parser keeps (512 levels), which
                        flattens the document: what text there is has no structure to judge
``tiny page``           fewer than :data:`TINY_WORDS` words of text, none judged main content
``nothing kept``        the page has text, but the model judged all of it boilerplate
                        (navigation, footers, listings)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["REASONS", "TINY_WORDS", "empty_reason"]

REASONS = ("no text", "script-only shell", "too deep", "tiny page", "nothing kept")
#: A page with fewer words of visible text than this is "tiny".
TINY_WORDS = 20
#: Chromium's parser depth limit (:data:`webseg.parse.MAX_DEPTH`).
MAX_DEPTH = 512


def empty_reason(page: Any) -> str:
    """The reason (one of :data:`REASONS`) for an empty main content of ``page``."""
    leaves = np.asarray(page.text_leaves)
    words = sum(len(page.text[i].split()) for i in leaves.tolist())
    if words < TINY_WORDS and _app_shell(page, words):
        return "script-only shell"
    if words == 0:
        return "no text"
    if page.n and int(np.max(page.depth)) >= MAX_DEPTH:
        return "too deep"
    if words < TINY_WORDS:
        return "tiny page"
    return "nothing kept"


#: Element ids where single-page-app frameworks mount their content.
_MOUNT_IDS = frozenset({"root", "app", "__next", "__nuxt", "svelte", "main-app", "react-root",
                        "ember-application", "q-app", "application"})


def _app_shell(page: Any, words: int) -> bool:
    """Scripts with no text, or with a few words and the marks of a JavaScript app."""
    if not any(t == "script" for t in page.tag):
        return False
    if words == 0:
        return True
    return any(t == "noscript" for t in page.tag) or any(
        (a or {}).get("id", "").lower() in _MOUNT_IDS for a in page.attrs)
