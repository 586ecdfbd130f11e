"""Reading long sessions in the browser: long text folded behind Show all, with or without JavaScript, and a
search's match marked in the results (docs/dashboard.md, "Reading")."""

import pytest
from playwright.sync_api import expect

from historyhub.history import item_log, sessions

pytestmark = pytest.mark.browser

# About 65,000 characters of prose with a word at its very end, and a few short lines after it to show
# the page goes on.
LONG = " ".join(f"sentence {n} of a very long answer." for n in range(2_200)) + " THE-END"
HEIGHT = "document.documentElement.scrollHeight"


@pytest.fixture
def long_answer(transactional_db):
    assert len(LONG) > 65_000
    sessions.ensure(agent="researchAgent", session_id="essay", name="A very long answer")
    item_log.append(
        "essay",
        [
            {"role": "user", "content": "Tell me everything."},
            {"role": "assistant", "content": LONG},
            {"role": "user", "content": "Thanks, that is enough."},
        ],
    )
    return "/p/default/sessions/essay/"


def test_a_65000_character_message_is_folded_and_shows_all_on_a_click(approver_page, long_answer):
    page = approver_page
    page.goto(long_answer)
    expect(page.get_by_text("Thanks, that is enough.")).to_be_visible()
    folded = page.evaluate(HEIGHT)
    assert folded < 3_000
    end = page.locator(".fold-whole .markdown").get_by_text("THE-END", exact=False)
    expect(end).to_be_hidden()

    page.locator(".fold-whole > summary").click()
    expect(page.locator(".fold-whole > summary")).to_contain_text("Show less")
    expect(page.locator(".fold-start")).to_be_hidden()
    end.scroll_into_view_if_needed()
    expect(end).to_be_visible()
    assert page.evaluate(HEIGHT) > folded + 5_000

    page.locator(".fold-whole > summary").click()
    expect(page.locator(".fold-start")).to_be_visible()
    assert page.evaluate(HEIGHT) == folded


def test_folding_needs_no_javascript(no_script_page, long_answer):
    page = no_script_page
    page.goto(long_answer)
    folded = page.evaluate(HEIGHT)
    assert folded < 3_000
    page.locator(".fold-whole > summary").click()
    expect(page.locator(".fold-whole .markdown")).to_be_visible()
    assert page.evaluate(HEIGHT) > folded + 5_000


def test_a_search_shows_where_it_matched_with_the_match_marked(approver_page, long_answer):
    page = approver_page
    page.get_by_placeholder("Search sessions and messages").press_sequentially("the-end", delay=30)
    expect(page).to_have_url("/p/default/?q=the-end")
    match = page.locator("table.sessions tbody tr .search-match")
    expect(match).to_have_count(1)
    expect(match).to_contain_text("In a message:")
    expect(match.locator("mark.match")).to_have_text("THE-END")
    # The snippet is a few words, not the message.
    assert len(match.inner_text()) < 300
