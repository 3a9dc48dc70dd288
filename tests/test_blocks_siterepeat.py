"""The site-repetition rule (webseg.blocks.siterepeat) on pages written here."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg.blocks import block_functions
from webseg.blocks.siterepeat import (
    MIN_PAGES,
    SiteRepeats,
    leaf_keys,
    repeated_drop,
    site_group,
)
from webseg.page import text_key
from webseg.parse import parse

FOOTER = ("Subscribe to our weekly newsletter to receive the latest stories from our "
          "newsroom, with analysis, interviews and reports from our correspondents.")


def article(body: str, footer: str = FOOTER, title: str = "A story") -> str:
    return (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a>"
            f"<a href='/a'>About</a></nav><article><h1>{title}</h1><p>{body}</p>"
            f"<p>{footer}</p></article></body></html>")


BODIES = [
    "The city council voted on Tuesday to extend the tram line to the northern districts, "
    "after two years of consultations with residents and local businesses about the route.",
    "Researchers at the university have measured the melting of the glacier over ten "
    "summers and found that the ice retreats faster on the southern slopes than expected.",
    "The orchestra opened its season with a programme of early symphonies, played on "
    "period instruments in the restored hall that reopened last spring after renovation.",
    "Farmers in the valley report a late harvest this year, as the cold spring delayed "
    "the flowering of the orchards and the rain in August damaged part of the crop.",
]


def test_rule_drops_repeated_kept_leaf_only() -> None:
    keys = ["a", "b", "c", "d"]
    site = SiteRepeats([["a", "x"], ["a", "b"], ["a"]])  # a on 3 other pages, b on 1
    keep = np.array([True, True, False, True])
    drop = repeated_drop(keep, keys, site, member=False)
    assert drop.tolist() == [True, False, False, False]
    # as a member of the group its own occurrence is not another page's
    site2 = SiteRepeats([keys, ["a"], ["b"]])
    assert repeated_drop(keep, keys, site2, member=True).tolist() == [False] * 4
    site3 = SiteRepeats([keys, ["a"], ["a"]])
    assert repeated_drop(keep, keys, site3, member=True).tolist() == [True, False, False, False]


def test_rule_counts_visible_leaves_once_per_page() -> None:
    site = SiteRepeats([["a", "a", "a"], ["b"]])
    assert site.others(["a"], member=False).tolist() == [1]
    assert not repeated_drop(np.array([True, True]), ["a", "z"], site, member=False).any()


def test_all_repeated_page_keeps_its_text() -> None:
    site = SiteRepeats([["a", "b"], ["a", "b"]])
    keep = np.array([True, True, False])
    assert not repeated_drop(keep, ["a", "b", "c"], site, member=False).any()
    # an unkept unique leaf does not save the repeated kept ones from being "all"
    assert not repeated_drop(np.array([True, False]), ["a", "c"], site, member=False).any()


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        SiteRepeats([], min_pages=1)
    with pytest.raises(ValueError):
        repeated_drop(np.array([True]), ["a", "b"], SiteRepeats([]), member=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdef"), max_size=6), min_size=1, max_size=6),
       st.lists(st.tuples(st.sampled_from("abcdefg"), st.booleans()), max_size=8))
def test_rule_properties(others: list[list[str]], leaves: list[tuple[str, bool]]) -> None:
    keys = [k for k, _ in leaves]
    keep = np.array([b for _, b in leaves], dtype=bool)
    site = SiteRepeats(others)
    drop = repeated_drop(keep, keys, site, member=False)
    assert not (drop & ~keep).any()  # only kept leaves are dropped
    after = keep & ~drop
    assert after.any() == keep.any()  # never empties a page that had main text
    for k, d, kept in zip(keys, drop, keep, strict=True):
        n_other = sum(k in set(o) for o in others)
        if d:
            assert n_other >= MIN_PAGES - 1
        elif kept and n_other >= MIN_PAGES - 1:
            assert not drop.any()  # spared only when every kept leaf is repeated
    # the group's order does not matter
    assert (repeated_drop(keep, keys, SiteRepeats(others[::-1]), member=False) == drop).all()


def test_text_key_folding_non_latin() -> None:
    assert text_key("Подписаться  на\nрассылку") == text_key("подписаться на рассылку")
    assert text_key("订阅我们的新闻") != text_key("订阅我们的新闻 ")[:-1] + "x"
    page = parse("<html><body><p>حقوق النشر محفوظة</p><p>本站版权所有</p></body></html>")
    assert leaf_keys(page) == [text_key("حقوق النشر محفوظة"), text_key("本站版权所有")]


def test_site_group() -> None:
    assert site_group("https://News.Example.org/a/b?c") == "news.example.org"
    assert site_group("http://example.org:8080/") == "example.org"
    assert site_group("file:///tmp/a.html") == ""
    assert site_group(None) == ""
    assert site_group("http://[::1") == ""  # malformed: no host, no error


def _kept_texts(bf) -> list[str]:
    return [bf.page.leaf_text(j) for j in bf.kept_leaves().tolist()]


def test_block_functions_drops_repeated_footer() -> None:
    pages = [parse(article(b, title=f"Story {i}")) for i, b in enumerate(BODIES)]
    alone = block_functions(pages[0])
    assert alone.site_repeated is None
    assert FOOTER in _kept_texts(alone), "the model keeps the in-article footer alone"
    bf = block_functions(pages[0], site_pages=pages[1:])
    assert FOOTER not in _kept_texts(bf)
    assert BODIES[0] in _kept_texts(bf)
    rep = np.flatnonzero(bf.site_repeated)
    assert [bf.page.leaf_text(j) for j in rep.tolist()] == [FOOTER]
    # the rest of the decision is the model's
    assert (bf.keep[bf.page.text_leaves] == (alone.keep & ~bf.site_repeated)[
        bf.page.text_leaves]).all()
    # one other page is not a group: nothing dropped; the page itself is skipped
    one = block_functions(pages[0], site_pages=[pages[1], pages[0]])
    assert not one.site_repeated.any()
    assert (one.keep == alone.keep).all()


def test_block_functions_non_latin_footer() -> None:
    footer = "Подпишитесь на нашу еженедельную рассылку, чтобы получать новые статьи редакции."
    bodies = ["Городской совет во вторник проголосовал за продление трамвайной линии в "
              "северные районы после двух лет консультаций с жителями.",
              "Учёные университета десять лет измеряли таяние ледника и обнаружили, что "
              "лёд отступает на южных склонах быстрее, чем ожидалось.",
              "Оркестр открыл сезон программой ранних симфоний на старинных инструментах "
              "в отреставрированном зале, вновь открытом прошлой весной."]
    pages = [parse(article(b, footer=footer, title=f"Статья {i}")) for i, b in enumerate(bodies)]
    alone = block_functions(pages[0])
    bf = block_functions(pages[0], site_pages=pages[1:])
    if footer in _kept_texts(alone):
        assert footer not in _kept_texts(bf)
    assert bodies[0] in _kept_texts(bf)


def test_duplicate_pages_keep_their_text() -> None:
    html = article(BODIES[0])
    pages = [parse(html) for _ in range(3)]
    alone = block_functions(pages[0])
    bf = block_functions(pages[0], site_pages=pages[1:])
    assert not bf.site_repeated.any()
    assert (bf.keep == alone.keep).all()


def _write(tmp_path, pages: dict[str, str]) -> list[str]:
    out = []
    for name, html in pages.items():
        p = tmp_path / name
        p.write_text(html, encoding="utf-8")
        out.append(str(p))
    return out


def test_clean_cli_site_repeats(tmp_path) -> None:
    from click.testing import CliRunner

    from webseg.cli import main

    files = _write(tmp_path, {f"p{i}.html": article(b, title=f"Story {i}")
                              for i, b in enumerate(BODIES)})
    run = CliRunner().invoke
    on = run(main, ["clean", *files, "--no-render", "-f", "json", "--site-repeats"])
    assert on.exit_code == 0, on.output
    docs = [json.loads(x) for x in on.stdout.splitlines() if x.startswith("{")]
    assert len(docs) == len(BODIES)
    for d, body in zip(docs, BODIES, strict=True):
        assert FOOTER not in d["text"] and body in d["text"]
        assert len(d["site_repeated"]) == 1 and d["site_repeated"][0].endswith("text()[1]")
    off = run(main, ["clean", *files, "--no-render", "-f", "json", "--no-site-repeats"])
    docs_off = [json.loads(x) for x in off.stdout.splitlines() if x.startswith("{")]
    assert all(FOOTER in d["text"] and d["site_repeated"] is None for d in docs_off)
    # by default local files are not taken for one site (a folder may hold many sites)
    default = run(main, ["clean", *files, "--no-render", "-f", "json"])
    assert default.stdout == off.stdout
    bad = run(main, ["clean", *files, "--no-render", "-m", "pagelevel", "--site-repeats",
                     "-f", "json"])
    assert bad.exit_code != 0


def test_clean_single_page_unchanged(tmp_path) -> None:
    """One input: the same bytes with the rule on, off or by default, for every format."""
    from click.testing import CliRunner

    from webseg.cli import main

    (f,) = _write(tmp_path, {"one.html": article(BODIES[0])})
    for fmt in ("txt", "markdown", "html", "json"):
        outs = {opt: CliRunner().invoke(main, ["clean", f, "--no-render", "-f", fmt, *opt])
                for opt in ((), ("--site-repeats",), ("--no-site-repeats",))}
        assert all(r.exit_code == 0 for r in outs.values())
        assert len({r.stdout for r in outs.values()}) == 1
    d = json.loads(outs[()].stdout)
    assert d["site_repeated"] is None and FOOTER in d["text"]


def test_clean_groups_by_host() -> None:
    from webseg.clean import extract
    from webseg.clean.run import apply_site_repeats
    from webseg.inputs import InputRecord

    def rec(i: int, host: str):
        page = parse(article(BODIES[i], title=f"Story {i}"), url=f"https://{host}/{i}")
        return (InputRecord(id=str(i), url=page.url, source=b"", kind="url"),
                extract(page, "blocks"), None)

    # three pages of a.example, one of b.example: the footer is repeated only on a.example
    batch = [rec(0, "a.example"), rec(1, "a.example"), rec(2, "b.example"), rec(3, "a.example")]
    out = apply_site_repeats(batch)
    assert [FOOTER in r.text for _, r, _ in out] == [False, False, True, False]
    assert out[2][1].site_repeated is not None and not out[2][1].site_repeated.any()


def test_default_grouping_needs_a_host_on_three_pages() -> None:
    from webseg.clean import extract
    from webseg.clean.run import apply_site_repeats, hosts_repeat
    from webseg.inputs import InputRecord

    def rec(url: str | None) -> InputRecord:
        return InputRecord(id=url or "x", url=url, source=b"", kind="url" if url else "file")

    assert hosts_repeat([rec(f"https://a.example/{i}") for i in range(3)])
    assert not hosts_repeat([rec("https://a.example/1"), rec("https://a.example/2"),
                             rec("https://b.example/3")])
    assert not hosts_repeat([rec(None)] * 5 + [rec("file:///tmp/x.html")])
    local = [(rec(None), extract(parse(article(b, title=f"Story {i}")), "blocks"), None)
             for i, b in enumerate(BODIES)]
    kept = apply_site_repeats(local, local_group=False)
    assert all(r.site_repeated is None and FOOTER in r.text for _, r, _ in kept)
    assert all(FOOTER not in r.text for _, r, _ in apply_site_repeats(local))


def test_batch_equals_block_functions_with_site_pages() -> None:
    """The batch rule (member of its group) and block_functions with the other pages agree."""
    from webseg.clean import extract
    from webseg.clean.run import apply_site_repeats
    from webseg.inputs import InputRecord

    pages = [parse(article(b, title=f"Story {i}"), url=f"https://a.example/{i}")
             for i, b in enumerate(BODIES)]
    batch = [(InputRecord(id=str(i), url=p.url, source=b"", kind="url"), extract(p, "blocks"),
              None) for i, p in enumerate(pages)]
    out = apply_site_repeats(batch)
    for i, p in enumerate(pages):
        bf = block_functions(p, site_pages=pages[:i] + pages[i + 1:])
        assert (out[i][1].leaf_keep == bf.keep[bf.page.text_leaves]).all()
        assert (out[i][1].site_repeated == bf.site_repeated[bf.page.text_leaves]).all()
