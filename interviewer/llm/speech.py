"""Speaking one turn: stream the LLM's wording of a move with a bounded retry, else the built-in text."""

from __future__ import annotations

import functools
import queue
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from interviewer.errors import UserError
from interviewer.llm.client import (
    _guess_model,
    _model_from,
    _short,
    describe_error,
)
from interviewer.llm.prompts import build_messages
from interviewer.llm.redact import scrub
from interviewer.llm.settings import BackendSettings, ModelSource
from interviewer.moves import Move

# --------------------------------------------------------------------------------------------
# Streaming

def _content_text(chunk: Any) -> str:
    content = getattr(chunk, "content", chunk)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return ""


def _finish_reason(chunk: Any) -> str | None:
    meta = getattr(chunk, "response_metadata", None) or {}
    return meta.get("finish_reason")


def clean_text(text: str) -> str:
    """Drop control characters (keeping newlines and tabs) from model output."""
    if not text or text.isprintable():
        return text
    return "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) != "Cc")


def is_garbage(text: str) -> bool:
    """Empty, only whitespace/control characters, or no letter or digit at all."""
    return not any(ch.isalnum() for ch in clean_text(text))


# "Interviewer:", "**Interviewer:**", "[interviewer]", "The interviewer:" at the start of a reply
_ROLE_PREFIX = re.compile(r"^\s*(?:the\s+)?(?:\*\*)?(?:\[(?:interviewer|assistant)\]|(?:interviewer|assistant)\s*:)"
                          r"(?:\*\*)?:?\s*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.?!…](?:[\"')\]]*)(?=\s|$)")


def _strip_role_labels(text: str) -> str:
    """`text` without the role labels it opens with ("The interviewer: **Interviewer:**"), at most three."""
    for _ in range(3):
        text, n = _ROLE_PREFIX.subn("", text, count=1)
        if not n:
            break
    return text


def finish_text(text: str, finish_reason: str | None = None) -> str:
    """The turn as stored: trimmed, without a role label; a reply cut off by the token limit
    ("length") is cut back to its last complete sentence (empty if there is none)."""
    text = _strip_role_labels(clean_text(text).strip()).strip()
    if finish_reason == "length":
        ends = list(_SENTENCE_END.finditer(text))
        text = text[: ends[-1].end()].strip() if ends else ""
    return text




class _LabelGate:
    """Holds back the start of a streamed reply until it is clear whether it opens with a role label ("The
    interviewer:"), so the text shown while it streams is the text the turn keeps (finish_text drops the label)."""

    _DECIDE_AT = 40  # characters: longer than any label _ROLE_PREFIX matches

    def __init__(self) -> None:
        self.held = ""
        self.open = False

    def feed(self, text: str) -> str:
        if self.open:
            return text
        self.held += text
        start = self.held.lstrip()
        if len(start) < self._DECIDE_AT and ":" not in start and "]" not in start:
            return ""
        return self._release()

    def flush(self) -> str:
        return "" if self.open else self._release()

    def _release(self) -> str:
        text = _strip_role_labels(self.held)
        if text.strip():
            self.open = True  # (a label said alone waits for the words after it)
            return text.lstrip()
        self.held = text
        return ""


def stream_reply(settings: BackendSettings, move: Move, history: Iterable[Any], question_title: str,
                 company: str | None = None, *, model: ModelSource = None) -> Iterator[str]:
    """Stream the LLM's wording of `move`, chunk by chunk. Raw: backend errors propagate.

    `model` injects a LangChain chat model (or a factory) in place of make_chat_model(settings).
    """
    messages = build_messages(move, history, question_title, company)
    chat = _model_from(model, settings)
    for chunk in chat.stream(messages):
        text = clean_text(_content_text(chunk))
        if text:
            yield text


# --------------------------------------------------------------------------------------------
# speak: streaming with a bounded retry budget and a fallback

@dataclass
class SpeakOutcome:
    text: str                                   # the turn as it should be stored and shown
    source: Literal["llm", "fallback", "offline", "replaced"]  # replaced: failed a check (llm.guard)
    notice: str | None = None                   # one line, when the fallback took the turn
    attempts: int = 0
    elapsed_s: float = 0.0
    ttft_s: float | None = None                 # time to the first text of the reply used
    model: str | None = None
    failures: list[str] = field(default_factory=list)   # each failed attempt, in plain words


class _AttemptFailed(Exception):
    def __init__(self, kind: str, detail: str, retryable: bool = True):
        super().__init__(detail)
        self.kind, self.detail, self.retryable = kind, detail, retryable


class _Worker:
    """Runs one model.stream() in a thread so the caller can hold it to a deadline."""

    def __init__(self, factory: Callable[[], Any], messages: list):
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        self.cancel = threading.Event()
        self.is_openai = False
        self._factory, self._messages = factory, messages
        self._thread = threading.Thread(target=self._run, name="interviewer-llm", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            chat = self._factory()
            # An OpenAI-protocol stream ends with a finish reason; one without it broke off.
            self.is_openai = any(c.__name__ == "BaseChatOpenAI" for c in type(chat).__mro__)
            stream = chat.stream(self._messages)
            try:
                for chunk in stream:
                    if self.cancel.is_set():
                        break
                    self.events.put(("chunk", chunk))
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
            self.events.put(("end", None))
        except BaseException as exc:  # handed to the caller's thread, classified there
            self.events.put(("error", exc))


def _classify(exc: BaseException, settings: BackendSettings, started: bool) -> _AttemptFailed:
    import openai

    if isinstance(exc, _AttemptFailed):
        return exc
    detail = describe_error(exc, settings)
    if isinstance(exc, openai.APITimeoutError):
        return _AttemptFailed("timeout", detail)
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        return _AttemptFailed("status", detail, retryable=code in (408, 409, 429) or code >= 500)
    if isinstance(exc, UserError):
        return _AttemptFailed("config", str(exc), retryable=False)
    if isinstance(exc, ValueError) and "No generation chunks" in str(exc):  # LangChain: an empty stream
        return _AttemptFailed("garbage", "an empty reply")
    if started:
        return _AttemptFailed("broken", detail)
    if isinstance(exc, openai.APIConnectionError):
        return _AttemptFailed("connection", detail)
    return _AttemptFailed("error", detail)


def _notice(failure: _AttemptFailed, settings: BackendSettings, broke_earlier: bool = False) -> str:
    who = f"The {settings.label}"
    tail = "; the built-in interviewer took this turn."
    if broke_earlier and failure.kind != "broken":
        return scrub(f"{who}'s reply broke off mid-stream and the retry failed ({failure.detail}){tail}", settings)
    if failure.kind == "timeout":
        return f"{who} did not answer in {settings.timeout_s:g} s{tail}"
    if failure.kind == "garbage":
        return f"{who} returned an empty or unreadable reply{tail}"
    if failure.kind == "broken":
        return f"{who}'s reply broke off mid-stream{tail}"
    return scrub(f"{who} failed ({failure.detail}){tail}", settings)


class Speech:
    """One interviewer turn being spoken: iterate `chunks()` to stream it, then read `outcome`.

    `chunks()` yields text as it arrives. If an attempt fails after some text was yielded, the
    text so far is void: `text` (the current visible text) is reset to "" and then shows the
    retry's reply or the fallback. A UI that streams into a placeholder should render `text`
    after each chunk; whatever it showed, the turn to store is `outcome.text`. Reading
    `outcome` before streaming runs the whole turn.
    """

    def __init__(self, settings: BackendSettings, move: Move, history: Iterable[Any], question_title: str,
                 company: str | None, fallback_text: str, *, model: ModelSource = None,
                 clock: Callable[[], float] = time.monotonic):
        self.settings = settings
        self.fallback_text = fallback_text
        self.text = ""
        self.restarts = 0
        self._move, self._history, self._title, self._company = move, list(history), question_title, company
        self._model = model
        self._clock = clock
        self._outcome: SpeakOutcome | None = None
        self._iterating = False

    def __iter__(self) -> Iterator[str]:
        return self.chunks()

    @property
    def outcome(self) -> SpeakOutcome:
        if self._outcome is None:
            for _ in self.chunks():
                pass
        assert self._outcome is not None
        return self._outcome

    def chunks(self) -> Iterator[str]:
        if self._outcome is not None or self._iterating:
            # Already spoken (or being spoken elsewhere): replay the final text as one chunk.
            if self._outcome is not None and self._outcome.text:
                yield self._outcome.text
            return
        self._iterating = True
        try:
            yield from self._speak()
        finally:
            self._iterating = False
            if self._outcome is None:  # the consumer stopped early: still a whole turn
                self._outcome = SpeakOutcome(text=self.fallback_text, source="fallback",
                                             notice=None, failures=["stream abandoned by the caller"])

    # -- internals ----------------------------------------------------------------------------

    def _speak(self) -> Iterator[str]:
        settings = self.settings
        start = self._clock()
        if settings.backend == "offline":
            self.text = self.fallback_text
            self._outcome = SpeakOutcome(text=self.fallback_text, source="offline")
            if self.fallback_text:
                yield self.fallback_text
            return
        # One timeout bounds the whole turn, retries included: the notice's figure is the wait.
        budget_end = start + settings.timeout_s
        try:
            messages = build_messages(self._move, self._history, self._title, self._company)
        except Exception as exc:  # a template fault must not cost the candidate the turn
            failure = _AttemptFailed("config", f"prompt assembly failed: {exc}", retryable=False)
            yield from self._fall_back(failure, [failure.detail], 0, start)
            return
        failures: list[str] = []
        failure: _AttemptFailed | None = None
        broke = False
        attempts = 0
        model_name: str | None = settings.model
        while attempts <= settings.max_retries:
            now = self._clock()
            if attempts and (now >= budget_end or (failure is not None and not failure.retryable)):
                break
            attempts += 1
            attempt_start = now
            deadline = min(attempt_start + settings.timeout_s, budget_end)
            worker = _Worker(functools.partial(_model_from, self._model, settings), messages)
            parts: list[str] = []
            first_at: float | None = None
            finish: str | None = None
            label = _LabelGate()
            try:
                while True:
                    wait = deadline - self._clock()
                    if wait <= 0:
                        raise _AttemptFailed("timeout", f"timed out after {settings.timeout_s:g} s")
                    try:
                        kind, payload = worker.events.get(timeout=wait)
                    except queue.Empty:
                        raise _AttemptFailed("timeout", f"timed out after {settings.timeout_s:g} s") from None
                    if kind == "error":
                        raise _classify(payload, settings, started=bool(parts))
                    if kind == "end":
                        break
                    finish = _finish_reason(payload) or finish
                    text = clean_text(_content_text(payload))
                    if not text:
                        continue
                    if first_at is None:
                        first_at = self._clock()
                    parts.append(text)
                    deadline = min(self._clock() + settings.timeout_s, budget_end)
                    shown = label.feed(text)
                    if shown:
                        self.text += shown
                        yield shown
                shown = label.flush()
                if shown:
                    self.text += shown
                    yield shown
                raw = "".join(parts)
                if worker.is_openai and finish is None:
                    raise _AttemptFailed("broken", "the stream ended without a finish reason")
                final = finish_text(raw, finish)
                if is_garbage(final):
                    raise _AttemptFailed("garbage", "empty or unreadable reply" if not raw.strip()
                                         else f"unreadable reply ({_short(raw, 40)!r})")
                self.text = final
                self._outcome = SpeakOutcome(
                    text=final, source="llm", attempts=attempts, elapsed_s=self._clock() - start,
                    ttft_s=(first_at - attempt_start) if first_at is not None else None,
                    model=model_name or _guess_model(settings), failures=failures)
                return
            except _AttemptFailed as exc:
                failure = exc
            finally:  # also when the caller stops iterating (GeneratorExit): the worker winds down
                worker.cancel.set()
            failures.append(scrub(failure.detail, settings))
            broke = broke or failure.kind == "broken"
            if parts:
                self.restarts += 1
                self.text = ""
        assert failure is not None
        yield from self._fall_back(failure, failures, attempts, start, broke_earlier=broke)

    def _fall_back(self, failure: _AttemptFailed, failures: list[str], attempts: int,
                   start: float, broke_earlier: bool = False) -> Iterator[str]:
        self.text = self.fallback_text
        self._outcome = SpeakOutcome(
            text=self.fallback_text, source="fallback",
            notice=_notice(failure, self.settings, broke_earlier),
            attempts=attempts, elapsed_s=self._clock() - start, model=self.settings.model,
            failures=failures)
        if self.fallback_text:
            yield self.fallback_text




def speak(settings: BackendSettings, move: Move, history: Iterable[Any], question_title: str,
          company: str | None, fallback_text: str, *, model: ModelSource = None) -> Speech:
    """Phrase `move` with the configured LLM, streaming; fall back to `fallback_text` on faults.

    Returns a Speech: `for chunk in speech.chunks(): ...` streams, then `speech.outcome` is a
    SpeakOutcome (text, source "llm"/"fallback"/"offline", notice, attempts, timings). Never
    raises for backend faults. The offline backend yields `fallback_text` unchanged.
    """
    return Speech(settings, move, history, question_title, company, fallback_text, model=model)


class LLMVoice:
    """The session's voice when an LLM phrases the policy's moves (interviewer.session.Voice)."""

    uses_llm = True

    def __init__(self, settings: BackendSettings, *, model: ModelSource = None):
        self.settings, self.model = settings, model

    def speak(self, move: Move, state: Any, fallback: str):
        """The LLM's wording of `move`, each sentence checked before it is shown (llm.guard)."""
        from interviewer.interview import question_of
        from interviewer.llm.guard import GuardedSpeech

        speech = speak(self.settings, move, state.turns, question_of(state).title, state.company, fallback,
                       model=self.model)
        return GuardedSpeech(speech, move, state.turns, fallback)


def budget_s(settings: BackendSettings) -> float:
    """The most seconds `speak` waits on the backend before the fallback takes the turn: one
    timeout for the whole turn, retries included."""
    return settings.timeout_s
