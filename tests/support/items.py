"""Items in the agents' dialects, as a test sends or stores them."""

import json


def user(text, **fields):
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}], **fields}


def assistant(text, **fields):
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}], **fields}


def function_call(call_id, name="get_weather", arguments='{"city": "Paris"}', **fields):
    """``arguments`` as the agent sends them: a JSON string, or a dict this encodes."""
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments)
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments, **fields}


def function_output(call_id, output="22C and sunny", **fields):
    return {"type": "function_call_output", "call_id": call_id, "output": output, **fields}
