"""End to end in a real browser: `streamlit run app.py` on 127.0.0.1, driven by Playwright with
Debian's chromium. Holds a short round by typing into the chat, ends it, reads the report, reloads
and finds the round in history, and saves the report screenshot the README uses. Over the main
pages, no request goes anywhere but the app's own origin (offline means offline).
"""
from __future__ import annotations

import os
import re
import shutil

from browser_support import ANSWERS, ROOT  # noqa: F401  (the app server and chromium are conftest fixtures)


def test_a_round_in_a_real_browser(app_url, browser, tmp_path):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1440, "height": 1100})
    page.set_default_timeout(60_000)
    page.goto(app_url)
    page.get_by_role("button", name="Start the round").click()
    box = page.get_by_test_id("stChatInputTextArea")
    for i, answer in enumerate(ANSWERS, start=1):
        box.fill(answer)
        box.press("Enter")
        # The candidate's answer and then an interviewer reply appear (opening + one reply per answer).
        expect(page.get_by_text(answer[:40])).to_be_visible()
        # The first reply can wait on the vector store's first build: allow it a minute.
        expect(page.get_by_test_id("stChatMessage")).to_have_count(1 + 2 * i, timeout=60_000)
    page.get_by_role("button", name="End round").click()
    expect(page.get_by_role("heading", name="Report: Design GPU Inference Serving System")).to_be_visible()
    expect(page.get_by_text("Capacity number").first).to_be_visible()
    expect(page.get_by_text("Level verdict")).to_be_visible()
    expect(page.get_by_text("131,072 bytes").first).to_be_visible()  # the candidate's own words, quoted
    # The report's picture, under the test's own folder; the README's copy is refreshed only on
    # request: INTERVIEWER_REFRESH_SCREENSHOTS=1 python -m pytest tests/test_browser.py
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    page.wait_for_timeout(1500)  # the score table draws on a canvas after it is attached
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("INTERVIEWER_REFRESH_SCREENSHOTS") == "1":
        shutil.copy(shot, ROOT / "docs" / "screenshot-report.png")

    # Reload: the round is in the history (local mode: one person's machine; nothing about
    # identity in the URL).
    assert "u=" not in page.url
    page.reload()
    page.get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    expect(page.get_by_role("combobox", name="Round")).to_have_value(re.compile("Design GPU Inference Serving System"))
    page.close()


def test_a_second_browser_on_the_same_machine_sees_the_same_history(app_url, browser):
    """Local mode is one person: another browser (no shared cookies, nothing in the URL) shows the
    same rounds. Candidates kept apart from each other is hosted mode: tests/test_browser_auth.py."""
    from playwright.sync_api import expect

    other = browser.new_context().new_page()
    other.set_default_timeout(60_000)
    other.goto(app_url)
    other.get_by_role("link", name="History").click()
    expect(other.get_by_role("heading", name="History")).to_be_visible()
    expect(other.get_by_role("combobox", name="Round")).to_have_value(re.compile("Design GPU Inference Serving System"))
    other.close()


def test_no_request_leaves_the_machine(app_url, browser):
    """Offline means offline: over the main pages (a round, its report, history with charts, the
    bank, the whiteboard, settings) the browser asks nothing of any host but the app's own origin.
    Requests elsewhere are recorded and refused, so the test needs no network to see them."""
    from playwright.sync_api import expect

    origin = app_url.rstrip("/")
    ws_origin = origin.replace("http://", "ws://", 1)
    foreign: list[str] = []

    def local(url: str) -> bool:
        return url.startswith(("data:", "blob:", "about:")) or any(
            url == o or url.startswith(o + "/") for o in (origin, ws_origin))

    def route(r):
        if local(r.request.url):
            r.continue_()
        else:
            foreign.append(r.request.url)
            r.abort()

    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.route("**/*", route)
    page = context.new_page()
    page.on("request", lambda req: None if local(req.url) else foreign.append(req.url))
    page.on("websocket", lambda ws: None if local(ws.url) else foreign.append(ws.url))
    page.set_default_timeout(60_000)

    page.goto(app_url)
    page.get_by_role("button", name="Start the round").click()
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(ANSWERS[0])
    box.press("Enter")
    expect(page.get_by_test_id("stChatMessage")).to_have_count(3, timeout=60_000)
    page.get_by_role("button", name="End round").click()
    expect(page.get_by_role("heading", name="Report: Design GPU Inference Serving System")).to_be_visible(
        timeout=60_000)
    page.get_by_text("Transcript").first.click()
    page.wait_for_timeout(1500)
    for path, heading in (("history", "History"), ("bank", "Question bank"), ("whiteboard", "Whiteboard"),
                          ("settings", "Settings"), ("round", None)):
        page.goto(f"{app_url}/{path}")
        if heading:
            expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=60_000)
        else:
            expect(page.get_by_test_id("stSidebarNav")).to_be_visible(timeout=60_000)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1500)  # icons, fonts and charts load after the page draws
    context.close()
    assert not foreign, f"requests left the machine: {sorted(set(foreign))}"
