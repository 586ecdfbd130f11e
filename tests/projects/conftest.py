"""The invitations' mail goes to a local SMTP server; the worker sends it in the test's own thread."""

import re

import pytest

from tests.support.smtp import local_inbox

LINK = re.compile(r"https?://\S+/accounts/invitations/([A-Za-z0-9_-]+)/")


@pytest.fixture(autouse=True)
def worker_in_this_thread(settings):
    # The worker in the test's own process sends in its thread, inside the test's transaction.
    settings.NOTIFICATIONS_SEND_THREADS = 1
    settings.HISTORYHUB_PUBLIC_URL = "https://historyhub.example.com"


@pytest.fixture
def inbox(settings):
    with local_inbox(settings) as handler:
        yield handler
