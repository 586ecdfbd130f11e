"""Browser tests: Playwright drives Debian's Chromium, headless, against the app under uvicorn (``asgi_live_server``).

Every page a test opens must keep to the Content-Security-Policy: a violation,
or any uncaught script error, fails the test.
"""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from historyhub.history import client_actions, item_log, sessions

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Per module, not per session: Playwright's sync API runs an event loop that
# code tested after the browser tests (the asyncio client) must not find running.
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        message = f"{CHROMIUM} is missing: install Debian's chromium package to run the browser tests."
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def context(browser, asgi_live_server):
    context = browser.new_context(base_url=asgi_live_server.url, viewport={"width": 1280, "height": 900})
    yield context
    context.close()


@pytest.fixture
def page(context):
    page, problems = watched_page(context)
    yield page
    assert problems == []


def watched_page(context):
    """A page, and the CSP violations and script errors it met (a test expects none)."""
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.on(
        "console",
        lambda message: (
            problems.append(f"{message.location['url']}: {message.text}")
            if message.type == "error" and "Content Security Policy" in message.text
            else None
        ),
    )
    return page, problems


@pytest.fixture
def no_script_page(browser, asgi_live_server, approver):
    """An approver's page in a browser that runs no JavaScript: what works without it must work here."""
    context = browser.new_context(
        base_url=asgi_live_server.url, viewport={"width": 1280, "height": 900}, java_script_enabled=False
    )
    page, problems = watched_page(context)
    log_in(page, "owner", "owner-password-1")
    yield page
    context.close()
    assert problems == []


@pytest.fixture
def refund_session(transactional_db):
    """A support session waiting on a refund approval."""
    sessions.ensure(agent="supportAgent", session_id="refund-1", name="Refund for a broken espresso machine")
    item_log.append(
        "refund-1",
        [
            {"type": "message", "role": "user", "content": "My machine arrived broken.\nThe box was crushed."},
            {"role": "assistant", "content": [{"type": "output_text", "text": "A refund of $750 needs approval."}]},
        ],
    )
    client_actions.open_action(
        "refund-1",
        call_id="call_refund",
        name="request_human_approval",
        arguments={"amount": 750, "currency": "USD"},
        description="Refund above the $500 self-service limit",
    )
    return "refund-1"


def log_in(page, username, password):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Sessions", exact=True)).to_be_visible()
    # The heading can show before the stylesheet applies: what a test measures next (colours, widths) needs it.
    page.wait_for_load_state("load")


@pytest.fixture
def approver_page(page, approver):
    log_in(page, "owner", "owner-password-1")
    return page


@pytest.fixture
def viewer_page(page, viewer):
    log_in(page, "viewer", "viewer-password-1")
    return page
