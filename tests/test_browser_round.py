"""In a real browser: a round of 30 answers (a full round's worth of exchanges) with no question asked
twice, and a company drill to its last card, whose score the summary shows."""
from __future__ import annotations

from interviewer.scripted import PLAIN, WEAK

ANSWERS = [PLAIN["capacity_number"], PLAIN["scheduling_policy"], PLAIN["tail_latency_tradeoff"], *WEAK]


def test_thirty_answers_in_the_browser_and_no_question_twice(app_url, browser):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(60_000)
    page.goto(app_url)
    page.get_by_role("button", name="Start the round").click()
    box = page.get_by_test_id("stChatInputTextArea")
    for i in range(1, 31):
        box.fill(f"({i}) " + ANSWERS[i % len(ANSWERS)])
        box.press("Enter")
        expect(page.get_by_test_id("stChatMessage")).to_have_count(1 + 2 * i, timeout=60_000)
    replies = page.get_by_test_id("stChatMessage").all_inner_texts()[0::2]
    assert len(replies) == 31
    assert len(set(replies)) == len(replies), "an interviewer turn was repeated word for word"
    page.get_by_role("button", name="End round").click()
    expect(page.get_by_role("heading", name="Report: Design GPU Inference Serving System")).to_be_visible()
    page.close()


def test_a_drill_to_its_last_card_shows_every_score(app_url, browser):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(60_000)
    page.goto(app_url)
    page.get_by_role("radio", name="Company drill").click()
    page.get_by_role("button", name="Start the drill").click()
    box = page.get_by_test_id("stChatInputTextArea")
    for i in range(1, 7):
        if page.get_by_role("heading", name="drill: summary").count():
            break
        box.fill("Batch up to 64 requests and wait at most 5 ms; p99 under 150 ms; preempt the lowest priority.")
        box.press("Enter")
        # wait for this answer's own score (or the summary) before the next: on a busy machine an answer typed while
        # the last one is still being graded would be lost, and the drill would never reach its last card
        # (.first: on the last card the score and the summary both show, and one is enough)
        expect(page.get_by_text("On-the-spot score").nth(i - 1).or_(
            page.get_by_role("heading", name="drill: summary")).first).to_be_visible(timeout=60_000)
    expect(page.get_by_role("heading", name="drill: summary")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Your last answer")).to_be_visible()
    expect(page.get_by_text("not reached")).to_have_count(0)
    page.close()
