"""Every id that can be stored can be addressed: call ids and message ids travel percent-encoded in paths."""

from urllib.parse import quote

import pytest

from tests.support.items import user
from tests.support.readers import items_via_api

# Ids that look like more path (a slash, a trailing /result), escapes, spaces, line breaks, and text beyond ASCII.
IDS = [
    "call/1",
    "a/result",
    "b/decision",
    "x/decision/result",
    "100%",
    "%2F",
    "with space",
    "ünïcødé/ß 🚀",
    "/leading",
    "trailing/",
    "a//b",
    "result",
    "decision",
    "?query#fragment",
    "line\nbreak",
    "\r\n",
    "tab\there/result",
]


def action_path(session_id, call_id):
    return f"sessions/{session_id}/client-actions/{quote(call_id, safe='')}"


def open_action(api, session_id, call_id):
    response = api.post(f"sessions/{session_id}/client-actions", {"callId": call_id, "name": "n", "arguments": {}})
    assert response.status_code == 201, response.content


@pytest.mark.parametrize("call_id", IDS)
def test_a_call_id_of_any_characters_can_be_read_and_waited_on(api, session_id, call_id):
    open_action(api, session_id, call_id)

    read = api.get(action_path(session_id, call_id))
    waited = api.get(action_path(session_id, call_id), wait=0)

    assert (read.status_code, read.json()["callId"]) == (200, call_id)
    assert (waited.status_code, waited.json()["callId"]) == (200, call_id)


@pytest.mark.parametrize("call_id", IDS)
def test_a_call_id_of_any_characters_can_be_decided(api, decide_api, session_id, call_id):
    open_action(api, session_id, call_id)

    response = decide_api.post(f"{action_path(session_id, call_id)}/decision", {"decision": "reject", "comment": "no"})

    assert response.status_code == 200, response.content
    assert (response.json()["callId"], response.json()["status"]) == (call_id, "rejected")


@pytest.mark.parametrize("call_id", IDS)
def test_a_call_id_of_any_characters_can_be_given_its_result(api, session_id, call_id):
    open_action(api, session_id, call_id)

    response = api.post(f"{action_path(session_id, call_id)}/result", {"output": "done"})

    assert response.status_code == 200, response.content
    assert (response.json()["callId"], response.json()["output"]) == (call_id, "done")


def test_an_action_whose_id_ends_in_result_is_not_confused_with_the_result_of_another(api, session_id):
    open_action(api, session_id, "a")
    open_action(api, session_id, "a/result")

    api.post(f"{action_path(session_id, 'a/result')}/result", {"output": "for a/result"})

    assert api.get(action_path(session_id, "a")).json()["status"] == "waiting"
    assert api.get(action_path(session_id, "a/result")).json()["output"] == "for a/result"


@pytest.mark.parametrize("message_id", ["m/1", "100% sure", "ünï/🚀", "a//b", "line\nbreak", "\n"])
def test_a_message_id_of_any_characters_can_be_looked_up(api, session_id, message_id):
    api.post(
        f"sessions/{session_id}/items",
        {"items": [user("hello", id=message_id), {"role": "assistant", "content": "hi"}]},
    )

    response = api.get(f"sessions/{session_id}/responses/{quote(message_id, safe='')}")

    assert response.status_code == 200
    assert (response.json()["result"], response.json()["entry"]["id"]) == ("hit", message_id)


@pytest.mark.parametrize("message_id", ["message:²", "message:١", "message:" + "9" * 40])
def test_a_position_id_of_digits_that_are_not_ascii_or_too_many_is_a_miss(api, session_id, message_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("hello")]})

    response = api.get(f"sessions/{session_id}/responses/{quote(message_id, safe='')}")

    assert (response.status_code, response.json()) == (200, {"result": "miss"})
    assert len(items_via_api(api, session_id)) == 1
