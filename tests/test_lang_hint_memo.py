"""normalize_hint keeps its answers per value: each call still gets a list of its own, and
odd values fail or pass exactly as before."""

import pytest

from webseg.lang import normalize_hint


def test_each_call_gets_its_own_list():
    a = normalize_hint("en-US, de")
    assert a == ["en", "de"]
    a.append("xx")
    assert normalize_hint("en-US, de") == ["en", "de"]
    assert normalize_hint("zh-Hant-TW") == ["zh"]
    assert normalize_hint("und") == [] and normalize_hint("") == [] and normalize_hint(None) == []


def test_values_that_are_not_strings_fail_as_before():
    with pytest.raises(AttributeError):
        normalize_hint(["en"])  # type: ignore[arg-type]
