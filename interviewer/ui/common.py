"""Helpers every page shares: who the browser is, the store, error handling, safe text.

Nothing here decides anything about a round: it only wires Streamlit to the library.
Heavy modules (the store, the LLM client) are imported inside functions so the app starts fast.
"""
from __future__ import annotations

import datetime as dt
import logging
import re
import secrets
import string
from typing import Any, Callable

import streamlit as st

from interviewer.errors import UserError

log = logging.getLogger("interviewer.ui")

# Page scripts, relative to app.py (st.switch_page resolves them against the main script).
ROUND_PAGE = "interviewer/ui/round_page.py"
REPORT_PAGE = "interviewer/ui/report_page.py"
HISTORY_PAGE = "interviewer/ui/history_page.py"
BANK_PAGE = "interviewer/ui/bank_page.py"
WHITEBOARD_PAGE = "interviewer/ui/whiteboard_page.py"
SETTINGS_PAGE = "interviewer/ui/settings_page.py"

OWNER_PARAM = "u"
REPORT_PARAM = "r"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
PREVIEW_CHARS = 1500  # a longer answer is shown collapsed: this much, then an expander with all of it


# --------------------------------------------------------------------------- identity


def owner() -> str:
    """This browser's random token, kept in the URL (?u=...) so a refresh finds its rounds.

    Created on the first visit. Page changes can drop query parameters, so the token is also
    kept in session state and put back into the URL on every run.
    """
    token = st.query_params.get(OWNER_PARAM)
    if isinstance(token, str) and _TOKEN.fullmatch(token):
        st.session_state["owner"] = token
        return token
    token = st.session_state.get("owner") or secrets.token_urlsafe(18)
    st.session_state["owner"] = token
    st.query_params[OWNER_PARAM] = token
    return token


def goto(page: str, **params: str) -> None:
    """Switch page, keeping the owner token in the URL."""
    st.switch_page(page, query_params={OWNER_PARAM: owner(), **params})


# --------------------------------------------------------------------------- errors


def guard(body: Callable[[], Any]) -> None:
    """Run a page body; a UserError shows as one line, anything else as a short message.

    st.rerun / st.switch_page / st.stop raise BaseExceptions, which pass through untouched.
    """
    try:
        body()
    except UserError as exc:
        st.error(str(exc))
    except Exception as exc:  # never a traceback in the browser; the detail goes to the log
        log.exception("page failed")
        st.error(f"Something went wrong here ({type(exc).__name__}). The details are in the server log; "
                 "reload the page to carry on - your saved rounds are kept.")


# --------------------------------------------------------------------------- store


def settings():
    """The operator's settings, read once per process (environment, then secrets.toml)."""
    from interviewer import config

    return config.init(secrets_dict())


def data_dir_key() -> str:
    return str(settings().data_dir)


@st.cache_resource(show_spinner=False)
def _open_store(data_dir: str):
    """One store per data folder and process (the argument is the cache key)."""
    from interviewer.store import open_store

    return open_store()


_NOTICES_SHOWN: set[str] = set()


def get_store(allow_unsaved: bool = False):
    """The store, or None (after explaining why on the page) when it cannot be opened.

    A locked database shows the error and a way on: retry, or (on the round page) practise
    without saving. A notice that a corrupt database was moved aside is shown once.
    """
    if st.session_state.get("nosave"):
        return None
    key = data_dir_key()
    try:
        store, notice = _open_store(key)
    except UserError as exc:
        _store_trouble(str(exc), allow_unsaved)
        return None
    except ImportError:
        log.exception("interviewer.store is not importable")
        _store_trouble("saving rounds is not available in this installation", allow_unsaved)
        return None
    if notice and key not in _NOTICES_SHOWN:
        _NOTICES_SHOWN.add(key)
        st.warning(notice)
    return store


def _store_trouble(message: str, allow_unsaved: bool) -> None:
    st.error(f"Saved rounds are unavailable: {message}")
    st.caption("If another copy of the app is using the same data folder, close it and retry, "
               "or start this one with INTERVIEWER_DATA_DIR set to another folder.")
    cols = st.columns([1, 2, 3])
    if cols[0].button("Retry", key="store_retry"):
        st.rerun()
    if allow_unsaved and cols[1].button("Practise without saving", key="store_nosave"):
        st.session_state["nosave"] = True
        st.rerun()


def remember(state) -> None:
    """Keep a copy of the round in this browser session: the truth until the store has it."""
    st.session_state.setdefault("mem_rounds", {})[state.id] = state.model_copy(deep=True)


def session(store):
    """This browser's Session: its store and owner, its voice, and the rounds still waiting to be saved."""
    from interviewer.session import BuiltinVoice, Session

    settings = llm_settings()
    if uses_llm(settings):
        from interviewer.llm import LLMVoice

        voice = LLMVoice(settings)
    else:
        voice = BuiltinVoice()
    return Session(store=store, owner=owner(), voice=voice, unsaved=st.session_state.setdefault("unsaved", {}))


def save(state, store) -> bool:
    """Save the round; trouble saving shows a warning but never costs the candidate the turn."""
    remember(state)
    svc = session(store)
    if svc.save(state) or store is None:
        return store is not None
    saving_trouble(state, svc.save_error)
    return False


def saving_trouble(state, reason: str | None) -> None:
    """Say that the round is held in this tab, and offer it as a file until the store takes it."""
    st.warning(f"This turn could not be saved ({reason or 'the database is unavailable'}). The round is kept in "
               "this tab and saved as soon as the database takes it again; download it now to be safe.")
    st.download_button("Download this round (JSON)", state.model_dump_json(indent=2), file_name=f"round-{state.id}.json",
                       mime="application/json", key=f"unsaved_{state.id}_{len(state.turns)}")


def load_round(round_id: str, store):
    """A round of this browser's: this session's copy first (it may be newer than the saved one)."""
    state = st.session_state.get("mem_rounds", {}).get(round_id)
    if state is None and store is not None:
        state = store.load(round_id, owner())
    return state


# --------------------------------------------------------------------------- text


_MD_SPECIAL = set(string.punctuation)


def md(text: str | None) -> str:
    """Escape every Markdown-active character so `text` renders literally in st.markdown."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in (text or ""))


def show_user_text(text: str, key: str = "") -> None:
    """Candidate words: plain text, never Markdown or HTML; a long paste is shown collapsed."""
    if not text.strip():
        st.caption("(empty answer)")
        return
    if len(text) <= PREVIEW_CHARS:
        st.text(text)
        return
    st.text(text[:PREVIEW_CHARS].rstrip() + " ...")
    with st.expander(f"Show the whole answer ({len(text):,} characters)"):
        st.text(text)


def interviewer_markdown(text: str) -> str:
    """The interviewer's own words may use light Markdown; a dollar sign is never math."""
    return (text or "").replace("$", "\\$")


def clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60:d}:{seconds % 60:02d}"


def when(ts: float | str | None) -> str:
    if ts in (None, ""):
        return ""
    try:
        return dt.datetime.fromtimestamp(float(ts)).strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError, OSError):
        return str(ts)


# --------------------------------------------------------------------------- LLM backend


def secrets_dict() -> dict:
    """st.secrets as a plain dict, or {} when the app has no secrets file."""
    try:
        return st.secrets.to_dict()
    except Exception:  # no secrets.toml, or an unreadable one: the environment still applies
        return {}


def llm_settings():
    """This session's backend settings (Settings page), defaulting to the environment and secrets.

    Returns None when the LLM module is unavailable or the defaults cannot be read: the
    built-in interviewer then speaks.
    """
    if "llm_settings" in st.session_state:
        return st.session_state["llm_settings"]
    try:
        from interviewer import llm

        backend = llm.backend_settings(settings())
    except UserError as exc:
        st.session_state["llm_settings_error"] = str(exc)
        backend = None
    except Exception:
        log.warning("LLM settings unavailable; using the built-in interviewer", exc_info=True)
        backend = None
    st.session_state["llm_settings"] = backend
    return backend


def uses_llm(settings) -> bool:
    return settings is not None and getattr(settings, "backend", "offline") not in (None, "", "offline")


def redact(text: str, secret: str | None) -> str:
    """Never echo a key, even inside an error message from a server."""
    text = str(text or "")
    if secret and len(secret) >= 4:
        text = text.replace(secret, "***")
    return text
