import pytest
from playwright.sync_api import expect

from historyhub.history import client_actions, item_log, sessions
from tests.support.browser import screenshot

pytestmark = pytest.mark.browser

# Shows as GB33 BUKB 2020 1555 5555 55 where the override is left to work: it turns what follows around.
IBAN = "\u202e55 5555 5551 0202 BKUB 33BG\u202c"
DISGUISED = "GB33 BUKB 2020 1555 5555 55"

# Where on the screen a piece of an element's text is drawn: the left edge of its first character.
LEFT_OF = """([element, piece]) => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(piece);
    if (at >= 0) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + 1);
      return range.getBoundingClientRect().left;
    }
  }
  return null;
}"""


@pytest.fixture
def payment(transactional_db):
    sessions.ensure(agent="billingAgent", session_id="pay-1", name="Pay the supplier")
    item_log.append("pay-1", [{"role": "user", "content": "Pay the supplier."}])
    client_actions.open_action(
        "pay-1", call_id="call_pay", name="send_payment", arguments={"iban": IBAN, "amount": 900}
    )


def reads_left_to_right(page, element, first, last):
    """Whether ``first`` is drawn to the left of ``last`` in the element, as its text reads."""
    left_of = [page.evaluate(LEFT_OF, [element.element_handle(), piece]) for piece in (first, last)]
    assert None not in left_of
    return left_of[0] < left_of[1]


def test_the_approvals_page_shows_the_override_and_the_iban_as_it_really_is(approver_page, payment):
    page = approver_page
    page.goto("/p/default/approvals/")
    card = page.locator(".approval")
    expect(card).to_contain_text("This action's text contains invisible or direction-changing characters")
    arguments = card.locator("ul.argument-tree")
    expect(arguments).to_contain_text("⟨U+202E⟩55 5555 5551 0202 BKUB 33BG⟨U+202C⟩")
    expect(arguments).not_to_contain_text(DISGUISED)
    # Drawn in the order it is stored: the "55" the agent put first is on the left, not turned to the right.
    assert reads_left_to_right(page, arguments, "55 5555", "33BG")
    expect(card.locator("mark.hidden-char").first).to_be_visible()
    screenshot(page, "hidden-characters")


def test_the_timeline_box_shows_escapes_and_approving_it_as_shown_keeps_the_exact_arguments(approver_page, payment):
    page = approver_page
    page.goto("/p/default/sessions/pay-1/")
    card = page.locator(".entry-client_action")
    box = card.get_by_label("Arguments")
    expect(box).to_have_value('{\n  "iban": "\\u202e55 5555 5551 0202 BKUB 33BG\\u202c",\n  "amount": 900\n}')
    card.get_by_role("button", name="Approve").click()
    expect(card).to_contain_text("approved")
    expect(card.locator(".compare")).to_contain_text("⟨U+202E⟩55 5555")
    action = client_actions.get("pay-1", "call_pay")
    assert action.approved_arguments_json == action.arguments_json and action.approved_arguments["iban"] == IBAN
