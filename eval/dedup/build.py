"""A Lyrics-style near-duplicate benchmark built from real pages (semi-synthetic).

The papers' Lyrics set has the lyrics of one song on three sites (duplicates) and different
songs on one site (non-duplicates). We have no such crawl, so we build its analogue from the
boilerplate sets, whose pages come with gold main-content text:

1. **Hosts.** For every page with a site and non-empty gold, find the DOM element that holds its
   main content by aligning the gold text to the DOM (:func:`align_region`): among the
   container elements (``div``, ``td``, ``article``, ...), the one whose text best matches the
   gold text as a bag of words (F1 of multiset overlap; precision = overlap / element words,
   recall = overlap / gold words). A page is a usable host when the best F1 is >= ``min_f1``
   (0.6), the element is not ``<body>``, and at least ``min_template`` (30) words of visible
   text lie outside it (there is a template to strip). Only sites with >= 2 usable hosts are
   kept (non-duplicate pairs need two pages of one site).
2. **Contents.** Gold texts (one paragraph per gold line) of pages of the same sets, 80 to 1,500
   words, each used for one duplicate pair.
3. **Pages.** A generated page is a host whose main-content element keeps its tag and
   attributes (so the site's CSS still lays it out) but has its children replaced by the
   content's paragraphs (``<p>``, or ``<br>``-separated text inside inline/paragraph
   elements), all text HTML-escaped. Everything else of the host stays: navigation, footer,
   side bars, and also the host's own page-specific leftovers (headline outside the content
   element, related links, comments), like the papers' "popular lyrics by this artist" boxes.
   Scripts are removed and the document is written as UTF-8 with a ``<meta charset>`` (other
   charset declarations removed); CleanEval's ``<text ...>`` wrapper line is dropped.
4. **Sites.** At most ``max_sites`` (60) sites are used, those with most usable hosts, so each
   site gets several generated pages.
5. **Pairs.** *Duplicate*: one content in two hosts of two different sites. *Not duplicate*:
   two different contents in two different hosts of the same site (same site template); two
   contents whose gold texts are themselves near-duplicates (shingle Jaccard > 0.2: the same
   wire story in two L3S-GN1 outlets) never form a non-duplicate pair. Pairs
   are drawn with a seeded RNG; the same seed and data give the same benchmark.

Every pair carries ``"semi_synthetic": true`` and the alignment quality of its hosts. The
output is the pairs JSONL format of :mod:`eval.dedup` with the HTML files beside it.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree
from lxml import html as lhtml

from dedup.shingle import shingle_hashes, words
from webseg.datasets import KNOWN_ENCODINGS, PageRecord, load_records
from webseg.decode import decode_html

__all__ = ["Host", "align_region", "build", "inject"]

#: Elements that can hold a page's main content and take block children.
CONTAINERS = frozenset({"div", "td", "th", "article", "section", "main", "blockquote",
                        "center", "dd", "li", "form", "aside", "span", "font", "p", "pre",
                        "table", "tbody", "ul", "ol", "dl"})
#: Containers that must not get <p> children: content goes in as <br>-separated text.
_INLINE = frozenset({"span", "font", "p", "pre"})
#: Containers whose children must be rows/items: content goes into one row/item.
_STRUCT = {"table": "tr", "tbody": "tr", "ul": "li", "ol": "li", "dl": "dd"}
_NO_TEXT = frozenset({"script", "style", "noscript", "template", "head", "title"})
_WRAPPER = re.compile(rb"^\s*<text\b[^>]*>", re.I)
#: Characters lxml (libxml2) refuses in text: C0 controls other than tab/newline/CR, and
#: noncharacters; removed from page and gold text.
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


@dataclass
class Host:
    record: PageRecord
    tree: Any  # lxml root
    region: Any  # lxml element
    xpath: str
    f1: float
    precision: float
    recall: float
    template_words: int

    @property
    def index_path(self) -> list[int]:
        """Child indices from the root to the content element (robust where XPath is not)."""
        path, el = [], self.region
        while el.getparent() is not None:
            path.append(el.getparent().index(el))
            el = el.getparent()
        return path[::-1]


def _text_tokens(root: Any) -> tuple[list[str], dict[Any, tuple[int, int]]]:
    """Visible-ish words of the document in order, and each element's [start, end) range."""
    toks: list[str] = []
    ranges: dict[Any, tuple[int, int]] = {}

    def walk(el: Any, hidden: bool) -> None:
        if not isinstance(el.tag, str):  # comments, processing instructions
            return
        tag = el.tag.lower()
        hide = hidden or tag in _NO_TEXT
        start = len(toks)
        if el.text and not hide:
            toks.extend(words(el.text))
        for c in el:
            walk(c, hide)
            if c.tail and not hide:
                toks.extend(words(c.tail))
        ranges[el] = (start, len(toks))

    walk(root, False)
    return toks, ranges


def align_region(root: Any, gold: str) -> tuple[Any, float, float, float, int] | None:
    """The container element best matching ``gold`` (bag-of-words F1); see module doc.

    Returns ``(element, f1, precision, recall, words outside it)`` or ``None`` when the
    document or the gold has no words.
    """
    g = Counter(words(gold))
    ng = sum(g.values())
    toks, ranges = _text_tokens(root)
    if not ng or not toks:
        return None
    best = None
    for el, (s, e) in ranges.items():
        n = e - s
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if tag not in CONTAINERS or n < 0.3 * ng or n > 4 * ng:
            continue
        c = Counter(toks[s:e])
        ov = sum(min(v, g[w]) for w, v in c.items() if w in g)
        p, r = ov / n, ov / ng
        f1 = 2 * p * r / (p + r) if ov else 0.0
        # prefer the better F1; on a tie the deeper (smaller) element
        key = (round(f1, 4), -n)
        if best is None or key > best[0]:
            best = (key, el, f1, p, r, len(toks) - n)
    if best is None:
        return None
    return best[1], best[2], best[3], best[4], best[5]


def parse_page(rec: PageRecord) -> Any:
    """The page's DOM (lxml), decoded like the renderer does (known set encodings honoured)."""
    data = rec.read_html()
    m = _WRAPPER.match(data)
    if m:  # CleanEval-style wrapper line around the page
        data = data[m.end():]
        data = re.sub(rb"</text>\s*$", b"", data)
    text = _BAD_CHARS.sub("", decode_html(data, KNOWN_ENCODINGS.get(rec.dataset)).text)
    return lhtml.document_fromstring(text)


def inject(host: Host, content: str) -> bytes:
    """A copy of the host page with its content element's children replaced by ``content``."""
    root = copy.deepcopy(host.tree)
    region = root
    for i in host.index_path:
        region = region[i]
    for s in root.xpath("//script|//noscript"):
        s.drop_tree()
    for m in root.xpath("//meta[@charset]|//meta[@http-equiv]"):
        m.drop_tree()
    for child in list(region):
        region.remove(child)
    region.text = None
    paras = [ln.strip() for ln in _BAD_CHARS.sub("", content).splitlines() if ln.strip()]
    tag = region.tag.lower()
    target = region
    if tag in _STRUCT:
        row = etree.SubElement(region, _STRUCT[tag])
        target = etree.SubElement(row, "td") if _STRUCT[tag] == "tr" else row
    if tag in _INLINE:
        target.text = paras[0] if paras else ""
        for para in paras[1:]:
            br = etree.SubElement(target, "br")
            br.tail = para
    else:
        for para in paras:
            etree.SubElement(target, "p").text = para
    head = root.find("head")
    if head is None:
        head = etree.Element("head")
        root.insert(0, head)
    meta = etree.Element("meta", charset="utf-8")
    head.insert(0, meta)
    return b"<!DOCTYPE html>\n" + lhtml.tostring(root, encoding="utf-8")


def _clean_gold(rec: PageRecord) -> str:
    text = rec.read_gold() or ""
    lines = [ln for ln in text.splitlines() if not ln.startswith("URL:")]
    return "\n".join(lines)


def find_hosts(records: list[PageRecord], min_f1: float = 0.6, min_template: int = 30,
               log: Any = print) -> tuple[list[Host], Counter]:
    """Usable host pages (see module doc) and the reasons the others were not used."""
    hosts, why = [], Counter()
    for rec in records:
        if rec.gold is None or rec.site is None or rec.exclude_text_metrics:
            why["no gold or no site"] += 1
            continue
        gold = _clean_gold(rec)
        if len(words(gold)) < 30:
            why["gold shorter than 30 words"] += 1
            continue
        try:
            tree = parse_page(rec)
        except Exception as e:  # noqa: BLE001 - a page we cannot parse is skipped, counted
            why[f"unparsable ({type(e).__name__})"] += 1
            continue
        a = align_region(tree, gold)
        if a is None:
            why["no container of plausible size"] += 1
            continue
        el, f1, p, r, outside = a
        if f1 < min_f1:
            why[f"alignment F1 < {min_f1}"] += 1
            continue
        if el.tag.lower() == "body" or outside < min_template:
            why[f"fewer than {min_template} template words"] += 1
            continue
        hosts.append(Host(rec, tree, el, tree.getroottree().getpath(el), f1, p, r, outside))
    log(f"hosts: {len(hosts)} usable of {len(records)} pages; not used: {dict(why)}")
    return hosts, why


def build(data_dirs: list[Path], out: Path, n_dup: int = 150, n_nondup: int = 150,
          seed: int = 0, min_f1: float = 0.6, max_hosts_per_site: int = 4,
          max_sites: int = 60, log: Any = print) -> dict[str, Any]:
    """Build the benchmark into ``out`` (``pairs.jsonl`` + ``html/``); returns its statistics."""
    rng = random.Random(seed)
    records = [r for d in data_dirs for r in load_records(d)]
    by_site: dict[str, list[PageRecord]] = defaultdict(list)
    for r in records:
        if r.site:
            by_site[f"{r.dataset}:{r.site}"].append(r)
    multi = [r for k, rs in sorted(by_site.items()) if len(rs) >= 2 for r in rs]
    hosts, why = find_hosts(multi, min_f1, log=log)
    site_hosts: dict[str, list[Host]] = defaultdict(list)
    for h in hosts:
        site_hosts[f"{h.record.dataset}:{h.record.site}"].append(h)
    site_hosts = {s: hs[:max_hosts_per_site] for s, hs in sorted(site_hosts.items())
                  if len(hs) >= 2}
    # fewer sites with more pages each, so that every site has several generated pages
    # (non-duplicate pairs are drawn within sites): the sites with most hosts, ties at random
    ranked = sorted(site_hosts, key=lambda s: (-len(site_hosts[s]), rng.random()))
    sites = sorted(ranked[:max_sites])
    site_hosts = {s: site_hosts[s] for s in sites}
    if len(sites) < 2:
        raise ValueError("need at least two sites with two usable host pages")
    used_hosts = {id(h) for hs in site_hosts.values() for h in hs}
    # contents: gold of pages that are not hosts, 80..1500 words, one per duplicate pair
    contents = []
    for r in sorted(records, key=lambda r: (r.dataset, r.id)):
        if r.gold is None or r.exclude_text_metrics:
            continue
        g = _clean_gold(r)
        if 80 <= len(words(g)) <= 1500:
            contents.append((r, g))
    host_ids = {(h.record.dataset, h.record.id) for hs in site_hosts.values() for h in hs}
    contents = [c for c in contents if (c[0].dataset, c[0].id) not in host_ids]
    rng.shuffle(contents)
    if len(contents) < n_dup:
        log(f"only {len(contents)} contents: {len(contents)} duplicate pairs")
        n_dup = len(contents)
    out.mkdir(parents=True, exist_ok=True)
    (out / "html").mkdir(exist_ok=True)
    pages: dict[tuple[int, str], dict[str, Any]] = {}

    def page(h: Host, crec: PageRecord, text: str) -> dict[str, Any]:
        key = (id(h), crec.id)
        if key not in pages:
            data = inject(h, text)
            name = hashlib.sha1(f"{h.record.dataset}/{h.record.id}+{crec.dataset}/{crec.id}"
                                .encode()).hexdigest()[:16]
            path = out / "html" / f"{name}.html.gz"
            with gzip.GzipFile(path, "wb", mtime=0) as f:
                f.write(data)
            pages[key] = {"html": f"html/{name}.html.gz", "id": name,
                          "url": h.record.url, "site": h.record.site,
                          "host": f"{h.record.dataset}/{h.record.id}",
                          "content": f"{crec.dataset}/{crec.id}",
                          "host_alignment": {"f1": round(h.f1, 3),
                                             "precision": round(h.precision, 3),
                                             "recall": round(h.recall, 3),
                                             "xpath": h.xpath,
                                             "template_words": h.template_words}}
        return pages[key]

    # duplicate pairs: host sites used round-robin so every site gets several pages
    order: list[str] = []
    pairs: list[dict[str, Any]] = []
    by_site_pages: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i in range(n_dup):
        if len(order) < 2:
            order = sites[:]
            rng.shuffle(order)
        s1, s2 = order.pop(), order.pop()
        crec, text = contents[i]
        h1, h2 = rng.choice(site_hosts[s1]), rng.choice(site_hosts[s2])
        a, b = page(h1, crec, text), page(h2, crec, text)
        by_site_pages[s1].append(a)
        by_site_pages[s2].append(b)
        pairs.append({"pair_id": f"dup-{i:04d}", "a": a, "b": b, "label": "duplicate",
                      "kind": "same content, two site templates", "semi_synthetic": True})
    # non-duplicate pairs: two pages of one site, different content and different host
    cands = []
    for s in sites:
        ps = by_site_pages.get(s, [])
        for i in range(len(ps)):
            for j in range(i + 1, len(ps)):
                if ps[i]["content"] != ps[j]["content"] and ps[i]["host"] != ps[j]["host"]:
                    cands.append((ps[i], ps[j]))
    # two contents that are themselves near-duplicates (the same wire story in two L3S-GN1
    # outlets) must not make a non-duplicate pair: shingle-set Jaccard of the gold <= 0.2
    gold_sets: dict[str, set[int]] = {}

    def content_set(key: str) -> set[int]:
        if key not in gold_sets:
            text = next(t for r, t in contents if f"{r.dataset}/{r.id}" == key)
            gold_sets[key] = set(shingle_hashes(text).tolist())
        return gold_sets[key]

    def distinct(a: dict[str, Any], b: dict[str, Any]) -> bool:
        x, y = content_set(a["content"]), content_set(b["content"])
        return len(x & y) <= 0.2 * max(1, len(x | y))

    cands = [(a, b) for a, b in cands if distinct(a, b)]
    rng.shuffle(cands)
    if len(cands) < n_nondup:
        log(f"only {len(cands)} same-site page pairs with different hosts")
    for i, (a, b) in enumerate(cands[:n_nondup]):
        pairs.append({"pair_id": f"non-{i:04d}", "a": a, "b": b, "label": "not-duplicate",
                      "kind": "different contents, one site template", "semi_synthetic": True})
    with (out / "pairs.jsonl").open("w", encoding="utf-8") as f:
        for p in pairs:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    stats = {"data": [str(d) for d in data_dirs], "seed": seed, "min_f1": min_f1,
             "pages_considered": len(multi), "hosts_usable": len(hosts),
             "hosts_not_used": dict(why), "sites": len(sites),
             "hosts_used": len(used_hosts), "contents": n_dup,
             "generated_pages": len(pages),
             "duplicate_pairs": sum(p["label"] == "duplicate" for p in pairs),
             "not_duplicate_pairs": sum(p["label"] == "not-duplicate" for p in pairs),
             "host_f1_median": sorted(h.f1 for hs in site_hosts.values() for h in hs)[
                 len(used_hosts) // 2]}
    (out / "build.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {len(pairs)} pairs, {len(pages)} pages into {out}")
    return stats
