"""Results for display: duplicates folded under the best copy, snippets from the main text
with the query terms marked (no browser)."""

from __future__ import annotations

import json
from collections import Counter

from click.testing import CliRunner

from ir import Index, StoredDoc, doc_from_text
from ir.analysis import Analyzer
from ir.from_output import build_from_output
from ir.snippets import snippet
from ir.store import Block
from webseg.cli import main

TEXTS = {
    "a": "Lighthouse keepers logged every passing ship in the harbour",
    "b": "Ships queued at the harbour mouth while the tide turned",
    "c": "The harbour museum shows models of old sailing ships",
}


def _text_index(tmp_path, extra=()):
    ix = Index.create(tmp_path / "idx", sources=["windows"])
    ix.add([*(doc_from_text(i, t, ix.analyzer, title=i) for i, t in TEXTS.items()), *extra])
    return ix


def test_exact_duplicates_fold_under_the_best_copy(tmp_path):
    # "a-copy": the same main text under another title and URL (a mirror); "a-quote" differs
    an = Analyzer()
    ix = _text_index(tmp_path, [
        doc_from_text("a-copy", TEXTS["a"], an, title="Mirror", url="http://mirror/a"),
        doc_from_text("a-quote", TEXTS["a"] + " today", an, title="Quote")])
    flat = ix.search("harbour ship", k=10)
    assert sorted(flat.ids) == ["a", "a-copy", "a-quote", "b", "c"]
    res = ix.search("harbour ship", k=10, collapse=True)
    assert sorted(res.ids) == ["a", "a-quote", "b", "c"] or sorted(res.ids) == [
        "a-copy", "a-quote", "b", "c"]
    (lead,) = [h for h in res.hits if h.id in ("a", "a-copy")]
    assert [d["id"] for d in lead.duplicates] == [{"a": "a-copy", "a-copy": "a"}[lead.id]]
    assert all(not h.duplicates for h in res.hits if h is not lead)
    assert [h.rank for h in res.hits] == [1, 2, 3, 4]
    # k counts distinct pages: two pages asked, two distinct pages given
    two = ix.search("harbour ship", k=2, collapse=True)
    assert len(two) == 2 and len(set(two.ids) & {"a", "a-copy"}) <= 1


def test_cli_collapses_by_default_and_not_with_no_collapse(tmp_path):
    docs = tmp_path / "docs.jsonl"
    rows = [{"id": i, "title": i, "text": t} for i, t in TEXTS.items()]
    rows.append({"id": "b-again", "title": "Again", "text": TEXTS["b"]})
    docs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run = CliRunner()
    assert run.invoke(main, ["index", str(docs), "-o", str(tmp_path / "idx")]).exit_code == 0
    r = run.invoke(main, ["search", str(tmp_path / "idx"), "tide", "--json"])
    hits = json.loads(r.output)["hits"]
    assert len(hits) == 1 and hits[0]["duplicates"][0]["id"] in ("b", "b-again")
    r = run.invoke(main, ["search", str(tmp_path / "idx"), "tide", "--json", "--no-collapse"])
    assert sorted(h["id"] for h in json.loads(r.output)["hits"]) == ["b", "b-again"]
    r = run.invoke(main, ["search", str(tmp_path / "idx"), "tide"])
    assert "also: " in r.output and "[tide]" in r.output


def _record(i: str, text: str, an: Analyzer) -> dict:
    d = doc_from_text(i, text, an, title=i)
    return {"id": i, "index_doc": d.to_dict()}


def test_pipeline_duplicate_clusters_fold(tmp_path):
    """An index of a pipeline output folder knows its duplicate clusters: near-duplicates
    (different text) of one cluster fold too."""
    an = Analyzer()
    out = tmp_path / "out"
    (out / "work").mkdir(parents=True)
    texts = {"p1": "storm warning for the northern coast tonight",
             "p2": "storm warning for the northern coast tonight, updated",
             "p3": "a calm evening on the southern coast"}
    with (out / "work" / "pages.jsonl").open("w", encoding="utf-8") as f:
        for i, t in texts.items():
            f.write(json.dumps(_record(i, t, an)) + "\n")
    with (out / "pages.jsonl").open("w", encoding="utf-8") as f:
        for i in texts:
            f.write(json.dumps({"id": i, "duplicate_cluster": "p1" if i != "p3" else None})
                    + "\n")
    build_from_output(out, tmp_path / "idx")
    ix = Index.open(tmp_path / "idx")
    res = ix.search("storm coast", k=10, collapse=True)
    assert len(res) == 2 and res.ids[1] == "p3"
    assert [d["id"] for d in res.hits[0].duplicates] == [{"p1": "p2", "p2": "p1"}[res.ids[0]]]
    assert sorted(ix.search("storm coast", k=10).ids) == ["p1", "p2", "p3"]


def _page(i: str, blocks: list[tuple[str, float]], an: Analyzer) -> StoredDoc:
    """A page of vips blocks (text, P(main)) with title/main/rest fields."""
    bl = [Block(text=t, terms=dict(Counter(an.tokens(t))), seg=k, rank=k, weight=w,
                role="main" if w >= 0.5 else "template") for k, (t, w) in enumerate(blocks)]
    main = Counter(t for b in bl if b.weight >= 0.5 for t in an.tokens(b.text))
    rest = Counter(t for b in bl if b.weight < 0.5 for t in an.tokens(b.text))
    terms = Counter(t for b in bl for t in an.tokens(b.text)) + Counter(an.tokens(i))
    return StoredDoc(id=i, terms=dict(terms), title=i, blocks={"vips": bl},
                     fields={"title": {t: 1.0 for t in an.tokens(i)},
                             "main": {t: float(c) for t, c in main.items()},
                             "rest": {t: float(c) for t, c in rest.items()}})


def test_snippet_comes_from_the_main_text_and_marks_the_terms(tmp_path):
    an = Analyzer()
    ix = Index.create(tmp_path / "idx", sources=["vips"],
                      fields={"title": 1.0, "main": 1.0, "rest": 0.03})
    nav = ("Gardening news gardening shop gardening forum", 0.05)
    ix.add([_page("roses", [nav, ("Pruning roses in early spring keeps the plants healthy; "
                                  "gardening books agree.", 0.9)], an),
            _page("tulips", [nav, ("Plant tulip bulbs in autumn.", 0.95)], an),
            _page("zebrafacts", [("Animals of the savanna live in herds.", 0.9)], an)])
    (h,) = [h for h in ix.search("gardening roses", k=5).hits if h.id == "roses"]
    assert h.snippet.startswith("Pruning roses")  # not the navigation, though it matches more
    assert {h.snippet[a:b] for a, b in h.highlights} == {"roses", "gardening"}
    (t,) = [h for h in ix.search("gardening", k=5).hits if h.id == "tulips"]
    assert t.snippet.startswith("Gardening news")  # only the navigation matches: shown
    z = ix.search("zebrafacts", k=5).hits  # a title-only match: the main text, unmarked
    assert z[0].id == "zebrafacts" and z[0].snippet.startswith("Animals") and not z[0].highlights


def test_snippet_window_shows_the_query_in_long_text():
    an = Analyzer()
    text = "Filler words about nothing at all. " * 30 + "The crystalline lens focuses light. " \
        + "More filler text follows here. " * 30
    s, spans = snippet(text, an.tokens("crystalline lens"), an)
    assert len(s) <= 306 and s.startswith("...") and s.endswith("...")
    assert [s[a:b] for a, b in spans] == ["crystalline", "lens"]
    s, spans = snippet("Cats, cats and CATS!", ["cat"], an)
    assert [s[a:b] for a, b in spans] == ["Cats", "cats", "CATS"]
    assert snippet("nothing here", ["cat"], an) == ("nothing here", [])


def test_snippet_marks_the_query_inside_an_unspaced_run():
    """Chinese has no spaces: the matching characters are marked, not the whole sentence."""
    an = Analyzer()
    text = "摘 要：明天(12月10日)将上演月全食，届时一轮美丽的红月亮将高悬夜空"
    s, spans = snippet(text, an.tokens("红月亮 月全食"), an)
    assert [s[a:b] for a, b in spans] == ["月全食", "红月亮"]
    # traditional text, simplified query
    s, spans = snippet("什麼是紅月亮", an.tokens("红月亮"), an)
    assert [s[a:b] for a, b in spans] == ["紅月亮"]
    s, spans = snippet("School-Based Clinics", an.tokens("clinic based"), an)
    assert [s[a:b] for a, b in spans] == ["Based", "Clinics"]


def test_snippet_prefers_text_to_a_heading_that_repeats_the_title(tmp_path):
    from ir import doc_from_page
    from webseg.parse import parse

    html = ("<html><head><title>Keeping a sourdough starter alive | Workshop</title></head>"
            "<body><nav><a href='/'>Home</a></nav><article>"
            "<h1>Keeping a sourdough starter alive</h1><p>Feed the starter before baking and "
            "wait until it has risen and domed; a spoonful that floats is ready.</p>"
            "</article></body></html>")
    ix = Index.create(tmp_path / "idx", sources=["blockfusion"])
    page = parse(html, url="http://w.example/s")
    ix.add([doc_from_page("s", page, ix.analyzer, ix.sources, url=page.url)])
    (hit,) = ix.search("sourdough starter", k=1).hits
    assert hit.snippet.startswith("Feed the starter"), hit.snippet
