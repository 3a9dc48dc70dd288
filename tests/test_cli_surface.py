"""The command line's common surface: option names shared by the commands, renamed options that
still work with a warning, ``--quiet``, progress as plain lines off a terminal, ``-o
FILE.jsonl`` writing a file, and one-line errors for bad ``-p`` values.

Offline: every page here is parsed (``--no-render``) or a fixture rendered without network.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from webseg.cli import main
from webseg.progress import LineProgress, progress_bar

FIXTURES = Path(__file__).parent / "fixtures"
ARTICLE = b"<html><head><title>T</title></head><body><nav><a href='/'>Home</a></nav>" + \
    b"<article><h1>A heading</h1>" + b"<p>" + b"Words of the article body go here. " * 12 + \
    b"</p></article><footer>(c) someone</footer></body></html>"


def run(*args: object) -> click.testing.Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def _commands() -> dict[str, click.Command]:
    ctx = click.Context(main)
    out = {}
    for name in main.list_commands(ctx):
        cmd = main.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            for sub in cmd.list_commands(ctx):
                out[f"{name} {sub}"] = cmd.get_command(ctx, sub)
        else:
            out[name] = cmd
    return out


def _opts(cmd: click.Command) -> dict[str, click.Option]:
    return {o: p for p in cmd.params if isinstance(p, click.Option) and not p.hidden
            for o in (*p.opts, *p.secondary_opts)}


def test_concurrency_javascript_and_quiet_have_one_name_everywhere() -> None:
    long_commands = ("render", "segment", "clean", "pipeline", "index", "dedup",
                     "classify predict")
    cmds = _commands()
    for name in long_commands:
        opts = _opts(cmds[name])
        assert "--quiet" in opts and "-q" in opts, name
        assert "--concurrency" in opts and "-c" in opts, name
        assert "--javascript" not in opts, name  # the old spelling is hidden
    # the commands that render pages take the same render options with the same defaults
    for name in ("segment", "clean", "pipeline", "index", "dedup", "classify predict"):
        opts = _opts(cmds[name])
        assert {"--js", "--max-nodes", "--timeout"} <= set(opts), name
        assert opts["--concurrency"].default == 3, name
    for name in ("spark", "classify train"):  # long too, but they render nothing themselves
        assert "--quiet" in _opts(cmds[name]), name
    for name, cmd in cmds.items():
        opts = _opts(cmd)
        if "--concurrency" in opts:
            assert "-c" in opts, name
        if any(o.startswith("--javascript") for o in opts):
            pytest.fail(f"{name}: --javascript is spelt --js everywhere")
    assert "--input-format" in _opts(cmds["index"]) and "--format" not in _opts(cmds["index"])


def test_renamed_option_still_works_with_a_warning(tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d1", "title": "t", "text": "sourdough starter"}) + "\n")
    new = CliRunner().invoke(main, ["index", str(docs), "--input-format", "jsonl",
                                    "-o", str(tmp_path / "a")])
    assert new.exit_code == 0, new.output
    assert "warning" not in new.output
    old = CliRunner().invoke(main, ["index", str(docs), "--format", "jsonl",
                                    "-o", str(tmp_path / "b")])
    assert old.exit_code == 0, old.output
    assert "webseg: warning: --format is renamed --input-format" in old.output
    assert "1 documents" in old.output  # read as JSON lines, as asked


def test_pipeline_old_javascript_flag_is_an_alias() -> None:
    from webseg.pipeline_cli import pipeline

    ctx = pipeline.make_context("pipeline", ["x", "-o", "out", "--no-javascript"])
    assert ctx.params["javascript"] is False
    ctx = pipeline.make_context("pipeline", ["x", "-o", "out", "--js"])
    assert ctx.params["javascript"] is True
    ctx = pipeline.make_context("pipeline", ["x", "-o", "out"])
    assert ctx.params["javascript"] is None


def test_retired_decoder_warns_and_help_lists_the_kept_ones(tmp_path: Path) -> None:
    page = tmp_path / "a.html"
    page.write_bytes(ARTICLE)
    help_text = run("clean", "--help").output
    assert "[stack-page|stack|isotonic]" in help_text and "isotonic-s1" not in help_text
    kept = run("clean", page, "--no-render", "--decoder", "stack")
    assert kept.exit_code == 0 and "warning" not in kept.output
    old = run("clean", page, "--no-render", "--decoder", "threshold")
    assert old.exit_code == 0, old.output
    assert "webseg: warning: --decoder threshold is retired" in old.output
    assert "Words of the article" in old.output


def test_clean_o_jsonl_writes_one_file_of_json_lines(tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    for i in range(3):
        (pages / f"p{i}.html").write_bytes(ARTICLE.replace(b"A heading", b"Heading %d" % i))
    out = tmp_path / "all.jsonl"
    res = run("clean", pages, "--no-render", "-o", out, "-q")
    assert res.exit_code == 0, res.output
    assert out.is_file()
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(Path(r["id"]).name for r in lines) == ["p0.html", "p1.html", "p2.html"]
    assert all("Words of the article" in r["text"] for r in lines)
    one = tmp_path / "one.jsonl"
    assert run("clean", pages / "p0.html", "--no-render", "-o", one).exit_code == 0
    assert len(one.read_text().splitlines()) == 1
    bad = run("clean", pages, "--no-render", "-o", tmp_path / "x.jsonl", "-f", "markdown")
    assert bad.exit_code == 2 and "JSON lines" in bad.output


@pytest.mark.browser
def test_segment_o_jsonl_writes_one_file(tmp_path: Path, renderer) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    for i in range(2):
        (pages / f"p{i}.html").write_bytes(ARTICLE)
    out = tmp_path / "segs.jsonl"
    res = run("segment", pages, "--algo", "dom", "-o", out, "--quiet")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 2 and all(r["algorithm"] == "dom" and r["id"] for r in rows)


@pytest.mark.parametrize("value, kind", [("x", "an integer"), ("2.5", "an integer"),
                                         ('"3"', "an integer")])
def test_bad_param_value_is_a_one_line_usage_error(value: str, kind: str) -> None:
    res = run("segment", FIXTURES / "news.html", "--algo", "dom", "-p", f"max_depth={value}")
    assert res.exit_code == 2
    errors = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "max_depth" in errors[0] and kind in errors[0], res.output
    assert "Traceback" not in res.output and "TypeError" not in res.output


def test_good_param_values_pass_the_check() -> None:
    from webseg.cli import _make_segmenter

    assert _make_segmenter("dom", ("max_depth=3",)).max_depth == 3
    with pytest.raises(click.UsageError, match="-p nope: dom has no such parameter; its "
                                               "parameters: max_depth"):
        _make_segmenter("dom", ("nope=1",))


def test_a_parameter_the_default_segmenter_lacks_is_named_not_a_python_error() -> None:
    res = run("segment", FIXTURES / "news.html", "-p", "max_depth=3")  # default: select
    assert res.exit_code == 2
    assert "-p max_depth: select has no such parameter" in res.output, res.output
    assert "__init__" not in res.output and "unexpected keyword" not in res.output
    assert "--algo dom -p max_depth=3" in " ".join(run("segment", "--help").output.split())


def test_progress_is_plain_lines_off_a_terminal_and_silent_when_asked() -> None:
    buf = io.StringIO()  # not a terminal
    bar = progress_bar(total=4, desc="clean", file=buf)
    assert isinstance(bar, LineProgress)
    bar.every = 0.0  # a line per update, for the test
    for _ in range(4):
        bar.update(1)
    bar.close()
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("webseg: clean: 1/4 pages (25%)")
    assert lines[-1].startswith("webseg: clean: 4/4 pages (100%)")
    assert "\r" not in buf.getvalue()
    silent = io.StringIO()
    bar = progress_bar(total=4, file=silent, enabled=False)
    bar.update(4)
    bar.close()
    assert silent.getvalue() == ""


def test_line_progress_waits_between_lines() -> None:
    buf = io.StringIO()
    bar = LineProgress(100, "index", "page", buf, every=3600)
    for _ in range(100):
        bar.update(1)
    assert buf.getvalue() == ""  # too soon for a periodic line
    bar.close()
    assert buf.getvalue().count("\n") == 1 and "100/100" in buf.getvalue()


def test_quiet_silences_progress_and_notes(tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    for i in range(2):
        (pages / f"p{i}.html").write_bytes(ARTICLE)
    loud = CliRunner().invoke(main, ["clean", str(pages), "--no-render", "-f", "json"])
    assert loud.exit_code == 0 and "webseg: clean: 2/2 pages" in loud.output
    quiet = CliRunner().invoke(main, ["clean", str(pages), "--no-render", "-f", "json",
                                      "--quiet"])
    assert quiet.exit_code == 0 and "webseg: clean:" not in quiet.output
    assert len([x for x in quiet.output.splitlines() if x.startswith("{")]) == 2


def test_clean_old_flags_warn(tmp_path: Path) -> None:
    page = tmp_path / "a.html"
    page.write_bytes(ARTICLE)
    res = run("clean", page, "--no-render", "--algo", "blocks", "--html")
    assert res.exit_code == 0, res.output
    assert "--algo is renamed --method" in res.output and "--html is --format html" in res.output
    assert "<html" in res.output.lower()


def test_one_warc_of_many_pages_is_named_in_the_need_o_error() -> None:
    warc = Path(__file__).parents[1] / "examples" / "crawl.warc.gz"
    res = run("clean", warc, "--no-render")
    assert res.exit_code == 2
    assert f"{warc} holds several pages: they need -o DIRECTORY" in res.output, res.output


@pytest.mark.parametrize("command, option", [("clean", "--method"), ("index", "--stemmer"),
                                             ("index", "--stopwords"), ("dedup", "--theta"),
                                             ("show", "--param")])
def test_options_say_what_they_do_and_their_default(command: str, option: str) -> None:
    from webseg.clean import DEFAULT_METHOD
    from webseg.cli import main

    cmd = main.get_command(click.Context(main), command)
    (param,) = [p for p in cmd.params if option in getattr(p, "opts", ())]
    text = param.help or ""
    assert len(text.split()) > 8, f"{command} {option}: {text!r}"  # a sentence, not a name
    if option == "--method":
        assert f"Default: {DEFAULT_METHOD}." in text
    assert "Usage" not in run(command, "--help").output.split("Options:")[1]  # help renders


def test_records_mapping_names_the_page_url_its_json_line_gives(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    body = "<p>" + "A paragraph of the story with enough words to be kept. " * 8 + "</p>"
    (src / "a.html").write_text('<html><head><link rel="canonical" href="https://e.org/a">'
                                f"</head><body><article>{body}</article></body></html>")
    (src / "b.html").write_text(f"<html><body><article>{body}</article></body></html>")
    res = run("clean", src, "--no-render", "-o", tmp_path / "out")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (tmp_path / "out" / "records.jsonl").read_text().splitlines()]
    assert {r["file"]: r["url"] for r in rows} == {
        "a.txt": "https://e.org/a", "b.txt": (src / "b.html").resolve().as_uri()}


def test_a_progress_line_of_one_page_says_page() -> None:
    buf = io.StringIO()
    bar = progress_bar(desc="classify", file=buf)
    bar.update(1)
    bar.close()
    assert buf.getvalue().startswith("webseg: classify: 1 page, ")


def test_top_level_help_shows_the_five_tasks_not_only_segmentation() -> None:
    text = run("--help").output
    for example in ("webseg clean ", "webseg pipeline ", "webseg search ", "webseg dedup ",
                    "webseg classify predict ", "webseg segment "):
        assert example in text, example
