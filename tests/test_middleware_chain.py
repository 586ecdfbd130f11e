"""The middleware chain under ASGI: nothing in it may hold a thread for a whole request."""

from django.conf import settings
from django.utils.module_loading import import_string


def test_every_middleware_can_run_in_an_async_chain():
    # One that cannot makes Django run the rest of the chain, waits and live streams
    # included, inside a thread that stays blocked until the answer is sent.
    sync_only = [path for path in settings.MIDDLEWARE if not getattr(import_string(path), "async_capable", False)]

    assert sync_only == []
