"""Our Markdown writer against markdownify on the structure cases (``tests/structure_cases.py``).

    pip install --target /tmp/mdfy markdownify   # not a webseg dependency
    PYTHONPATH=.:/tmp/mdfy python bench/markdown_vs_markdownify.py [--fair]

For every case: the shipped block model on the parsed article, then our ``to_markdown()`` and
markdownify on our ``to_html()`` of the same kept subtrees (so markdownify gets the source's
whitespace too), each checked against the case's Markdown expectations. ``--fair`` forgives
markdownify's presentation choices (links always written, ``|  |`` for an empty cell, two
trailing spaces for ``<br>``, invisible characters left in). Prints the checks passed and the
CPU time of the two conversions (``to_html`` not counted).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.structure_cases import CASES, article  # noqa: E402
from webseg.clean import extract  # noqa: E402
from webseg.parse import parse  # noqa: E402


def _language(el) -> str | None:  # noqa: ANN001 - a BeautifulSoup tag
    for tag in (el, *el.find_all("code")):
        for c in tag.get("class") or []:
            if c.startswith(("language-", "lang-")):
                return c.split("-", 1)[1]
    return None


def main() -> int:
    try:
        from markdownify import markdownify
    except ImportError:
        print("markdownify is not installed (see the module docstring)", file=sys.stderr)
        return 2
    fair = "--fair" in sys.argv
    ours = theirs = total = 0
    t_ours = t_theirs = 0.0
    for c in CASES:
        res = extract(parse(article(c.fragment, c.lang)), "blocks")
        t0 = time.process_time()
        md = res.to_markdown()
        t_ours += time.process_time() - t0
        html = res.to_html()
        t0 = time.process_time()
        mk = markdownify(html, heading_style="ATX", bullets="-", sub_symbol="", sup_symbol="",
                         code_language_callback=_language)
        t_theirs += time.process_time() - t0
        if fair:
            mk = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", mk)
            mk = mk.replace("|  |", "| |").replace("  \n", "\n")
            mk = mk.translate(str.maketrans("", "", "\u00ad\u200b\ufeff"))
        for want in c.md:
            total += 1
            ours += want in md
            if want in mk:
                theirs += 1
            else:
                print(f"markdownify misses {c.name}: {want!r}")
    print(f"checks {total}: ours {ours}, markdownify {theirs}; CPU ours "
          f"{t_ours * 1000:.1f} ms, markdownify {t_theirs * 1000:.1f} ms ({len(CASES)} pages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
