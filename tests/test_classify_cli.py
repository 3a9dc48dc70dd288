"""``webseg classify train`` / ``predict`` end to end."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from classify.model import PageTypeModel, load_model
from webseg.cli import main

FIXTURES = Path(__file__).parent / "fixtures"

FORUM = """<html><body><div>Community forum</div><div><p>Reply to thread {k}</p>
<p>Posted by member {k}. Reply quote report post.</p></div><div>Forum rules</div></body></html>"""
SHOP = """<html><body><div>Shop</div><div><p>Add to cart, price {k} dollars</p>
<p>Buy now, free shipping, checkout.</p></div><div>Returns policy</div></body></html>"""


def _synthetic_model(path: Path) -> None:
    rng = np.random.default_rng(0)
    texts, labels = [], []
    for k in range(20):
        kind = ["forum", "product"][k % 2]
        words = (["reply", "thread", "member", "post"] if kind == "forum" else
                 ["cart", "price", "buy", "shipping"])
        t = [""] * 10
        t[4] = " ".join(rng.choice(words, 5))
        texts.append(t)
        labels.append(kind)
    PageTypeModel.fit_texts(texts, labels, select=1.0).save(path)


@pytest.fixture
def page_json(renderer, tmp_path) -> Path:
    page = renderer.render(FORUM.format(k=1).encode())
    p = tmp_path / "forum.page.json.gz"
    page.save(p)
    return p


@pytest.mark.browser
def test_predict_json_with_a_given_model(page_json, tmp_path):
    model = tmp_path / "m.json.gz"
    _synthetic_model(model)
    res = CliRunner().invoke(main, ["classify", "predict", str(page_json), "--model",
                                    str(model), "--json"])
    assert res.exit_code == 0, res.output
    (line,) = res.stdout.strip().splitlines()
    obj = json.loads(line)
    pt = obj["page_type"]  # the page-result schema's object and names
    assert pt["type"] == "forum" and 0.5 < pt["probability"] <= 1.0
    assert set(pt["probabilities"]) >= {"forum"}
    assert obj["id"] == str(page_json)


@pytest.mark.browser
def test_predict_with_the_shipped_model_and_a_failing_input(page_json, tmp_path):
    res = CliRunner().invoke(main, ["classify", "predict", str(page_json),
                                    str(tmp_path / "missing.html")])
    assert res.exit_code == 1
    out = res.stdout.strip().splitlines()
    assert len(out) == 1
    name, typ, prob = out[0].split("\t")
    assert name == str(page_json) and typ in PageTypeModel.load().classes
    assert 0.0 <= float(prob) <= 1.0
    assert "webseg: error: " in res.stderr and "missing.html" in res.stderr


def test_predict_usage_errors(tmp_path):
    r = CliRunner().invoke(main, ["classify", "predict", "x.html", "--model",
                                  str(tmp_path / "none.json")])
    assert r.exit_code == 2 and "not found" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    r = CliRunner().invoke(main, ["classify", "predict", "x.html", "--model", str(bad)])
    assert r.exit_code == 2
    assert CliRunner().invoke(main, ["classify", "predict"]).exit_code == 2


def _toyset(tmp_path: Path, n: int, urls: bool = False,
            extra: list[dict] | None = None) -> Path:
    """A dataset folder of ``n`` pages, forums and products by turns, one site each (with
    URLs when ``urls``), plus the manifest rows ``extra``."""
    data = tmp_path / "toyset"
    (data / "html").mkdir(parents=True)
    rows = []
    for k in range(n):
        kind, tpl = (("forum", FORUM) if k % 2 == 0 else ("product", SHOP))
        name = f"html/{k}.html.gz"
        (data / name).write_bytes(gzip.compress(tpl.format(k=k).encode()))
        row = {"id": str(k), "html": name, "page_type": kind, "source": "toyset",
               "site": f"s{k}.example"}
        if urls:
            row["url"] = f"http://s{k}.example/p/{k}"
        rows.append(row)
    rows += extra or []
    (data / "manifest.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return data


@pytest.mark.browser
def test_train_on_a_dataset_folder_then_predict(tmp_path, monkeypatch, renderer):
    data = _toyset(tmp_path, 8, extra=[{"id": "nolabel", "html": "html/0.html.gz",
                                        "source": "toyset"}])
    monkeypatch.chdir(tmp_path)  # render and view caches go under tmp_path/.cache
    out = tmp_path / "toy.json.gz"
    r = CliRunner().invoke(main, ["classify", "train", "--data", str(data), "-o", str(out),
                                  "--method", "paper", "--select", "1.0"])
    assert r.exit_code == 0, r.output
    assert "nolabel: label" in r.stderr  # the unlabelled page is reported, not used
    m = PageTypeModel.load(out)
    assert m.classes == ["forum", "product"] and m.info["pages"] == 8
    assert (tmp_path / ".cache/webseg/boilerplate/toyset").is_dir()
    html = tmp_path / "shop.html"
    html.write_text(SHOP.format(k=99))
    r = CliRunner().invoke(main, ["classify", "predict", str(html), "--model", str(out)])
    assert r.exit_code == 0, r.output
    assert r.stdout.split("\t")[1] == "product"


def test_train_stacked_on_parsed_pages_without_a_browser(tmp_path, monkeypatch):
    data = _toyset(tmp_path, 12, urls=True)
    monkeypatch.chdir(tmp_path)  # view caches go under tmp_path/.cache
    out = tmp_path / "toy.json.gz"
    r = CliRunner().invoke(main, ["classify", "train", "--data", str(data), "-o", str(out),
                                  "--no-render"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / ".cache/webseg/boilerplate").exists()  # no browser, no renders
    assert list((tmp_path / ".cache/webseg/classify/toyset").glob("pageviews-*-parsed.json.gz"))
    m = load_model(out)
    assert m.info["pages"] == 12 and m.info["pages_from"] == "parsed"
    html = tmp_path / "shop.html"
    html.write_text(SHOP.format(k=99))
    r = CliRunner().invoke(main, ["classify", "predict", "--no-render", str(html),
                                  "--model", str(out)])
    assert r.exit_code == 0, r.output
    assert r.stdout.split("\t")[1] == "product"
    r = CliRunner().invoke(main, ["classify", "train", "--data", str(data), "-o", str(out),
                                  "--no-render", "--method", "paper"])
    assert r.exit_code != 0 and "only the stacked method" in r.output


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name", ["crawl/harbour-home.html", "crawl.warc.gz"])
def test_predict_and_clean_give_a_page_one_type(name):
    """Unrendered, `classify predict` and `clean --page-type` see the same page: the same
    address (a local file's file:// URI, a WARC record's URL), HTML and so the same type."""
    src = EXAMPLES / name
    runner = CliRunner()
    pred = runner.invoke(main, ["classify", "predict", "--no-render", "--json", str(src)])
    assert pred.exit_code == 0, pred.output
    clean = runner.invoke(main, ["clean", "--no-render", "--page-type", "-f", "json",
                                 str(src)])
    assert clean.exit_code == 0, clean.output
    got = [json.loads(line) for line in pred.stdout.splitlines() if line.strip()]
    want = [json.loads(line) for line in clean.stdout.splitlines() if line.strip()]
    assert len(got) == len(want) >= 1
    for g, w in zip(got, want, strict=True):
        assert g["url"] == w["url"]
        assert g["page_type"] == w["page_type"]
    if src.suffix == ".html":
        assert got[0]["url"] == src.resolve().as_uri()


def test_predict_url_gives_a_saved_page_its_web_address():
    """--url types a saved page as the page at that address (the model reads the URL), the
    same as clean --url and as the WARC record of the page."""
    src = EXAMPLES / "crawl" / "harbour-home.html"
    runner = CliRunner()
    args = ["--no-render", "--url", "http://gazette.example/", str(src)]
    pred = runner.invoke(main, ["classify", "predict", "--json", *args])
    assert pred.exit_code == 0, pred.output
    clean = runner.invoke(main, ["clean", "--page-type", "-f", "json", *args])
    assert clean.exit_code == 0, clean.output
    got, want = json.loads(pred.stdout), json.loads(clean.stdout)
    assert got["url"] == want["url"] == "http://gazette.example/"
    assert got["page_type"] == want["page_type"]
    bad = runner.invoke(main, ["classify", "predict", "--url", "gazette.example", str(src)])
    assert bad.exit_code == 2 and "--url" in bad.output
    two = runner.invoke(main, ["classify", "predict", "--url", "http://a.example/", str(src),
                               str(src)])
    assert two.exit_code == 2 and "one input" in two.output


def test_predict_progress_follows_the_shared_rule(tmp_path):
    """No progress for one page in a pipe; the plain line (stderr not a terminal) for more;
    none with -q. (Parsed pages have no layout, which the model needs: they fail, and count
    as pages all the same.)"""
    model = tmp_path / "m.json.gz"
    _synthetic_model(model)
    pages = tmp_path / "pages"
    pages.mkdir()
    for k in range(2):
        (pages / f"f{k}.html").write_text(FORUM.format(k=k), encoding="utf-8")
    one = CliRunner().invoke(main, ["classify", "predict", str(pages / "f0.html"), "--model",
                                    str(model), "--no-render"])
    assert one.exit_code in (0, 1), one.output
    assert "webseg: classify:" not in one.stderr
    two = CliRunner().invoke(main, ["classify", "predict", str(pages), "--model", str(model),
                                    "--no-render"])
    assert two.exit_code in (0, 1), two.output
    assert "webseg: classify: 2 pages" in two.stderr
    quiet = CliRunner().invoke(main, ["classify", "predict", str(pages), "--model", str(model),
                                      "--no-render", "-q"])
    assert quiet.exit_code in (0, 1) and "webseg: classify:" not in quiet.stderr


def test_a_bar_opened_late_counts_its_rate_from_the_start(monkeypatch):
    """classify opens its progress at the second page: the rate still counts the first."""
    import io
    import time

    from webseg import progress
    from webseg.progress import progress_bar

    monkeypatch.setattr(progress, "QUIET", False)  # an earlier command's -q must not leak

    out = io.StringIO()
    bar = progress_bar(desc="classify", file=out, started=time.monotonic() - 100)
    bar.update(2)
    bar.close()
    rate = float(out.getvalue().rsplit(", ", 1)[1].split()[0])
    assert rate <= 2 / 100
