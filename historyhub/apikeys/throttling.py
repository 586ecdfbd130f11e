"""Per-key API rate limits with ninja's throttling, at the rates of API_RATE_LIMITS.

The counts live in Django's cache (settings.CACHES): shared by every process
with Redis, per process in memory otherwise. A cache that fails lets requests
through rather than failing them.
"""

import logging
import threading

from django.conf import settings
from ninja.throttling import BaseThrottle, SimpleRateThrottle

logger = logging.getLogger(__name__)


class KeyRate(SimpleRateThrottle):
    """One rate ("100/s") for the API key that authenticated the request."""

    def get_cache_key(self, request):
        api_key = getattr(request, "auth", None)
        if api_key is None:
            return None
        # The key's hash, not its row id: ids come back after a test rolls back, hashes do not.
        return f"throttle:{self.rate}:{api_key.key_hash}"


class ApiKeyRateThrottle(BaseThrottle):
    """Every rate of settings.HISTORYHUB_API_RATE_LIMITS at once; the longest wait wins.

    ninja shares one throttle between threads and asks ``wait()`` right after
    ``allow_request()``, so the waits are kept per thread.
    """

    def __init__(self):
        self.local = threading.local()

    def allow_request(self, request):
        self.local.waits = []
        for rate in settings.HISTORYHUB_API_RATE_LIMITS:
            limit = KeyRate(rate)
            try:
                allowed = limit.allow_request(request)
            except Exception as error:  # the cache is down: no limit rather than no service
                logger.warning("API rate limits skipped, the cache failed: %s: %s", type(error).__name__, error)
                return True
            if not allowed:
                self.local.waits.append(limit.wait() or limit.duration)
        return not self.local.waits

    def wait(self):
        return max(self.local.waits, default=None)
