"""The operator's configuration: one settings object, read once from the environment and secrets.

Every server-wide choice lives here (data folder, database, vector store, embedder, LLM backend
and its key). It is read when the app or the CLI starts and passed to what needs it; a visitor's
browser can never change it (see interviewer/ui/settings_page.py and the README's "Running it
for others"). Environment variables win; .streamlit/secrets.toml fills the ones the environment
leaves unset.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from interviewer.errors import UserError


def _env(name: str):
    return Field(default=None, validation_alias=AliasChoices(name))


class Settings(BaseSettings):
    """What the operator configured. Field names are Python's; the aliases are the variables."""

    model_config = SettingsConfigDict(env_ignore_empty=True, extra="ignore", frozen=True,
                                      populate_by_name=True)

    data_dir: Path = Field(default=Path(".data"), validation_alias=AliasChoices("INTERVIEWER_DATA_DIR"))
    database_url: str | None = _env("INTERVIEWER_DATABASE_URL")
    # The rubric and the question bank are data folders (rubrics/, corpus/ in the checkout);
    # another folder holds another bank or another question family, with no code change.
    rubric_dir: Path | None = _env("INTERVIEWER_RUBRIC_DIR")
    corpus_dir: Path | None = _env("INTERVIEWER_CORPUS_DIR")
    collection: str = Field(default="interviewer_corpus", validation_alias=AliasChoices("INTERVIEWER_COLLECTION"))
    chroma_host: str | None = _env("CHROMA_HOST")
    chroma_port: str = Field(default="8000", validation_alias=AliasChoices("CHROMA_PORT"))
    embeddings: str = Field(default="hash", validation_alias=AliasChoices("INTERVIEWER_EMBEDDINGS"))
    embedding_model: str | None = _env("INTERVIEWER_EMBEDDING_MODEL")
    embeddings_base_url: str | None = _env("INTERVIEWER_EMBEDDINGS_BASE_URL")
    # The LLM backend. Kept as text here: interviewer.llm.backend_settings validates it with
    # messages that name the variable.
    backend: str | None = _env("INTERVIEWER_BACKEND")
    openai_api_key: SecretStr | None = Field(default=None, validation_alias=AliasChoices("OPENAI_API_KEY"),
                                             repr=False)
    openai_base_url: str | None = _env("OPENAI_BASE_URL")
    model: str | None = _env("INTERVIEWER_MODEL")
    timeout_s: str | None = _env("INTERVIEWER_TIMEOUT_S")
    max_tokens: str | None = _env("INTERVIEWER_MAX_TOKENS")
    # Lets the Settings page change server-wide choices (the embedder). Off by default: on a
    # shared server a visitor must not change what every other user gets.
    admin_mode: bool = Field(default=False, validation_alias=AliasChoices("INTERVIEWER_ADMIN"))
    # Whether a visitor may point their own session at their own LLM endpoint (with their own
    # key). Off on a hosted server that should make no requests the operator did not configure.
    visitor_endpoints: bool = Field(default=True, validation_alias=AliasChoices("INTERVIEWER_VISITOR_ENDPOINTS"))
    # Who a visitor is (README "Who you are"): "local", one person on their own machine, every tab
    # sees the same history; "oidc", hosted: st.login with the OpenID Connect provider in
    # secrets.toml [auth], rounds belong to the signed-in subject. Unset: oidc when secrets.toml
    # has an [auth] section, else local.
    auth: Literal["local", "oidc"] | None = _env("INTERVIEWER_AUTH")

    @classmethod
    def aliases(cls) -> dict[str, str]:
        """Variable name -> field name."""
        return {f.validation_alias.choices[0]: name for name, f in cls.model_fields.items()}


def load(environ: Mapping[str, str] | None = None, secrets: Mapping[str, Any] | None = None) -> Settings:
    """Settings from `environ` (default: the process environment), then `secrets` for unset keys."""
    try:
        if environ is None:
            fill = {}
            if secrets:
                import os

                fill = {k: secrets[k] for k in Settings.aliases() if _has(secrets, k) and not os.environ.get(k)}
            return Settings(**{k: str(v) for k, v in fill.items()})
        data = {k: v for k, v in environ.items() if k in Settings.aliases() and str(v).strip()}
        for k in Settings.aliases():
            if k not in data and secrets and _has(secrets, k):
                data[k] = str(secrets[k])
        return Settings.model_validate({k: str(v).strip() for k, v in data.items()})
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UserError(f"setting {err['loc'][0]} is not valid: {err['msg']}") from None


def _has(secrets: Mapping[str, Any], key: str) -> bool:
    try:
        value = secrets.get(key)
    except Exception:  # st.secrets raises when no secrets file exists
        return False
    return value is not None and str(value).strip() != ""


_state: dict[str, Settings] = {}


def current() -> Settings:
    """The process's settings, read once. Tests that change the environment call `reload()`."""
    settings = _state.get("settings")
    if settings is None:
        settings = _state["settings"] = load()
    return settings


def reload() -> Settings:
    _state.clear()
    return current()


def replace(**changes: Any) -> Settings:
    """Change server-wide settings for this process (admin mode only: every user is affected)."""
    _state["settings"] = current().model_copy(update=changes)
    return _state["settings"]


def init(secrets: Mapping[str, Any] | None = None) -> Settings:
    """Read the settings once at start-up, with the app's secrets for what the environment leaves unset."""
    if "settings" not in _state:
        _state["settings"] = load(None, secrets)
    return _state["settings"]
