"""A graded report as an A4 PDF the candidate can keep (fpdf2, core fonts: no font files, no network).

fpdf2's core fonts (Helvetica) are Latin-1 only, so every string goes through `latin1()`:
typographic quotes, dashes and common symbols become ASCII, accented letters outside Latin-1
lose their accent, invisible characters go, and anything else (CJK, emoji) becomes '?'.
fpdf2 is imported inside report_pdf: importing this module is cheap.
"""
from __future__ import annotations

import unicodedata
from datetime import date as Date
from datetime import datetime

from interviewer.grader import Report

BAR = {0: "absent", 1: "mentioned", 2: "derived", 3: "defended"}
_ASCII = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u2039": "<", "\u203a": ">",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
    "\u2026": "...", "\u2022": "*", "\u2023": ">", "\u2043": "-", "\u25cf": "*", "\u25aa": "*",
    "\u2192": "->", "\u2190": "<-", "\u2194": "<->", "\u21d2": "=>", "\u2248": "~", "\u2243": "~",
    "\u2264": "<=", "\u2265": ">=", "\u2260": "!=", "\u2261": "==", "\u221e": "inf", "\u2211": "sum",
    "\u221a": "sqrt", "\u2217": "*", "\u22c5": "*", "\u2219": "*", "\u2044": "/", "\u2030": "per mille",
    "\u20ac": "EUR", "\u2122": "(TM)", "\u2713": "v", "\u2714": "v", "\u2717": "x", "\u2718": "x",
    "\u03bc": "\u00b5", "\u2009": " ", "\u200a": " ", "\u2002": " ", "\u2003": " ", "\u202f": " ",
    "\u2007": " ", "\u2008": " ", "\u205f": " ", "\u3000": " ", "\u2028": "\n", "\u2029": "\n", "\t": "    ",
}


def latin1(text: object) -> str:
    """`text` rendered in Latin-1, the core fonts' character set, losing as little as possible."""
    out = []
    for ch in str(text if text is not None else "").replace("\r\n", "\n").replace("\r", "\n"):
        code = ord(ch)
        if ch in _ASCII:
            out.append(_ASCII[ch])
        elif ch == "\n" or (32 <= code < 127) or (160 <= code < 256):
            out.append(ch)
        elif code < 32 or 127 <= code < 160:
            continue  # control characters
        elif unicodedata.category(ch) in ("Mn", "Me", "Cf", "Cc", "Cs") or 0xFE00 <= code <= 0xFE0F:
            continue  # combining marks, zero-width joiners, variation selectors
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            out.append(base if base and all(ord(c) < 256 for c in base) and base.isprintable() else "?")
    return "".join(out)


def _when(value: float | datetime | Date | None) -> str:
    if value is None:
        value = datetime.now()
    elif isinstance(value, (int, float)):
        value = datetime.fromtimestamp(value)
    return value.strftime("%d %B %Y, %H:%M") if isinstance(value, datetime) else value.strftime("%d %B %Y")


def report_pdf(report: Report, *, title: str | None = None,
               date: float | datetime | Date | None = None) -> bytes:
    """The report as PDF bytes. `title` replaces the heading; `date` (epoch seconds, datetime or
    date; default now) is the round's date shown in the header."""
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    question = report.question_title or report.question_id
    heading = title or "Mock design round report"

    class _PDF(FPDF):
        def footer(self):
            self.set_y(-12)
            self.set_font("Helvetica", "", 8)
            self.set_text_color(120)
            self.cell(0, 6, latin1(f"{question} - page {self.page_no()}/{{nb}}"), align="C")
            self.set_text_color(0)

    pdf = _PDF(format="A4", unit="mm")
    pdf.set_title(latin1(heading if title else f"{heading}: {question}"))
    pdf.set_author("interviewer")
    pdf.set_creator("interviewer (fpdf2)")
    pdf.set_margins(18, 16, 18)
    pdf.set_auto_page_break(True, margin=18)
    pdf.add_page()
    width = pdf.epw

    def text(s: object, size: float = 10, style: str = "", h: float | None = None, color: int = 0,
             indent: float = 0) -> None:
        pdf.set_font("Helvetica", style, size)
        pdf.set_text_color(color)
        pdf.set_x(pdf.l_margin + indent)
        pdf.multi_cell(width - indent, h or size * 0.5, latin1(s), new_x="LMARGIN", new_y="NEXT")
        pdf.set_text_color(0)

    def section(name: str) -> None:
        pdf.ln(3)
        if pdf.will_page_break(20):
            pdf.add_page()
        text(name, 13, "B", h=7)
        pdf.set_draw_color(180)
        pdf.line(pdf.l_margin, pdf.get_y(), pdf.l_margin + width, pdf.get_y())
        pdf.ln(2)

    # header
    text(heading, 18, "B", h=9)
    pdf.ln(1)
    meta = [("Question", question)]
    if report.company:
        meta.append(("Company", report.company))
    if report.level:
        meta.append(("Target level", report.level))
    meta.append(("Date", _when(date)))
    for label, value in meta:
        pdf.set_font("Helvetica", "B", 10)
        pdf.cell(30, 5.5, latin1(label + ":"))
        pdf.set_font("Helvetica", "", 10)
        pdf.multi_cell(width - 30, 5.5, latin1(value), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)

    # verdict
    pdf.set_fill_color(240, 243, 248)
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(width, 10, latin1(f"Overall {report.overall}/100    Level verdict: {report.level_verdict}"),
             fill=True, new_x="LMARGIN", new_y="NEXT")
    if report.down_level_risk:
        pdf.ln(2)
        text("Down-level risk", 11, "B", h=6, color=150)
        text(report.down_level_risk, 10, h=5)

    # criteria table
    section("Criteria")
    heading_style = FontFace(emphasis="BOLD", fill_color=(225, 230, 238))
    pdf.set_font("Helvetica", "", 9.5)
    with pdf.table(col_widths=(27, 12, 16, 45), text_align=("LEFT", "CENTER", "CENTER", "LEFT"),
                   line_height=5, headings_style=heading_style, padding=1.5) as table:
        row = table.row()
        for h in ("Criterion", "Required", "Score", "Reads as"):
            row.cell(h)
        for c in report.criteria:
            row = table.row()
            row.cell(latin1(c.title))
            row.cell("yes" if c.required else "no")
            row.cell(latin1(f"{c.score}/3 ({BAR.get(c.score, '?')})"))
            row.cell(latin1(c.reads_as or "-"))

    # each criterion: quotes and feedback
    for c in report.criteria:
        pdf.ln(3)
        if pdf.will_page_break(18):
            pdf.add_page()
        text(f"{c.title}: {c.score}/3" + (" (required)" if c.required else ""), 11.5, "B", h=6)
        if c.evidence:
            for q in c.evidence:
                text(f"(turn {q.turn}) \"{q.quote}\"", 9.5, "I", h=4.8, color=40, indent=4)
        else:
            text("No quote: nothing in the transcript addressed this.", 9.5, "I", h=4.8, color=110, indent=4)
        if c.found:
            text("Found: " + "; ".join(c.found), 9, h=4.6, color=70, indent=4)
        if c.missing:
            text("Missing: " + "; ".join(c.missing), 9, h=4.6, color=70, indent=4)
        text(c.feedback, 10, h=5, indent=4)

    if report.capacity_check:
        cc = report.capacity_check
        section("Capacity check")
        verdict = {True: "Your figures agree with the calculator.", False: "Your figures disagree with the calculator.",
                   None: "No figure of yours to check."}[cc.consistent]
        text(cc.summary() + ". " + verdict, 10, h=5)
        claims = []
        if cc.claimed_sequences:
            claims.append("sequences claimed: " + ", ".join(f"{n:,}" for n in cc.claimed_sequences))
        if cc.claimed_kv_bytes_per_token:
            claims.append("KV bytes per token claimed: " + ", ".join(f"{n:,}" for n in cc.claimed_kv_bytes_per_token))
        if claims:
            text("; ".join(claims) + ".", 9.5, h=5, color=70)
        pdf.ln(1)
        for line in cc.arithmetic:
            pdf.set_font("Courier", "", 8.5)
            pdf.set_x(pdf.l_margin + 4)
            pdf.multi_cell(width - 4, 4.4, latin1("- " + line), new_x="LMARGIN", new_y="NEXT")

    if report.pitfalls:
        section("Pitfalls")
        for p in report.pitfalls:
            text(f"{p.title} (turn {p.turn})", 10.5, "B", h=5.5)
            text(f"\"{p.quote}\"", 9.5, "I", h=4.8, color=40, indent=4)
            text(p.feedback, 10, h=5, indent=4)
            pdf.ln(1)

    if report.ignored_instructions:
        section("Ignored")
        text("Text addressed to the grader was not scored:", 10, h=5)
        for q in report.ignored_instructions:
            text(f"(turn {q.turn}) \"{q.quote}\"", 9.5, "I", h=4.8, color=40, indent=4)

    if report.judge and report.judge.get("disagreements"):
        section("LLM judge")
        for d in report.judge["disagreements"]:
            text(f"- {d}", 10, h=5)

    section("Next steps")
    for i, step in enumerate(report.next_steps, 1):
        text(f"{i}. {step}", 10, h=5)
        pdf.ln(0.8)
    if not report.next_steps:
        text("Nothing left below full marks.", 10, h=5)

    return bytes(pdf.output())
