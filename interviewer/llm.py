"""The LLM voice: backend settings, the chat model, a connection check, and `speak`.

The deterministic policy decides each Move; an LLM, when one is configured, only phrases it.
Three backends: "offline" (the built-in templates of interviewer.voice, no model at all),
"openai" (OPENAI_API_KEY) and "local" (any OpenAI-compatible server named by OPENAI_BASE_URL:
vLLM, llama.cpp, Ollama).

`speak` is what a round calls. It streams the LLM's wording of a move and never raises for a
backend fault: a refused connection, a timeout, an empty or unreadable reply, or a stream that
breaks off is retried within a bounded budget (`max_retries` extra attempts, all of them inside
`timeout_s * (max_retries + 1)` seconds of waiting), and then the built-in interviewer's text,
which the caller passes as `fallback_text`, takes the turn, with a one-line notice. The final
text of a turn is either a complete LLM reply or the fallback, never half of a reply.

Prompts live in interviewer/prompts/*.md (LangChain f-string templates). API keys are
pydantic SecretStr values: not in repr, dumps, notices, reports or logs.
"""
from __future__ import annotations

import functools
import queue
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from interviewer.config import Settings
from interviewer.errors import UserError
from interviewer.moves import Move

Backend = Literal["offline", "openai", "local"]
StructuredOutput = Literal["auto", "json_schema", "json_object"]
BACKENDS = ("offline", "openai", "local")

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_LOCAL_BASE_URL = "http://127.0.0.1:8000/v1"
LOCAL_PLACEHOLDER_KEY = "not-needed"       # local servers want some bearer token, not a real one
CONNECTION_TEST_TIMEOUT_S = 5.0

HISTORY_TURNS = 6          # turns of the conversation shown to the model
TURN_CHARS = 700           # each earlier turn is clipped to this
LAST_TURN_CHARS = 1500     # the latest turn (usually the answer being responded to)
MAX_PASSAGES = 3
PASSAGE_CHARS = 450
GENERIC_COMPANY = "a company that serves LLMs at scale"

ModelSource = Any  # a LangChain chat model, or a zero-argument callable returning one


# --------------------------------------------------------------------------------------------
# Settings

class BackendSettings(BaseModel):
    """Which backend phrases the interviewer's turns, and its bounded budget."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    backend: Backend = "offline"
    model: str | None = None                  # None: OpenAI default, or the local server's first model
    base_url: str | None = None               # None: api.openai.com (openai) / 127.0.0.1:8000 (local)
    api_key: SecretStr | None = Field(default=None, repr=False)
    timeout_s: float = Field(default=20.0, gt=0, le=600)
    max_retries: int = Field(default=1, ge=0, le=5)   # extra attempts after the first
    max_tokens: int = Field(default=350, ge=16, le=8192)
    temperature: float | None = Field(default=0.3, ge=0, le=2)
    structured_output: StructuredOutput = "auto"
    judge_max_tokens: int = Field(default=1500, ge=64, le=16384)
    judge_timeout_s: float = Field(default=120.0, gt=0, le=1800)
    operator: bool = Field(default=False, repr=False)   # configured by the operator, not a visitor

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (without a trailing slash)."""
        if self.base_url:
            return self.base_url.rstrip("/")
        return OPENAI_BASE_URL if self.backend == "openai" else DEFAULT_LOCAL_BASE_URL

    @property
    def label(self) -> str:
        """How notices name the backend: "local model", "OpenAI model", "built-in interviewer"."""
        return {"offline": "built-in interviewer", "openai": "OpenAI model"}.get(self.backend, "local model")

    def public_dict(self) -> dict:
        """The settings for display or export: no key, only whether one is set."""
        data = self.model_dump(mode="json", exclude={"api_key"})
        data["api_key_set"] = self.api_key is not None and bool(self.api_key.get_secret_value())
        data["endpoint"] = self.endpoint
        return data


def settings_from_env(environ: Mapping[str, str] | None = None,
                      secrets: Mapping[str, Any] | None = None) -> BackendSettings:
    """The operator's backend from the environment (default: the process's), then `secrets`."""
    from interviewer import config

    return backend_settings(config.current() if environ is None and secrets is None
                            else config.load(environ, secrets))


def backend_settings(settings: Settings) -> BackendSettings:
    """The operator's backend, validated, from the process settings (interviewer.config).

    Keys: OPENAI_API_KEY, OPENAI_BASE_URL, INTERVIEWER_MODEL, INTERVIEWER_BACKEND, and optionally
    INTERVIEWER_TIMEOUT_S and INTERVIEWER_MAX_TOKENS. Rule when INTERVIEWER_BACKEND is not set:
    OPENAI_BASE_URL set -> "local" (an OpenAI-compatible server; api.openai.com itself counts as
    "openai"), else OPENAI_API_KEY set -> "openai", else "offline". Bad values raise UserError.
    """
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key is not None else None
    base_url, model, backend = settings.openai_base_url, settings.model, settings.backend
    timeout, max_tokens = settings.timeout_s, settings.max_tokens
    if backend is not None:
        backend = backend.lower()
        if backend not in BACKENDS:
            raise UserError(f"INTERVIEWER_BACKEND={backend!r} is not a backend; use offline, openai or local")
    elif base_url:
        backend = "openai" if urlparse(base_url).hostname == "api.openai.com" else "local"
    elif key:
        backend = "openai"
    else:
        backend = "offline"
    if base_url and (urlparse(base_url).scheme not in ("http", "https") or not urlparse(base_url).netloc):
        raise UserError(f"OPENAI_BASE_URL={base_url!r} is not an http(s) URL; e.g. http://127.0.0.1:8000/v1")
    data: dict[str, Any] = {"backend": backend, "model": model, "base_url": base_url,
                            "api_key": SecretStr(key) if key else None, "operator": True}
    if timeout:
        try:
            data["timeout_s"] = float(timeout)
        except ValueError:
            raise UserError(f"INTERVIEWER_TIMEOUT_S={timeout!r} is not a number of seconds") from None
        if not 0 < data["timeout_s"] <= 600:
            raise UserError("INTERVIEWER_TIMEOUT_S must be between 0 and 600 seconds")
    if max_tokens:
        if not max_tokens.isdigit() or not 16 <= int(max_tokens) <= 8192:
            raise UserError(f"INTERVIEWER_MAX_TOKENS={max_tokens!r} must be a whole number from 16 to 8192")
        data["max_tokens"] = int(max_tokens)
    return BackendSettings(**data)


def visitor_settings(operator: BackendSettings, backend: str, base_url: str | None, model: str | None,
                     api_key: SecretStr | None, timeout_s: float | None = None) -> BackendSettings:
    """A visitor's own choice of backend for their session.

    The operator's key goes only to the operator's endpoint: a visitor who names another
    endpoint (or another backend kind) must bring their own key, which stays in their session.
    """
    if backend == "offline":
        return BackendSettings(backend="offline")
    wanted = BackendSettings(backend=backend, base_url=base_url or None, model=model or None,
                             timeout_s=timeout_s or operator.timeout_s)
    if operator.backend == backend and wanted.endpoint == operator.endpoint and api_key is None:
        # The operator's own endpoint: the operator's key and limits, the visitor's model name.
        return operator.model_copy(update={"model": wanted.model or operator.model,
                                           "timeout_s": wanted.timeout_s})
    return wanted.model_copy(update={"api_key": api_key})


# --------------------------------------------------------------------------------------------
# Redaction: no key in any text we produce

_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{3})[A-Za-z0-9_\-*]+")


def scrub(text: str, settings: BackendSettings | None = None) -> str:
    """Remove the configured key, and anything shaped like an OpenAI key, from a message."""
    if settings is not None and settings.api_key is not None:
        secret = settings.api_key.get_secret_value()
        if len(secret) >= 4:
            text = text.replace(secret, "[key]")
    return _KEY_PATTERN.sub(r"\1…", text)


# --------------------------------------------------------------------------------------------
# The chat model

def _api_key(settings: BackendSettings) -> str:
    if settings.api_key is not None and settings.api_key.get_secret_value():
        return settings.api_key.get_secret_value()
    if settings.backend == "openai":
        raise UserError("the openai backend needs OPENAI_API_KEY")
    return LOCAL_PLACEHOLDER_KEY


_served_models: dict[str, list[str]] = {}
_served_lock = threading.Lock()


def served_models(settings: BackendSettings, timeout_s: float | None = None) -> list[str]:
    """The model ids the server lists on GET /models (raises the openai client's errors)."""
    import openai

    timeout = timeout_s if timeout_s is not None else min(settings.timeout_s, CONNECTION_TEST_TIMEOUT_S)
    client = openai.OpenAI(base_url=settings.endpoint, api_key=_api_key(settings), timeout=timeout,
                           max_retries=0)
    try:
        return [m.id for m in client.models.list().data]
    finally:
        client.close()


def resolve_model(settings: BackendSettings) -> str:
    """The model name to request: the configured one, OpenAI's default, or the local server's first.

    A local server's list is fetched once per endpoint and cached; llama.cpp ignores the name,
    vLLM and Ollama need the exact served name.
    """
    known = _guess_model(settings)  # configured, OpenAI's default, or a list fetched before
    if known is not None:
        return known
    with _served_lock:
        if settings.endpoint in _served_models:  # fetched before, and the server serves nothing
            return "default"
    try:
        served = served_models(settings)
    except Exception:
        return "default"
    with _served_lock:
        _served_models[settings.endpoint] = served
    return served[0] if served else "default"


def make_chat_model(settings: BackendSettings, *, streaming: bool = True, max_tokens: int | None = None,
                    timeout_s: float | None = None, temperature: float | None | Literal["settings"] = "settings",
                    extra_body: dict | None = None):
    """A langchain_openai.ChatOpenAI for the settings' backend.

    max_retries=0: retries are budgeted by `speak`/`judge`, not by the client. Local servers get
    `max_tokens` in the request body (llama.cpp ignores max_completion_tokens, which
    langchain-openai sends); OpenAI gets it as max_completion_tokens.
    """
    from langchain_openai import ChatOpenAI

    if settings.backend == "offline":
        raise UserError("the offline backend has no chat model; use the built-in interviewer")
    tokens = max_tokens or settings.max_tokens
    body = dict(extra_body or {})
    kwargs: dict[str, Any] = {}
    if settings.backend == "local":
        body.setdefault("max_tokens", tokens)
    else:
        kwargs["max_tokens"] = tokens
    temp = settings.temperature if temperature == "settings" else temperature
    return ChatOpenAI(
        model=resolve_model(settings),
        base_url=settings.endpoint,
        api_key=SecretStr(_api_key(settings)),
        timeout=timeout_s or settings.timeout_s,
        max_retries=0,
        streaming=streaming,
        temperature=temp,
        use_responses_api=False,
        extra_body=body or None,
        **kwargs,
    )


# --------------------------------------------------------------------------------------------
# Connection check

@dataclass
class ConnectionReport:
    ok: bool
    backend: str
    base_url: str
    model: str | None = None
    models: list[str] = field(default_factory=list)
    model_present: bool | None = None      # None: not checked (offline, or no model configured)
    latency_ms: float | None = None
    error: str | None = None               # in plain words, never containing a key

    def summary(self) -> str:
        if self.backend == "offline":
            return "Offline: the built-in interviewer; nothing to connect to."
        if not self.ok:
            return f"Not connected: {self.error}"
        return (f"Connected to {self.base_url} in {self.latency_ms:.0f} ms; model "
                f"{self.model or '(server default)'}; {len(self.models)} model(s) served.")


def describe_error(exc: BaseException, settings: BackendSettings, timeout_s: float | None = None) -> str:
    """A backend exception in plain words: what happened and, where it helps, what to check."""
    import openai

    url = settings.endpoint
    timeout = timeout_s if timeout_s is not None else settings.timeout_s
    if isinstance(exc, (openai.APITimeoutError, TimeoutError)) or "Timeout" in type(exc).__name__:
        return f"timed out after {timeout:g} s"
    if isinstance(exc, openai.AuthenticationError):
        return "401: the API key was rejected"
    if isinstance(exc, openai.PermissionDeniedError):
        return "403: the API key is not allowed to do this"
    if isinstance(exc, openai.NotFoundError):
        return f"404 from {url}: not found (does the base URL end in /v1, and is the model name right?)"
    if isinstance(exc, openai.RateLimitError):
        return "429: rate limited or out of quota"
    if isinstance(exc, openai.APIStatusError):
        return scrub(f"{exc.status_code} from {url}: {_short(str(exc.message))}", settings)
    if isinstance(exc, openai.APIConnectionError) or isinstance(exc, OSError) or "Connect" in type(exc).__name__:
        chain = _cause_chain(exc)
        if any(isinstance(e, ConnectionRefusedError) for e in chain):
            return f"connection refused at {url} — is the server running?"
        if any(isinstance(e, TimeoutError) or "Timeout" in type(e).__name__ for e in chain):
            return f"timed out after {timeout:g} s"
        if any("RemoteProtocolError" in type(e).__name__ or "closed" in str(e).lower() for e in chain):
            return f"the server at {url} closed the connection mid-reply"
        deepest = chain[-1]
        return scrub(f"could not reach {url}: {_short(str(deepest) or type(deepest).__name__)}", settings)
    return scrub(f"{type(exc).__name__}: {_short(str(exc))}", settings)


def _cause_chain(exc: BaseException) -> list[BaseException]:
    out, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def test_connection(settings: BackendSettings, timeout_s: float = CONNECTION_TEST_TIMEOUT_S, *,
                    model: ModelSource = None) -> ConnectionReport:
    """A real one-token chat completion against the backend; `ok` only when that reply came back.

    The model list (GET /models) is read first when the server offers one, to name the model
    and catch a misspelt one, but a server that lists models and cannot chat is not "connected".
    """
    report = ConnectionReport(ok=False, backend=settings.backend,
                              base_url=settings.endpoint if settings.backend != "offline" else "",
                              model=settings.model)
    if settings.backend == "offline":
        report.ok = True
        return report
    if settings.backend == "openai" and (settings.api_key is None or not settings.api_key.get_secret_value()):
        report.error = "no API key is set"
        return report
    start = time.perf_counter()
    try:
        if model is None:
            try:
                report.models = served_models(settings, timeout_s=timeout_s)
            except Exception:  # some servers list nothing; the chat request below decides
                report.models = []
            with _served_lock:
                _served_models[settings.endpoint] = report.models
            if settings.model and report.models:
                report.model_present = settings.model in report.models
            if report.model_present is False:
                shown = ", ".join(report.models[:5]) + (" …" if len(report.models) > 5 else "")
                report.error = f"model {settings.model!r} is not served there; it serves: {shown}"
                return report
        chat = (_model_from(model, settings) if model is not None
                else make_chat_model(settings, streaming=False, max_tokens=1, timeout_s=timeout_s,
                                     temperature=0.0))
        reply = chat.invoke([("user", "Reply with the single word: ok")])
        if not isinstance(getattr(reply, "content", None), str):
            raise ValueError("the server's reply was not a chat completion")
        report.model = settings.model or _guess_model(settings) or "server default"
        report.ok = True
    except Exception as exc:  # every backend fault becomes a sentence
        report.error = describe_error(exc, settings, timeout_s)
    finally:
        report.latency_ms = (time.perf_counter() - start) * 1000
    return report


test_connection.__test__ = False  # not a pytest test, despite the name


# --------------------------------------------------------------------------------------------
# Prompt assembly

@functools.cache
def load_prompt(name: str) -> str:
    """The text of interviewer/prompts/NAME (cached)."""
    try:
        return (PROMPTS_DIR / name).read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read prompt template {PROMPTS_DIR / name}: {exc.strerror or exc}") from None


@functools.cache
def chat_template(system_file: str, user_file: str):
    """A ChatPromptTemplate (f-string) from a system and a user template file."""
    from langchain_core.prompts import ChatPromptTemplate

    return ChatPromptTemplate.from_messages(
        [("system", load_prompt(system_file)), ("human", load_prompt(user_file))],
        template_format="f-string",
    )


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _turn_fields(turn: Any) -> tuple[str, str]:
    if isinstance(turn, Mapping):
        return str(turn.get("role", "")), str(turn.get("text", ""))
    if isinstance(turn, tuple) and len(turn) == 2:
        return str(turn[0]), str(turn[1])
    return str(getattr(turn, "role", "")), str(getattr(turn, "text", ""))


def format_history(history: Iterable[Any], turns: int = HISTORY_TURNS) -> str:
    """The last `turns` turns as "[interviewer] ..." / "[candidate] ..." lines, clipped."""
    items = [_turn_fields(t) for t in history]
    recent = items[-turns:] if turns > 0 else []
    lines = []
    for i, (role, text) in enumerate(recent):
        limit = LAST_TURN_CHARS if i == len(recent) - 1 else TURN_CHARS
        lines.append(f"[{role or 'unknown'}] {_clip(text, limit) or '(empty)'}")
    return "\n".join(lines) or "(no turns yet)"


def prompt_variables(move: Move, history: Iterable[Any], question_title: str,
                     company: str | None = None) -> dict[str, str]:
    """The values the interviewer templates are filled with."""
    facts = "\n".join(f"  - {f}" for f in move.facts) or "  (none)"
    passages = "\n".join(
        f"  [{i}] {p.title} (source: {p.source}): {_clip(p.text, PASSAGE_CHARS) or '(no text)'}"
        for i, p in enumerate(move.passages[:MAX_PASSAGES], 1)
    ) or "  (none)"
    phase = move.phase_title or move.phase
    return {
        "company": company or GENERIC_COMPANY,
        "question_title": question_title or "an LLM-serving design question",
        "history": format_history(history),
        "kind": move.kind,
        "phase": phase.replace("_", " "),
        "ask": move.ask.strip() or "(none)",
        "acknowledgement": (move.acknowledgement or "").strip() or "(none)",
        "facts": facts,
        "passages": passages,
    }


def build_messages(move: Move, history: Iterable[Any], question_title: str, company: str | None = None):
    """The chat messages (system persona + this turn's move) for one interviewer turn."""
    template = chat_template("interviewer_system.md", "interviewer_turn.md")
    return template.format_messages(**prompt_variables(move, history, question_title, company))


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


def finish_text(text: str, finish_reason: str | None = None) -> str:
    """The turn as stored: trimmed, without a role label; a reply cut off by the token limit
    ("length") is cut back to its last complete sentence (empty if there is none)."""
    text = clean_text(text).strip()
    for _ in range(3):
        text, n = _ROLE_PREFIX.subn("", text, count=1)
        if not n:
            break
    text = text.strip()
    if finish_reason == "length":
        ends = list(_SENTENCE_END.finditer(text))
        text = text[: ends[-1].end()].strip() if ends else ""
    return text


def _model_from(source: ModelSource, settings: BackendSettings):
    if source is None:
        return make_chat_model(settings)
    if callable(source) and not hasattr(source, "stream"):
        return source()
    return source


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
    source: Literal["llm", "fallback", "offline"]
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
                    self.text += text
                    deadline = min(self._clock() + settings.timeout_s, budget_end)
                    yield text
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


def _guess_model(settings: BackendSettings) -> str | None:
    if settings.model:
        return settings.model
    if settings.backend == "openai":
        return DEFAULT_OPENAI_MODEL
    with _served_lock:
        served = _served_models.get(settings.endpoint)
    return served[0] if served else None


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

    def speak(self, move: Move, state: Any, fallback: str) -> Speech:
        from interviewer.interview import question_of

        return speak(self.settings, move, state.turns, question_of(state).title, state.company, fallback,
                     model=self.model)


def budget_s(settings: BackendSettings) -> float:
    """The most seconds `speak` waits on the backend before the fallback takes the turn: one
    timeout for the whole turn, retries included."""
    return settings.timeout_s


__all__ = [
    "BackendSettings", "ConnectionReport", "LLMVoice", "backend_settings", "visitor_settings", "SpeakOutcome", "Speech", "build_messages", "budget_s",
    "clean_text", "describe_error", "finish_text", "format_history", "is_garbage", "load_prompt",
    "make_chat_model", "prompt_variables", "resolve_model", "scrub", "served_models", "settings_from_env",
    "speak", "stream_reply", "test_connection",
]

