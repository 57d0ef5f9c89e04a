"""Rendering a graded report: JSON (the public contract) and Markdown.

Everything in the Markdown that is not our own markup is data: the candidate's quotes, and also
feedback, titles and judge notes that may repeat the candidate's words. It goes through `md_text`,
which drops control characters and backslash-escapes whatever Markdown (CommonMark + GFM) would
act on, so an answer containing `![a](http://host/x)`, `<img ...>`, a bare URL or an e-mail
address stays text in any renderer: no image is fetched and no link is made.
"""
from __future__ import annotations

import re

from interviewer.grader import Report

BAR = {0: "absent", 1: "mentioned", 2: "derived", 3: "defended"}

# C0 controls (ESC, BEL, NUL, ...) except tab and newline, DEL and the C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Characters that start or close inline Markdown wherever they stand: emphasis, code, links and
# images ([ ]), raw HTML and autolinks (< >), entities (&), tables (|), strikethrough (~), math ($).
_INLINE = re.compile(r"([\\`*_\[\]<>&|~$])")
# GFM autolink literals (http://, https://, www., e-mail addresses): break the trigger.
_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9])(:)(?=//)|(?<=\bwww)(\.)|(@)")
# Block syntax that only acts at the start of a line: headings, quotes, lists, rules, setext lines.
_LINE_START = re.compile(r"^(\s*)(?:([#>+=-])|(\d+)([.)]))", re.M)


def strip_controls(text: str) -> str:
    """`text` without control characters (tab and newline stay; CR becomes a newline)."""
    return _CONTROL.sub("", (text or "").replace("\r\n", "\n").replace("\r", "\n"))


def md_text(text: object, *, inline: bool = True) -> str:
    """`text` as literal Markdown: control characters dropped, Markdown syntax escaped.

    `inline` (the default) also folds line breaks and runs of blanks into single spaces, so the
    value stays inside the line it is put in (a quote in a blockquote, a list item)."""
    s = strip_controls(str(text if text is not None else ""))
    if inline:
        s = " ".join(s.split())
    s = _INLINE.sub(r"\\\1", s)
    s = _AUTOLINK.sub(lambda m: "\\" + m.group(0), s)
    return _LINE_START.sub(_escape_line_start, s)


def _escape_line_start(m: re.Match) -> str:
    if m.group(2):  # '# ', '> ', '- ', ...
        return m.group(1) + "\\" + m.group(2)
    return m.group(1) + m.group(3) + "\\" + m.group(4)  # '1. ' or '1) ': escape the '.' (a digit cannot be)


# Outside code spans: what can link, embed or fetch (brackets, raw HTML and autolinks, entities), the
# backslash (so an escape of ours cannot be undone) and $ (never math). Emphasis and lists are kept.
_FETCHING = re.compile(r"([\\\[\]<>&$])")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:.|\n)*?(?<!`)\1(?!`)")


def md_inert(text: object) -> str:
    """Markdown someone else wrote (an interviewer reply that may quote the candidate, an LLM's
    words) made safe to render: bold, italics, lists and code stay; links, images, raw HTML,
    autolinks, entities and math become literal text. Control characters go."""
    s = strip_controls(str(text if text is not None else ""))
    out, last = [], 0
    for m in _CODE_SPAN.finditer(s):  # code spans render literally already
        out.append(_inert(s[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_inert(s[last:]))
    return "".join(out)


def _inert(s: str) -> str:
    s = _FETCHING.sub(r"\\\1", s)
    return _AUTOLINK.sub(lambda m: "\\" + m.group(0), s)


def _md_escape(text: str) -> str:  # the name older callers used
    return md_text(text)


def to_json(report: Report) -> dict:
    return report.model_dump(mode="json")


# ------------------------------------------------------------------- "What we heard you claim"

CHECK_WORDS = {"ok": "checks out", "wrong": "does not check out", "impossible": "is not physically possible",
               "unchecked": "not checked"}
MAX_HEARD = 40


def heard(report: Report) -> tuple[list, list]:
    """The candidate's figures the report shows: those a check ruled on (or explained why it could
    not), wrong ones first, and the rest, in the order they were said."""
    checked = [c for c in report.claims if c.check is not None and (c.check.status != "unchecked" or c.check.explanation)]
    order = {"impossible": 0, "wrong": 1, "ok": 2, "unchecked": 3}
    checked.sort(key=lambda c: (order.get(c.check.status, 9), c.turn))
    rest = [c for c in report.claims if c not in checked]
    return checked, rest


def claim_line(c) -> str:
    """One claim as a sentence: what was said, what it was read as, and the check."""
    flag = " (you said you would not)" if c.negated else " (a what-if)" if c.hypothetical else ""
    head = f"(turn {c.turn}) \"{' '.join(c.span.split())}\" - {c.label or c.kind.replace('_', ' ')}{flag}"
    if c.check is None:
        return head
    return f"{head}: {CHECK_WORDS.get(c.check.status, c.check.status)}. {c.check.explanation}".rstrip()


def to_markdown(report: Report) -> str:
    """The report as Markdown. Only the headings, labels and layout are markup; every value is
    passed through `md_text`."""
    t = md_text
    head = report.question_title or report.question_id
    lines = [f"# Round report: {t(head)}", ""]
    meta = [f"**Overall:** {report.overall}/100", f"**Level verdict:** {t(report.level_verdict)}"]
    if report.company:
        meta.append(f"**Company:** {t(report.company)}")
    if report.level:
        meta.append(f"**Target level:** {t(report.level)}")
    lines += [" · ".join(meta), ""]
    if report.down_level_risk:
        lines += [f"> **Down-level risk.** {t(report.down_level_risk)}", ""]
    lines += ["## Criteria", "", "| Criterion | Required | Score |", "|---|---|---|"]
    for c in report.criteria:
        lines.append(f"| {t(c.title)} | {'yes' if c.required else 'no'} | {c.score}/3 ({BAR.get(c.score, '?')}) |")
    lines.append("")
    for c in report.criteria:
        lines += [f"### {t(c.title)}: {c.score}/3", "", f"*Reads as:* {t(c.reads_as)}", ""]
        for q in c.evidence:
            lines.append(f"> (turn {q.turn}) {t(q.quote)}")
            lines.append("")
        lines += [t(c.feedback), ""]
    if report.capacity_check:
        cc = report.capacity_check
        lines += ["## Capacity check", "", t(cc.summary() + "."), ""]
        lines += [f"- {t(line)}" for line in cc.arithmetic]
        lines.append("")
    checked, rest = heard(report)
    if checked or rest:
        lines += ["## What we heard you claim", ""]
        lines += [f"- {t(claim_line(c))}" for c in checked]
        if rest:
            shown = rest[:MAX_HEARD]
            also = "; ".join(claim_line(c) for c in shown)
            more = f"; and {len(rest) - len(shown)} more" if len(rest) > len(shown) else ""
            lines += ["", f"Also heard (not checked): {t(also + more)}."]
        lines.append("")
    if report.pitfalls:
        lines += ["## Pitfalls", ""]
        for p in report.pitfalls:
            lines.append(f"- **{t(p.title)}** (turn {p.turn}): \"{t(p.quote)}\" {t(p.feedback)}")
        lines.append("")
    if report.ignored_instructions:
        lines += ["## Ignored", "", "Text addressed to the grader was not scored:", ""]
        lines += [f"- (turn {q.turn}) \"{t(q.quote)}\"" for q in report.ignored_instructions]
        lines.append("")
    if report.judge:
        lines += ["## LLM judge", ""]
        for d in report.judge.get("disagreements", []):
            lines.append(f"- {t(d)}")
        lines.append("")
    lines += ["## Next steps", ""]
    lines += [f"{i}. {t(s)}" for i, s in enumerate(report.next_steps, 1)]
    return "\n".join(lines).rstrip() + "\n"
