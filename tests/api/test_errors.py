"""Errors the API answers before an endpoint runs: size, JSON, schema."""

import pytest

from historyhub.api import BODY_MESSAGE
from tests.api.wire import assert_error, stored_items


def test_a_body_over_the_limit_is_refused_with_413(api, session_id, settings):
    settings.HISTORYHUB_MAX_BODY_BYTES = 1000

    response = api.post(f"sessions/{session_id}/items", {"items": [{"role": "user", "content": "x" * 2000}]})

    assert_error(response, 413, "payload_too_large", "The request body is larger than 1000 bytes.")
    assert stored_items(api, session_id) == []


def test_the_body_limit_applies_before_authentication(anonymous, settings):
    settings.HISTORYHUB_MAX_BODY_BYTES = 10

    assert_error(anonymous.post("sessions", {"agent": "a" * 100}), 413, "payload_too_large")


@pytest.mark.parametrize("raw", ['{"items": [', "not json", "\xff", "[]", '"text"'])
def test_a_body_that_is_not_a_json_object_is_invalid_input(api, session_id, raw):
    response = api.post(f"sessions/{session_id}/items", raw=raw)

    assert_error(response, 400, "invalid_input", BODY_MESSAGE)
    assert stored_items(api, session_id) == []


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
    assert stored_items(api, session_id) == []


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

    assert stored_items(api, session_id) == [item]
    assert api.get("sessions", q="after").json()["total"] == 1
