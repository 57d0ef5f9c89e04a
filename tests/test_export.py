"""Candidate text is data in every export: the Markdown report escapes Markdown and drops control
characters, and neither the Markdown nor the Report page turns an answer into an image, a link or
HTML. The Markdown is rendered with a real CommonMark parser (markdown-it-py) to prove it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import answer
from markdown_it import MarkdownIt

from interviewer import config, interview
from interviewer.grader import Quote, Report
from interviewer.report import md_text, strip_controls, to_markdown

QID = "gpu-inference-serving"
IMAGE = "![a](http://127.0.0.1:9/k)"
LINK = "[click me](http://127.0.0.1:9/l)"
HOSTILE = [
    f"Weights are 140 GB {IMAGE} so about 130 concurrent sequences, see http://127.0.0.1:9/bare, "
    f"www.example.com and ops@example.com, or {LINK}.",
    "Continuous batching with max 128 sequences <img src=http://127.0.0.1:9/i> <a href=http://127.0.0.1:9/a>x</a> "
    "&#x3C;script&#x3E; and p99 TTFT 800 ms \x1b[31mred\x1b[0m \x07bell \x00nul \x9b tail",
    "# not a heading\n- not a list\n> not a quote\n1. not a list either; `code` **bold** _em_ ~~strike~~ | pipe $x$",
]


def render(md: str) -> str:
    """CommonMark plus the GFM table and strikethrough rules, HTML allowed (the worst case)."""
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(md)


def text_of(html: str) -> str:
    import html as html_mod

    return html_mod.unescape(re.sub(r"<[^>]+>", "", html))


def assert_inert(md: str) -> None:
    html = render(md)
    for tag in ("<img", "<a ", "<script", "<b>", "<strong>bold", "<em>em", "<code>code", "<del>"):
        assert tag not in html, (tag, html)
    # GFM autolink literals (Streamlit, GitHub) link bare http://, www. and e-mail addresses: the
    # trigger must be broken in the source, since markdown-it-py's commonmark preset does not link them.
    plain = re.sub(r"\\.", "", md)
    assert not re.search(r"(?i)https?://|\bwww\.|\w@\w", plain), md
    assert "\x1b" not in md and "\x07" not in md and "\x00" not in md and "\x9b" not in md


@pytest.fixture
def hostile_report() -> Report:
    state = interview.start_round(QID, company="Anthropic", level="senior", now=1_700_000_000.0)
    for i, a in enumerate(HOSTILE, 1):
        answer(state, a, now=1_700_000_000.0 + 60 * i)
    report = interview.end_round(state, now=1_700_000_000.0 + 600)
    # Every place a quote or a judge's words land, whatever the grader happened to pick.
    report.ignored_instructions = [Quote(turn=1, quote=HOSTILE[0]), Quote(turn=3, quote=HOSTILE[1])]
    report.criteria[0].evidence.append(Quote(turn=5, quote=HOSTILE[2]))
    report.judge = {"disagreements": [f"The candidate wrote {IMAGE} and {LINK}"]}
    report.next_steps.append(f"Read {LINK}")
    return report


def test_markdown_export_is_inert(hostile_report):
    md = to_markdown(hostile_report)
    assert_inert(md)
    shown = text_of(render(md))
    # The candidate's words read back as they were typed (less the control characters).
    assert IMAGE in shown and LINK in shown and "<img src=http://127.0.0.1:9/i>" in shown
    assert "ops@example.com" in shown and "www.example.com" in shown and "&#x3C;script&#x3E;" in shown
    assert "[31mred" in shown and "bell" in shown and "tail" in shown
    assert "# not a heading - not a list > not a quote 1. not a list either; `code` **bold**" in shown
    # Our own markup still works.
    html = render(md)
    assert "<h1>" in html and "<table>" in html and "<blockquote>" in html


def test_md_text_escapes_syntax_and_drops_controls():
    assert md_text(IMAGE) == r"!\[a\](http\://127.0.0.1:9/k)"
    assert md_text("www.x.org a@b.co HTTPS://y") == r"www\.x.org a\@b.co HTTPS\://y"
    assert md_text("1. one") == r"1\. one" and md_text("# h") == r"\# h" and md_text("- x") == r"\- x"
    assert md_text("a\x1b[1mb\x07c\td\ne") == r"a\[1mbc d e"  # inline: blanks folded
    assert md_text("130 sequences at 1.3 GB (p99, not p50)") == "130 sequences at 1.3 GB (p99, not p50)"
    assert md_text(None) == ""
    assert strip_controls("a\x1bb\x07c\td\r\ne\x7f\x85") == "abc\td\ne"
    for s in ("<x>", "&amp;", "|", "~~", "$", "`", "*", "_", "\\"):
        assert text_of(render(md_text(s))).strip() == s


def test_report_page_shows_candidate_markup_as_text(monkeypatch, tmp_path):
    """Every Markdown element of the Report page, the transcript included, renders no image or link."""
    from streamlit.testing.v1 import AppTest

    from interviewer.store import open_store

    monkeypatch.setenv("INTERVIEWER_DATA_DIR", str(tmp_path))
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "INTERVIEWER_BACKEND", "CHROMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    config.reload()
    state = interview.start_round(QID, "Anthropic", "senior")
    for a in HOSTILE:
        answer(state, a)
    interview.end_round(state)
    report = dict(state.report)
    report["judge"] = {"disagreements": [f"The candidate wrote {IMAGE} and {LINK}"]}
    state.report = report
    store, _ = open_store()
    store.save(state, "export-test-token-0001")
    store.close()

    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60)
    at.query_params["u"] = "export-test-token-0001"
    at.run()
    at.switch_page("interviewer/ui/report_page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value.startswith("Report:")
    markdown = [str(e.value) for kind in ("markdown", "caption", "warning", "info", "success")
                for e in getattr(at, kind)]
    for md in markdown:
        html = render(md)
        assert "<img" not in html and "<a " not in html, md
    shown = "\n".join([str(t.value) for t in at.text] + markdown)
    assert IMAGE in shown  # the candidate's words are there, as text
    assert any("The candidate wrote" in md for md in markdown)


@pytest.mark.parametrize("hostile", [
    f'Noted: "{IMAGE} 130 concurrent sequences".',
    f"You said {LINK} and <img src=http://127.0.0.1:9/i> and http://127.0.0.1:9/bare and www.example.com.",
    "An escape undone: \\![a\\](http://127.0.0.1:9/k) and \\`![b](http://127.0.0.1:9/k)`.",
    "Reference style: ![c][r] and [d][r]\n\n[r]: http://127.0.0.1:9/ref",
    "An entity: &#x3C;img src=http://127.0.0.1:9/e&#x3E; and <http://127.0.0.1:9/auto> and a@b.example",
])
def test_md_inert_keeps_formatting_but_nothing_fetches_or_links(hostile):
    """For text someone else wrote in Markdown (an interviewer reply quoting the candidate)."""
    from interviewer.report import md_inert

    html = render(md_inert(hostile))
    assert "<img" not in html and "<a " not in html, html
    # Inside a code span nothing is a link (GFM autolinks included), so only the rest is checked.
    assert_inert(md_inert(hostile).replace("`![b](http://127.0.0.1:9/k)`", "").replace("\n", " "))


def test_md_inert_keeps_the_interviewers_own_formatting():
    from interviewer.report import md_inert

    html = render(md_inert("**Bold** and _em_:\n\n- one item\n- `max_num_seqs[0]` stays code\n\n$5 not math"))
    assert "<strong>Bold</strong>" in html and "<em>em</em>" in html and "<li>one item</li>" in html
    assert "<code>max_num_seqs[0]</code>" in html and "$5 not math" in text_of(html)
    assert md_inert("a\x1b[2Jb\x07") == "a\\[2Jb"
