"""Every script in ir.analysis, and English terms exactly as before."""

import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.analysis import NLTK_ENGLISH, Analyzer, _stemmer

IR_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ir"


def reference_tokens(text: str) -> list[str]:
    """The English analysis as it was before every script was supported (frozen copy)."""
    low = text.lower()
    if not low.isascii():
        low = unicodedata.normalize("NFKD", low).encode("ascii", "ignore").decode("ascii")
    stem = _stemmer("porter")
    return [stem(t) for t in re.findall(r"[a-z0-9]+", low) if t not in NLTK_ENGLISH
            and len(t) <= 64]


ENGLISH = [
    "Block-based feedback for web search, 2nd ed. (U.S.A.)",
    "The running dogs weren't barking at the mailman's cars",
    "ALGOL 60 procedures and recursive functions: a_b_c x1y2",
    "",
    "   \t\n",
]


@pytest.mark.parametrize("text", ENGLISH)
def test_english_strings_unchanged(text):
    an = Analyzer()
    assert an.tokens(text) == reference_tokens(text)
    # the every-script path gives the same terms on ASCII text (not only the fast path)
    assert an._unicode_tokens(text) == reference_tokens(text)
    assert Analyzer(scheme="ascii").tokens(text) == reference_tokens(text)


def test_english_accents_fold_as_before():
    an = Analyzer()
    assert an.tokens("café naïve résumé") == reference_tokens("café naïve résumé")
    # ß, ł and curly apostrophes are handled better than the ASCII scheme did
    assert an.tokens("Straße łódź") == ["strass", "lodz"]
    assert an.tokens("don’t") == []  # "don" and "t" are stop words, as in "don't"


@pytest.mark.data
@pytest.mark.parametrize("name", ["cacm", "cranfield", "med"])
def test_collections_terms_unchanged(name):
    path = IR_DATA / name / "docs.jsonl"
    if not path.exists():
        pytest.skip(f"{path} absent")
    an = Analyzer()
    n = 0
    for line in path.open(encoding="utf-8"):
        r = json.loads(line)
        text = f"{r.get('title') or ''} {r.get('text', '')}"
        ref = reference_tokens(text)
        assert an.tokens(text) == ref, r["id"]
        assert an._unicode_tokens(text) == ref, r["id"]
        n += 1
    topics = IR_DATA / name / "topics.jsonl"
    for line in topics.open(encoding="utf-8"):
        q = json.loads(line)["query"]
        assert an.tokens(q) == reference_tokens(q)
    assert n > 1000


def test_russian():
    assert Analyzer().tokens("Москва — столица России") == ["москв", "столиц", "росс"]
    # inflected forms meet at one stem; ё and е alike
    an = Analyzer()
    assert an.tokens("Москвы") == an.tokens("москва") == ["москв"]
    assert an.tokens("ёлка") == an.tokens("елка")


def test_greek_accents_and_final_sigma():
    an = Analyzer()
    assert an.tokens("Η Αθήνα") == ["αθην"]
    assert an.tokens("ΠΌΛΗΣ") == an.tokens("πόλης") == an.tokens("πολης")


def test_chinese_bigrams_and_traditional():
    an = Analyzer()
    assert an.tokens("北京是中国的首都") == ["北京", "京是", "是中", "中国", "国的", "的首", "首都"]
    assert an.tokens("國際") == an.tokens("国际") == ["国际"]
    assert an.tokens("中") == ["中"]


def test_japanese_mixed_scripts():
    toks = Analyzer().tokens("東京は日本の首都です")
    assert "日本" in toks and "首都" in toks and all(len(t) <= 2 for t in toks)


def test_polish_latin_folds_like_english():
    assert Analyzer().tokens("Warszawa jest stolicą Polski") == ["warszawa", "jest", "stolica",
                                                               "polski"]


def test_arabic():
    toks = Analyzer().tokens("القاهرة هي عاصمة مصر")
    assert toks and "قاهر" in toks and "هي" not in toks


def test_mixed_scripts_and_digits():
    assert Analyzer().tokens("ＣＯＶＩＤ-19 2012года Москва") == ["covid", "19", "2012", "москв"]


def test_latin_language_option():
    an = Analyzer(latin="de")
    assert an.tokens("Die Straße führt zum Bahnhof") == ["strass", "fuhrt", "bahnhof"]
    with pytest.raises(ValueError):
        Analyzer(latin="xx")


def test_no_stemming_no_stopwords_everywhere():
    an = Analyzer(stemmer="none", stopwords="none")
    assert an.tokens("Москвы и Αθήνα") == ["москвы", "и", "αθηνα"]


def test_old_index_config_keeps_ascii_scheme():
    old = Analyzer.from_dict({"stopwords": "nltk", "stemmer": "porter", "max_token_len": 64})
    assert old.scheme == "ascii" and old.tokens("Москва") == []
    new = Analyzer.from_dict(Analyzer().to_dict())
    assert new == Analyzer() and new.tokens("Москва") == ["москв"]


def test_bad_scheme():
    with pytest.raises(ValueError):
        Analyzer(scheme="klingon")


def _old_windows(text, size=50):
    words = text.split()
    return [" ".join(words[i: i + size]) for i in range(0, len(words), size)]


def test_windows_unchanged_for_spaced_text_and_cut_in_chinese():
    from ir.blocks import window_blocks

    an = Analyzer()
    en = " ".join(f"w{i} café Москва" for i in range(70))
    assert [b.text for b in window_blocks(en, an)] == _old_windows(en)
    w = [0.2] * len(en.split())
    assert [b.weight for b in window_blocks(en, an, word_weights=w)] == [0.2] * 5
    zh = "北京是中国的首都，" * 30 + " Hello world"
    blocks = window_blocks(zh, an)
    assert len(blocks) > 1 and all(len(b.text) <= 100 + 12 for b in blocks)
    assert "".join(b.text for b in blocks).replace(" ", "") == zh.replace(" ", "")


def test_digits_of_every_script_are_ascii_digits():
    assert Analyzer().tokens("٢٠١٢ ２０１２ १९४७") == ["2012", "2012", "1947"]


def test_stemmer_option_is_the_english_one():
    with pytest.raises(ValueError, match="stemmer"):
        Analyzer(stemmer="russian")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126)))
def test_ascii_text_every_path_gives_the_reference_terms(text):
    assert Analyzer()._unicode_tokens(text) == reference_tokens(text)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_gives_terms_without_spaces(text):
    toks = Analyzer().tokens(text)
    assert all(t and not any(c.isspace() for c in t) and len(t) <= 64 for t in toks)
    assert Analyzer(scheme="ascii").tokens(text) == reference_tokens(text)
