import base64
import re

import pytest
from playwright.sync_api import expect

from historyhub.history import item_log, sessions
from tests.support.browser import RequestLog, screenshot
from tests.support.tiny_server import TinyServer

pytestmark = pytest.mark.browser

# A 1×1 PNG, for a host that is not this server.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture
def photo_host():
    """Another host (this server is 127.0.0.1; this one is localhost) that records every request."""
    with TinyServer([(200, {"Content-Type": "image/png"}, PNG)]) as server:
        server.base = server.url.replace("127.0.0.1", "localhost")
        yield server


def test_an_image_from_another_host_loads_only_when_the_person_asks(approver_page, photo_host, transactional_db):
    host = photo_host.base.removeprefix("http://")
    sessions.ensure(agent="supportAgent", session_id="photo", name="The damaged box")
    item_log.append(
        "photo",
        [
            {
                "role": "user",
                "content": [
                    {"type": "image", "mimeType": "image/png", "fileUri": f"{photo_host.base}/box.png"},
                    {"type": "image", "mimeType": "image/svg+xml", "fileUri": "/static/demo/damaged-box.svg"},
                ],
            }
        ],
    )
    page = approver_page
    log = RequestLog(page.context)
    page.goto("/p/default/sessions/photo/")
    expect(page.locator(".entry-message img")).to_have_count(1)
    expect(page.locator(".entry-message img")).to_have_js_property("complete", True)
    load = page.get_by_role("link", name=f"Load image from {host}")
    expect(load).to_be_visible()
    screenshot(page, "external-media")
    assert log.to(photo_host.base) == [] and photo_host.requests == []

    load.click()
    loaded = page.locator(f'.entry-message img[src="{photo_host.base}/box.png"]')
    expect(loaded).to_have_js_property("naturalWidth", 1)
    assert [request.url for request in log.to(photo_host.base)] == [f"{photo_host.base}/box.png"]
    assert [request["path"] for request in photo_host.requests] == ["/box.png"]
    expect(page).to_have_url(re.compile(r"/p/default/sessions/photo/\?media=localhost%3A[0-9]+#entry-[0-9]+$"))
