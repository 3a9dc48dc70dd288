"""Count the structure cases' checks (``tests/structure_cases.py``) that ``webseg clean`` passes.

    python bench/structure_checks.py [--no-units | --trafilatura] [--render] [--at-end]

Parsed pages (``webseg.parse``; ``--render``: rendered by Chromium), the shipped block model,
txt and Markdown: prints the txt and
Markdown checks passed, over all cases and over the harder variations alone
(``HARD_CASES``: sectioned and nested tables, list attributes, task lists, Markdown's special
characters, scripts without spaces...) and over the real-world markup alone (``REAL_CASES``:
Pygments and Rouge code tables, GitHub READMEs, MDN, Wikipedia, Stack Overflow, Medium and
WordPress blocks). ``--at-end`` puts every fragment after the article's last paragraph
(before the sidebar and the footer, where no kept text follows it) instead of its own place:
a robustness check that the cases do not have to pass in full (a caption or a lone line
there is the model's call). ``--no-units`` runs the decoder without its structure units
(:mod:`webseg.blocks.units`); ``--trafilatura`` scores trafilatura (default options; txt
and ``output_format="markdown"``) on the same pages instead. To score an older checkout,
copy ``tests/structure_cases.py`` and this file into it and run it there without
``--no-units``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.structure_cases import (  # noqa: E402
    CASES,
    EDGE_CASES,
    HARD_CASES,
    LAYOUT_PAGE_CASES,
    REAL_CASES,
    article,
    page_html,
)
from webseg.clean import extract  # noqa: E402
from webseg.parse import parse  # noqa: E402


def main() -> int:
    params = {"units": False} if "--no-units" in sys.argv else {}
    traf = "--trafilatura" in sys.argv
    renderer = None
    if "--render" in sys.argv and not traf:
        from webseg.render import Renderer

        renderer = Renderer().__enter__()
    groups = {"hard": {c.name for c in HARD_CASES}, "real": {c.name for c in REAL_CASES},
              "edge": {c.name for c in EDGE_CASES}}
    counts = {key: [0, 0, 0, 0] for key in ("all", *groups)}
    for c in CASES:
        at_end = "--at-end" in sys.argv and c.name not in LAYOUT_PAGE_CASES
        html = article(c.fragment, c.lang, at_end=True) if at_end else page_html(c)
        if traf:
            import trafilatura

            text = trafilatura.extract(html) or ""
            md = trafilatura.extract(html, output_format="markdown") or ""
        else:
            page = renderer.render(html.encode("utf-8")) if renderer else parse(html)
            res = extract(page, "blocks", **params)
            text, md = res.text, res.to_markdown()
        for key in ["all"] + [g for g, names in groups.items() if c.name in names]:
            n = counts[key]
            n[0] += len(c.txt)
            n[1] += sum(x in text for x in c.txt)
            n[2] += len(c.md)
            n[3] += sum(x in md for x in c.md)
    for key, label in (("all", f"{len(CASES)} cases"),
                       ("hard", f"{len(HARD_CASES)} harder variations"),
                       ("real", f"{len(REAL_CASES)} real-world markup"),
                       ("edge", f"{len(EDGE_CASES)} further variations")):
        nt, pt, nm, pm = counts[key]
        print(f"{label}: txt checks {pt}/{nt}, Markdown checks {pm}/{nm}")
    if renderer is not None:
        renderer.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
