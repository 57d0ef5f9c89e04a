"""Rendering a graded report: JSON (the public contract) and Markdown."""
from __future__ import annotations

from interviewer.grader import Report

BAR = {0: "absent", 1: "mentioned", 2: "derived", 3: "defended"}


def to_json(report: Report) -> dict:
    return report.model_dump(mode="json")


def _md_escape(text: str) -> str:
    """Quotes are the candidate's words: keep them literal inside Markdown."""
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_").replace("`", "\\`").replace("<", "&lt;")


def to_markdown(report: Report) -> str:
    head = report.question_title or report.question_id
    lines = [f"# Round report: {head}", ""]
    meta = [f"**Overall:** {report.overall}/100", f"**Level verdict:** {report.level_verdict}"]
    if report.company:
        meta.append(f"**Company:** {report.company}")
    if report.level:
        meta.append(f"**Target level:** {report.level}")
    lines += [" · ".join(meta), ""]
    if report.down_level_risk:
        lines += [f"> **Down-level risk.** {report.down_level_risk}", ""]
    lines += ["## Criteria", "", "| Criterion | Required | Score |", "|---|---|---|"]
    for c in report.criteria:
        lines.append(f"| {c.title} | {'yes' if c.required else 'no'} | {c.score}/3 ({BAR[c.score]}) |")
    lines.append("")
    for c in report.criteria:
        lines += [f"### {c.title}: {c.score}/3", "", f"*Reads as:* {c.reads_as}", ""]
        for q in c.evidence:
            lines.append(f"> (turn {q.turn}) {_md_escape(q.quote)}")
            lines.append("")
        lines += [c.feedback, ""]
    if report.capacity_check:
        cc = report.capacity_check
        lines += ["## Capacity check", "", cc.summary() + ".", ""]
        lines += [f"- {t}" for t in cc.arithmetic]
        lines.append("")
    if report.pitfalls:
        lines += ["## Pitfalls", ""]
        for p in report.pitfalls:
            lines.append(f"- **{p.title}** (turn {p.turn}): \"{_md_escape(p.quote)}\" {p.feedback}")
        lines.append("")
    if report.ignored_instructions:
        lines += ["## Ignored", "", "Text addressed to the grader was not scored:", ""]
        lines += [f"- (turn {q.turn}) \"{_md_escape(q.quote)}\"" for q in report.ignored_instructions]
        lines.append("")
    if report.judge:
        lines += ["## LLM judge", ""]
        for d in report.judge.get("disagreements", []):
            lines.append(f"- {d}")
        lines.append("")
    lines += ["## Next steps", ""]
    lines += [f"{i}. {s}" for i, s in enumerate(report.next_steps, 1)]
    return "\n".join(lines).rstrip() + "\n"
