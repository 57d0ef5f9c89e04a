"""A graded report as an A4 PDF the candidate can keep (fpdf2; fonts from installed packages, no network).

Text is set in Noto Sans with fallbacks for what it lacks: Noto Sans Arabic and Hebrew (and the other
Noto scripts), Noto Sans Symbols, Noto Emoji (all from the `manimgx-fonts` wheel) and WenQuanYi Micro
Hei for Chinese, Japanese and Korean (the `paperang-p2-fonts-cjk` wheel); where Debian's DejaVu or
Noto packages are installed they stand in for a missing wheel. Only fonts whose characters the
report uses are loaded, and fpdf2 embeds only the glyphs used. Text that needs it is shaped with
uharfbuzz (Arabic joining, right-to-left order, combining marks, emoji sequences). One face is
parsed: bold is the regular face drawn with a thin outline (the wheel ships variable fonts, and
instancing a bold one takes seconds), and quotes are set apart by colour instead of italics.

With no Unicode font at all, the report falls back to the core Helvetica font and `latin1()`, which
keeps Latin-1, turns typographic punctuation into ASCII and anything else into '?'.
fpdf2 is imported inside report_pdf: importing this module is cheap.
"""
from __future__ import annotations

import functools
import logging
import re
import unicodedata
from dataclasses import dataclass
from datetime import date as Date
from datetime import datetime
from pathlib import Path

from interviewer.grader import Report

log = logging.getLogger(__name__)

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


# --- Unicode fonts ----------------------------------------------------------------------------

_DEBIAN = Path("/usr/share/fonts")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Fallbacks in the order they are tried for a character the body font lacks.
_NOTO_FALLBACKS = ("NotoSansSymbols[wght].ttf", "NotoSansArabic[wght].ttf", "NotoSansHebrew[wght].ttf",
                   "NotoSansDevanagari[wght].ttf", "NotoSansBengali[wght].ttf", "NotoSansTamil[wght].ttf",
                   "NotoSansTelugu[wght].ttf", "NotoSansGujarati[wght].ttf", "NotoSansGurmukhi[wght].ttf",
                   "NotoSansKannada[wght].ttf", "NotoSansMalayalam[wght].ttf", "NotoSansOriya[wght].ttf",
                   "NotoSansSinhala[wght].ttf", "NotoSansThai[wght].ttf", "NotoSansLao[wght].ttf",
                   "NotoSansKhmer[wght].ttf", "NotoSansMyanmar[wght].ttf", "NotoSansGeorgian[wght].ttf",
                   "NotoSansArmenian[wght].ttf", "NotoSansEthiopic[wght].ttf")
_DEBIAN_FALLBACKS = ("truetype/noto/NotoSansArabic-Regular.ttf", "truetype/noto/NotoSansHebrew-Regular.ttf",
                     "truetype/noto/NotoSansSymbols-Regular.ttf", "truetype/dejavu/DejaVuSans.ttf")
_CJK = ("truetype/wqy/wqy-microhei.ttc", "truetype/droid/DroidSansFallbackFull.ttf",
        "opentype/noto/NotoSansCJK-Regular.ttc")


@dataclass(frozen=True)
class FontFile:
    path: Path
    index: int = 0  # the face inside a .ttc collection


@dataclass(frozen=True)
class UnicodeFonts:
    regular: FontFile
    fallbacks: tuple[FontFile, ...]


def _package_dir(name: str) -> Path | None:
    try:
        module = __import__(name)
    except ImportError:
        return None
    return Path(module.__file__).parent if getattr(module, "__file__", None) else None


@functools.lru_cache(maxsize=1)
def unicode_fonts() -> UnicodeFonts | None:
    """The font files the PDF is set in, or None when no Unicode font is installed."""
    files: list[FontFile] = []
    noto = _package_dir("manimgx_fonts")
    regular = None
    if noto and (noto / "NotoSans[wght].ttf").is_file():
        regular = FontFile(noto / "NotoSans[wght].ttf")
        files += [FontFile(noto / f) for f in _NOTO_FALLBACKS if (noto / f).is_file()]
    files += [FontFile(_DEBIAN / f) for f in _DEBIAN_FALLBACKS if (_DEBIAN / f).is_file()]
    cjk = _package_dir("paperang_p2_fonts_cjk")
    if cjk and (cjk / "fonts" / "wqy-microhei.ttc").is_file():
        files.append(FontFile(cjk / "fonts" / "wqy-microhei.ttc"))
    files += [FontFile(_DEBIAN / f) for f in _CJK if (_DEBIAN / f).is_file()]
    if noto and (noto / "NotoEmoji[wght].ttf").is_file():
        files.append(FontFile(noto / "NotoEmoji[wght].ttf"))
    if regular is None:
        dejavu = _DEBIAN / "truetype/dejavu/DejaVuSans.ttf"
        if not dejavu.is_file():
            return None
        regular = FontFile(dejavu)
    return UnicodeFonts(regular, tuple(f for f in dict.fromkeys(files) if f != regular))


@functools.lru_cache(maxsize=64)
def coverage(font: FontFile) -> frozenset[int]:
    """The code points `font` has a glyph for."""
    from fontTools.ttLib import TTFont

    try:
        with TTFont(font.path, fontNumber=font.index, lazy=True) as f:
            return frozenset(f.getBestCmap() or {})
    except Exception:  # an unreadable font file is skipped, never fatal
        return frozenset()


def _fallbacks_for(fonts: UnicodeFonts, text: str) -> list[FontFile]:
    """The fallback fonts `text` needs: for each character the body font lacks, the first that has it."""
    wanted = {c for c in {ord(ch) for ch in set(text)} - coverage(fonts.regular)  # invisible characters need no glyph
              if unicodedata.category(chr(c)) not in ("Cc", "Cf", "Zs", "Zl", "Zp") and not 0xFE00 <= c <= 0xFE0F}
    chosen = []
    for font in fonts.fallbacks:
        if not wanted:
            break
        has = wanted & coverage(font)
        if has:
            chosen.append(font)
            wanted -= has
    return chosen


def needs_shaping(text: str) -> bool:
    """Whether `text` has anything a shaping engine changes: right-to-left or complex scripts,
    combining marks, joiners. Latin, Greek and Cyrillic alone are set faster without it."""
    return any(ord(ch) >= 0x0590 and not 0x2000 <= ord(ch) <= 0x2BFF and not 0x3000 <= ord(ch) <= 0x9FFF
               or unicodedata.category(ch).startswith("M") for ch in text)


def clean(text: object) -> str:
    """`text` for the Unicode fonts: control characters dropped (newline kept), tabs as spaces."""
    s = str(text if text is not None else "").replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    return _CONTROLS.sub("", s).replace("\u2028", "\n").replace("\u2029", "\n")


def _strings(value: object) -> list[str]:
    """Every string inside a dumped report (a superset of what the PDF prints)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


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
    from fpdf.enums import TextMode
    from fpdf.fonts import FontFace

    question = report.question_title or report.question_id
    heading = title or "Mock design round report"
    fonts = unicode_fonts()
    family = "body" if fonts else "Helvetica"
    norm = clean if fonts else latin1

    class _PDF(FPDF):
        def footer(self):
            self.set_y(-12)
            style_font("", 8)
            self.set_text_color(120)
            self.cell(0, 6, norm(f"{question} - page {self.page_no()}/{{nb}}"), align="C")
            self.set_text_color(0)

    pdf = _PDF(format="A4", unit="mm")
    if fonts:
        # One face, regular: bold is drawn by stroking it (style_font), and quotes are set off by
        # their colour rather than an italic face, so a plain report parses a single font file.
        pdf.add_font(family, "", fonts.regular.path, collection_font_number=fonts.regular.index)
        body = clean("\n".join([heading, question, *_strings(report.model_dump(mode="json"))]))
        names = []
        for i, font in enumerate(_fallbacks_for(fonts, body)):
            names.append(f"fallback{i}")
            pdf.add_font(names[-1], "", font.path, collection_font_number=font.index)
        if names:
            pdf.set_fallback_fonts(names, exact_match=False)
        if needs_shaping(body):
            try:
                pdf.set_text_shaping(True)  # uharfbuzz: Arabic joining, right-to-left order, marks
            except Exception:  # not installed: unshaped text still shows every character
                log.warning("uharfbuzz is not installed: right-to-left text in the PDF is not shaped")

    def style_font(style: str, size: float, color: int = 0) -> None:
        """Set the font. In the Unicode face, bold is fill plus a thin outline of the text colour and
        italic is upright (the caller's colour sets quotes apart)."""
        if not fonts:
            pdf.set_font(family, style, size)
            return
        pdf.set_font(family, "", size)
        if "B" in style:
            pdf.text_mode = TextMode.FILL_STROKE
            pdf.set_draw_color(color)
            pdf.set_line_width(size * 0.012)
        else:
            pdf.text_mode = TextMode.FILL

    pdf.set_title(norm(heading if title else f"{heading}: {question}"))
    pdf.set_author("interviewer")
    pdf.set_creator("interviewer (fpdf2)")
    pdf.set_margins(18, 16, 18)
    pdf.set_auto_page_break(True, margin=18)
    pdf.add_page()
    width = pdf.epw

    def text(s: object, size: float = 10, style: str = "", h: float | None = None, color: int = 0,
             indent: float = 0) -> None:
        style_font(style, size, color)
        pdf.set_text_color(color)
        pdf.set_x(pdf.l_margin + indent)
        pdf.multi_cell(width - indent, h or size * 0.5, norm(s), new_x="LMARGIN", new_y="NEXT")
        pdf.set_text_color(0)

    def section(name: str) -> None:
        pdf.ln(3)
        if pdf.will_page_break(20):
            pdf.add_page()
        text(name, 13, "B", h=7)
        style_font("", 10)
        pdf.set_draw_color(180)
        pdf.set_line_width(0.2)
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
        style_font("B", 10)
        pdf.cell(30, 5.5, norm(label + ":"))
        style_font("", 10)
        pdf.multi_cell(width - 30, 5.5, norm(value), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)

    # verdict
    pdf.set_fill_color(240, 243, 248)
    style_font("B", 14)
    pdf.cell(width, 10, norm(f"Overall {report.overall}/100    Level verdict: {report.level_verdict}"),
             fill=True, new_x="LMARGIN", new_y="NEXT")
    if report.down_level_risk:
        pdf.ln(2)
        text("Down-level risk", 11, "B", h=6, color=150)
        text(report.down_level_risk, 10, h=5)

    # criteria table
    section("Criteria")
    heading_style = FontFace(emphasis=None if fonts else "BOLD", fill_color=(225, 230, 238))
    style_font("", 9.5)
    with pdf.table(col_widths=(27, 12, 16, 45), text_align=("LEFT", "CENTER", "CENTER", "LEFT"),
                   line_height=5, headings_style=heading_style, padding=1.5) as table:
        row = table.row()
        for h in ("Criterion", "Required", "Score", "Reads as"):
            row.cell(h)
        for c in report.criteria:
            row = table.row()
            row.cell(norm(c.title))
            row.cell("yes" if c.required else "no")
            row.cell(norm(f"{c.score}/3 ({BAR.get(c.score, '?')})"))
            row.cell(norm(c.reads_as or "-"))

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
            pdf.text_mode = TextMode.FILL
            pdf.set_font("Courier", "", 8.5)  # the calculator's own lines: monospace, Latin-1
            pdf.set_x(pdf.l_margin + 4)
            pdf.multi_cell(width - 4, 4.4, latin1("- " + line), new_x="LMARGIN", new_y="NEXT")

    from interviewer.report import MAX_HEARD, claim_line, heard

    checked, rest = heard(report)
    if checked or rest:
        section("What we heard you claim")
        for c in checked:
            text("- " + claim_line(c), 9.5, h=4.8, color=30 if c.check.status == "ok" else 0)
        if rest:
            shown = rest[:MAX_HEARD]
            more = f"; and {len(rest) - len(shown)} more" if len(rest) > len(shown) else ""
            text("Also heard (not checked): " + "; ".join(claim_line(c) for c in shown) + more + ".", 9, h=4.6,
                 color=70)

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
