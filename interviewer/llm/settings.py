"""LLM backend settings: the operator's (from interviewer.config) and a visitor's own for their session."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from interviewer.config import Settings
from interviewer.errors import UserError

Backend = Literal["offline", "openai", "local"]
StructuredOutput = Literal["auto", "json_schema", "json_object"]
BACKENDS = ("offline", "openai", "local")

OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_LOCAL_BASE_URL = "http://127.0.0.1:8000/v1"
LOCAL_PLACEHOLDER_KEY = "not-needed"       # local servers want some bearer token, not a real one
CONNECTION_TEST_TIMEOUT_S = 5.0


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
