"""Who you are, through Streamlit's AppTest: local mode (one person, one history, nothing in the URL)
and hosted mode (st.login; rounds belong to the signed-in subject, a link opens a round only for its
owner, a signed-out visitor sees none and is asked to sign in). st.user is seeded the way AppTest
allows; the real sign-in against an OpenID Connect provider is tests/test_browser_auth.py."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import answer
from streamlit.testing.v1 import AppTest

from interviewer import config, interview
from interviewer.store import open_store

APP = str(Path(__file__).resolve().parent.parent / "app.py")
ROUND, REPORT, HISTORY, BANK = ("interviewer/ui/round_page.py", "interviewer/ui/report_page.py",
                                "interviewer/ui/history_page.py", "interviewer/ui/bank_page.py")
ISSUER = "http://idp.test"
AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "c" * 32, "client_id": "app",
        "client_secret": "s", "server_metadata_url": f"{ISSUER}/.well-known/openid-configuration"}
QID = "gpu-inference-serving"
POLICY = ("Continuous batching with limits: max_num_batched_tokens 8192 per step, max_num_seqs 128. When the KV cache "
          "is full we preempt the lowest-priority newest sequence and recompute it later.")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "INTERVIEWER_BACKEND", "INTERVIEWER_MODEL", "CHROMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    config.reload()


def owner_of(sub: str) -> str:
    return f"oidc:{ISSUER}|{sub}"


def app(user: str | None = None, page: str | None = None, auth: bool = True, **params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if auth:
        at.secrets["auth"] = dict(AUTH)
    at.user = ({"is_logged_in": True, "sub": user, "iss": ISSUER, "email": f"{user}@example.com"} if user
               else {"is_logged_in": False})
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def graded_round(owner: str):
    state = interview.start_round(QID, "Anthropic", "senior")
    answer(state, POLICY)
    interview.end_round(state)
    store, _ = open_store()
    store.save(state, owner)
    store.close()
    return state


def texts(at: AppTest) -> str:
    out = []
    for kind in ("markdown", "text", "caption", "info", "warning", "error", "title", "subheader"):
        out += [str(e.value) for e in getattr(at, kind)]
    return "\n".join(out)


def test_a_signed_out_visitor_sees_no_rounds_and_is_asked_to_sign_in():
    alices = graded_round(owner_of("alice"))
    for page in (None, HISTORY, REPORT):
        at = app(page=page, r=alices.id)
        assert at.title[0].value == "Sign in"
        assert at.button(key="sign_in_default").label == "Sign in"
        assert not at.chat_message and not at.dataframe and not at.get("download_button")
        assert alices.id not in texts(at) and "Report:" not in texts(at)
    bank = app(page=BANK)  # the question bank is open to everyone
    assert bank.title[0].value != "Sign in" and not bank.error


def test_rounds_belong_to_the_signed_in_subject():
    at = app("alice")
    assert any("Signed in as alice@example.com" in c.value.replace("\\", "") for c in at.sidebar.caption)
    assert at.sidebar.button(key="sign_out")
    at.selectbox(key="setup_question").set_value(QID)
    at.button(key="start_round").click().run()
    at.chat_input(key="answer").set_value(POLICY).run()
    assert not at.exception and at.chat_message[-1].name == "assistant"
    rid = at.session_state["round"].id
    store, _ = open_store()
    assert [r.id for r in store.list(owner_of("alice"))] == [rid]
    store.close()

    bob = app("bob")  # bob's round page: no resume of alice's open round
    assert bob.button(key="start_round") and not bob.chat_message
    bob_history = app("bob", HISTORY)
    assert not bob_history.dataframe and any("No rounds yet" in i.value for i in bob_history.info)
    alice_again = app("alice")  # a new tab of alice's resumes hers
    assert [m.name for m in alice_again.chat_message] == ["assistant", "user", "assistant"]


def test_a_link_to_a_round_opens_it_only_for_its_owner():
    alices = graded_round(owner_of("alice"))
    mine = app("alice", REPORT, r=alices.id)
    assert mine.title[0].value.startswith("Report: Design GPU Inference Serving System")
    bobs = app("bob", REPORT, r=alices.id)
    assert not any(t.value.startswith("Report:") for t in bobs.title)
    assert any("not one of yours" in c.value for c in bobs.caption)
    assert any("No graded rounds yet" in i.value for i in bobs.info)
    history = app("bob", HISTORY)  # nor can bob delete it: it is not in his list
    assert not history.dataframe and "history_delete" not in [b.key for b in history.button]
    store, _ = open_store()
    assert store.load(alices.id, owner_of("alice")) == alices
    store.close()


def test_the_same_subject_of_another_issuer_is_another_person():
    graded_round("oidc:http://other-idp.test|alice")
    at = app("alice", HISTORY)
    assert not at.dataframe


def test_hosted_mode_without_a_provider_is_an_error_not_local(monkeypatch):
    monkeypatch.setenv("INTERVIEWER_AUTH", "oidc")
    config.reload()
    graded_round("local")
    at = app(page=HISTORY, auth=False)
    assert at.error and "[auth]" in at.error[0].value
    assert not at.dataframe


def test_local_mode_is_one_history_with_no_token_in_the_url(monkeypatch):
    """Local mode (the default with no [auth]; or INTERVIEWER_AUTH=local): an old ?u= link is
    dropped, and rounds earlier releases kept under per-browser tokens are the local user's."""
    old = graded_round("Zx3-token-of-an-old-browser-tab")
    at = app(page=HISTORY, auth=False, u="Zx3-token-of-an-old-browser-tab")
    assert "u" not in at.query_params
    assert list(at.dataframe[0].value["Question"]) == ["Design GPU Inference Serving System"]
    other_tab = app(page=REPORT, auth=False, r=old.id)
    assert other_tab.title[0].value.startswith("Report:")
    assert not other_tab.sidebar.caption or not any("Signed in" in c.value for c in other_tab.sidebar.caption)

    monkeypatch.setenv("INTERVIEWER_AUTH", "local")  # the operator's choice wins over an [auth] section
    config.reload()
    forced = app(page=HISTORY, auth=True)
    assert forced.dataframe and not any(t.value == "Sign in" for t in forced.title)
