"""The language model read from the user's cache scores exactly as the wheel's file."""

import numpy as np
import pytest
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from webseg import lang

TEXTS = ["The quick brown fox jumps over the lazy dog near the river bank.",
         "Der schnelle braune Fuchs springt über den faulen Hund.",
         "Быстрая коричневая лиса перепрыгивает через ленивую собаку.",
         "敏捷的棕色狐狸跳过了懒狗。", "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο.",
         "", "1234 !!!", "a"]


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lang._identifier.cache_clear()
    yield tmp_path / "cache"
    lang._identifier.cache_clear()


def test_cached_model_scores_like_the_wheel(fresh):
    ref = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    first = lang._identifier()  # writes the cache
    folder = lang.model_cache_dir()
    assert folder is not None and folder.is_relative_to(fresh)
    assert (folder / "complete").exists()
    lang._identifier.cache_clear()
    second = lang._identifier()  # maps it
    for text in TEXTS:
        want = ref._decide(text)
        for ident in (first, second):
            got = ident._decide(text)
            assert got.dtype == want.dtype and np.array_equal(got, want), text


def test_unwritable_cache_falls_back_to_the_wheel(fresh):
    fresh.parent.mkdir(parents=True, exist_ok=True)
    fresh.write_text("a file where the cache folder should be")
    assert lang._cached_arrays() is None
    assert lang.identify("The quick brown fox jumps over the lazy dog near the river.").code \
        == "en"
