"""A client whose key was revoked, for the API tests."""

import pytest

from historyhub.apikeys.models import ApiKey
from tests.support.actors import ApiClient


@pytest.fixture
def revoked_api(db):
    api_key, key = ApiKey.issue("tests (revoked)", "write")
    api_key.revoke()
    return ApiClient(key)
