"""Clients whose writes carry an Idempotency-Key."""

import pytest

from historyhub.apikeys.models import ApiKey
from tests.api.conftest import anonymous, session_id  # noqa: F401  (the API tests' fixtures, shared)
from tests.conftest import ApiClient

HEADER = "Idempotency-Key"


class KeyedApiClient(ApiClient):
    """An ApiClient sending ``Idempotency-Key: <idempotency_key>`` on every request."""

    def __init__(self, key, idempotency_key, **client_options):
        super().__init__(key)
        self.idempotency_key = idempotency_key
        if client_options:
            self.client = type(self.client)(**client_options)

    def _headers(self, extra):
        return super()._headers({HEADER: self.idempotency_key, **(extra or {})})


@pytest.fixture
def keyed(write_key):
    """keyed("k1") is a client of the write key whose requests carry Idempotency-Key: k1."""
    return lambda idempotency_key, **client_options: KeyedApiClient(write_key, idempotency_key, **client_options)


@pytest.fixture
def other_write_key(db):
    return ApiKey.issue("tests (another write key)", "write")[1]
