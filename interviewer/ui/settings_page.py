"""Settings page: which voice the interviewer uses (built-in, OpenAI, an OpenAI-compatible server).

The choice and any API key live only in this browser session's state: the key is taken out of
the password box as soon as it is entered, never shown back, never logged, never saved.
"""
from __future__ import annotations

import logging
import os

import streamlit as st

from interviewer.errors import UserError
from interviewer.ui import common

LABELS = {
    "offline": "Built-in interviewer (offline, no key)",
    "openai": "OpenAI",
    "local": "OpenAI-compatible server (vLLM, llama.cpp, Ollama)",
}
KEY_INPUT = "set_api_key_input"


log = logging.getLogger(__name__)

def _take_key() -> None:
    """on_change of the password box: keep the key as a SecretStr in session state, clear the box."""
    from pydantic import SecretStr

    value = (st.session_state.get(KEY_INPUT) or "").strip()
    if value:
        st.session_state["llm_api_key"] = SecretStr(value)
    st.session_state[KEY_INPUT] = ""


def _env_defaults():
    from interviewer import llm

    try:
        return llm.settings_from_env(os.environ, common.secrets_dict()), None
    except UserError as exc:
        return llm.BackendSettings(), str(exc)


def main() -> None:
    from interviewer import llm

    st.title("Settings")
    env, env_error = _env_defaults()
    if env_error:
        st.warning(f"The environment's LLM settings were not usable ({env_error}); starting from the built-in "
                   "interviewer.")
    current = st.session_state.get("llm_settings") or env

    st.subheader("Interviewer voice")
    st.caption("The interviewer's decisions (what to ask, which numbers are wrong) are always made by the "
               "built-in policy; an LLM only phrases them. If the LLM fails, the built-in wording takes the "
               "turn with a notice.")
    options = list(LABELS)
    backend = st.radio("Backend", options, index=options.index(current.backend), format_func=LABELS.get,
                       key="set_backend")
    if backend == "offline":
        settings = llm.BackendSettings(backend="offline")
        st.session_state["llm_settings"] = settings
        st.info("The built-in interviewer needs no key, no server and no download.")
        _embeddings()
        return

    same = current.backend == backend
    default_url = (current.base_url if same else None) or (env.base_url if env.backend == backend else None) or (
        llm.DEFAULT_LOCAL_BASE_URL if backend == "local" else "")
    cols = st.columns(2)
    base_url = cols[0].text_input(
        "Base URL", value=default_url or "", key=f"set_base_url_{backend}",
        placeholder=llm.OPENAI_BASE_URL if backend == "openai" else llm.DEFAULT_LOCAL_BASE_URL,
        help="Ends in /v1. Leave empty for api.openai.com." if backend == "openai" else "Ends in /v1.").strip()
    model = cols[1].text_input(
        "Model", value=(current.model if same else env.model if env.backend == backend else None) or "",
        key=f"set_model_{backend}",
        placeholder=llm.DEFAULT_OPENAI_MODEL if backend == "openai" else "the server's first model").strip()
    st.text_input("API key", type="password", key=KEY_INPUT, on_change=_take_key,
                  placeholder="Paste a key and press Enter", autocomplete="off",
                  help="Kept only in this browser session's memory; never saved, shown or logged.")
    session_key = st.session_state.get("llm_api_key")
    if session_key is not None:
        c = st.columns([3, 1])
        c[0].caption("A key is set for this session.")
        if c[1].button("Forget the key", key="set_forget_key"):
            st.session_state.pop("llm_api_key", None)
            st.rerun()
    elif env.api_key is not None:
        st.caption("Using the key from the environment (OPENAI_API_KEY); paste one above to use another.")
    elif backend == "openai":
        st.caption("OpenAI needs an API key.")
    timeout = st.number_input("Timeout per reply (seconds)", min_value=1.0, max_value=600.0,
                              value=float(current.timeout_s), step=1.0, key="set_timeout")

    if base_url and not base_url.startswith(("http://", "https://")):
        st.error("The base URL needs to start with http:// or https://, e.g. http://127.0.0.1:8000/v1")
        return
    settings = llm.BackendSettings(backend=backend, base_url=base_url or None, model=model or None,
                                   api_key=session_key if session_key is not None else env.api_key,
                                   timeout_s=timeout)
    st.session_state["llm_settings"] = settings
    secret = settings.api_key.get_secret_value() if settings.api_key is not None else None

    if st.button("Test connection", type="primary", key="set_test", icon=":material/network_check:"):
        with st.spinner(f"Asking {settings.endpoint} for its models..."):
            report = llm.test_connection(settings)
        latency = f"{report.latency_ms:,.0f} ms" if report.latency_ms is not None else "no answer"
        if report.ok:
            st.success(common.md(common.redact(
                f"Connected to {report.base_url} in {latency}. Model: {report.model or 'server default'}.", secret)))
            if report.models:
                st.caption(common.md(common.redact("Served models: " + ", ".join(report.models[:20]), secret)))
        else:
            st.error(common.md(common.redact(f"Could not use {report.base_url or 'the backend'}: {report.error} "
                                             f"(after {latency}).", secret)))
    st.caption(f"Replies go to {settings.endpoint}. The new voice applies from the next answer.")
    _embeddings()


EMBEDDERS = {"hash": "Built-in (offline feature hashing, no download)",
             "openai": "OpenAI embeddings (uses OPENAI_API_KEY)",
             "local": "OpenAI-compatible server's /v1/embeddings"}
_EMBED_ENV = ("INTERVIEWER_EMBEDDINGS", "INTERVIEWER_EMBEDDING_MODEL", "INTERVIEWER_EMBEDDINGS_BASE_URL")


def _embeddings() -> None:
    """Choose the retrieval embedder. It applies to the whole server: the passage store is shared,
    and switching rebuilds it with the new vectors rather than mixing two kinds in one collection."""
    st.subheader("Retrieval embeddings")
    try:
        from interviewer.embeddings import spec_from_env

        spec = spec_from_env()
        st.markdown(f"In use: **{common.md(spec.describe())}**")
        current = os.environ.get("INTERVIEWER_EMBEDDINGS", "hash").strip().lower() or "hash"
    except UserError as exc:
        st.warning(f"The embeddings setting is not usable: {exc}")
        current = "hash"
    kind = st.radio("Embedder", list(EMBEDDERS), format_func=EMBEDDERS.get,
                    index=list(EMBEDDERS).index(current) if current in EMBEDDERS else 0, key="set_embedder")
    model = base_url = ""
    if kind != "hash":
        model = st.text_input("Embedding model", os.environ.get("INTERVIEWER_EMBEDDING_MODEL", "text-embedding-3-small"),
                              key="set_embed_model")
    if kind == "local":
        base_url = st.text_input("Embeddings server URL",
                                 os.environ.get("INTERVIEWER_EMBEDDINGS_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
                                 or "http://127.0.0.1:8080/v1", key="set_embed_url")
    st.caption("Applies to the whole server (every browser shares the passage store). Switching rebuilds the "
               "store with the new vectors; if the new embedder fails, the previous one stays in use.")
    if st.button("Apply and rebuild the passage store", key="set_embed_apply", icon=":material/sync:"):
        _apply_embedder(kind, model, base_url)


def _apply_embedder(kind: str, model: str, base_url: str) -> None:
    from interviewer.retrieval import ingest

    before = {k: os.environ.get(k) for k in _EMBED_ENV}
    os.environ["INTERVIEWER_EMBEDDINGS"] = kind
    for key, value in (("INTERVIEWER_EMBEDDING_MODEL", model), ("INTERVIEWER_EMBEDDINGS_BASE_URL", base_url)):
        if value.strip():
            os.environ[key] = value.strip()
        else:
            os.environ.pop(key, None)
    try:
        with st.spinner("Embedding the corpus..."):
            stats = ingest(progress=False)
    except Exception as exc:  # a dead endpoint or a bad key: keep the old embedder, say why in one line
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        log.warning("embedder switch failed: %s", type(exc).__name__)
        message = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
        st.error(common.md(f"Could not switch embeddings: {message}. The previous embedder stays in use."))
        return
    st.success(f"Passage store rebuilt with {stats.embedder}: {stats.total} passages, {stats.embedded} embedded "
               f"in {stats.seconds:.1f} s.")


common.guard(main)
