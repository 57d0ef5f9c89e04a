"""Settings page: which voice this browser session's interviewer uses.

Two kinds of setting, kept apart:
- the operator's (environment, .streamlit/secrets.toml): the server's LLM endpoint and key, the
  embedder, the vector store. They serve every visitor; a visitor can see but never change them
  (the embedder is switchable here only when the operator runs with INTERVIEWER_ADMIN=1);
- the visitor's: built-in voice, the server's LLM, or their own endpoint with their own key. That
  choice and key live only in this browser session's state, never saved, shown or logged. The
  operator's key is never sent anywhere but the operator's endpoint.
"""
from __future__ import annotations

import logging

import streamlit as st

from interviewer import config
from interviewer.errors import UserError
from interviewer.ui import common

log = logging.getLogger(__name__)
KEY_INPUT = "set_api_key_input"
BUILTIN, SERVER, OWN = "builtin", "server", "own"


def _take_key() -> None:
    """on_change of the password box: keep the key as a SecretStr in session state, clear the box."""
    from pydantic import SecretStr

    value = (st.session_state.get(KEY_INPUT) or "").strip()
    if value:
        st.session_state["llm_api_key"] = SecretStr(value)
    st.session_state[KEY_INPUT] = ""


def _operator():
    """The operator's backend, or the built-in one (with the reason) when it is not usable."""
    from interviewer import llm

    try:
        return llm.backend_settings(common.settings()), None
    except UserError as exc:
        return llm.BackendSettings(), str(exc)


def main() -> None:
    from interviewer import llm

    st.title("Settings")
    operator, error = _operator()
    if error:
        st.warning(f"The server's LLM settings are not usable ({error}); the built-in interviewer speaks.")
    allow_own = common.settings().visitor_endpoints
    labels = {BUILTIN: "Built-in interviewer (offline, no key)"}
    if operator.backend != "offline":
        labels[SERVER] = f"The server's {operator.label} ({operator.model or 'its default model'})"
    if allow_own:
        labels[OWN] = "My own endpoint and key (OpenAI, or an OpenAI-compatible server)"
    current = common.llm_settings()
    now = BUILTIN if not common.uses_llm(current) else SERVER if current.operator else OWN
    st.subheader("Interviewer voice")
    st.caption("What to ask and which numbers are wrong is always decided by the built-in policy; an LLM only "
               "phrases it, and every phrasing is checked before it is shown. This choice applies to this "
               "browser session only.")
    options = list(labels)
    choice = st.radio("Voice", options, index=options.index(now) if now in options else 0,
                      format_func=labels.get, key="set_voice")
    if choice == BUILTIN:
        st.session_state["llm_settings"] = llm.BackendSettings(backend="offline")
        st.info("The built-in interviewer needs no key, no server and no download.")
    elif choice == SERVER:
        st.session_state["llm_settings"] = operator
        st.caption("Configured by whoever runs this server; its key stays on the server.")
        _test_button(operator)
    else:
        _own_endpoint(operator)
    _embeddings()
    _replacements()


def _own_endpoint(operator) -> None:
    from interviewer import llm

    kind = st.radio("Kind", ["openai", "local"], horizontal=True, key="set_own_kind",
                    format_func={"openai": "OpenAI", "local": "OpenAI-compatible server (vLLM, llama.cpp, Ollama)"}.get)
    cols = st.columns(2)
    base_url = cols[0].text_input(
        "Base URL", key=f"set_base_url_{kind}",
        value="" if kind == "openai" else llm.DEFAULT_LOCAL_BASE_URL,
        placeholder=llm.OPENAI_BASE_URL if kind == "openai" else llm.DEFAULT_LOCAL_BASE_URL,
        help="Ends in /v1. Leave empty for api.openai.com." if kind == "openai" else "Ends in /v1.").strip()
    model = cols[1].text_input("Model", key=f"set_model_{kind}",
                               placeholder=llm.DEFAULT_OPENAI_MODEL if kind == "openai" else "the server's first model"
                               ).strip()
    st.text_input("Your API key", type="password", key=KEY_INPUT, on_change=_take_key,
                  placeholder="Paste a key and press Enter", autocomplete="off",
                  help="Kept only in this browser session's memory; never saved, shown or logged.")
    key = st.session_state.get("llm_api_key")
    if key is not None:
        c = st.columns([3, 1])
        c[0].caption("Your key is set for this session.")
        if c[1].button("Forget the key", key="set_forget_key"):
            st.session_state.pop("llm_api_key", None)
            st.rerun()
    else:
        st.caption("Your own endpoint gets your own key (a local server that needs none gets a placeholder); "
                   "the server's key is never sent to an endpoint you type.")
    timeout = st.number_input("Time limit per reply (seconds)", min_value=1.0, max_value=120.0,
                              value=float(operator.timeout_s), step=1.0, key="set_timeout")
    if base_url and not base_url.startswith(("http://", "https://")):
        st.error("The base URL needs to start with http:// or https://, e.g. http://127.0.0.1:8000/v1")
        return
    try:
        settings = llm.visitor_settings(llm.BackendSettings(), kind, base_url or None, model or None, key, timeout)
    except Exception as exc:  # a pydantic validation message, in one line
        st.error(f"Those settings are not usable: {' '.join(str(exc).split())[:200]}")
        return
    st.session_state["llm_settings"] = settings
    _test_button(settings)


def _test_button(settings) -> None:
    from interviewer import llm

    secret = settings.api_key.get_secret_value() if settings.api_key is not None else None
    if st.button("Test connection", type="primary", key="set_test", icon=":material/network_check:"):
        with st.spinner("Asking for a one-token reply..."):
            report = llm.test_connection(settings)
        latency = f"{report.latency_ms:,.0f} ms" if report.latency_ms is not None else "no answer"
        if report.ok:
            st.success(common.md(common.redact(
                f"Connected: a chat reply came back in {latency}. Model: {report.model}.", secret)))
        else:
            st.error(common.md(common.redact(f"Not connected: {report.error} (after {latency}).", secret)))
    st.caption(f"Replies go to {settings.endpoint}, with a limit of {settings.timeout_s:g} s per reply. "
               "The new voice applies from the next answer.")


EMBEDDERS = {"hash": "Built-in (offline feature hashing, no download)",
             "openai": "OpenAI embeddings (the server's key)",
             "local": "The server's OpenAI-compatible /v1/embeddings"}


def _embeddings() -> None:
    """The retrieval embedder is server-wide: shown to everyone, switchable only in admin mode."""
    st.subheader("Retrieval embeddings")
    try:
        from interviewer.embeddings import spec_from_env

        st.markdown(f"In use: **{common.md(spec_from_env().describe())}**")
    except UserError as exc:
        st.warning(f"The embeddings setting is not usable: {exc}")
    settings = common.settings()
    if not settings.admin_mode:
        st.caption("Set by whoever runs this server (INTERVIEWER_EMBEDDINGS); it applies to every user, so it "
                   "cannot be changed from a browser.")
        return
    current = (settings.embeddings or "hash").strip().lower()
    kind = st.radio("Embedder", list(EMBEDDERS), format_func=EMBEDDERS.get,
                    index=list(EMBEDDERS).index(current) if current in EMBEDDERS else 0, key="set_embedder")
    model = base_url = ""
    if kind != "hash":
        model = st.text_input("Embedding model", settings.embedding_model or "text-embedding-3-small",
                              key="set_embed_model")
    if kind == "local":
        base_url = st.text_input("Embeddings server URL", settings.embeddings_base_url or settings.openai_base_url
                                 or "http://127.0.0.1:8080/v1", key="set_embed_url")
    st.warning("Admin mode: this changes retrieval for every user of this server. Switching rebuilds the "
               "passage store; if the new embedder fails, the previous one stays in use.")
    if st.button("Apply to the whole server and rebuild", key="set_embed_apply", icon=":material/sync:"):
        _apply_embedder(kind, model, base_url)


def _apply_embedder(kind: str, model: str, base_url: str) -> None:
    from interviewer.retrieval import ingest

    before = common.settings()
    config.replace(embeddings=kind, embedding_model=model.strip() or None,
                   embeddings_base_url=base_url.strip() or None)
    try:
        with st.spinner("Embedding the corpus..."):
            stats = ingest(progress=False)
    except Exception as exc:  # a dead endpoint or a bad key: keep the old embedder, say why in one line
        config.replace(**before.model_dump(include={"embeddings", "embedding_model", "embeddings_base_url"}))
        log.warning("embedder switch failed: %s", type(exc).__name__)
        message = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
        st.error(common.md(f"Could not switch embeddings: {message}. The previous embedder stays in use."))
        return
    st.success(f"Passage store rebuilt with {stats.embedder}: {stats.total} passages, {stats.embedded} embedded "
               f"in {stats.seconds:.1f} s.")


def _replacements() -> None:
    """How many of the model's turns were replaced by the built-in wording in this session's round."""
    state = st.session_state.get("round")
    if state is None:
        return
    from_llm = [t for t in state.turns if t.role == "interviewer" and t.voice in ("llm", "replaced")]
    if from_llm:
        replaced = sum(t.voice == "replaced" for t in from_llm)
        st.caption(f"This round: {replaced} of {len(from_llm)} turns from the model were replaced by the built-in "
                   "wording because they failed a check.")


common.guard(main)
