"""Every main page passes axe-core's WCAG 2 A and AA rules, in the light theme and the dark one, at 1280 px:
as it opens, and again with every <details> on it open (folded text, archived history, tool call cards).

axe-core is vendored for the tests only (tests/browser/vendor/README.md) and injected into each page before
its own scripts run; the pages' Content-Security-Policy does not apply to what the browser is told to run.
"""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from historyhub.demo.demo_data import write_demo
from historyhub.projects.models import Role
from tests.browser.conftest import log_in, watched_page
from tests.support.actors import make_member

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1.min.js"
RUN_AXE = """async () => {
  const result = await axe.run(document, {
    runOnly: {type: "tag", values: ["wcag2a", "wcag2aa"]},
    resultTypes: ["violations"],
  });
  return result.violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact,
    help: violation.help,
    nodes: violation.nodes.slice(0, 5).map((node) => node.target.join(" ")),
  }));
}"""
OPEN_EVERY_DETAILS = "() => document.querySelectorAll('details').forEach((details) => { details.open = true; })"
PAGES = {
    "sessions": "/p/default/",
    "search results": "/p/default/?q=refund",
    "a session waiting on a person": "/p/default/sessions/demo-refund-approval/",
    "a session with media": "/p/default/sessions/demo-media-inspection/",
    "a compacted session": "/p/default/sessions/demo-compacted/",
    "a long report and tool output": "/p/default/sessions/demo-incident-report/",
    "a session with a subagent": "/p/default/sessions/demo-research-batteries/",
    "approvals": "/p/default/approvals/",
    "decided actions, to read": "/p/default/approvals/?state=closed",
    "settings": "/p/default/settings/",
    "audit log": "/p/default/settings/audit/",
    "channels": "/p/default/settings/channels/",
    "export and import": "/p/default/settings/data/",
    "a page that is not there": "/p/default/sessions/no-such-session/",
}


def violations(page, path):
    """What axe finds on the page at ``path``, as it opens and with every <details> open."""
    page.goto(path)
    page.wait_for_load_state("load")
    found = [{"page": path, **violation} for violation in page.evaluate(RUN_AXE)]
    page.evaluate(OPEN_EVERY_DETAILS)
    found += [{"page": f"{path} (details open)", **violation} for violation in page.evaluate(RUN_AXE)]
    return found


def themed_context(browser, server, theme):
    """A browser whose system and chosen theme are both ``theme`` (the cookie static/js/theme.js sets)."""
    context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900}, color_scheme=theme)
    context.add_cookies([{"name": "theme", "value": theme, "url": server.url}])
    context.add_init_script(path=AXE)
    return context


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_main_page_passes_wcag_2_a_and_aa_rules(browser, asgi_live_server, transactional_db, theme):
    write_demo()
    make_member("admin", Role.ADMIN, password="admin-password-1")
    context = themed_context(browser, asgi_live_server, theme)
    try:
        page, problems = watched_page(context)
        page.goto("/accounts/login/")
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        found = violations(page, "/accounts/login/")
        log_in(page, "admin", "admin-password-1")
        for path in PAGES.values():
            found += violations(page, path)
        assert problems == []
    finally:
        context.close()
    assert found == [], "\n".join(f"{v['page']}: {v['rule']} ({v['impact']}) {v['help']}: {v['nodes']}" for v in found)


def test_the_check_sees_a_violation_when_a_page_has_one(browser, asgi_live_server, transactional_db):
    context = themed_context(browser, asgi_live_server, "light")
    try:
        page, _ = watched_page(context)
        page.goto("/accounts/login/")
        assert page.evaluate(RUN_AXE) == []
        page.evaluate("() => document.querySelector('main').append(document.createElement('img'))")
        assert [violation["rule"] for violation in page.evaluate(RUN_AXE)] == ["image-alt"]
    finally:
        context.close()
