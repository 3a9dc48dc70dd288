"""Duplicate reports: clusters and pairs as JSON and CSV, and a self-contained HTML page.

Files written by :func:`write_report` into ``OUT/``:

``summary.json``   counts (pages, failed, empty, too short to judge, candidates, duplicate pairs,
                   clusters, pages in clusters) and the parameters of the run.
``clusters.json``  one object per cluster: pages (id, url, title, site, words) and its pairs.
``clusters.csv``   ``cluster,id,url,title,site,words`` (one row per page in a cluster;
                   ``words`` counts words as they are shingled: in Chinese, Japanese or Thai
                   text every character is one).
``pairs.json`` / ``pairs.csv``  every verified duplicate pair: ids, shared sketch hashes,
                   estimated Jaccard, cluster.
``report.html``    for people: summary counts, then per cluster its pages (URL, title) and,
                   for each pair, the similarity and side-by-side snippets of the shared passage.

The HTML is safe to open: pages are untrusted, so every piece of page text, title and URL is
HTML-escaped, links are only made for http(s) URLs, and the file has no script and loads
nothing (inline CSS only; a Content-Security-Policy meta tag forbids scripts and remote loads
even if something slipped through).
"""

from __future__ import annotations

import csv
import html
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dedup.detect import DedupResult, shared_snippet
from dedup.shingle import words
from webseg.lang import has_unspaced_letter

__all__ = ["PageInfo", "write_report"]


@dataclass
class PageInfo:
    """What the report shows about a page (all of it untrusted text)."""

    id: str
    url: str | None = None
    title: str = ""
    site: str | None = None
    text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _e(s: Any) -> str:
    return html.escape("" if s is None else str(s), quote=True)


def _link(url: str | None, label: str) -> str:
    if url and url.lower().startswith(("http://", "https://")):
        return f'<a href="{_e(url)}" rel="noopener noreferrer nofollow">{_e(label)}</a>'
    return _e(label)


def write_report(out: str | Path, result: DedupResult, pages: Mapping[str, PageInfo],
                 failed: Mapping[str, str] | None = None, run: Mapping[str, Any] | None = None,
                 max_clusters_html: int = 500) -> dict[str, Any]:
    """Write the report files into ``out`` (created) and return the summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    failed = dict(failed or {})
    cluster_of = {k: c for c, members in enumerate(result.clusters) for k in members}
    summary = {
        "inputs": len(result.keys) + len(failed),
        "pages": len(result.keys),
        "failed": len(failed),
        "empty_text": len(result.empty),
        "short_text": len(result.short),
        "candidate_pairs": result.candidates,
        "duplicate_pairs": len(result.pairs),
        "clusters": len(result.clusters),
        "pages_in_clusters": sum(len(c) for c in result.clusters),
        "params": {"window": result.params.window, "k": result.params.k,
                   "threshold": result.params.threshold, **dict(run or {})},
    }
    pair_rows = [{"a": str(p.a), "b": str(p.b), "shared": p.shared,
                  "jaccard_estimate": round(p.jaccard, 4), "cluster": cluster_of.get(p.a)}
                 for p in result.pairs]

    def page_row(k: str) -> dict[str, Any]:
        info = pages.get(k) or PageInfo(id=k)
        return {"id": k, "url": info.url, "title": info.title, "site": info.site,
                "words": len(words(info.text))}  # as shingled: a Chinese character is a word

    clusters = [{"cluster": c, "size": len(m), "pages": [page_row(str(k)) for k in m],
                 "pairs": [r for r in pair_rows if r["cluster"] == c]}
                for c, m in enumerate(result.clusters)]
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / "clusters.json").write_text(json.dumps(clusters, indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    (out / "pairs.json").write_text(json.dumps(pair_rows, indent=1, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    with (out / "pairs.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["a", "b", "shared", "jaccard_estimate", "cluster"])
        w.writeheader()
        w.writerows(pair_rows)
    with (out / "clusters.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["cluster", "id", "url", "title", "site", "words"])
        w.writeheader()
        for c in clusters:
            for p in c["pages"]:
                w.writerow({"cluster": c["cluster"], **p})
    (out / "report.html").write_text(
        _html(result, pages, failed, summary, clusters, max_clusters_html), encoding="utf-8")
    return summary


_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .6em;
text-align:left;vertical-align:top}th{background:#f4f4f4}.num{text-align:right}
.pair{margin:1em 0 1.5em}.side{display:grid;grid-template-columns:1fr 1fr;gap:1em}
.snip{background:#fafafa;border:1px solid #e3e3e3;padding:.6em;white-space:pre-wrap;
overflow-wrap:anywhere}.ctx{color:#888}mark{background:#fff2a8}.muted{color:#777}
"""


# Page text is in any language and script: lang="" says "unknown" (the page's <html lang="en">
# is the report's own wording), so the browser picks fonts by script rather than as English,
# and dir="auto" lays out Arabic or Hebrew right to left.
_PAGE_TEXT = ' lang="" dir="auto"'


def _gap(left: str, right: str) -> str:
    """The space between two pieces of a snippet: none at its start or end (the snippet box
    keeps white space, so it would indent the text) and none between two characters of a
    script written without spaces (Chinese, Japanese, Thai)."""
    if not left or not right or (has_unspaced_letter(left[-1]) and has_unspaced_letter(right[0])):
        return ""
    return " "


def _html(result: DedupResult, pages: Mapping[str, PageInfo], failed: Mapping[str, str],
          summary: dict[str, Any], clusters: list[dict[str, Any]], limit: int) -> str:
    p = summary["params"]
    h = ["<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'\">",
         "<meta name=\"referrer\" content=\"no-referrer\">",
         "<title>webseg dedup report</title><style>", _CSS, "</style></head><body>",
         "<h1>Near-duplicate report</h1>",
         f"<p class=\"muted\">Shingles of {_e(p['window'])} words, sketches of the "
         f"{_e(p['k'])} smallest hashes, duplicates share at least {_e(p['threshold'])}. "
         f"Text: <b>{_e(p.get('strip', ''))}</b>.</p>",
         "<table>"]
    labels = [("inputs", "inputs"), ("pages", "pages sketched"), ("failed", "inputs failed"),
              ("empty_text", "pages with no text to shingle"),
              ("short_text", f"pages too short to judge (< {p['threshold']} shingles)"),
              ("candidate_pairs", "candidate pairs checked"),
              ("duplicate_pairs", "duplicate pairs"), ("clusters", "duplicate clusters"),
              ("pages_in_clusters", "pages in clusters")]
    for k, lab in labels:
        h.append(f"<tr><th>{_e(lab)}</th><td class=\"num\">{_e(summary[k])}</td></tr>")
    h.append("</table>")
    for c in clusters[:limit]:
        h.append(f"<h2>Cluster {c['cluster'] + 1}: {c['size']} pages</h2>")
        h.append("<table><tr><th>page</th><th>title</th><th>site</th>"
                 "<th class=\"num\">words</th></tr>")
        for row in c["pages"]:
            h.append(f"<tr><td>{_link(row['url'], row['url'] or row['id'])}</td>"
                     f"<td{_PAGE_TEXT}>{_e(row['title'])}</td><td>{_e(row['site'] or '')}</td>"
                     f"<td class=\"num\">{_e(row['words'])}</td></tr>")
        h.append("</table>")
        for pr in c["pairs"][:20]:
            a, b = pages.get(pr["a"]), pages.get(pr["b"])
            h.append(f"<div class=\"pair\"><div>{_e(pr['a'])} &harr; {_e(pr['b'])}: "
                     f"{_e(pr['shared'])} of {_e(p['k'])} sketch hashes shared, "
                     f"estimated Jaccard {_e(pr['jaccard_estimate'])}</div>")
            snip = shared_snippet(a.text, b.text, p["window"]) if a and b else None
            if snip is None:
                h.append("<p class=\"muted\">no shared passage to show</p></div>")
                continue
            h.append("<div class=\"side\">")
            for before, mid, after in snip:
                h.append(f"<div class=\"snip\"{_PAGE_TEXT}>"
                         f"<span class=\"ctx\">{_e(before)}</span>{_gap(before, mid)}"
                         f"<mark>{_e(mid)}</mark>{_gap(mid, after)}"
                         f"<span class=\"ctx\">{_e(after)}</span></div>")
            h.append("</div></div>")
        if len(c["pairs"]) > 20:
            h.append(f"<p class=\"muted\">{len(c['pairs']) - 20} more pairs in pairs.csv</p>")
    if len(clusters) > limit:
        h.append(f"<p class=\"muted\">{len(clusters) - limit} more clusters in "
                 "clusters.csv</p>")
    for title, keys in (("Pages with no text to shingle", result.empty),
                        ("Pages too short to judge", result.short)):
        if keys:
            h.append(f"<h2>{_e(title)}</h2><ul>")
            h.extend(f"<li>{_e(k)}</li>" for k in keys[:200])
            h.append("</ul>")
    if failed:
        h.append("<h2>Inputs that failed</h2><table><tr><th>input</th><th>reason</th></tr>")
        h.extend(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in failed.items())
        h.append("</table>")
    h.append("</body></html>\n")
    return "\n".join(h)
