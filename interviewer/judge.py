"""The LLM judge at the end of a round, and its reconciliation with the deterministic grade.

`judge` asks the configured LLM for a JudgeVerdict: per criterion of the report a score 0-3,
quotes from the candidate's turns, and a rationale, plus an overall comment. Structured output
is "json_schema" where the server supports it (OpenAI, vLLM, llama.cpp's C++ llama-server) and
{"type": "json_object", "schema": ...} where it does not (llama-cpp-python's server); with
settings.structured_output "auto" the first is tried and a rejection of it (a 4xx, or a 5xx
that names the response format) switches to the second, remembered per endpoint. An
unparseable or empty answer is retried within the settings' budget; after that `judge` gives up
gracefully: no verdict, a one-line notice. It never raises for backend faults.

`reconcile` checks the verdict against the transcript, and this is the rule:
- A judge quote survives only if it is an exact substring of the candidate turn it cites (and at
  least MIN_QUOTE_CHARS long, so that a word or two cannot pass as evidence).
- The judge's score is clamped: never more than one level above the deterministic score, and
  not above it at all without a surviving quote. Below it is not clamped (the judge may be
  stricter than the cues).
- The final criterion score is always the deterministic one: it is reproducible and every
  point of it is backed by a quote the grader found. The judge's raw and clamped scores, its
  surviving quotes and rationale, and each disagreement are recorded in `report.judge` and shown
  beside the grade; `overall` and the level verdict do not move.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from tenacity import Retrying, retry_if_exception, stop_after_attempt
from tenacity.stop import stop_base

from interviewer.grader import Report
from interviewer.llm import (
    BackendSettings,
    ModelSource,
    _model_from,
    _short,
    chat_template,
    describe_error,
    make_chat_model,
    resolve_model,
    scrub,
)

MIN_QUOTE_CHARS = 12
MAX_QUOTES = 3
QUOTE_CHARS = 200          # bounds generation under json_object grammars
RATIONALE_CHARS = 300
COMMENT_CHARS = 600
TRANSCRIPT_TURN_CHARS = 4000

_mode_by_endpoint: dict[str, str] = {}   # "json_object" once an endpoint has rejected json_schema


class JudgeQuote(BaseModel):
    turn: int
    quote: str


class CriterionVerdict(BaseModel):
    score: int = Field(ge=0, le=3)
    quotes: list[JudgeQuote] = Field(default_factory=list)
    rationale: str = ""


class JudgeVerdict(BaseModel):
    criteria: dict[str, CriterionVerdict]   # keyed by the report's criterion ids
    comment: str = ""


@dataclass
class JudgeResult:
    verdict: JudgeVerdict | None
    notice: str | None = None            # one line, when the judge gave up
    model: str | None = None
    structured_output: str | None = None  # the mode that produced the verdict
    attempts: int = 0
    elapsed_s: float = 0.0
    failures: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Schema and prompt

def verdict_schema(criterion_ids: Iterable[str], *, bounded: bool = True) -> dict:
    """The JSON schema of a JudgeVerdict for these criteria, one required property per id.

    Built from pydantic models (with $refs inlined, which every server's grammar handles).
    bounded=True adds maxLength/maxItems (they keep a grammar-constrained local model from
    rambling); the strict json_schema sent to OpenAI omits them.
    """
    def text(limit: int):
        return Annotated[str, Field(max_length=limit)] if bounded else str

    strict = ConfigDict(extra="forbid")
    quote = create_model("Quote", __config__=strict, turn=(int, ...), quote=(text(QUOTE_CHARS), ...))
    quotes = Annotated[list[quote], Field(max_length=MAX_QUOTES)] if bounded else list[quote]
    criterion = create_model("Criterion", __config__=strict, score=(Literal[0, 1, 2, 3], ...),
                             quotes=(quotes, ...), rationale=(text(RATIONALE_CHARS), ...))
    ids = list(criterion_ids)
    criteria = create_model("Criteria", __config__=strict, **{cid: (criterion, ...) for cid in ids})
    verdict = create_model("Verdict", __config__=strict, criteria=(criteria, ...), comment=(text(COMMENT_CHARS), ...))
    return _inline(verdict.model_json_schema())


def _inline(schema: dict) -> dict:
    """The schema with every $ref replaced by its definition and titles dropped (shorter prompts)."""
    defs = schema.pop("$defs", {})

    def walk(node):
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
            return {k: walk(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


def _turns(transcript: Any) -> list[tuple[str, str]]:
    turns = getattr(transcript, "turns", transcript)
    out = []
    for t in turns:
        if isinstance(t, dict):
            out.append((str(t.get("role", "")), str(t.get("text", ""))))
        else:
            out.append((str(getattr(t, "role", "")), str(getattr(t, "text", ""))))
    return out


def _criteria_block(report: Report) -> str:
    try:
        from interviewer.rubric import load_rubric
        anchors = {cid: c.anchors for cid, c in load_rubric().criteria.items()}
    except Exception:  # the judge still works from the report alone
        anchors = {}
    lines = []
    for c in report.criteria:
        a = anchors.get(c.id, {})
        scale = " ".join(f"{k}: {a[k]}" for k in sorted(a)) if a else ""
        lines.append(f"- {c.id}: {c.title}. {c.reads_as}".rstrip() + (f" Anchors: {scale}" if scale else ""))
    return "\n".join(lines)


def _transcript_block(transcript: Any) -> str:
    lines = []
    for i, (role, text) in enumerate(_turns(transcript)):
        text = text if len(text) <= TRANSCRIPT_TURN_CHARS else text[:TRANSCRIPT_TURN_CHARS] + " [cut]"
        lines.append(f"[{i}] {role}: {text}")
    return "\n".join(lines)


def build_judge_messages(report: Report, transcript: Any, schema: dict | None = None):
    """The judge's chat messages: rules (system), then criteria, transcript and schema."""
    schema = schema or verdict_schema([c.id for c in report.criteria])
    template = chat_template("judge_system.md", "judge_user.md")
    return template.format_messages(
        question_title=report.question_title or report.question_id,
        company=report.company or "(not given)",
        level=report.level or "(not given)",
        criteria=_criteria_block(report),
        transcript=_transcript_block(transcript),
        schema=json.dumps(schema, separators=(",", ":")),
    )


# --------------------------------------------------------------------------------------------
# Calling the model

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def parse_verdict(content: str, criterion_ids: Iterable[str] | None = None) -> JudgeVerdict | None:
    """A JudgeVerdict from the model's text, or None when it is not one (garbage)."""
    text = _FENCE.sub("", (content or "").strip()).strip()
    if "{" in text and not text.startswith("{"):
        text = text[text.index("{"):]
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        try:  # trailing prose after the object
            data, _ = json.JSONDecoder().raw_decode(text)
        except (json.JSONDecodeError, ValueError):
            return None
    if isinstance(data, dict) and "criteria" in data and isinstance(data["criteria"], list):
        # tolerate a list of {"id": ...} objects
        data = {**data, "criteria": {c.get("id"): c for c in data["criteria"] if isinstance(c, dict)}}
    try:
        verdict = JudgeVerdict.model_validate(data)
    except ValidationError:
        return None
    if criterion_ids is not None:
        ids = set(criterion_ids)
        verdict.criteria = {k: v for k, v in verdict.criteria.items() if k in ids}
    if not verdict.criteria:
        return None
    return verdict


def _response_format(mode: str, schema: dict, strict_schema: dict, backend: str = "local") -> dict:
    if mode == "json_schema":
        return {"type": "json_schema",
                "json_schema": {"name": "judge_verdict", "schema": strict_schema, "strict": True}}
    if backend == "openai":  # OpenAI's json_object takes no schema; the prompt carries it
        return {"type": "json_object"}
    return {"type": "json_object", "schema": schema}


def _schema_rejected(exc: BaseException) -> bool:
    """Did the server reject the json_schema response format (rather than fail otherwise)?"""
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return False
    code = exc.status_code
    text = str(getattr(exc, "message", "")) + " " + str(getattr(exc, "body", ""))
    names_format = any(w in text.lower() for w in ("json_schema", "response_format", "json_object"))
    return (400 <= code < 500 and code not in (401, 403, 408, 429)) or (code >= 500 and names_format)


class _NoVerdict(Exception):
    """The model answered, but not with a verdict: worth another attempt."""


def _worth_retrying(exc: BaseException) -> bool:
    """Retry garbage and transient faults; a rejected key, a bad request or a missing model will not change."""
    import openai

    return not (isinstance(exc, openai.APIStatusError) and exc.status_code in (400, 401, 403, 404, 422))


class _past(stop_base):
    """A tenacity stop condition: no new attempt once the judgement's one time budget is spent."""

    def __init__(self, deadline: float):
        self.deadline = deadline

    def __call__(self, retry_state) -> bool:
        return time.monotonic() >= self.deadline


def _scrub_verdict(verdict: JudgeVerdict, settings: BackendSettings) -> JudgeVerdict:
    verdict.comment = scrub(verdict.comment, settings)
    for cv in verdict.criteria.values():
        cv.rationale = scrub(cv.rationale, settings)
    return verdict


def judge(settings: BackendSettings, report: Report, transcript: Any, *, model: ModelSource = None) -> JudgeResult:
    """Ask the LLM for a JudgeVerdict on the round. Never raises for backend faults.

    `model` injects a LangChain chat model (or a zero-argument factory) for tests. The offline
    backend has no judge: the result has no verdict and no notice.
    """

    start = time.monotonic()
    if settings.backend == "offline":
        return JudgeResult(verdict=None)
    ids = [c.id for c in report.criteria]
    schema, strict_schema = verdict_schema(ids), verdict_schema(ids, bounded=False)
    try:
        messages = build_judge_messages(report, transcript, schema)
    except Exception as exc:
        return JudgeResult(verdict=None, notice=f"The LLM judge was skipped: {exc}.")
    mode = settings.structured_output
    if mode == "auto":
        mode = _mode_by_endpoint.get(settings.endpoint, "json_schema")
    budget_end = start + settings.judge_timeout_s  # one bound for the whole judgement, retries included
    failures: list[str] = []
    model_name = settings.model

    def attempt() -> JudgeVerdict:
        nonlocal mode, model_name
        while True:  # at most twice: a json_schema rejection is a capability probe, not a retry
            rf = _response_format(mode, schema, strict_schema, settings.backend)
            try:
                if model is not None:
                    chat = _model_from(model, settings)
                else:
                    model_name = resolve_model(settings)
                    chat = make_chat_model(settings, streaming=False, max_tokens=settings.judge_max_tokens,
                                           timeout_s=max(1.0, budget_end - time.monotonic()),
                                           temperature=0.0, extra_body={"response_format": rf})
                message = chat.invoke(messages)
                break
            except Exception as exc:
                if settings.structured_output == "auto" and mode == "json_schema" and _schema_rejected(exc):
                    mode = _mode_by_endpoint[settings.endpoint] = "json_object"
                    continue
                failures.append(describe_error(exc, settings, settings.judge_timeout_s))
                raise
        content = message.content if isinstance(message.content, str) else str(message.content)
        verdict = parse_verdict(content, ids)
        if verdict is None:
            failures.append(f"not a verdict: {_short(content, 60)!r}" if content.strip() else "an empty reply")
            raise _NoVerdict()
        return verdict

    retrying = Retrying(stop=stop_after_attempt(settings.max_retries + 1) | _past(budget_end),
                        retry=retry_if_exception(_worth_retrying), reraise=True)
    try:
        verdict = retrying(attempt)
    except Exception:  # every fault is a line in `failures`; the report stands on its own
        verdict = None
    attempts = retrying.statistics.get("attempt_number", 1)
    if verdict is not None:
        return JudgeResult(verdict=_scrub_verdict(verdict, settings), model=model_name,
                           structured_output=mode, attempts=attempts,
                           elapsed_s=time.monotonic() - start, failures=failures)
    last = failures[-1] if failures else "no answer"
    notice = scrub(f"The LLM judge gave no usable verdict ({last}); the report is the built-in grade alone.",
                   settings)
    return JudgeResult(verdict=None, notice=notice, model=model_name, structured_output=mode,
                       attempts=attempts, elapsed_s=time.monotonic() - start, failures=failures)


# --------------------------------------------------------------------------------------------
# Reconciliation

def _surviving_quotes(quotes: list[JudgeQuote], turns: list[tuple[str, str]]) -> tuple[list[JudgeQuote], int]:
    kept, dropped, seen = [], 0, set()
    for q in quotes:
        ok = (0 <= q.turn < len(turns) and turns[q.turn][0] == "candidate"
              and len(q.quote.strip()) >= MIN_QUOTE_CHARS and q.quote in turns[q.turn][1])
        if not ok:
            dropped += 1
        elif (q.turn, q.quote) not in seen:
            seen.add((q.turn, q.quote))
            kept.append(q)
    return kept, dropped


def reconcile(report: Report, verdict: JudgeVerdict, transcript: Any, model: str | None = None) -> Report:
    """A copy of `report` with the judge's verdict checked and recorded in `report.judge`.

    Criterion scores, `overall` and the level verdict stay the deterministic ones (see the
    module docstring for the rule). report.judge = {"model", "rule", "scores": {id: {...}},
    "disagreements": [...], "dropped_quotes": n, "comment"}.
    """
    turns = _turns(transcript)
    out = report.model_copy(deep=True)
    scores: dict[str, dict] = {}
    disagreements: list[str] = []
    dropped_total = 0
    for c in out.criteria:
        cv = verdict.criteria.get(c.id)
        if cv is None:
            disagreements.append(f"{c.title}: the judge gave no score (deterministic {c.score}).")
            continue
        kept, dropped = _surviving_quotes(cv.quotes, turns)
        dropped_total += dropped
        det, raw = c.score, cv.score
        if raw > det and not kept:
            clamped = det
            reason = ("the judge scored above the evidence with no quote that checks out against "
                      "the transcript; held at the deterministic score")
        elif raw > det + 1:
            clamped = det + 1
            reason = f"the judge was {raw - det} levels above the evidence; capped at one level above"
        else:
            clamped = raw
            reason = ("one level above, backed by a quote: within the allowed band" if raw > det else
                      "the judge was stricter than the evidence cues" if raw < det else "")
        scores[c.id] = {"deterministic": det, "judge": raw, "clamped": clamped, "final": det,
                        "quotes": [q.model_dump() for q in kept], "dropped_quotes": dropped,
                        "rationale": cv.rationale.strip()}
        if raw != det:
            disagreements.append(f"{c.title}: deterministic {det}, judge {raw}, clamped {clamped} ({reason}).")
    out.judge = {
        "model": model,
        "rule": "final score = deterministic score; the judge's score is clamped to at most one level "
                "above it (none above without a verified quote) and shown beside it",
        "scores": scores,
        "disagreements": disagreements,
        "dropped_quotes": dropped_total,
        "comment": verdict.comment.strip(),
    }
    return out


def judge_round(settings: BackendSettings, report: Report, transcript: Any, *,
                model: ModelSource = None) -> tuple[Report, str | None]:
    """Judge and reconcile in one call: (the report, with `judge` filled when a verdict came, notice)."""
    result = judge(settings, report, transcript, model=model)
    if result.verdict is None:
        return report, result.notice
    return reconcile(report, result.verdict, transcript, model=result.model), result.notice
