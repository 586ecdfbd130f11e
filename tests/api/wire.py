"""Items in the agents' dialects, and reading answers off the wire."""

import json


def user(text, **fields):
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}], **fields}


def assistant(text, **fields):
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}], **fields}


def function_call(call_id, name, arguments):
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": json.dumps(arguments)}


def function_output(call_id, output):
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def stored_items(api, session_id, **params):
    """GET …/items, whose answer is streamed."""
    response = api.get(f"sessions/{session_id}/items", **params)
    assert response.status_code == 200, response
    assert response["Content-Type"] == "application/json"
    return json.loads(b"".join(response.streaming_content))["items"]


def assert_error(response, status, code, message=None):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    assert set(error) == {"code", "message"}
    if message is not None:
        assert error["message"] == message
    return error["message"]
