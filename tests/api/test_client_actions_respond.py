"""Every kind of decision, allowed and refused: allowedResponses, responseSchema, respond and dismiss."""

import pytest

from tests.support.readers import assert_error

SCHEMA = {
    "type": "object",
    "properties": {
        "amount": {"type": "integer", "minimum": 1, "maximum": 10000, "title": "Amount"},
        "reason": {"type": "string", "maxLength": 20},
        "channel": {"type": "string", "enum": ["email", "phone"]},
        "notify": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["amount"],
}


def open_action(api, session_id, call_id="c1", **fields):
    body = {"callId": call_id, "name": "ask_finance", "arguments": {"orderId": 7}, **fields}
    return api.post(f"sessions/{session_id}/client-actions", body)


@pytest.fixture
def free_text(api, session_id):
    open_action(api, session_id, allowedResponses=["respond", "dismiss"])
    return f"sessions/{session_id}/client-actions/c1"


@pytest.fixture
def with_schema(api, session_id):
    assert (
        open_action(api, session_id, allowedResponses=["approve", "respond"], responseSchema=SCHEMA).status_code == 201
    )
    return f"sessions/{session_id}/client-actions/c1"


def test_an_action_allows_approve_edit_and_reject_unless_it_says_otherwise(api, session_id):
    action = open_action(api, session_id).json()

    assert (action["allowedResponses"], action["responseSchema"], action["response"]) == (
        ["approve", "edit", "reject"],
        None,
        None,
    )


def test_a_free_text_response_answers_the_action_and_the_run_runs_again(decide_api, api, session_id, free_text):
    decided = decide_api.post(f"{free_text}/decision", {"decision": "respond", "response": "Use the old address."})

    assert decided.status_code == 200
    body = decided.json()
    assert (body["status"], body["decision"], body["response"]) == ("answered", "respond", "Use the old address.")
    [item] = api.get(f"sessions/{session_id}/history").json()["items"]
    assert (item["status"], item["summary"]) == ("completed", "ask finance was answered.")
    assert api.get(f"sessions/{session_id}").json()["runStatus"] == "running"


def test_a_response_valid_against_the_schema_is_kept(decide_api, with_schema):
    answer = {"amount": 120, "channel": "email", "notify": True, "tags": ["vip"]}

    body = decide_api.post(f"{with_schema}/decision", {"decision": "respond", "response": answer}).json()

    assert (body["status"], body["response"]) == ("answered", answer)
    assert body["responseSchema"] == SCHEMA


@pytest.mark.parametrize(
    "answer, message",
    [
        ("just text", "response: response must be an object matching the action's responseSchema."),
        ({"reason": "x"}, "response: response.amount is required."),
        ({"amount": 0}, "response: response.amount must be at least 1."),
        ({"amount": 2.5}, "response: response.amount must be an integer."),
        ({"amount": 5, "reason": "x" * 21}, "response: response.reason must be at most 20 characters."),
        ({"amount": 5, "channel": "fax"}, "response: response.channel must be one of email, phone."),
        ({"amount": 5, "notify": "yes"}, "response: response.notify must be true or false."),
        ({"amount": 5, "tags": [1]}, "response: response.tags must be a list of strings."),
        ({"amount": 5, "colour": "red"}, "response: response.colour is not a property of the responseSchema."),
    ],
)
def test_an_invalid_answer_is_refused_naming_the_field_and_changes_nothing(
    decide_api, api, with_schema, answer, message
):
    refused = decide_api.post(f"{with_schema}/decision", {"decision": "respond", "response": answer})

    assert assert_error(refused, 400, "invalid_input").endswith(message.split(": ", 1)[1])
    assert api.get(with_schema).json()["status"] == "waiting"


def test_a_structured_answer_is_refused_without_a_schema(decide_api, api, free_text):
    refused = decide_api.post(f"{free_text}/decision", {"decision": "respond", "response": {"a": 1}})

    assert "response must be a string" in assert_error(refused, 400, "invalid_input")
    assert api.get(free_text).json()["status"] == "waiting"


def test_respond_needs_a_response(decide_api, free_text):
    assert "response is required" in assert_error(
        decide_api.post(f"{free_text}/decision", {"decision": "respond"}), 400, "invalid_input"
    )


def test_dismiss_closes_the_action_without_an_answer(decide_api, api, session_id, free_text):
    body = decide_api.post(f"{free_text}/decision", {"decision": "dismiss", "comment": "Not needed."}).json()

    assert (body["status"], body["decision"], body["response"], body["comment"]) == (
        "dismissed",
        "dismiss",
        None,
        "Not needed.",
    )
    [item] = api.get(f"sessions/{session_id}/history").json()["items"]
    assert (item["status"], item["summary"]) == ("failed", "ask finance was dismissed.")


@pytest.mark.parametrize(
    "body, kind",
    [
        ({"decision": "approve"}, "approve"),
        ({"decision": "reject"}, "reject"),
        ({"decision": "approve", "arguments": {"orderId": 8}}, "edit"),
    ],
)
def test_a_kind_the_action_does_not_allow_is_refused(decide_api, api, free_text, body, kind):
    refused = decide_api.post(f"{free_text}/decision", body)

    assert_error(refused, 400, "invalid_input", f'This action does not allow the response "{kind}".')
    assert api.get(free_text).json()["status"] == "waiting"


def test_respond_and_dismiss_are_refused_where_only_the_defaults_are_allowed(decide_api, api, session_id):
    open_action(api, session_id)
    action = f"sessions/{session_id}/client-actions/c1"

    for body, kind in (({"decision": "respond", "response": "x"}, "respond"), ({"decision": "dismiss"}, "dismiss")):
        refused = decide_api.post(f"{action}/decision", body)
        assert_error(refused, 400, "invalid_input", f'This action does not allow the response "{kind}".')


def test_approving_the_arguments_as_sent_is_no_edit(decide_api, with_schema):
    decided = decide_api.post(f"{with_schema}/decision", {"decision": "approve", "arguments": {"orderId": 7}})

    assert decided.json()["status"] == "approved"


def test_the_same_answer_twice_is_unchanged_and_another_is_a_conflict(decide_api, free_text):
    first = decide_api.post(f"{free_text}/decision", {"decision": "respond", "response": "yes"}).json()

    assert decide_api.post(f"{free_text}/decision", {"decision": "respond", "response": "yes"}).json() == first
    assert_error(
        decide_api.post(f"{free_text}/decision", {"decision": "respond", "response": "no"}),
        409,
        "action_result_conflict",
    )
    assert_error(decide_api.post(f"{free_text}/decision", {"decision": "dismiss"}), 409, "action_result_conflict")


@pytest.mark.parametrize(
    "fields",
    [
        {"allowedResponses": []},
        {"allowedResponses": ["approve", "maybe"]},
        {"allowedResponses": "approve"},
        {"responseSchema": {"type": "array"}},
        {"responseSchema": {"type": "object", "properties": {}}},
        {"responseSchema": {"type": "object", "properties": {"a": {"type": "object"}}}},
        {"responseSchema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}}},
        {"responseSchema": {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "number"}}}}},
        {"responseSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}},
        {"responseSchema": {"type": "object", "properties": {"a": {"type": "integer", "default": "x"}}}},
        {"responseSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "$ref": "#/x"}},
        {"responseSchema": {"type": "object", "properties": {"": {"type": "string"}}}},
        {"responseSchema": {"type": "object", "properties": {"a": {"type": "array"}}}},
        {"responseSchema": {"type": "object", "properties": {"a": {"type": "string", "maxLength": 2.5}}}},
    ],
)
def test_it_refuses_allowed_responses_or_a_schema_outside_the_contract(api, session_id, fields):
    assert_error(open_action(api, session_id, **fields), 400, "invalid_input")
    assert api.get(f"sessions/{session_id}/client-actions/c1").status_code == 404


def test_a_whole_number_is_an_integer_as_json_schema_reads_it(api, session_id):
    schema = {"type": "object", "properties": {"reason": {"type": "string", "maxLength": 20.0}}}

    assert open_action(api, session_id, allowedResponses=["respond"], responseSchema=schema).status_code == 201


def test_reopening_with_other_allowed_responses_is_a_conflict(api, session_id):
    open_action(api, session_id, allowedResponses=["respond"])

    assert open_action(api, session_id, allowedResponses=["respond"]).status_code == 200
    assert_error(open_action(api, session_id, allowedResponses=["approve"]), 409, "action_result_conflict")
    assert_error(
        open_action(api, session_id, allowedResponses=["respond"], responseSchema=SCHEMA), 409, "action_result_conflict"
    )
