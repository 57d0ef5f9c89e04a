"""The PDF report: a real round's report renders, parses with pypdf, and carries the question, the
score, every criterion and the candidate's own words; text outside Latin-1 never breaks it."""
from __future__ import annotations

import io
from datetime import datetime

import pypdf
from conftest import answer

from interviewer import interview
from interviewer.pdf import latin1, report_pdf

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


def test_non_latin_answers_do_not_break_the_pdf():
    answers = [
        "我们用连续批处理，max 128 active sequences 🚀🔥, p99 TTFT 目标 800 ms。",
        "Continuous batching — “with limits”: max 8192 scheduled tokens per step… naïve café Łódź ő "
        "مرحبا Привет 👩‍💻 ∑ ≤ ≥ → \u200b\ufeff end. " + "长" * 400,
        "KV cache ≈ 1.3 GB per sequence × 130 sequences; \x00\x07 control chars and a lone tab\there.",
    ]
    _, report = graded(answers, company=None, level="senior")
    data = report_pdf(report, title="Отчёт 报告 📄")
    reader, text = pdf_text(data)
    assert len(reader.pages) >= 1
    assert "Criteria" in text and f"{report.overall}/100" in text
    quotes = [q.quote for c in report.criteria for q in c.evidence]
    assert quotes, "the answers should have produced evidence"
    for q in quotes:
        assert flat(latin1(q)) in text


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
