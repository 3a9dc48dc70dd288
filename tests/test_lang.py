"""Language identification: hints checked against the text (webseg.lang)."""

import pytest

from webseg.lang import HINT_CONFIDENCE, Language, identify, normalize_hint

TEXTS = {
    "ru": "Москва — столица России, крупнейший по численности населения город страны.",
    "el": "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και η μεγαλύτερη πόλη της χώρας.",
    "zh": "北京是中华人民共和国的首都，是全国的政治中心和文化中心，也是历史名城。",
    "ja": "東京は日本の首都であり、最大の都市です。多くの人々がここで働いています。",
    "pl": "Warszawa jest stolicą Polski i największym miastem kraju nad Wisłą.",
    "en": "The quick brown fox jumps over the lazy dog near the river bank today.",
    "ar": "القاهرة هي عاصمة جمهورية مصر العربية وأكبر مدنها من حيث عدد السكان.",
}


@pytest.mark.parametrize("code", sorted(TEXTS))
def test_text_alone(code):
    lang = identify(TEXTS[code])
    assert lang.code == code and lang.source == "text" and 0.5 < lang.confidence <= 1.0


@pytest.mark.parametrize("code", sorted(TEXTS))
def test_hint_confirmed(code):
    lang = identify(TEXTS[code], [f"{code}-XX"])
    assert lang == Language(code, lang.confidence, "hint+text")


def test_wrong_template_hint_is_overruled_by_long_text():
    lang = identify(TEXTS["ru"], ["en"])
    assert (lang.code, lang.source) == ("ru", "text")


def test_short_text_keeps_the_hint():
    lang = identify("Hello world", ["ru"])
    assert lang == Language("ru", HINT_CONFIDENCE, "hint")


def test_several_hints_text_picks_among_them():
    assert identify(TEXTS["pl"], ["en", "pl"]).code == "pl"


def test_nothing_to_go_on():
    assert identify("") == Language(None, 0.0, "none")
    assert identify("12 345 -- !!") == Language(None, 0.0, "none")
    assert identify("", ["zh-Hant-TW"]) == Language("zh", HINT_CONFIDENCE, "hint")
    assert identify("ok").code is None  # two letters: too short to guess without a hint


def test_normalize_hint():
    assert normalize_hint("en-US") == ["en"]
    assert normalize_hint("de, fr") == ["de", "fr"]
    assert normalize_hint("zh_Hant") == ["zh"]
    assert normalize_hint("iw") == ["he"]
    assert normalize_hint("und") == [] and normalize_hint("*") == [] and normalize_hint(None) == []
    assert normalize_hint("x-klingon") == []


def test_to_dict_and_bad_input():
    d = identify(TEXTS["en"]).to_dict()
    assert set(d) == {"code", "confidence", "source"} and d["code"] == "en"
    with pytest.raises(TypeError):
        identify(b"bytes")  # type: ignore[arg-type]
