"""What the API tests share: clients without a usable key, and a session to work on."""

import pytest

from historyhub.apikeys.models import ApiKey
from tests.conftest import ApiClient


@pytest.fixture
def anonymous(db):
    return ApiClient()


@pytest.fixture
def revoked_api(db):
    api_key, key = ApiKey.issue("tests (revoked)", "write")
    api_key.revoke()
    return ApiClient(key)


@pytest.fixture
def session_id(api):
    response = api.post("sessions", {"sessionId": "support-42", "agent": "support"})
    assert response.status_code == 201
    return "support-42"
