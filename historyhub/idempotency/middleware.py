"""``Idempotency-Key`` on every write under /api/v1: applied once, answered the same on a repeat."""

import re

from asgiref.sync import async_to_sync, sync_to_async
from django.db import transaction

from historyhub.apikeys.auth import BearerApiKey
from historyhub.apikeys.models import Scope
from historyhub.faults import error_response
from historyhub.idempotency import records
from historyhub.middleware import ChainMiddleware

API_PREFIX = "/api/v1/"
HEADER = "Idempotency-Key"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# 1 to 255 printable ASCII characters, space included.
KEY_PATTERN = re.compile(r"[ -~]{1,255}")
INVALID_KEY_MESSAGE = f"{HEADER} must be 1 to 255 printable ASCII characters."


def applies_to(request):
    return request.method in WRITE_METHODS and request.path_info.startswith(API_PREFIX)


class IdempotencyMiddleware(ChainMiddleware):
    """Apply a keyed write once per API key, and replay its answer to an equal repeat.

    The request runs in one transaction with the insert of its key's record
    and the record's answer, so the change and its record commit together or
    not at all. An answer of 5xx is rolled back with its record: the client
    may retry it.

    In an async chain (the ASGI server) every other request passes straight
    on; a keyed write runs in a thread, as Django runs a synchronous view, so
    its transaction wraps the view.
    """

    bearer_api_key = BearerApiKey()

    def __call__(self, request):
        if self.async_mode:
            return self.__acall__(request)
        return self.handle(request, self.get_response)

    async def __acall__(self, request):
        if request.headers.get(HEADER) is None or not applies_to(request):
            return await self.get_response(request)
        return await sync_to_async(self.handle, thread_sensitive=True)(request, async_to_sync(self.get_response))

    def handle(self, request, get_response):
        key = request.headers.get(HEADER)
        if key is None or not applies_to(request):
            return get_response(request)
        api_key = self.bearer_api_key(request)
        if api_key is None or not (api_key.allows(Scope.WRITE) or api_key.allows(Scope.DECIDE)):
            # The API answers 401 or 403, which change nothing: there is nothing to record.
            return get_response(request)
        if not KEY_PATTERN.fullmatch(key):
            return error_response("invalid_input", INVALID_KEY_MESSAGE, 400)
        fingerprint = records.Fingerprint.of(request)
        # The insert of the key's record decides, first time or repeat: no read before it.
        with transaction.atomic():
            recorded = records.start(api_key, key, fingerprint)
            if recorded is None:
                return self._apply(request, get_response, api_key, key)
        return records.answer(recorded, fingerprint)

    def _apply(self, request, get_response, api_key, key):
        """Run the request in the open transaction and record its answer there."""
        response = get_response(request)
        if records.is_recorded(response.status_code):
            records.finish(api_key, key, response)
        else:
            transaction.set_rollback(True)
        return response
