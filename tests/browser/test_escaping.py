import json

import pytest
from playwright.sync_api import expect

from historyhub.history import client_actions, item_log, sessions

pytestmark = pytest.mark.browser

SCRIPT = "<script>window.__pwned=1</script>"
IMAGE = '<img src=x onerror="window.__pwned=1">'


def test_markup_in_agent_text_is_shown_as_text_and_runs_nothing(approver_page, transactional_db):
    payload = f"{SCRIPT} and {IMAGE}"
    sessions.ensure(agent="evilAgent", session_id="xss", name=payload, metadata={"note": payload})
    item_log.append(
        "xss",
        [
            {"role": "user", "content": payload},
            {"type": "function_call", "call_id": "x1", "name": "lookup", "arguments": json.dumps({"q": payload})},
            {"type": "function_call_output", "call_id": "x1", "output": payload},
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "image", "mimeType": "image/png", "fileUri": "javascript:window.__pwned=1"},
                    {"type": "url", "mimeType": "text/html", "fileUri": "javascript:window.__pwned=1"},
                ],
            },
        ],
    )
    client_actions.open_action("xss", call_id="x2", name="approve_me", arguments={"text": payload}, description=payload)
    page = approver_page

    page.goto("/")
    expect(page.locator("table.sessions")).to_contain_text(payload)
    page.goto("/p/default/sessions/xss/")
    expect(page.locator(".entry-message").first).to_contain_text(payload)
    expect(page.locator("h1")).to_have_text(payload)
    page.locator(".entry-action summary").click()
    expect(page.locator(".entry-action .output")).to_have_text(payload)
    expect(page.locator(".entry-client_action .description")).to_have_text(payload)
    expect(page.get_by_text("javascript:window.__pwned=1")).to_have_count(2)
    assert page.locator('[href^="javascript"], [src^="javascript"]').count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    page.goto("/p/default/approvals/")
    expect(page.locator(".approval .description")).to_have_text(payload)

    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("img[src=x]").count() == 0
