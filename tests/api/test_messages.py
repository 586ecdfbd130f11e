import pytest

from tests.support.items import assistant, function_call, function_output, user
from tests.support.readers import assert_error, items_via_api


def test_it_exports_the_history_as_chat_messages(api, session_id):
    api.post(
        f"sessions/{session_id}/items",
        {
            "items": [
                {"role": "system", "content": "Be brief."},
                user("weather?"),
                function_call("call-1", "get_weather", {"city": "Oslo"}),
                function_output("call-1", "rain"),
                assistant("It rains."),
            ]
        },
    )

    response = api.get(f"sessions/{session_id}/messages")

    assert response.status_code == 200
    assert response.json() == {
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call-1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call-1", "name": "get_weather", "content": "rain"},
            {"role": "assistant", "content": "It rains."},
        ]
    }


def test_an_unknown_session_has_no_messages(api):
    assert api.get("sessions/nobody/messages").json() == {"messages": []}


CHAT = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "weather?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "w", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "t1", "name": "w", "content": "rain"},
    {"role": "assistant", "content": "It rains."},
]


def test_it_replaces_the_history_with_messages_dropping_a_leading_system_message(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("old")]})

    response = api.put(f"sessions/{session_id}/messages", {"messages": CHAT})

    assert response.status_code == 200
    assert response.json() == {"itemCount": 4}
    assert items_via_api(api, session_id) == CHAT[1:]
    assert api.get(f"sessions/{session_id}/messages").json() == {"messages": CHAT[1:]}


@pytest.mark.parametrize(
    "messages, message",
    [
        ("not a list", "expected an array of messages"),
        ({"role": "user"}, "expected an array of messages"),
        ([{"role": "user", "content": "a"}, "b"], "message at index 1 is not an object"),
        ([{"role": "robot", "content": "a"}], 'message at index 0 has unknown role "robot"'),
        ([{"role": "tool", "tool_call_id": "t9", "content": "x"}], 'orphaned tool_call_id "t9"'),
        (
            [{"role": "user", "content": "a"}, {"role": "system", "content": "s"}],
            "unexpected system message at index 1",
        ),
    ],
)
def test_it_rejects_an_invalid_history_and_changes_nothing(api, session_id, messages, message):
    api.post(f"sessions/{session_id}/items", {"items": [user("old")]})

    response = api.put(f"sessions/{session_id}/messages", {"messages": messages})

    assert_error(response, 400, "invalid_history", message)
    assert items_via_api(api, session_id) == [user("old")]
