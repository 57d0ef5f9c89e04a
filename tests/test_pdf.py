"""The PDF report: a real round's report renders, parses with pypdf, and carries the question, the
score, every criterion and the candidate's own words; text in any script (CJK, emoji, RTL Arabic and
Hebrew, combining marks) is set in embedded Unicode fonts from installed packages, never '?'."""
from __future__ import annotations

import io
import unicodedata
from datetime import datetime

import pypdf
from conftest import answer

from interviewer import interview
from interviewer import pdf as pdf_mod
from interviewer.grader import Quote
from interviewer.pdf import coverage, latin1, report_pdf, unicode_fonts

QID = "gpu-inference-serving"
ANSWERS = [
    "Llama-2-70B on 4 x H100-80GB, fp16 weights: 140 GB of weights. KV per token is 2 x 80 layers x 8 KV heads "
    "x 128 head dim x 2 bytes = 327,680 bytes per token, so a 4,096-token sequence needs about 1.3 GB; with "
    "180 GB free that gives about 130 concurrent sequences.",
    "Continuous batching with limits: max 8192 scheduled tokens per step, max 128 active sequences, fair share "
    "per tenant, cancel on client disconnect. When the KV cache cannot admit a request we queue it, and preempt "
    "the newest request and recompute it later.",
    "I watch the average latency. vLLM gives 24x speedup, so we are fine.",
]




def graded(answers, company="Anthropic", level="staff"):
    state = interview.start_round(QID, company=company, level=level, now=1_700_000_000.0)
    for i, a in enumerate(answers, 1):
        answer(state, a, now=1_700_000_000.0 + 60 * i)
    return state, interview.end_round(state, now=1_700_000_000.0 + 600)


def pdf_text(data: bytes) -> tuple[pypdf.PdfReader, str]:
    reader = pypdf.PdfReader(io.BytesIO(data))
    return reader, " ".join(" ".join(page.extract_text() for page in reader.pages).split())


def flat(s: str) -> str:
    return " ".join(s.split())


def test_pdf_of_a_real_report(tmp_path):
    state, report = graded(ANSWERS)
    data = report_pdf(report, date=state.started_at)
    assert data.startswith(b"%PDF-")
    reader, text = pdf_text(data)
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)  # A4 in points
    assert report.question_title and flat(report.question_title) in text
    assert f"{report.overall}/100" in text
    assert report.level_verdict in text
    assert "Anthropic" in text and "staff" in text
    assert datetime.fromtimestamp(state.started_at).strftime("%d %B %Y") in text
    for c in report.criteria:
        assert flat(c.title) in text
        assert f"{c.title}: {c.score}/3" in text
    quote = report.criterion("capacity_number").evidence[0]
    assert flat(quote.quote) in text and f"(turn {quote.turn})" in text
    assert report.down_level_risk and "Down-level risk" in text
    assert report.capacity_check and "Capacity check" in text and "327,680" in text
    assert report.pitfalls and flat(report.pitfalls[0].title) in text
    assert "Next steps" in text and flat(report.next_steps[0])[:60] in text
    (tmp_path / "report.pdf").write_bytes(data)  # left for a human to look at when debugging


def test_title_overrides_the_heading():
    _, report = graded(ANSWERS[:1])
    reader, text = pdf_text(report_pdf(report, title="My practice round #3"))
    assert text.startswith("My practice round #3")
    assert reader.metadata.title == "My practice round #3"


NON_LATIN = [
    "我们用连续批处理，max 128 active sequences 🚀🔥, p99 TTFT 目标 800 ms。",  # CJK, emoji, fullwidth punctuation
    "Continuous batching — “with limits”: naïve café Łódź ő ș Привет Ελληνικά ≤ ≥ → ∑ 👩‍💻 👍\ufe0f end.",
    "Cafe\u0301 nai\u0308ve an\u0303o",  # combining marks, not precomposed
    "KV cache ≈ 1.3 GB per sequence × 130 sequences; 한국어 日本語のテキスト.",
]
RTL = ["مرحبا بالعالم الدفعات المستمرة", "שלום עולם תור עדיפויות"]


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", flat(s))


def font_names(reader: pypdf.PdfReader) -> set[str]:
    names = set()
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            names.add(str(font.get_object()["/BaseFont"]).split("+")[-1].lstrip("/"))
    return names


def test_the_unicode_fonts_come_from_installed_packages():
    fonts = unicode_fonts()
    assert fonts is not None
    assert "manimgx_fonts" in str(fonts.regular.path)  # requirements.txt brings it: no system font needed
    assert any("paperang_p2_fonts_cjk" in str(f.path) for f in fonts.fallbacks)
    assert ord("中") in coverage(fonts.fallbacks[[i for i, f in enumerate(fonts.fallbacks)
                                                  if "paperang" in str(f.path)][0]])


def test_non_latin_text_is_shown_not_question_marks():
    """CJK, emoji, RTL Arabic and Hebrew, Greek, Cyrillic and combining marks come back out of the
    PDF as they went in (pypdf reads the text through the embedded fonts' Unicode maps, so a glyph
    the fonts lack would come back empty)."""
    _, report = graded(ANSWERS[:1], company=None, level="senior")
    report.ignored_instructions = [Quote(turn=1, quote=q) for q in NON_LATIN + RTL]
    report.ignored_instructions.append(Quote(turn=1, quote="ctrl \x1b[31mred\x1b[0m \x07bell\x00 tab\there"))
    data = report_pdf(report, title="Отчёт 报告 📄")
    reader, text = pdf_text(data)
    text = nfc(text)
    assert text.startswith("Отчёт 报告 📄") and reader.metadata.title == "Отчёт 报告 📄"
    assert "Criteria" in text and f"{report.overall}/100" in text
    for q in NON_LATIN:
        assert nfc(q.replace("\ufe0f", "")) in text.replace("\ufe0f", ""), q
    # Right to left is set (and so read back) in visual order, word by word. Shaping can add a glyph
    # that stands for no character of its own (fpdf2 maps it to nothing, pypdf then yields its raw
    # code, a control character) and pypdf may split a word where glyphs join: ignore both.
    joined = "".join(ch for ch in text if ord(ch) >= 0x20 and not ch.isspace())
    for q in RTL:
        for word in q.split():
            assert word in joined, word
    assert "?" not in text.replace("???", "")  # no '?' stands in for a character
    assert "ctrl [31mred[0m bell tab here" in text  # control characters dropped, the tab a space
    names = font_names(reader)
    assert {"NotoSans", "NotoSansArabic", "NotoEmoji", "WenQuanYiMicroHei"} <= names, names
    assert any(n.startswith("NotoSansHebrew") for n in names), names


def test_a_latin_report_loads_only_the_body_font():
    state, report = graded(ANSWERS)
    reader, _ = pdf_text(report_pdf(report, date=state.started_at))
    assert font_names(reader) <= {"NotoSans", "Courier"}


def test_without_a_unicode_font_the_core_fonts_still_work(monkeypatch):
    monkeypatch.setattr(pdf_mod, "unicode_fonts", lambda: None)
    _, report = graded(ANSWERS[:1])
    report.ignored_instructions = [Quote(turn=1, quote=NON_LATIN[0])]
    reader, text = pdf_text(report_pdf(report, title="Отчёт"))
    assert flat(latin1(NON_LATIN[0])) in text and text.startswith("?????")
    assert "Helvetica" in font_names(reader)


def test_latin1_sanitising():
    assert latin1("“quoted” — it’s … done") == "\"quoted\" - it's ... done"
    assert latin1("café naïve ß µ × ²") == "café naïve ß µ × ²"  # Latin-1 is kept as it is
    assert latin1("Łódź ő ș") == "?ódz o s"  # accents outside Latin-1 are dropped; no base letter: '?'
    assert latin1("中文 🚀") == "?? ?"
    assert latin1("a\u200bb\ufeffc\u0007d") == "abcd"  # invisible and control characters go
    assert latin1("👍\ufe0f") == "?"  # the variation selector does not add a second '?'
    assert latin1("≤ ≥ → ≈") == "<= >= -> ~"
    assert latin1(None) == ""
    latin1("".join(chr(c) for c in range(0, 0x3000, 7))).encode("latin-1")  # always encodable
