"""Standard IR I/O: Anserini JsonCollection and docs.jsonl in, topics files in, TREC runs out."""

from __future__ import annotations

import json

import ir_measures
import pytest
from click.testing import CliRunner

from ir.runs import TopicsError, read_topics
from webseg.cli import main

DOCS = [
    {"id": "d1", "title": "Cats", "text": "cats purr and sleep on warm sofas all day"},
    {"id": "d2", "title": "Dogs", "text": "dogs bark at cats in the garden"},
    {"id": "d3", "title": "Markets", "text": "stock markets fell as investors sold shares"},
    {"id": "d4", "title": "Shares", "text": "investors bought shares after markets recovered"},
    {"id": "d5", "title": "Bread", "text": "a recipe for bread with flour water and yeast"},
    {"id": "d6", "title": "Cats and dogs", "text": "cats and dogs can share a garden"},
]
TOPICS = [("q1", "cats garden"), ("q2", "investors shares"), ("q3", "bread recipe"),
          ("q4", "the of and")]  # q4: stop words only, no results
QRELS = "q1 0 d6 1\nq1 0 d2 1\nq2 0 d4 1\nq2 0 d3 1\nq3 0 d5 1\n"


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def docs_jsonl(tmp_path):
    return _write(tmp_path / "docs.jsonl", DOCS)


@pytest.fixture
def json_collection(tmp_path):
    """The same documents as Anserini's JsonCollection (id, contents = title + text)."""
    return _write(tmp_path / "collection.jsonl",
                  [{"id": d["id"], "contents": f"{d['title']} {d['text']}"} for d in DOCS])


def _hits(idx, q):
    r = _run("search", idx, q, "--json", "-k", "10")
    assert r.exit_code == 0, r.output
    return [(h["id"], h["score"]) for h in json.loads(r.output)["hits"]]


def test_json_collection_ranks_as_docs_jsonl(tmp_path, docs_jsonl, json_collection):
    a, b = tmp_path / "a", tmp_path / "b"
    # no --format: both detected as text collections by their extension (never rendered)
    ra = _run("index", docs_jsonl, "-o", a)
    rb = _run("index", json_collection, "-o", b)
    assert ra.exit_code == 0 and rb.exit_code == 0, ra.output + rb.output
    assert "6 documents" in rb.output and "warning" not in rb.output
    for q in ("cats", "cats garden", "investors shares", "bread recipe", "dogs markets"):
        ha, hb = _hits(a, q), _hits(b, q)
        assert ha and [d for d, _ in ha] == [d for d, _ in hb]
        assert [s for _, s in ha] == pytest.approx([s for _, s in hb], rel=1e-6)


def test_collection_folder_json_array_and_gz(tmp_path):
    """An Anserini collection folder, a file holding one JSON array, and gzip."""
    import gzip

    folder = tmp_path / "coll"
    folder.mkdir()
    _write(folder / "part0.jsonl", [{"id": "a", "contents": "zebras run fast"}])
    (folder / "part1.json").write_text(json.dumps([{"id": "b", "contents": "lions sleep"}]),
                                       encoding="utf-8")
    with gzip.open(folder / "part2.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(json.dumps({"id": "c", "contents": "zebras and lions"}) + "\n")
    r = _run("index", folder, "-o", tmp_path / "idx")
    assert r.exit_code == 0, r.output
    assert sorted(d for d, _ in _hits(tmp_path / "idx", "zebra")) == ["a", "c"]
    assert [d for d, _ in _hits(tmp_path / "idx", "lion sleep")][0] == "b"


def test_document_without_text_is_a_warning_naming_it(tmp_path):
    p = _write(tmp_path / "c.jsonl", [{"id": "full", "contents": "words here"},
                                      {"id": "blank", "contents": ""},
                                      {"id": "other-field", "body": "not read"}])
    r = _run("index", p, "-o", tmp_path / "idx")
    assert r.exit_code == 0, r.output
    assert "document blank: no text" in r.output
    assert "document other-field: no text" in r.output
    assert "(2 without text)" in r.output


def test_mixed_inputs_and_bad_records_are_usage_errors(tmp_path, docs_jsonl):
    page = tmp_path / "p.html"
    page.write_text("<p>hi</p>", encoding="utf-8")
    r = _run("index", docs_jsonl, page, "-o", tmp_path / "idx")
    assert r.exit_code == 2 and "mix" in r.output
    bad = _write(tmp_path / "noid.jsonl", [{"contents": "no id"}])
    r = _run("index", bad, "-o", tmp_path / "idx2")
    assert r.exit_code == 2 and "needs an id" in r.output


def test_read_topics_formats(tmp_path):
    tsv = tmp_path / "t.tsv"
    tsv.write_text("".join(f"{q}\t{t}\n" for q, t in TOPICS), encoding="utf-8")
    jl = _write(tmp_path / "t.jsonl", [{"qid": q, "query": t} for q, t in TOPICS])
    js = tmp_path / "t.json"
    js.write_text(json.dumps({q: {"title": t} for q, t in TOPICS}), encoding="utf-8")
    assert read_topics(tsv) == read_topics(jl) == read_topics(js) == TOPICS
    bad = tmp_path / "t.tsv.gz"
    bad.write_bytes(b"")
    with pytest.raises(TopicsError):
        read_topics(bad)
    (tmp_path / "t.xml").write_text("<topics/>", encoding="utf-8")
    with pytest.raises(TopicsError, match="unknown topics format"):
        read_topics(tmp_path / "t.xml")
    nofield = _write(tmp_path / "n.jsonl", [{"qid": "1"}])
    with pytest.raises(TopicsError, match=":1:"):
        read_topics(nofield)


@pytest.mark.parametrize("threads", [1, 3])
def test_topics_to_a_trec_run_ir_measures_reads(tmp_path, docs_jsonl, threads):
    idx = tmp_path / "idx"
    assert _run("index", docs_jsonl, "-o", idx).exit_code == 0
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"{q}\t{t}\n" for q, t in TOPICS), encoding="utf-8")
    run = tmp_path / "run.txt"
    r = _run("search", idx, "--topics", topics, "--output", run, "--run-tag", "mytag",
             "--threads", threads, "--batch-size", 2)
    assert r.exit_code == 0, r.output
    assert "topic q4" in r.output and "no results" in r.output
    lines = run.read_text(encoding="utf-8").splitlines()
    assert all(ln.split()[1] == "Q0" and ln.split()[5] == "mytag" for ln in lines)
    parsed = list(ir_measures.read_trec_run(str(run)))
    assert {s.query_id for s in parsed} == {"q1", "q2", "q3"}
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS, encoding="utf-8")
    res = ir_measures.calc_aggregate([ir_measures.AP, ir_measures.P @ 1],
                                     ir_measures.read_trec_qrels(str(qrels)),
                                     ir_measures.read_trec_run(str(run)))
    assert res[ir_measures.P @ 1] == 1.0 and res[ir_measures.AP] > 0.9
    # the run equals the interactive searches
    for qid, q in TOPICS[:3]:
        mine = [(s.doc_id, s.score) for s in parsed if s.query_id == qid]
        ref = _hits(idx, q)
        assert [d for d, _ in mine] == [d for d, _ in ref]
        assert [s for _, s in mine] == pytest.approx([s for _, s in ref], abs=1e-5)


def test_run_formats_and_option_errors(tmp_path, docs_jsonl):
    idx = tmp_path / "idx"
    _run("index", docs_jsonl, "-o", idx)
    topics = _write(tmp_path / "topics.jsonl", [{"qid": q, "query": t} for q, t in TOPICS])
    r = _run("search", idx, "--topics", topics, "--format", "msmarco", "-k", "2")
    assert r.exit_code == 0, r.output
    first = [ln for ln in r.output.splitlines() if "\t" in ln][0].split("\t")
    assert first[0] == "q1" and first[2] == "1"
    r = _run("search", idx, "--topics", topics, "--output-format", "json")
    rows = [json.loads(ln) for ln in r.output.splitlines() if ln.startswith("{")]
    assert [x["qid"] for x in rows] == ["q1", "q2", "q3"]
    assert _run("search", idx).exit_code == 2  # no query, no topics
    assert _run("search", idx, "cats", "--topics", topics).exit_code == 2
    assert _run("search", idx, "cats", "--format", "trec").exit_code == 2
    assert _run("search", idx, "--topics", topics, "--run-tag", "a b").exit_code == 2
    assert _run("search", idx, "--topics", tmp_path / "missing.tsv").exit_code == 2
