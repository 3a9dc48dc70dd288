"""Shingling, bottom-k sketches, the papers' matching rule, MinHash/LSH and clusters."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from datasketch import MinHash
from hypothesis import given, settings
from hypothesis import strategies as st

from dedup.detect import compare, detect, shared_snippet
from dedup.lsh import DuplicateIndex, clusters, minhash, minhash_values
from dedup.shingle import (
    PAPER,
    ShingleParams,
    estimated_jaccard,
    is_duplicate,
    shared,
    shingle_hashes,
    sketch,
    text_sketch,
    word_hash,
    words,
)

VOCAB = [f"w{i}" for i in range(400)]


def story(rng: random.Random, n: int = 120) -> str:
    return " ".join(rng.choice(VOCAB) for _ in range(n))


# ---------------------------------------------------------------- normalisation and shingles
def test_words_lowercase_alnum_only():
    assert words("Don't PANIC: the U.S.A. -- 42_x, Über-café!") == \
        ["dont", "panic", "the", "usa", "42x", "übercafé"]
    assert words("") == [] and words("  ...  !!! ") == []


def test_ascii_and_unicode_paths_agree():
    t = "Hello, World!\tIt's  the U.S.A.\n42 apples and (pears) x_y"
    assert np.array_equal(shingle_hashes(t), shingle_hashes(words(t)))
    # a non-ASCII character elsewhere must not change the hashes of the ASCII words
    assert np.array_equal(shingle_hashes(t + " é")[:len(shingle_hashes(t))], shingle_hashes(t))


def test_shingle_windows_against_brute_force():
    ws = words("a b c d e f g h i j a b c d e f")
    h = shingle_hashes(ws, window=6)
    assert len(h) == len(ws) - 5
    windows = [tuple(ws[i:i + 6]) for i in range(len(ws) - 5)]
    # equal windows hash equal, different windows differ (no collision on this tiny input)
    for i, j in combinations(range(len(windows)), 2):
        assert (h[i] == h[j]) == (windows[i] == windows[j])


def test_hashes_are_deterministic_values():
    # stable across processes and machines (no salted hash): pin a few values
    assert word_hash("the") == word_hash("the") != word_hash("then")
    h1 = shingle_hashes("one two three four five six seven")
    h2 = shingle_hashes("ONE two, three four five six seven!")
    assert np.array_equal(h1, h2) and h1.dtype == np.uint64


def test_short_text_is_one_shingle_and_length_tagged():
    assert len(shingle_hashes("just three words")) == 1
    assert len(shingle_hashes("")) == 0 and len(shingle_hashes("!!! ---")) == 0
    assert shingle_hashes("a b")[0] != shingle_hashes("a b c")[0]


@given(st.lists(st.integers(0, 2**64 - 1), max_size=200), st.integers(1, 12))
@settings(max_examples=200, deadline=None)
def test_sketch_is_bottom_k_of_distinct(values, k):
    h = np.array(values, dtype=np.uint64)
    assert sketch(h, k).tolist() == sorted(set(values))[:k]


# ---------------------------------------------------------------- the papers' rule
def test_paper_parameters():
    assert (PAPER.window, PAPER.k, PAPER.threshold) == (6, 8, 4)
    with pytest.raises(ValueError):
        ShingleParams(threshold=9)
    with pytest.raises(ValueError):
        ShingleParams(window=0)


def test_rule_duplicates_and_non_duplicates():
    rng = random.Random(1)
    s1, s2 = story(rng, 300), story(rng, 300)
    menu = " ".join(f"menu{i}" for i in range(30))
    assert compare(menu + " " + s1, s1 + " footer text here")[0]
    assert not compare(s1, s2)[0]
    dup, n_shared, jac = compare(s1, s1)
    assert dup and n_shared == 8 and jac == 1.0


def test_identical_short_and_empty_pages():
    # the papers' rule cannot fire below `threshold` distinct shingles: too short to judge,
    # even for identical copies (after stripping, two pages keeping only a date are not dups)
    a = text_sketch("Tuesday, January 15")
    assert len(a) == 1 and not is_duplicate(a, text_sketch("Tuesday January 15"))
    nine = "one two three four five six seven eight nine"  # 4 shingles: just enough
    assert is_duplicate(text_sketch(nine), text_sketch(nine.upper() + "!"))
    assert not is_duplicate(text_sketch(nine[:-5]), text_sketch(nine[:-5]))  # 3 shingles
    empty = text_sketch("")
    assert len(empty) == 0
    assert not is_duplicate(empty, empty)
    assert estimated_jaccard(empty, empty) == 0.0 and shared(empty, a) == 0
    res = detect([("e", ""), ("s1", "Tuesday January 15"), ("s2", "Tuesday January 15"),
                  ("n1", nine), ("n2", nine)])
    assert res.empty == ["e"] and res.short == ["s1", "s2"] and res.clusters == [["n1", "n2"]]


@given(st.sets(st.integers(0, 60), min_size=1), st.sets(st.integers(0, 60), min_size=1))
@settings(max_examples=200, deadline=None)
def test_bottom_k_jaccard_estimate_is_exact_on_complete_sketches(x, y):
    # with k larger than both sets the sketches are complete: the estimate is the Jaccard index
    from dedup.shingle import _finalise

    hx = _finalise(np.array(sorted(x), dtype=np.uint64))
    hy = _finalise(np.array(sorted(y), dtype=np.uint64))
    sx, sy = sketch(hx, 100), sketch(hy, 100)
    assert estimated_jaccard(sx, sy, 100) == pytest.approx(len(x & y) / len(x | y))
    assert is_duplicate(sx, sy, ShingleParams(6, 100, 4)) == is_duplicate(
        sy, sx, ShingleParams(6, 100, 4))


# ---------------------------------------------------------------- MinHash and LSH
def test_minhash_values_equal_datasketch_update_batch():
    h = shingle_hashes(story(random.Random(3), 500))
    ref = MinHash(num_perm=64, seed=1, hashfunc=lambda v: int(v) & 0xFFFFFFFF)
    ref.update_batch(list(h))
    assert np.array_equal(minhash_values(h, 64, 1), ref.hashvalues)
    m = minhash(h)
    assert m.jaccard(minhash(h)) == 1.0
    assert minhash_values(np.zeros(0, dtype=np.uint64)).tolist() == [0xFFFFFFFF] * 64


def test_permutations_are_datasketchs_own():
    """The affine32 parameters drawn without importing datasketch are the very arrays
    ``datasketch.MinHash`` draws (several sizes and seeds)."""
    from dedup.lsh import _permutations

    for num_perm, seed in ((64, 1), (128, 1), (16, 7), (1, 0)):
        ref = MinHash(num_perm=num_perm, seed=seed).permutations
        got = _permutations(num_perm, seed)
        assert got.dtype == ref.dtype and np.array_equal(got, ref)


def test_lsh_candidates_cover_planted_duplicates():
    rng = random.Random(7)
    texts = {}
    for i in range(60):
        base = story(rng, 200)
        texts[f"d{i}"] = base
        if i % 3 == 0:  # planted near-duplicate: a different template line around it
            texts[f"d{i}-copy"] = "welcome to site two " + base + " all rights reserved"
    res_lsh = detect(texts.items())
    res_all = detect(texts.items(), candidates="all")
    exact = {(p.a, p.b) for p in res_all.pairs}
    found = {(p.a, p.b) for p in res_lsh.pairs}
    assert exact == {(f"d{i}", f"d{i}-copy") for i in range(0, 60, 3)}
    assert found == exact
    assert res_lsh.candidates < len(list(combinations(texts, 2)))


def test_index_rejects_repeated_keys_and_keeps_empties():
    idx = DuplicateIndex()
    idx.add("a", shingle_hashes("some text here"))
    idx.add("e", shingle_hashes(""))
    with pytest.raises(ValueError, match="duplicate key"):
        idx.add("a", shingle_hashes("x"))
    assert idx.empty == ["e"] and idx.pairs() == []


def test_clusters_are_connected_components():
    keys = list("abcdefg")
    comps = clusters(keys, [("a", "b"), ("c", "b"), ("e", "f"), ("g", "g")])
    assert comps == [["a", "b", "c"], ["e", "f"]]
    assert clusters([], []) == []


def test_identical_pages_form_one_cluster():
    t = story(random.Random(5), 100)
    res = detect([(f"p{i}", t) for i in range(5)] + [("other", story(random.Random(6)))])
    assert res.clusters == [[f"p{i}" for i in range(5)]]
    assert len(res.pairs) == 10


def test_detect_bad_candidates_value():
    with pytest.raises(ValueError):
        detect([], candidates="nope")


def test_huge_text_is_fine():
    t = " ".join(f"w{i}" for i in range(300_000))
    s = text_sketch(t)
    assert len(s) == 8 and len(minhash_values(shingle_hashes(t))) == 64


def test_shared_snippet_locates_shared_passage():
    rng = random.Random(9)
    body = story(rng, 40)
    a = "Home | News | Contact. " + body + " (c) Site A"
    b = "Start page: " + body.upper() + " -- Site B footer"
    (ba, ma, aa), (bb, mb, ab) = shared_snippet(a, b)
    assert ma.lower() == mb.lower() == " ".join(body.split()[:40])
    assert "News" in ba and "Start" in bb
    assert shared_snippet("a b c", "d e f") is None


def test_module_examples():
    import doctest
    import importlib

    for name in ("dedup", "dedup.detect", "dedup.lsh", "dedup.strip"):
        mod = importlib.import_module(name)
        res = doctest.testmod(mod)
        assert res.failed == 0 and res.attempted > 0, mod.__name__


def test_add_signature_finds_the_same_pairs_as_add() -> None:
    """Indexing stored sketches + signatures equals indexing the shingle hashes."""
    from dedup.lsh import DuplicateIndex, minhash_values
    from dedup.shingle import shingle_hashes, sketch

    story = " ".join(f"w{k}" for k in range(80))
    texts = {"a": "menu " + story, "b": story + " footer", "c": "other words " * 20, "d": ""}
    direct, stored = DuplicateIndex(), DuplicateIndex()
    for key, text in texts.items():
        h = shingle_hashes(text)
        direct.add(key, h)
        stored.add_signature(key, sketch(h), minhash_values(h) if len(h) else [])
    assert [(p.a, p.b) for p in direct.pairs()] == [(p.a, p.b) for p in stored.pairs()] == \
        [("a", "b")]
    assert stored.empty == ["d"]


# ---------------------------------------------------------------- unspaced scripts
_ZH_A = ("世界卫生组织周二表示，今年冬季流感疫情在北半球多个国家提前出现，医院门诊人数明显增加。"
         "专家建议老年人和慢性病患者尽快接种疫苗，并注意室内通风和个人卫生。")
_ZH_B = ("一艘大型游轮在意大利附近海域触礁搁浅，造成船体渗水并出现倾斜，救援人员连夜展开搜救。"
         "当地政府表示，事故原因仍在调查之中，船上大部分乘客已经安全转移到岸上。")
_RU_A = ("Всемирная организация здравоохранения сообщила во вторник, что сезонный грипп "
         "в этом году пришёл раньше обычного, и число обращений в поликлиники заметно выросло. "
         "Специалисты советуют пожилым людям как можно скорее сделать прививку.")
_RU_B = ("Крупный круизный лайнер сел на мель у побережья Италии, судно получило пробоину и "
         "накренилось, спасатели всю ночь искали пропавших пассажиров. Власти сообщили, что "
         "причины аварии ещё выясняются, а большинство людей уже доставлены на берег.")


def test_unspaced_scripts_are_one_word_per_character():
    assert words("北京是中国的首都。") == ["北", "京", "是", "中", "国", "的", "首", "都"]
    assert words("東京はにほん") == ["東", "京", "は", "に", "ほ", "ん"]
    # Hangul is written with spaces: its words stay words
    assert words("한국어 문장") == ["한국어", "문장"]
    # NFKC: full-width letters are ordinary letters
    assert words("ＡＢＣ café") == words("ABC cafe\u0301")


def test_chinese_recrawl_is_a_duplicate_and_another_article_is_not():
    recrawl = _ZH_A.replace("周二", "周三") + "（记者 王明）"
    assert is_duplicate(text_sketch(_ZH_A), text_sketch(recrawl))
    assert not is_duplicate(text_sketch(_ZH_A), text_sketch(_ZH_B))


def test_russian_recrawl_is_a_duplicate_and_another_article_is_not():
    recrawl = _RU_A.replace("во вторник", "в среду") + " Фото: ТАСС."
    assert is_duplicate(text_sketch(_RU_A), text_sketch(recrawl))
    assert not is_duplicate(text_sketch(_RU_A), text_sketch(_RU_B))


def test_shared_snippet_in_chinese_is_aligned_and_unspaced():
    from dedup.detect import shared_snippet

    a = "导语。" + _ZH_A + " 更多新闻"
    b = "首页 " + _ZH_A.replace("周二", "周三")
    got = shared_snippet(a, b)
    assert got is not None
    (_, sa, _), (_, sb, _) = got
    assert sa == sb and " " not in sa and len(sa) >= 6 and sa in words_joined(_ZH_A)


def words_joined(text):
    return "".join(words(text))


def test_clean_bytes_is_the_character_by_character_rule() -> None:
    """``_clean_bytes`` (one translate, then each distinct non-ASCII character replaced in
    the bytes) against the rule applied to each character in turn, on mixed scripts,
    punctuation, spaces and lone surrogates."""
    import unicodedata

    from dedup.shingle import _ALONE, _DELETE, _KEEP, _char_class, _clean_bytes

    def one_by_one(text: str) -> bytes:
        out = []
        for ch in unicodedata.normalize("NFKC", text).lower():
            if ch.isascii():
                out.append(b" " if ch.isspace() else ch.encode() if ch.isalnum() else b"")
                continue
            c = _char_class(ch)
            enc = ch.encode("utf-8", "surrogatepass")
            out.append(enc if c == _KEEP else b"" if c == _DELETE
                       else b" " + enc + b" " if c == _ALONE else b" ")
        return b"".join(out)

    rng = random.Random(2)
    alphabet = list("aZ9 ,.-'\t\n") + list("’“—…é¨ßдΩ中文にカ한ไ\u00a0\u3000\u200b🙂\ud800™½")
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        assert _clean_bytes(text) == one_by_one(text), repr(text)
