"""The block model's words: ``\\w+`` tokens, each letter of an unspaced script its own token."""

from __future__ import annotations

import re

import pytest

from webseg.blocks.align import (
    _UNSPACED_CHAR,
    _UNSPACED_SPAN,
    _UNSPACED_WORD_CHAR,
    has_unspaced_word,
    is_unspaced_token,
    words,
)
from webseg.lang import has_unspaced_letter


def test_unspaced_ranges_match_has_unspaced_letter_on_every_code_point():
    # the hard-coded ranges are the fast copy of webseg.lang's script classes
    bad = [c for c in range(0x110000)
           if (_UNSPACED_CHAR.match(chr(c)) is not None) != has_unspaced_letter(chr(c))]
    assert bad == []


def test_unspaced_span_covers_every_unspaced_code_point():
    # has_unspaced_word looks only at the characters of _UNSPACED_SPAN
    missed = [c for c in range(0x110000)
              if _UNSPACED_CHAR.match(chr(c)) is not None and _UNSPACED_SPAN.match(chr(c)) is None]
    assert missed == []


@pytest.mark.parametrize("text", [
    "Plain English", "“Quotes” — and dashes…", "Москва — столица", "한국어 문장은 띄어 쓴다",
    "北京", "Tokyo ドイツ語", "ภาษาไทย", "mixed: ሰላም, ᠮᠣᠩᠭᠣᠯ, 、。「」 only punctuation",
    "\u3000\u3001", "ፊደል ᄀ ꧠ", ""])
def test_has_unspaced_word_is_the_plain_search(text):
    assert has_unspaced_word(text) == (_UNSPACED_WORD_CHAR.search(text) is not None)


@pytest.mark.parametrize("text", [
    "Plain English, with U.S. punctuation's quirks.",
    "Москва — столица России; Ελληνικά; Zażółć gęślą jaźń",
    "北京是中国的首都。东京 Tokyo ドイツ語 2024年",
    "ภาษาไทย ไม่มีช่องว่าง", "한국어 문장은 띄어 쓴다", "", "___ ⁂ ..."])
def test_words_are_w_tokens_split_at_unspaced_letters(text):
    # the reference: \w+ tokens, then every unspaced letter cut out of its token
    ref = []
    for t in re.findall(r"\w+", text.lower()):
        run = ""
        for ch in t:
            if has_unspaced_letter(ch):
                ref += [run] if run else []
                ref.append(ch)
                run = ""
            else:
                run += ch
        ref += [run] if run else []
    assert words(text) == ref


def test_chinese_sentence_is_one_word_per_character():
    assert words("北京是中国的首都 (Beijing)") == ["北", "京", "是", "中", "国", "的", "首", "都",
                                              "beijing"]
    assert is_unspaced_token("北") and not is_unspaced_token("beijing")
    assert words("Москва 2024") == ["москва", "2024"]


def test_sentence_ends_count_cjk_full_stops_without_a_space():
    from webseg.blocks.features import _SENT

    assert len(_SENT.findall("第一句。第二句！第三句？")) == 3
    assert len(_SENT.findall("One. Two! 3.5 is not an end")) == 2
