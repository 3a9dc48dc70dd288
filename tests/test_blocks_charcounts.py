"""The leaf counts of punctuation, sentence ends and digits: one table look-up per character
must count what the regular expressions of :mod:`webseg.blocks.features` match."""

from __future__ import annotations

import random

import numpy as np
import pytest

from webseg.blocks.features import _DIGIT, _PUNCT, _SENT, _char_counts


def _by_regex(texts: list[str]) -> tuple[list[int], list[int], list[int]]:
    return ([len(_PUNCT.findall(t)) for t in texts], [len(_SENT.findall(t)) for t in texts],
            [len(_DIGIT.findall(t)) for t in texts])


def _by_table(texts: list[str]) -> tuple[list[int], list[int], list[int]]:
    lens = np.array([len(t) for t in texts], dtype=np.float64)
    return tuple(c.astype(int).tolist() for c in _char_counts(texts, lens))  # type: ignore


def test_every_code_point_below_the_astral_planes() -> None:
    texts = [chr(c) for c in range(0x10000)]
    assert _by_table(texts) == _by_regex(texts)


@pytest.mark.parametrize("seed", range(5))
def test_random_texts(seed: int) -> None:
    rng = random.Random(seed)
    pool = list(". !?؟।。！？｡ \n\t\u00a0\u3000a1٣७_-,x😀𝟘\U00020000\ud800é") \
        + [chr(rng.randrange(0x110000)) for _ in range(100)]
    for _ in range(300):
        texts = ["".join(rng.choice(pool) for _ in range(rng.randrange(0, 12)))
                 for _ in range(rng.randrange(1, 8))]
        assert _by_table(texts) == _by_regex(texts), texts


def test_a_sentence_end_needs_a_space_or_the_end_of_its_own_leaf() -> None:
    texts = ["Done.", "Next.Line", "Wait! Go", "句子。后", "", "e.g.x."]
    assert _by_table(texts)[1] == [1, 0, 1, 1, 0, 1] == _by_regex(texts)[1]
