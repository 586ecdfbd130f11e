"""Schemathesis hooks for bench/api_check.py (docs/stress.md): the rules an OpenAPI document cannot state.

They change only values the schema allows, into values the contract accepts,
so a request that should be refused still is:

- A valid ``Idempotency-Key`` becomes one of its own per request. Generated
  keys repeat ("0", "a"), and a key reused with another request is answered
  409 by design (docs/idempotency.md), which would hide the endpoint behind it.
- ``wait`` is at most half a second, so a run is not spent waiting on actions.
- An ``expiresAt`` in the past moves a day into the future: it must lie ahead
  when the action is opened.
- A chat history's tool message whose ``tool_call_id`` no earlier assistant
  message announced gets an assistant message announcing it just before it.
- A ``callId`` in a body loses its ``%`` signs. The stateful phase copies it
  into a later path unencoded when it looks percent-encoded ("%C3%B6"), so the
  server rightly decodes it to another id and the check reports the action it
  created as missing.
- A ``responseSchema`` keeps in ``required`` only names of its properties, and
  drops a ``default`` that does not fit its property (the two rules of the
  subset JSON Schema cannot state, docs/api.md "Client actions").

And a serializer for the import's body (``application/x-ndjson``, lines of JSON),
which schemathesis does not know: a generated string is sent as its UTF-8 bytes.
"""

import json
import re
import uuid
from datetime import UTC, datetime, timedelta

import schemathesis

from historyhub.history import response_schemas
from historyhub.lib.errors import InvalidInput

KEY = "Idempotency-Key"
VALID_KEY = re.compile(r"[ -~]{1,255}")
LONGEST_WAIT = 0.5


@schemathesis.serializer("application/x-ndjson")
def json_lines(ctx, value):
    if isinstance(value, bytes):
        return value
    text = value if isinstance(value, str) else json.dumps(value)
    return text.encode("utf-8", "surrogatepass")


@schemathesis.hook
def before_call(ctx, case, kwargs):
    """Every request passes here, whichever phase or check made it."""
    headers = case.headers
    if headers and isinstance(headers.get(KEY), str) and VALID_KEY.fullmatch(headers[KEY]):
        headers[KEY] = uuid.uuid4().hex
    wait = _number(case.query.get("wait")) if case.query else None
    if wait is not None and 0 <= wait <= 60:
        case.query["wait"] = min(wait, LONGEST_WAIT)
    body = case.body
    if isinstance(body, dict):
        if isinstance(body.get("expiresAt"), str):
            body["expiresAt"] = _in_the_future(body["expiresAt"])
        if isinstance(body.get("callId"), str) and "%" in body["callId"]:
            body["callId"] = body["callId"].replace("%", "-")
        if isinstance(body.get("messages"), list):
            body["messages"] = _announced(body["messages"])
        if isinstance(body.get("responseSchema"), dict):
            _fitted(body["responseSchema"])


def _number(value):
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _in_the_future(text):
    try:
        moment = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return text
    if moment.tzinfo is None or moment > datetime.now(UTC):
        return text
    return (datetime.now(UTC) + timedelta(days=1)).isoformat().replace("+00:00", "Z")


def _fitted(schema):
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    if isinstance(schema.get("required"), list):
        schema["required"] = [name for name in schema["required"] if isinstance(name, str) and name in properties]
    for name, prop in properties.items():
        if not isinstance(prop, dict) or "default" not in prop or prop.get("type") not in response_schemas.TYPES:
            continue
        try:
            response_schemas.check_value(name, prop, prop["default"])
        except InvalidInput:
            del prop["default"]


def _announced(messages):
    known, result = set(), []
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "assistant":
            for call in message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else []:
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    known.add(call["id"])
        call_id = message.get("tool_call_id") if isinstance(message, dict) else None
        is_tool = isinstance(message, dict) and message.get("role") == "tool"
        if is_tool and isinstance(call_id, str) and call_id not in known:
            call = {"id": call_id, "type": "function", "function": {"name": "tool", "arguments": "{}"}}
            result.append({"role": "assistant", "content": None, "tool_calls": [call]})
            known.add(call_id)
        result.append(message)
    return result
