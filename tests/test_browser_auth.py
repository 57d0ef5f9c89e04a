"""Hosted mode end to end: `streamlit run app.py` with an [auth] section naming a real OpenID Connect
provider on 127.0.0.1 (oidc-provider-mock: the one .ci/run starts, named by OIDC_TEST_ISSUER, or
one started here), driven by Playwright with Debian's chromium. Two candidates sign in through the
provider's own form; neither sees the other's rounds, a link to one's report does not open it for
the other, and a signed-out visitor sees no rounds and is asked to sign in."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest
from browser_support import ANSWERS, ROOT, free_port, need_chromium, server_env, stop_process, streamlit_app, wait_for

TITLE = "Design GPU Inference Serving System"


@pytest.fixture(scope="module")
def issuer(tmp_path_factory):
    """The OpenID Connect provider's issuer URL."""
    named = os.environ.get("OIDC_TEST_ISSUER")
    if named:
        yield named.rstrip("/")
        return
    try:
        import oidc_provider_mock  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("oidc-provider-mock is not installed (requirements-dev.txt)")
        pytest.skip("oidc-provider-mock is not installed (pip install -r requirements-dev.txt)")
    port = free_port()
    log = tmp_path_factory.mktemp("oidc") / "provider.log"
    proc = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(port)],
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{url}/.well-known/openid-configuration", proc, "oidc-provider-mock", 60)
        yield url
    finally:
        stop_process(proc)


@pytest.fixture(scope="module")
def hosted_app(issuer, tmp_path_factory):
    need_chromium()
    work = tmp_path_factory.mktemp("hosted")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    secrets_file = work / "secrets.toml"
    secrets_file.write_text(
        "[auth]\n"
        f'redirect_uri = "{url}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_urlsafe(32)}"\n'
        'client_id = "interviewer-test"\n'
        'client_secret = "interviewer-test-secret"\n'
        f'server_metadata_url = "{issuer}/.well-known/openid-configuration"\n')
    env = server_env(work / "data")
    # The vector store built before the app starts, so no first answer waits on a build on a busy machine.
    built = subprocess.run([sys.executable, "-m", "interviewer", "ingest"], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    with streamlit_app(env, "--secrets.files", str(secrets_file), port=port) as app:
        yield app


def visitor(browser):
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.set_default_timeout(60_000)
    return page


def sign_in(page, app: str, subject: str) -> None:
    """The app's Sign in button, the provider's own form, and back."""
    from playwright.sync_api import expect

    page.goto(app)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/oauth2/authorize**")
    page.locator('input[name="sub"]').fill(subject)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{app}/**")
    expect(page.get_by_text(f"Signed in as {subject}")).to_be_visible()


def hold_a_round(page) -> str:
    """Start a round, answer once, end it; returns the report's URL."""
    from playwright.sync_api import expect

    page.get_by_role("button", name="Start the round").click()
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(ANSWERS[1])
    box.press("Enter")
    expect(page.get_by_test_id("stChatMessage")).to_have_count(3, timeout=120_000)
    page.get_by_role("button", name="End round").click()
    expect(page.get_by_role("heading", name=f"Report: {TITLE}")).to_be_visible()
    page.wait_for_url("**/report?r=*")
    return page.url


def test_two_candidates_never_see_each_others_rounds(hosted_app, browser):
    from playwright.sync_api import expect

    # A signed-out visitor: asked to sign in, no rounds anywhere.
    anon = visitor(browser)
    anon.goto(hosted_app)
    expect(anon.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(anon.get_by_role("button", name="Start the round")).to_have_count(0)

    alice = visitor(browser)
    sign_in(alice, hosted_app, "alice@example.com")
    alice_report = hold_a_round(alice)

    bob = visitor(browser)
    sign_in(bob, hosted_app, "bob@example.com")
    bob.get_by_role("link", name="History").click()
    expect(bob.get_by_role("heading", name="History")).to_be_visible()
    expect(bob.get_by_text("No rounds yet")).to_be_visible()
    expect(bob.get_by_role("combobox", name="Round")).to_have_count(0)
    # Alice's report link, opened by Bob: not hers to him.
    bob.goto(alice_report)
    expect(bob.get_by_text("not one of yours")).to_be_visible()
    expect(bob.get_by_role("heading", name=f"Report: {TITLE}")).to_have_count(0)
    bob.goto(hosted_app)
    bob_report = hold_a_round(bob)
    assert bob_report != alice_report

    # Alice sees her one round, not Bob's.
    alice.goto(hosted_app + "/history")
    expect(alice.get_by_role("heading", name="History")).to_be_visible()
    alice.get_by_role("combobox", name="Round").click()
    expect(alice.get_by_role("option")).to_have_count(1)
    alice.keyboard.press("Escape")
    alice.goto(bob_report)
    expect(alice.get_by_text("not one of yours")).to_be_visible()

    # The signed-out visitor, given both links, sees neither.
    for link in (alice_report, bob_report, hosted_app + "/history"):
        anon.goto(link)
        expect(anon.get_by_role("heading", name="Sign in")).to_be_visible()
        expect(anon.get_by_role("heading", name=f"Report: {TITLE}")).to_have_count(0)
        expect(anon.get_by_role("combobox", name="Round")).to_have_count(0)
    for p in (anon, alice, bob):
        p.context.close()
