"""The chat model (LangChain), the served-model lookup and the connection check."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import SecretStr

from interviewer.errors import UserError
from interviewer.llm.redact import scrub
from interviewer.llm.settings import (
    CONNECTION_TEST_TIMEOUT_S,
    DEFAULT_OPENAI_MODEL,
    LOCAL_PLACEHOLDER_KEY,
    BackendSettings,
    ModelSource,
)

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
    """A LangChain chat model (langchain-openai's ChatOpenAI) for the settings' backend.

    max_retries=0: retries are budgeted by `speak`/`judge`, not by the client. Local servers get
    `max_tokens` in the request body (llama.cpp ignores max_completion_tokens, which
    langchain-openai sends); OpenAI gets it as max_completion_tokens.
    """
    from langchain.chat_models import init_chat_model

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
    return init_chat_model(
        resolve_model(settings),
        model_provider="openai",
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


def test_connection(settings: BackendSettings, timeout_s: float | None = None, *,
                    model: ModelSource = None) -> ConnectionReport:
    """A real one-token chat completion against the backend; `ok` only when that reply came back.

    The model list (GET /models) is read first when the server offers one, to name the model
    and catch a misspelt one, but a server that lists models and cannot chat is not "connected".
    """
    report = ConnectionReport(ok=False, backend=settings.backend,
                              base_url=settings.endpoint if settings.backend != "offline" else "",
                              model=settings.model)
    # The turn's own limit: a cold local model may need several seconds for its first reply.
    timeout_s = timeout_s if timeout_s is not None else settings.timeout_s
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
                report.models = served_models(settings, timeout_s=min(timeout_s, CONNECTION_TEST_TIMEOUT_S))
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




def _guess_model(settings: BackendSettings) -> str | None:
    if settings.model:
        return settings.model
    if settings.backend == "openai":
        return DEFAULT_OPENAI_MODEL
    with _served_lock:
        served = _served_models.get(settings.endpoint)
    return served[0] if served else None


def _model_from(source: ModelSource, settings: BackendSettings):
    if source is None:
        return make_chat_model(settings)
    if callable(source) and not hasattr(source, "stream"):
        return source()
    return source
