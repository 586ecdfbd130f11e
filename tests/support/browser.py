"""What browser tests share beyond their fixtures: how long a live update may take, and screenshots."""

from pathlib import Path

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
# Long enough for a live update (sent at once, then at most once a second) on a busy machine.
LIVE_TIMEOUT_MS = 5_000


def screenshot(page, name, directory=SCREENSHOTS, full_page=True):
    """``name``.png of the page in ``directory``: the whole page, or with ``full_page`` False what the window shows."""
    directory.mkdir(parents=True, exist_ok=True)
    # caret="hide" would leave style="" on inputs, which htmx then copies when it settles a swap: a CSP violation.
    page.screenshot(path=directory / f"{name}.png", full_page=full_page, caret="initial")


class RequestLog:
    """Every request a page (or a whole browser context) sends, in the order Playwright reports them."""

    def __init__(self, source):
        self.requests = []
        source.on("request", lambda request: self.requests.append(request))

    def to(self, prefix, method=None):
        """The requests whose URL starts with ``prefix`` (and whose method is ``method``)."""
        return [
            request for request in self.requests if request.url.startswith(prefix) and method in (None, request.method)
        ]
