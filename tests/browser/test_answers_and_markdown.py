"""In Chromium: a description's Markdown is shown, and what an agent injects into it is neutralised; an answer
form generated from the schema answers the action, with a refused field's error next to it."""

import pytest
from playwright.sync_api import expect

from historyhub.history import client_actions, sessions

pytestmark = pytest.mark.browser

HOSTILE = (
    "**Refund** over the limit, see [the order](https://shop.example.com/orders/7).\n\n"
    "<script>window.injected = 'script'</script>\n\n"
    "[click me](javascript:window.injected='link')\n\n"
    '<img src="x" onerror="window.injected=\'img\'"> <b onclick="window.injected=\'raw\'">raw bold</b>'
)
SCHEMA = {
    "type": "object",
    "properties": {
        "amount": {"type": "integer", "title": "Amount", "maximum": 1000},
        "channel": {"type": "string", "enum": ["email", "phone"], "title": "Channel"},
    },
    "required": ["amount"],
}


@pytest.fixture
def asking_session(transactional_db):
    sessions.ensure(agent="supportAgent", session_id="ask-1", name="A question for finance")
    client_actions.open_action(
        "ask-1",
        call_id="call_ask",
        name="ask_finance",
        arguments={"orderId": 7},
        description=HOSTILE,
        allowed_responses=["respond", "dismiss"],
        response_schema=SCHEMA,
    )


def test_markdown_is_rendered_and_injected_script_links_and_html_are_neutralised(approver_page, asking_session):
    page = approver_page
    page.goto("/p/default/sessions/ask-1/")
    description = page.locator(".entry-client_action .description")

    expect(description.locator("strong")).to_have_text("Refund")
    expect(description.get_by_role("link", name="the order")).to_have_attribute(
        "href", "https://shop.example.com/orders/7"
    )
    expect(description).to_contain_text("<script>")  # shown as text, never run
    expect(description.locator("script, img, b")).to_have_count(0)
    expect(description.locator("a[href^='javascript']")).to_have_count(0)
    description.get_by_text("raw bold").click()
    assert page.evaluate("window.injected") is None


def test_only_the_allowed_buttons_show_and_the_answer_form_answers(approver_page, asking_session):
    page = approver_page
    page.goto("/p/default/sessions/ask-1/")
    card = page.locator(".entry-client_action")
    expect(card.get_by_role("button")).to_have_text(["Respond", "Dismiss"])

    card.get_by_label("Amount").fill("250")
    card.get_by_label("Channel").select_option("phone")
    card.get_by_role("button", name="Respond").click()
    expect(card).to_contain_text("answered")
    action = client_actions.get("ask-1", "call_ask")
    assert (action.status, action.response) == ("answered", {"amount": 250, "channel": "phone"})


def test_the_fields_respond_needs_are_marked_and_asked_for_before_responding_but_not_before_dismissing(
    approver_page, asking_session
):
    page = approver_page
    page.goto("/p/default/sessions/ask-1/")
    card = page.locator(".entry-client_action")
    amount, channel = card.get_by_label("Amount"), card.get_by_label("Channel")
    # Marked for the browser, for a screen reader, and for the eye; the label's name stays "Amount".
    expect(amount).to_have_attribute("required", "")
    expect(amount).to_have_attribute("aria-required", "true")
    expect(card.locator(".answer-field", has_text="Amount").locator(".required-marker")).to_have_text("required")
    expect(amount).to_have_accessible_name("Amount")
    expect(channel).not_to_have_attribute("required", "")
    expect(card.locator(".answer-field", has_text="Channel").locator(".required-marker")).to_have_count(0)

    # Respond with Amount empty: the browser asks for it where it is, and sends nothing.
    card.get_by_role("button", name="Respond").click()
    expect(amount).to_be_focused()
    assert amount.evaluate("field => field.validity.valueMissing")

    # Dismiss needs no answer: the browser lets it through with Amount still empty.
    card.get_by_role("button", name="Dismiss").click()
    expect(card.locator("summary .badge")).to_have_text("dismissed")
    assert client_actions.get("ask-1", "call_ask").status == "dismissed"
