"""Clients whose writes carry an Idempotency-Key."""

import pytest

from historyhub.apikeys.models import ApiKey
from tests.support.actors import KeyedApiClient


@pytest.fixture
def keyed(write_key):
    """keyed("k1") is a client of the write key whose requests carry Idempotency-Key: k1."""
    return lambda idempotency_key, **client_options: KeyedApiClient(write_key, idempotency_key, **client_options)


@pytest.fixture
def other_write_key(db):
    return ApiKey.issue("tests (another write key)", "write")[1]
