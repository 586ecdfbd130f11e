"""Errors the API answers before or beside its endpoints: size, JSON, schema, paths, methods, crashes."""

import pytest
from django.db.backends.utils import CursorWrapper
from django.middleware.common import CommonMiddleware
from django.test import Client

from historyhub.api import BODY_MESSAGE
from tests.support.actors import KeyedApiClient
from tests.support.readers import assert_error, envelope, items_via_api


def test_a_body_over_the_limit_is_refused_with_413(api, session_id, settings):
    settings.HISTORYHUB_MAX_BODY_BYTES = 1000

    response = api.post(f"sessions/{session_id}/items", {"items": [{"role": "user", "content": "x" * 2000}]})

    assert_error(response, 413, "payload_too_large", "The request body is larger than 1000 bytes.")
    assert items_via_api(api, session_id) == []


def test_the_body_limit_applies_before_authentication(anonymous, settings):
    settings.HISTORYHUB_MAX_BODY_BYTES = 10

    assert_error(anonymous.post("sessions", {"agent": "a" * 100}), 413, "payload_too_large")


@pytest.mark.parametrize("raw", ['{"items": [', "not json", "\xff", "[]", '"text"'])
def test_a_body_that_is_not_a_json_object_is_invalid_input(api, session_id, raw):
    response = api.post(f"sessions/{session_id}/items", raw=raw)

    assert_error(response, 400, "invalid_input", BODY_MESSAGE)
    assert items_via_api(api, session_id) == []


@pytest.mark.parametrize(
    "raw, reason",
    [
        ('{"items": [NaN]}', "holds NaN, which is not a JSON number"),
        ('{"items": [Infinity]}', "holds Infinity, which is not a JSON number"),
        ('{"items": [{"score": 1e400}]}', "holds the number 1e400, which is out of range"),
        ('{"items": [{"score": -2.5E+999}]}', "holds the number -2.5E+999, which is out of range"),
        ('{"items": [' + "[" * 105 + "]" * 105 + "]}", "is nested more than 104 levels deep"),
    ],
)
def test_a_json_body_outside_the_intake_rules_is_refused_saying_why(api, session_id, raw, reason):
    response = api.post(f"sessions/{session_id}/items", raw=raw)

    assert_error(response, 400, "invalid_input", f"The request body {reason}.")
    assert items_via_api(api, session_id) == []


def test_a_missing_body_is_invalid_input(api, session_id):
    assert_error(api.post(f"sessions/{session_id}/items", raw=""), 400, "invalid_input", "body: Field required")


@pytest.mark.parametrize("raw", ["[]", '"items"', "3", "null"])
def test_a_body_that_is_not_an_object_is_invalid_input(api, session_id, raw):
    before = api.get(f"sessions/{session_id}").json()

    assert_error(api.patch(f"sessions/{session_id}", raw=raw), 400, "invalid_input", BODY_MESSAGE)
    assert api.get(f"sessions/{session_id}").json() == before


def test_schema_failures_are_400_naming_the_field_never_422(api, session_id):
    response = api.post(
        f"sessions/{session_id}/transactions",
        {"operationId": "op", "transaction": {"type": "replace_suffix", "replacement": []}},
    )

    assert_error(response, 400, "invalid_input", "transaction.replace_suffix.expectedSuffix: Field required")


def test_query_failures_are_400_naming_the_parameter(api, session_id):
    assert_error(
        api.get(f"sessions/{session_id}/items", limit="many"),
        400,
        "invalid_input",
        "limit: Input should be a valid integer, unable to parse string as an integer",
    )


def test_an_invalid_session_id_in_the_path_is_400_and_changes_nothing(api):
    response = api.put("sessions/a..b%20c/items", {"items": []})

    assert_error(response, 400, "invalid_input")
    assert api.get("sessions").json()["total"] == 0


def test_a_session_id_longer_than_200_characters_is_invalid(api):
    assert_error(api.post(f"sessions/{'a' * 201}/items", {"items": []}), 400, "invalid_input")
    assert api.post(f"sessions/{'a' * 200}/items", {"items": []}).status_code == 200


@pytest.mark.parametrize(
    "path, params",
    [
        ("sessions", {"q": "a\u0000b"}),
        ("sessions", {"agent": "a\u0000b"}),
        ("client-actions", {"sessionId": "a\u0000b"}),
        ("sessions/s1/responses/a%00b", {}),
        ("sessions/s1/client-actions/a%00b", {}),
    ],
)
def test_a_nul_character_in_a_filter_or_path_id_is_invalid_input(api, path, params):
    api.post("sessions", {"sessionId": "s1", "agent": "a"})

    assert_error(api.get(path, **params), 400, "invalid_input")


@pytest.mark.parametrize(
    "raw, field",
    [
        ('{"agent": "a\\u0000b"}', "agent"),
        ('{"agent": "a", "name": "\\ud800"}', "name"),
    ],
)
def test_a_body_string_a_text_column_cannot_hold_is_invalid_input(api, raw, field):
    response = api.post("sessions", raw=raw)

    assert_error(response, 400, "invalid_input", f"{field} must not contain NUL characters or unpaired surrogates.")
    assert api.get("sessions").json()["total"] == 0


def test_a_nul_character_in_message_text_is_kept_verbatim(api, session_id):
    item = {"role": "user", "content": "before\u0000after"}

    api.post(f"sessions/{session_id}/items", {"items": [item]})

    assert items_via_api(api, session_id) == [item]
    assert api.get("sessions", q="after").json()["total"] == 1


@pytest.mark.parametrize("path", ["/api/", "/api/nothing", "/api/v1/nothing", "/api/v1/sessions/", "/api/v2/sessions"])
def test_an_unknown_path_under_api_answers_json_404_not_found(api, path):
    assert_error(api.get(path), 404, "not_found", f"There is nothing at {path}.")


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH"])
def test_a_method_the_path_does_not_take_answers_json_405_with_allow(api, method):
    response = api.request(method, "sessions", {})

    assert_error(
        response, 405, "method_not_allowed", f"{method} is not allowed on /api/v1/sessions; it takes GET, POST."
    )
    assert response["Allow"] == "GET, POST"


def every_kind_of_error(api, anonymous, read_api, write_key, session_id, settings):
    """One request for each way an error answer is made: ninja's schema check and body parser, the domain, the
    key check, Django's resolver and ninja's dispatch, the body limit, the rate limit, Idempotency-Key."""
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "refund", "arguments": {}})
    KeyedApiClient(write_key, "k1").post("sessions", {"sessionId": "s-one", "agent": "a"})
    yield "schema", lambda: api.post(f"sessions/{session_id}/transactions", {"operationId": "op"}), 400
    yield "body", lambda: api.post(f"sessions/{session_id}/items", raw="not json"), 400
    past = {"callId": "c2", "name": "refund", "arguments": {}, "expiresAt": "2020-01-01T00:00:00Z"}
    yield "domain", lambda: api.post(f"sessions/{session_id}/client-actions", past), 400
    yield "key", lambda: anonymous.get("sessions"), 401
    yield "scope", lambda: read_api.post("sessions", {"agent": "a"}), 403
    yield "path", lambda: api.get("/api/v1/nothing"), 404
    yield "missing", lambda: api.get("sessions/nobody"), 404
    yield "method", lambda: api.request("DELETE", "sessions", {}), 405
    other = {"callId": "c1", "name": "other", "arguments": {}}
    yield "conflict", lambda: api.post(f"sessions/{session_id}/client-actions", other), 409
    yield "idempotency key", lambda: KeyedApiClient(write_key, "k" * 256).post("sessions", {"agent": "a"}), 400
    reuse = KeyedApiClient(write_key, "k1")
    yield "idempotency reuse", lambda: reuse.post("sessions", {"sessionId": "s-two", "agent": "a"}), 409
    settings.HISTORYHUB_MAX_BODY_BYTES = 100
    yield "size", lambda: api.post("sessions", {"agent": "a" * 200}), 413
    settings.HISTORYHUB_MAX_BODY_BYTES = 10 * 1024 * 1024
    settings.HISTORYHUB_API_RATE_LIMITS = ["1/min"]
    api.get("sessions")
    yield "rate", lambda: api.get("sessions"), 429


def test_every_kind_of_error_answer_is_exactly_the_envelope(api, anonymous, read_api, write_key, session_id, settings):
    answered = []
    for kind, request, status in every_kind_of_error(api, anonymous, read_api, write_key, session_id, settings):
        response = request()
        assert response.status_code == status, (kind, response.content)
        envelope(response["Content-Type"], response.content)
        answered.append(status)

    assert answered == [400, 400, 400, 401, 403, 404, 404, 405, 409, 400, 409, 413, 429]


@pytest.fixture
def broken_database_driver():
    """A bug below our code: every query fails with an error nobody expects."""

    def execute(*args, **kwargs):
        raise RuntimeError("the driver broke")

    # Undone before the test's database is rolled back, which queries too.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CursorWrapper, "execute", execute)
        yield


@pytest.mark.parametrize("debug", [False, True])
def test_an_unexpected_exception_answers_json_500_and_is_logged_with_its_traceback(
    api, settings, broken_database_driver, caplog, debug
):
    settings.DEBUG = debug
    api.client.raise_request_exception = False

    response = api.get("sessions")

    assert_error(response, 500, "internal_error", "The server failed to answer this request; the failure was logged.")
    assert "RuntimeError: the driver broke" in caplog.text


@pytest.mark.parametrize("debug", [False, True])
def test_an_exception_outside_the_endpoints_answers_json_too(api, settings, monkeypatch, debug):
    settings.DEBUG = debug
    api.client.raise_request_exception = False

    def process_request(self, request):
        raise RuntimeError("a middleware broke")

    monkeypatch.setattr(CommonMiddleware, "process_request", process_request)

    assert_error(api.get("sessions"), 500, "internal_error")
    assert Client(raise_request_exception=False).get("/").status_code == 500
