"""Build the demo crawl shipped with webseg: two small made-up sites, one syndicated story.

::

    python examples/make_crawl.py            # writes examples/crawl/*.html and crawl.warc.gz

All text here was written for this project (MIT, like the code). The pages are deliberately
ordinary: a site header and navigation, a sidebar, a footer, and the content — the template
around the content is what webseg's main-text and duplicate detection have to see through.
One story appears on both sites (a near-duplicate pair with different templates), and each site
has a home page (a list of links) and an about page, so page types differ.
"""

from __future__ import annotations

import html
import io
from pathlib import Path

HERE = Path(__file__).resolve().parent

STORIES = {
    "tide-pools": ("What lives in a tide pool", [
        "Twice a day the sea withdraws from the rocky shore and leaves behind small basins of "
        "water. These tide pools are crowded neighbourhoods: anemones close into soft green "
        "buttons, hermit crabs trade shells, and periwinkles graze the thin film of algae.",
        "Life here is hard. In summer the water in a shallow pool can warm by ten degrees in an "
        "afternoon, and evaporation makes it saltier. After rain it turns brackish. Animals "
        "that survive have learned to seal themselves in, to move to deeper water, or to "
        "tolerate the swings.",
        "Visitors can help by turning stones back the way they found them and by watching "
        "rather than collecting. A pool left undisturbed recovers its balance with the next "
        "tide."]),
    "sourdough": ("Keeping a sourdough starter alive", [
        "A starter is a culture of wild yeast and lactic acid bacteria living in flour and "
        "water. Fed regularly, it doubles in a few hours and smells pleasantly sour; neglected, "
        "it grows a grey layer of liquid that bakers call hooch.",
        "Feeding is simple: discard most of the starter, then add equal weights of flour and "
        "water. Kept on the counter it needs food every day; in the refrigerator once a week "
        "is enough. Rye flour wakes a sluggish culture faster than white flour.",
        "Before baking, feed the starter and wait until it has risen and domed. A spoonful "
        "that floats in water is a good sign that it is ready to raise a loaf."]),
    "lighthouse": ("The keepers of the north light", [
        "For ninety years the north light was tended by families who lived at its foot. They "
        "trimmed wicks, polished the great lens, and wound the clockwork that turned it, "
        "climbing the spiral stair many times each night.",
        "Logbooks kept in the county archive record storms, shipwrecks and the ordinary "
        "rhythm of supply boats. One keeper noted every bird that struck the lantern glass; "
        "another wrote only the weather, in a careful hand, for thirty years.",
        "The light was automated in 1987. The cottages are now a small museum, open on "
        "summer weekends, and the lens still turns above them."]),
    "bicycle-chain": ("How to clean a bicycle chain", [
        "A dirty chain wears the gears and wastes effort. Road grit mixes with old oil into a "
        "grinding paste, so the aim is to remove it rather than to add more lubricant on top.",
        "Shift to the smallest sprocket, hold a rag around the lower run of the chain and "
        "turn the pedals backwards. For a thorough clean use a degreaser and a stiff brush, "
        "then rinse and let the chain dry completely.",
        "Finally put one drop of chain oil on each roller, turn the pedals for a minute and "
        "wipe off the excess. Oil belongs inside the rollers, not on the outside where it "
        "collects dust."]),
}

SITES = {
    "harbour": {
        "name": "The Harbour Gazette", "host": "gazette.example",
        "nav": ["News", "Coast", "Culture", "Weather", "Letters"],
        "side": ["Most read", "Ferry timetable changes for winter",
                 "Harbour wall repairs begin", "Letters: the new car park"],
        "stories": ["tide-pools", "lighthouse", "sourdough"],
        "colour": "#0b3d5c",
    },
    "workshop": {
        "name": "Weekend Workshop", "host": "workshop.example",
        "nav": ["Home", "Projects", "Tools", "Kitchen", "About"],
        "side": ["Popular projects", "A simple workbench", "Sharpening chisels",
                 "Subscribe to the newsletter"],
        "stories": ["bicycle-chain", "sourdough"],
        "colour": "#5c3b0b",
    },
}

TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} | {site}</title>
<style>
body {{ margin: 0; font-family: Georgia, serif; background: #f4f1ea; }}
header {{ background: {colour}; color: white; padding: 16px 32px; }}
header h1 {{ margin: 0; font-size: 28px; }}
nav a {{ color: white; margin-right: 18px; font-family: Arial, sans-serif; font-size: 14px; }}
.wrap {{ display: flex; max-width: 1100px; margin: 24px auto; gap: 32px; }}
main {{ flex: 3; background: white; padding: 24px 32px; }}
aside {{ flex: 1; font-family: Arial, sans-serif; font-size: 13px; }}
aside li {{ margin-bottom: 8px; }}
footer {{ background: #333; color: #ccc; padding: 16px 32px; font-size: 12px;
          font-family: Arial, sans-serif; }}
</style></head>
<body>
<header><h1>{site}</h1><nav>{nav}</nav></header>
<div class="wrap">
<main>{main}</main>
<aside><h3>{side_title}</h3><ul>{side}</ul></aside>
</div>
<footer>&copy; 2026 {site}. All rights reserved. <a href="/privacy">Privacy</a> ·
<a href="/contact">Contact</a> · <a href="/rss">RSS</a></footer>
</body></html>
"""


def page(site: dict, title: str, main: str) -> str:
    nav = " ".join(f'<a href="/{n.lower()}">{html.escape(n)}</a>' for n in site["nav"])
    side = "".join(f'<li><a href="/side/{i}">{html.escape(s)}</a></li>'
                   for i, s in enumerate(site["side"][1:]))
    return TEMPLATE.format(title=html.escape(title), site=html.escape(site["name"]), nav=nav,
                           main=main, side_title=html.escape(site["side"][0]), side=side,
                           colour=site["colour"])


def article(key: str) -> tuple[str, str]:
    title, paras = STORIES[key]
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paras)
    return title, f"<article><h2>{html.escape(title)}</h2><p><i>By staff</i></p>{body}</article>"


def build() -> dict[str, tuple[str, str]]:
    """``{file name: (url, html)}`` of every page of the demo crawl."""
    out = {}
    for sid, site in SITES.items():
        links = "".join(f'<li><a href="/{k}.html">{html.escape(STORIES[k][0])}</a> — '
                        f'{html.escape(STORIES[k][1][0][:90])}…</li>' for k in site["stories"])
        out[f"{sid}-home.html"] = (f"http://{site['host']}/",
                                   page(site, "Home", f"<h2>Latest</h2><ul>{links}</ul>"))
        about = (f"<h2>About us</h2><p>{html.escape(site['name'])} is written by a small team "
                 "of volunteers. Write to us at the address below; we read every letter.</p>"
                 "<p>Editor: A. Example. Post: 1 Quay Street.</p>")
        out[f"{sid}-about.html"] = (f"http://{site['host']}/about", page(site, "About", about))
        for k in site["stories"]:
            title, main = article(k)
            out[f"{sid}-{k}.html"] = (f"http://{site['host']}/{k}.html",
                                      page(site, title, main))
    return out


def main() -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    pages = build()
    d = HERE / "crawl"
    d.mkdir(exist_ok=True)
    for name, (_, text) in pages.items():
        (d / name).write_text(text, encoding="utf-8")
    with (HERE / "crawl.warc.gz").open("wb") as f:
        w = WARCWriter(f, gzip=True)
        for name in sorted(pages):
            url, text = pages[name]
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                       protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response",
                                                payload=io.BytesIO(text.encode("utf-8")),
                                                http_headers=headers))
    print(f"{len(pages)} pages in {d} and {HERE / 'crawl.warc.gz'}")


if __name__ == "__main__":
    main()
