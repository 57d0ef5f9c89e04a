"""Helpers every page shares: who the visitor is, the store, error handling, safe text.

Nothing here decides anything about a round: it only wires Streamlit to the library.
Heavy modules (the store, the LLM client) are imported inside functions so the app starts fast.
"""
from __future__ import annotations

import datetime as dt
import logging
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

LEGACY_OWNER_PARAM = "u"  # the per-browser token earlier releases kept in the URL; dropped on sight
REPORT_PARAM = "r"
LOCAL_OWNER = "local"
PUBLIC_PAGES = {"bank", "whiteboard"}  # url paths a signed-out visitor may open on a hosted server
PREVIEW_CHARS = 1500  # a longer answer is shown collapsed: this much, then an expander with all of it


# --------------------------------------------------------------------------- identity
#
# Two modes (README "Who you are"), chosen by the operator (INTERVIEWER_AUTH, else whether
# secrets.toml has an [auth] section):
#   local  one person on their own machine: every tab and every browser on it sees the same
#          history (owner "local"); nothing about identity is in the URL.
#   oidc   a hosted server: Streamlit's st.login with the OpenID Connect provider the operator
#          configured; rounds belong to the signed-in subject (issuer + sub from the ID token), so
#          a link to a round opens it only for its owner; a signed-out visitor sees no rounds.


def auth_mode() -> str:
    """'local' or 'oidc'. INTERVIEWER_AUTH=oidc without an [auth] section is a UserError, never local."""
    chosen = settings().auth
    if chosen == "oidc" and not auth_providers():
        raise UserError("INTERVIEWER_AUTH=oidc, but .streamlit/secrets.toml has no [auth] section naming an "
                        "OpenID Connect provider (redirect_uri, cookie_secret, client_id, client_secret, "
                        "server_metadata_url); see the README, \"Who you are\"")
    if chosen:
        return chosen
    return "oidc" if auth_providers() else "local"


def auth_providers() -> list[str | None]:
    """The providers in secrets.toml [auth]: [None] for one unnamed provider, else their names."""
    auth = secrets_dict().get("auth")
    if not isinstance(auth, dict):
        return []
    named = [k for k, v in auth.items() if isinstance(v, dict) and ("client_id" in v or "server_metadata_url" in v)]
    if "client_id" in auth or not named:
        return [None]
    return named


def subject_owner(user: dict) -> str | None:
    """The owner key of a signed-in user: the ID token's issuer and subject (stable and unique per
    the OpenID Connect spec; an e-mail address can change hands). None when signed out."""
    if not user or not user.get("is_logged_in") or not user.get("sub"):
        return None
    issuer = user.get("iss") or user.get("provider") or "default"
    return f"oidc:{issuer}|{user['sub']}"


def _user() -> dict:
    try:
        return st.user.to_dict()
    except Exception:  # no user information in this context
        return {}


def signed_in() -> bool:
    """Whether this session may see rounds: always in local mode; when signed in on a hosted server."""
    return auth_mode() == "local" or subject_owner(_user()) is not None


def may_open(page) -> bool:
    """A signed-out visitor on a hosted server may open the public pages (bank, whiteboard) only."""
    return signed_in() or getattr(page, "url_path", "") in PUBLIC_PAGES


def owner() -> str:
    """Whose rounds this session reads and writes.

    Local mode: "local" (any ?u= token an older release put in a link is dropped). Hosted: the
    signed-in subject; a signed-out visitor is shown the sign-in prompt and the page stops here,
    so no page ever reads rounds without an owner.
    """
    if LEGACY_OWNER_PARAM in st.query_params:
        del st.query_params[LEGACY_OWNER_PARAM]
    if auth_mode() == "local":
        return LOCAL_OWNER
    who = subject_owner(_user())
    if who is None:
        sign_in_prompt()
        st.stop()
    return who


def user_label() -> str:
    user = _user()
    return str(user.get("email") or user.get("name") or user.get("sub") or "")


def sign_in_prompt() -> None:
    """What a signed-out visitor to a hosted server sees instead of rounds."""
    st.title("Sign in")
    st.info("Rounds on this server belong to the candidate who held them. Sign in to hold a mock round "
            "and to see your history and reports; the question bank and the whiteboard are open to all.")
    for provider in auth_providers():
        label = "Sign in" if provider is None else f"Sign in with {provider}"
        if st.button(label, type="primary", key=f"sign_in_{provider or 'default'}", icon=":material/login:"):
            try:
                st.login(provider)
            except Exception as exc:  # a misconfigured [auth] section: say so, never a traceback
                log.warning("st.login failed: %s", exc)
                st.error(f"Sign-in is not configured correctly on this server ({type(exc).__name__}: "
                         f"{' '.join(str(exc).split())[:200]}). Tell the operator.")


def identity_sidebar() -> None:
    """Hosted mode: who is signed in, and a way out. Drops an older release's ?u= token from the URL."""
    if LEGACY_OWNER_PARAM in st.query_params:
        del st.query_params[LEGACY_OWNER_PARAM]
    if auth_mode() != "oidc":
        return
    with st.sidebar:
        if signed_in():
            st.caption(f"Signed in as {md(user_label())}")
            if st.button("Sign out", key="sign_out", icon=":material/logout:"):
                for key in list(st.session_state.keys()):  # nothing of this user stays in the tab
                    del st.session_state[key]
                st.logout()
        else:
            st.caption("Not signed in")


def goto(page: str, **params: str) -> None:
    """Switch page with these query parameters (identity is never one of them)."""
    st.switch_page(page, query_params=params or None)


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
    """Which store this process uses: the database URL when the operator set one, else the data folder."""
    s = settings()
    return f"{s.database_url or ''}|{s.data_dir}"


@st.cache_resource(show_spinner=False)
def _open_store(key: str):
    """One store per database and process (the argument is the cache key). In local mode, rounds
    that earlier releases saved under per-browser ?u= tokens become the local user's."""
    from interviewer.store import open_store

    store, notice = open_store()
    if auth_mode() == "local":
        try:
            claimed = store.claim_legacy_rounds(LOCAL_OWNER)
        except Exception:  # the history still opens; those rounds just stay under their old tokens
            log.warning("could not claim earlier releases' rounds for the local user", exc_info=True)
        else:
            if claimed:
                log.info("local mode: %d rounds saved under browser tokens of earlier releases are now shown",
                         claimed)
    return store, notice


def get_store(allow_unsaved: bool = False):
    """The store, or None (after explaining why on the page) when it cannot be opened.

    A locked database shows the error and a way on: retry, or (on the round page) practise
    without saving. Each user whose rounds were set aside or restored is told once (Store.take_notices).
    """
    if st.session_state.get("nosave"):
        return None
    key = data_dir_key()
    try:
        store, _ = _open_store(key)
    except UserError as exc:
        _store_trouble(str(exc), allow_unsaved)
        return None
    except ImportError:
        log.exception("interviewer.store is not importable")
        _store_trouble("saving rounds is not available in this installation", allow_unsaved)
        return None
    # Every user whose rounds were set aside or restored from a backup is told, once.
    if not st.session_state.get("store_notices_taken"):
        st.session_state["store_notices_taken"] = True
        for text in store.take_notices(owner()):
            st.warning(text, icon=":material/restore:")
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


def grounded_retriever(query: str, criterion: str | None, k: int = 2):
    """The vector store search the browser's Session grounds replies with. A store that fails (a
    Chroma server gone away) never costs the turn: the reply goes out ungrounded and the candidate
    is told so, once per turn."""
    from interviewer.moves import Passage

    try:
        from interviewer.retrieval import search

        hits = search(query, k=k, criterion=criterion)
    except Exception as exc:
        log.warning("retrieval failed: %s", " ".join(str(exc).split())[:200])
        st.toast("The source search is unavailable right now, so this reply cites no passages. "
                 "Your round is unaffected.", icon=":material/cloud_off:")
        return []
    return [Passage(doc_id=h.doc_id, title=h.title, source=h.source, text=h.text, score=h.score) for h in hits]


def session(store):
    """This browser's Session: its store and owner, its voice, and the rounds still waiting to be saved."""
    from interviewer.session import BuiltinVoice, Session

    settings = llm_settings()
    if uses_llm(settings):
        from interviewer.llm import LLMVoice

        voice = LLMVoice(settings)
    else:
        voice = BuiltinVoice()
    return Session(store=store, owner=owner(), voice=voice, retriever=grounded_retriever,
                   unsaved=st.session_state.setdefault("unsaved", {}))


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
    """The interviewer's words may use light Markdown, but they can quote the candidate: nothing in
    them may link, embed or fetch (report.md_inert), and a dollar sign is never math."""
    from interviewer.report import md_inert

    return md_inert(text)


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
